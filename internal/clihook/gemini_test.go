package clihook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestGeminiSettings(t *testing.T) {
	data, err := GeminiSettings("/opt/team lead/teamlead")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type, Name, Command string
				Timeout             int
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Hooks) != len(GeminiStates) {
		t.Fatalf("events %v, want %v", s.Hooks, GeminiStates)
	}
	for ev := range GeminiStates {
		h := s.Hooks[ev]
		if len(h) != 1 || len(h[0].Hooks) != 1 {
			t.Fatalf("%s: %+v", ev, h)
		}
		if c := h[0].Hooks[0]; c.Type != "command" || c.Command != `'/opt/team lead/teamlead' hook` || c.Timeout <= 0 {
			t.Errorf("%s: %+v", ev, c)
		}
		if !IsGeminiEvent(ev) {
			t.Errorf("IsGeminiEvent(%s) false", ev)
		}
	}
	if IsGeminiEvent("Notification") || IsGeminiEvent("PreToolUse") {
		t.Error("a Claude Code event taken for Gemini CLI's")
	}
}

func TestGeminiReads(t *testing.T) {
	dir := t.TempDir()
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil { // whatever the umask
		t.Fatal(err)
	}
	if err := GeminiReads(open); !errors.Is(err, ErrInsecureDir) {
		t.Errorf("GeminiReads(%s) = %v, want ErrInsecureDir", open, err)
	}
	if _, err := WriteGemini(open, "teamlead"); !errors.Is(err, ErrInsecureDir) {
		t.Errorf("WriteGemini into %s: %v", open, err)
	}
	if err := GeminiReads("/"); err != nil {
		t.Errorf("GeminiReads(/) = %v", err)
	}
}
