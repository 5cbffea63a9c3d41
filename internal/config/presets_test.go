package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/detect"
)

// TestPresetDetectorsCompile: the shipped presets.yaml loads with its
// detector and primer sections, and every preset's detector compiles.
func TestPresetDetectorsCompile(t *testing.T) {
	ps, err := builtinPresets()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"plain", "claude-code", "codex", "gemini", "aider"} {
		p, ok := ps[name]
		if !ok {
			t.Errorf("no preset %s", name)
			continue
		}
		d, err := detect.Compile(name, p.Permission, p.State)
		if err != nil {
			t.Errorf("preset %s: %v", name, err)
			continue
		}
		if want := name != "plain"; d.HasPermission() != want {
			t.Errorf("preset %s: permission detector %v, want %v", name, d.HasPermission(), want)
		}
		if (p.Primer == nil) != (name == "plain") {
			t.Errorf("preset %s: primer %+v (plain has none: a shell would run it)", name, p.Primer)
		}
	}
	if got := ps["claude-code"].Primer.Flag; !reflect.DeepEqual(got, []string{"--append-system-prompt", "{primer}"}) {
		t.Errorf("claude-code primer flag %q", got)
	}
	for name, file := range map[string]string{"codex": "AGENTS.md", "gemini": "GEMINI.md"} {
		if got := ps[name].Primer.File; got != file {
			t.Errorf("%s primer file %q, want %s", name, got, file)
		}
	}
	if !ps["aider"].Primer.Message {
		t.Error("aider primer is not a message")
	}
}

// TestTeamPresetDetector: a team's own preset may carry a detector; one
// without takes plain's sections; a bad regex is refused by the compiler
// with the field named.
func TestTeamPresetDetector(t *testing.T) {
	team, err := parseTeam("team.yaml", "/tmp/team.yaml", []byte(`
presets:
  mycli:
    permission:
      match: ['^Run \S+\? \[y/N\]$']
      approve: {key: "y\r"}
      deny: {key: "n\r"}
    state:
      busy: ['working']
  bare:
    submit: "\n"
agents:
  - {name: dev, command: [mycli], preset: mycli}
  - {name: qa, command: [cat], preset: bare}
`))
	if err != nil {
		t.Fatal(err)
	}
	p := team.Resolved["dev"]
	if p.Permission == nil || p.Permission.Approve.Key != "y\r" || p.State == nil || p.Submit != "\r" {
		t.Fatalf("dev's preset %+v", p)
	}
	if _, err := detect.Compile("mycli", p.Permission, p.State); err != nil {
		t.Error(err)
	}
	if q := team.Resolved["qa"]; q.Permission != nil || q.Primer != nil {
		t.Errorf("qa's preset %+v: want plain's sections", q)
	}
	p.Permission.Match = []string{"("}
	if _, err := detect.Compile("mycli", p.Permission, p.State); !errors.Is(err, detect.ErrInvalid) || !strings.Contains(err.Error(), "permission.match[0]") {
		t.Errorf("bad regex: %v", err)
	}
}

// TestPresetDetectorTypo: a typo in a detector's section is reported with
// its line and field, like any other.
func TestPresetDetectorTypo(t *testing.T) {
	_, err := parseTeam("team.yaml", "/tmp/team.yaml", []byte(`
presets:
  mycli:
    permission:
      match: ['x']
      approve: {keys: "y"}
agents:
  - {name: dev, command: [mycli], preset: mycli}
`))
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "team.yaml:6: presets.mycli.permission.approve.keys: unknown field") {
		t.Errorf("error %v", err)
	}
}

// A preset gives the command an agent of its CLI runs when the team file
// names none; plain gives none, so a plain agent must name its own.
func TestPresetCommandDefault(t *testing.T) {
	team, err := parseTeam("team.yaml", "/tmp/team.yaml", []byte("agents:\n  - {name: dev, preset: claude-code}\n  - {name: cx, preset: codex, command: [codex, --model, o5]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := team.Agents[0].Command; !reflect.DeepEqual(got, []string{"claude"}) {
		t.Errorf("claude-code's default command %q", got)
	}
	if got := team.Agents[1].Command; !reflect.DeepEqual(got, []string{"codex", "--model", "o5"}) {
		t.Errorf("an agent's own command was replaced: %q", got)
	}
	if _, err := parseTeam("team.yaml", "/tmp/team.yaml", []byte("agents:\n  - {name: sh}\n")); err == nil || !strings.Contains(err.Error(), "agents[0].command: missing") {
		t.Errorf("a plain agent without a command: %v", err)
	}
}

// TestBuiltinSubmitPendingCompiles: the shipped presets' submit_pending
// regexes compile (a team's own are checked when it loads).
func TestBuiltinSubmitPendingCompiles(t *testing.T) {
	presets, err := builtinPresets()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for name, p := range presets {
		res, err := p.SubmitPendingRE()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		n += len(res)
	}
	if n < 2 {
		t.Errorf("%d submit_pending patterns in all; Claude Code's and Gemini CLI's paste placeholders are missing", n)
	}
}
