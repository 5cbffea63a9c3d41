package vt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealCLIScreens replays what Claude Code, Codex and Gemini CLI really
// wrote (internal/protocol/testdata/real) and compares the final screen
// with the one saved at capture time, which was checked identical to tmux
// 3.3a's capture-pane of the same bytes.
func TestRealCLIScreens(t *testing.T) {
	dir := filepath.Join("..", "protocol", "testdata", "real")
	bins, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(bins) == 0 {
		t.Fatal("no captures")
	}
	for _, b := range bins {
		raw, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(b, ".bin") + ".screen.txt")
		if err != nil {
			t.Fatal(err)
		}
		term := New(120, 40, Options{})
		term.Write(raw)
		if got := term.ScreenText(); got != string(want) {
			t.Errorf("%s: replayed screen differs from tmux's:\n%s", filepath.Base(b), got)
		}
		term.Close()
	}
}
