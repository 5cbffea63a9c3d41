package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testbin"
)

// A gemini agent gets teamlead's Gemini CLI hooks as its system defaults
// (GEMINI_CLI_SYSTEM_DEFAULTS_PATH); the hook command they name, run from
// inside the agent with Gemini CLI's BeforeAgent and AfterAgent payloads,
// answers {} and shows the agent busy, then idle, from its hook. A console
// whose state folder Gemini CLI would not read settings from (under /tmp)
// gives no hooks and says so.
func TestGeminiHooksTellTheState(t *testing.T) {
	work := t.TempDir()
	at := func(name string) string { return filepath.Join(work, name) }
	// The agent does what Gemini CLI does with the settings: it runs each
	// event's command with the payload on stdin (the command is read out
	// of the file by the test and handed over in a file of its own).
	script := `echo agent ready; cp "$GEMINI_CLI_SYSTEM_DEFAULTS_PATH" ` + at("settings.json") + `
while [ ! -f ` + at("hook.sh") + ` ]; do sleep 0.05; done
echo '{"session_id":"s","hook_event_name":"BeforeAgent","prompt":"hi"}' | sh ` + at("hook.sh") + ` > ` + at("before.out") + `
while [ ! -f ` + at("go.after") + ` ]; do sleep 0.05; done
echo '{"session_id":"s","hook_event_name":"AfterAgent","prompt":"hi","prompt_response":"ok"}' | sh ` + at("hook.sh") + ` > ` + at("after.out") + `
exec sleep 600`
	tm := newTeam(t, agentDef{name: "gem", role: "developer", preset: "gemini", dir: work, command: []string{"/bin/sh", "-c", script}})
	// Gemini CLI reads no settings from under /tmp: the state folder, which
	// holds the hooks file, is one only this user can write to.
	tm.state = filepath.Join(testbin.SecureDir(t), "state")
	c := tm.start()
	defer c.stop()

	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Type, Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	waitFor(t, 20*time.Second, "the agent's copy of its hooks", func() bool {
		b, err := os.ReadFile(at("settings.json"))
		return err == nil && json.Unmarshal(b, &settings) == nil && len(settings.Hooks) > 0
	})
	var command string
	for _, ev := range []string{"BeforeAgent", "AfterAgent"} {
		h := settings.Hooks[ev]
		if len(h) != 1 || len(h[0].Hooks) != 1 || h[0].Hooks[0].Type != "command" || !strings.HasSuffix(h[0].Hooks[0].Command, " hook") {
			t.Fatalf("%s hooks %+v", ev, h)
		}
		command = h[0].Hooks[0].Command
	}
	if err := os.WriteFile(at("hook.sh"), []byte(command+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doing := func(want string) {
		t.Helper()
		waitFor(t, 20*time.Second, "gem "+want, func() bool {
			return strings.Contains(tm.mustCLI("agents"), want)
		}, func() string { return tm.mustCLI("agents") })
	}
	answered := func(file string) {
		t.Helper()
		var b []byte
		waitFor(t, 20*time.Second, file, func() bool { b, _ = os.ReadFile(at(file)); return len(b) > 0 })
		if string(b) != "{}\n" {
			t.Errorf("%s: the hook answered %q, want {}", file, b)
		}
	}
	doing("busy (hook)")
	answered("before.out")
	if err := os.WriteFile(at("go.after"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	doing("idle (hook)")
	answered("after.out")
}

func TestGeminiHooksNotGivenFromAnInsecureFolder(t *testing.T) {
	work := t.TempDir()
	out := filepath.Join(work, "env.txt")
	tm := newTeam(t, agentDef{name: "gem", role: "developer", preset: "gemini", dir: work,
		command: []string{"/bin/sh", "-c", "echo ready; echo \"[$GEMINI_CLI_SYSTEM_DEFAULTS_PATH]\" > " + out + "; exec sleep 600"}})
	c := tm.start()
	defer c.stop()
	var got []byte
	waitFor(t, 20*time.Second, "the agent's environment", func() bool { got, _ = os.ReadFile(out); return len(got) > 0 })
	if string(got) != "[]\n" {
		t.Errorf("GEMINI_CLI_SYSTEM_DEFAULTS_PATH=%s, want none (the state folder is under /tmp)", got)
	}
	waitFor(t, 20*time.Second, "the console saying why", func() bool {
		return strings.Contains(c.out.String(), "gemini agents' states are read off their screens")
	})
}
