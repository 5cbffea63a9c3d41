package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeTeam(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadTeamValid(t *testing.T) {
	p := writeTeam(t, `
agents:
  - name: dev
    role: Developer
    command: [./bin/agent, --flag]
    dir: ./work/dev
    env: {KEY: value}
    preset: codex
    restart: always
  - name: qa
    command: [cat]
presets:
  slow:
    submit_delay: 2s
lead:
  delegate: dev
`)
	team, err := LoadTeam(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	dev := team.Agents[0]
	if dev.Role != "developer" || dev.Dir != filepath.Join(dir, "work/dev") || dev.Command[0] != filepath.Join(dir, "bin/agent") {
		t.Errorf("dev not resolved: %+v", dev)
	}
	if dev.Env["KEY"] != "value" || dev.Restart != "always" || dev.Parse != "screen" { // codex is full-screen
		t.Errorf("dev fields: %+v", dev)
	}
	if got := team.Resolved["dev"].SubmitDelay; got != 250*time.Millisecond {
		t.Errorf("codex submit delay = %v", got)
	}
	qa := team.Agents[1]
	if qa.Role != "qa" || qa.Preset != "plain" || qa.Restart != "on-failure" || qa.Command[0] != "cat" {
		t.Errorf("qa defaults: %+v", qa)
	}
	if team.Lead.Delegate != "dev" {
		t.Errorf("delegate = %q", team.Lead.Delegate)
	}
}

func TestLoadTeamErrors(t *testing.T) {
	cases := []struct {
		name, text, want string
	}{
		{"unknown key", "agents:\n  - name: dev\n    command: [x]\n    comand: [y]\n", `team.yaml:4: agents[0].comand: unknown field`},
		{"unknown top key", "agent:\n  - name: dev\n", `team.yaml:1: agent: unknown field`},
		{"duplicate name", "agents:\n  - name: dev\n    command: [x]\n  - name: dev\n    command: [y]\n", `team.yaml:4: agents[1].name: duplicate name "dev"`},
		{"missing command", "agents:\n  - name: dev\n    role: qa\n", `team.yaml:2: agents[0].command: missing`},
		{"unknown preset", "agents:\n  - name: dev\n    command: [x]\n    preset: clod\n", `team.yaml:4: agents[0].preset: unknown preset "clod"; known presets are aider, claude-code, codex, copilot, gemini, opencode, plain`},
		{"bad restart", "agents:\n  - name: dev\n    command: [x]\n    restart: sometimes\n", `team.yaml:4: agents[0].restart: "sometimes" is not a restart policy`},
		{"bad parse", "agents:\n  - name: dev\n    command: [x]\n    parse: pixels\n", `team.yaml:4: agents[0].parse: "pixels" is not a parse mode`},
		{"reserved name", "agents:\n  - name: team-lead\n    command: [x]\n", `team.yaml:2: agents[0].name: "team-lead" is not a usable name`},
		{"no agents", "lead:\n  delegate: dev\n", `team.yaml:1: agents: no agents`},
		{"bad type", "agents:\n  - name: dev\n    command: [x]\n    cols: wide\n", `team.yaml:4: agents[0].cols: expected a whole number like 120, got the string "wide"`},
		{"duplicate key", "agents:\n  - name: dev\n    name: dev2\n    command: [x]\n", `team.yaml:3: agents[0].name: given twice (first on line 2)`},
		{"empty", "", `team.yaml:1: (file): the file is empty`},
		{"bad preset key", "presets:\n  mine:\n    submt: x\nagents:\n  - name: a\n    command: [x]\n", `team.yaml:3: presets.mine.submt: unknown field`},
		{"submit retries out of range", "presets:\n  mine:\n    submit_retries: 9\nagents:\n  - name: a\n    command: [x]\n", `team.yaml:3: presets.mine.submit_retries: keep between 0 (no check) and 5`},
		{"bad session file format", "presets:\n  mine:\n    session_file:\n      glob: x\n      format: sqlite\nagents:\n  - name: a\n    command: [x]\n", `team.yaml:5: presets.mine.session_file.format: "sqlite" is not a session file format`},
		{"session file tokens of another CLI", "presets:\n  mine:\n    session_file: {glob: x, format: opencode-db, tokens: codex}\nagents:\n  - name: a\n    command: [x]\n", `team.yaml:3: presets.mine.session_file.tokens: OpenCode's database holds its own token totals`},
		{"bad session file tokens", "presets:\n  mine:\n    session_file: {glob: x, tokens: true}\nagents:\n  - name: a\n    command: [x]\n", `presets.mine.session_file.tokens: "true" is not a form of token counts`},
		{"bad submit_pending", "presets:\n  mine:\n    submit_pending: ['[x']\nagents:\n  - name: a\n    command: [x]\n", `team.yaml:3: presets.mine.submit_pending: "[x": error parsing regexp`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadTeam(writeTeam(t, c.text))
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("error %v does not wrap ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q\nwant it to contain %q", err, c.want)
			}
		})
	}
}

func TestLoadTeamMissingFile(t *testing.T) {
	_, err := LoadTeam(filepath.Join(t.TempDir(), "nope.yaml"))
	if err == nil || !strings.Contains(err.Error(), "--config") {
		t.Fatalf("want a hint about --config, got %v", err)
	}
}

func TestBuiltinPresetsLoad(t *testing.T) {
	p, err := builtinPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"plain", "claude-code", "codex", "gemini", "aider"} {
		if p[name].Submit != "\r" {
			t.Errorf("preset %s submit = %q", name, p[name].Submit)
		}
	}
}

// FuzzLoadTeam: no team file text may panic the loader, and every refusal
// wraps ErrInvalid.
func FuzzLoadTeam(f *testing.F) {
	f.Add([]byte("agents:\n  - name: dev\n    command: [x]\n"))
	f.Add([]byte("agents:\n  - name: dev\n    command: [x]\n    cols: wide\n"))
	f.Add([]byte("presets:\n  p: {submit: x}\nagents: [{name: a, command: [b], preset: p}]\n"))
	f.Add([]byte("agents: &a [*a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		team, err := parseTeam("team.yaml", "/tmp/team.yaml", data)
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Fatalf("error %v does not wrap ErrInvalid", err)
		}
		if err == nil && len(team.Agents) == 0 {
			t.Fatal("accepted a team without agents")
		}
	})
}

// An agent's price replaces the team's, which is every other agent's; a
// negative one is refused naming the field.
func TestAgentPrice(t *testing.T) {
	team, err := LoadTeam(writeTeam(t, "price: {input: 3, output: 15}\nagents:\n  - name: dev\n    command: [x]\n    price: {input: 1.25, output: 10, cache_read: 0.125}\n  - name: qa\n    command: [x]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := team.Agents[0].Price, (Price{Input: 1.25, Output: 10, CacheRead: 0.125}); got != want {
		t.Errorf("dev's own price: %+v, want %+v", got, want)
	}
	if got, want := team.Agents[1].Price, (Price{Input: 3, Output: 15}); got != want {
		t.Errorf("qa's price, the team's: %+v, want %+v", got, want)
	}
	_, err = LoadTeam(writeTeam(t, "agents:\n  - name: dev\n    command: [x]\n    price: {input: -1}\n"))
	if err == nil || !strings.Contains(err.Error(), "agents[0].price: a price is positive") {
		t.Errorf("a negative price: %v", err)
	}
}
