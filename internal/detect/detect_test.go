package detect

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/vt"
)

// presets compiles the shipped configs/presets.yaml.
func presets(t testing.TB) map[string]*Detector {
	t.Helper()
	ds, err := ParsePresets(configs.Presets)
	if err != nil {
		t.Fatalf("configs/presets.yaml: %v", err)
	}
	return ds
}

// screen reads a fixture's screen.
func screen(t testing.TB, name string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name+".screen.txt"))
	if err != nil {
		t.Fatalf("%v (re-capture: testdata/README.md)", err)
	}
	return SplitScreen(string(b))
}

// fixture is what the shipped preset's detector must read off one
// captured screen.
type fixture struct {
	name   string // testdata/<name>.screen.txt
	preset string
	kind   string
	tool   string
	action string
	// keys: approve, approve always, deny ("" for none)
	approve, always, deny string
}

const (
	claudeVersion = "claude-code-2.1.328"
	rmBuild       = "rm -rf build/"
	longCommand   = "rm -rf build/ dist/ coverage/ .cache/tmp && find . -name '*.orig' -delete && echo cleaned the workspace for a fresh build"
)

// claudeFixtures are Claude Code's screens in each renderer and size.
func claudeFixtures() []fixture {
	var out []fixture
	for _, variant := range []string{"", "-narrow", "-classic", "-classic-narrow"} {
		p := claudeVersion + variant
		out = append(out,
			fixture{name: p + "-bash", preset: "claude-code", kind: KindPermission, tool: "Bash", action: rmBuild, approve: "1", always: "2", deny: "\x1b"},
			// No "always" option for a command with find -delete.
			fixture{name: p + "-bash-long", preset: "claude-code", kind: KindPermission, tool: "Bash", action: longCommand, approve: "1", deny: "\x1b"},
			// "Yes, and switch to accept edits" changes the mode: not an approve-always.
			fixture{name: p + "-write", preset: "claude-code", kind: KindPermission, tool: "Write", action: "notes/plan.md", approve: "1", deny: "\x1b"},
			fixture{name: p + "-bash-approved", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-bash-denied", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-bash-long-approved", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-bash-long-denied", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-write-approved", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-write-denied", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-idle", preset: "claude-code", kind: KindIdle},
			fixture{name: p + "-busy", preset: "claude-code", kind: KindBusy},
		)
	}
	for _, variant := range []string{"", "-classic"} {
		out = append(out, fixture{name: claudeVersion + variant + "-quote", preset: "claude-code", kind: KindIdle})
	}
	return out
}

// codexFixtures are Codex's screens at 120x40 and 80x24.
func codexFixtures() []fixture {
	const v = "codex-0.169.0"
	var out []fixture
	for _, variant := range []string{"", "-narrow"} {
		p := v + variant
		out = append(out,
			fixture{name: p + "-bash", preset: "codex", kind: KindPermission, tool: "Bash", action: rmBuild, approve: "y", always: "p", deny: "\x1b"},
			fixture{name: p + "-bash-long", preset: "codex", kind: KindPermission, tool: "Bash", action: longCommand, approve: "y", always: "p", deny: "\x1b"},
			fixture{name: p + "-bash-approved", preset: "codex", kind: KindIdle},
			fixture{name: p + "-bash-denied", preset: "codex", kind: KindIdle},
			fixture{name: p + "-bash-long-approved", preset: "codex", kind: KindIdle},
			fixture{name: p + "-bash-long-denied", preset: "codex", kind: KindIdle},
			fixture{name: p + "-idle", preset: "codex", kind: KindIdle},
			fixture{name: p + "-busy", preset: "codex", kind: KindBusy},
		)
	}
	return append(out,
		fixture{name: v + "-patch", preset: "codex", kind: KindPermission, tool: "Edit",
			action: "/tmp/tl-detect-cap/work/cx3/patch/approve/project/notes/plan.md", approve: "y", always: "a", deny: "\x1b"},
		fixture{name: v + "-patch-approved", preset: "codex", kind: KindIdle},
		fixture{name: v + "-patch-denied", preset: "codex", kind: KindIdle},
		fixture{name: v + "-quote", preset: "codex", kind: KindIdle},
	)
}

// geminiFixtures are Gemini CLI's screens at 120x40 and 80x24.
func geminiFixtures() []fixture {
	const v = "gemini-cli-0.61.0"
	var out []fixture
	for _, variant := range []string{"", "-narrow"} {
		p := v + variant
		out = append(out,
			fixture{name: p + "-bash", preset: "gemini", kind: KindPermission, tool: "Bash", action: rmBuild, approve: "1", always: "2", deny: "\x1b"},
			fixture{name: p + "-bash-long", preset: "gemini", kind: KindPermission, tool: "Bash", action: longCommand, approve: "1", always: "2", deny: "\x1b"},
			fixture{name: p + "-write", preset: "gemini", kind: KindPermission, tool: "Write", action: "notes/plan.md", approve: "1", always: "2", deny: "\x1b"},
			fixture{name: p + "-bash-approved", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-bash-denied", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-bash-long-approved", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-bash-long-denied", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-write-approved", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-write-denied", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-idle", preset: "gemini", kind: KindIdle},
			fixture{name: p + "-busy", preset: "gemini", kind: KindBusy},
		)
	}
	return append(out, fixture{name: v + "-quote", preset: "gemini", kind: KindIdle})
}

// copilotFixtures are GitHub Copilot CLI's screens at 120x40.
func copilotFixtures() []fixture {
	const p = "copilot-1.0.102"
	return []fixture{
		{name: p + "-bash", preset: "copilot", kind: KindPermission, tool: "Bash", action: rmBuild, approve: "1", always: "2", deny: "\x1b"},
		{name: p + "-bash-long", preset: "copilot", kind: KindPermission, tool: "Bash", action: longCommand, approve: "1", always: "2", deny: "\x1b"},
		{name: p + "-write", preset: "copilot", kind: KindPermission, tool: "Write", action: copilotPlan, approve: "1", always: "2", deny: "\x1b"},
		{name: p + "-bash-approved", preset: "copilot", kind: KindIdle},
		{name: p + "-bash-denied", preset: "copilot", kind: KindIdle},
		{name: p + "-bash-long-approved", preset: "copilot", kind: KindIdle},
		{name: p + "-bash-long-denied", preset: "copilot", kind: KindIdle},
		{name: p + "-write-approved", preset: "copilot", kind: KindIdle},
		{name: p + "-write-denied", preset: "copilot", kind: KindIdle},
		{name: p + "-idle", preset: "copilot", kind: KindIdle},
		{name: p + "-busy", preset: "copilot", kind: KindBusy},
		{name: p + "-quote", preset: "copilot", kind: KindIdle},
	}
}

// copilotPlan is the file of the write scenario as Copilot's dialog names
// it: the absolute path in the capture's project.
const copilotPlan = "/tmp/clx/capwork/cp/write/approve/project/notes/plan.md"

// openCodeFixtures are OpenCode's screens at 120x40.
func openCodeFixtures() []fixture {
	const p = "opencode-1.18.33"
	return []fixture{
		{name: p + "-bash", preset: "opencode", kind: KindPermission, tool: "Bash", action: rmBuild, approve: "\r", deny: "\x1b"},
		{name: p + "-bash-long", preset: "opencode", kind: KindPermission, tool: "Bash", action: longCommand, approve: "\r", deny: "\x1b"},
		{name: p + "-write", preset: "opencode", kind: KindPermission, tool: "Edit", action: "notes/plan.md", approve: "\r", deny: "\x1b"},
		{name: p + "-bash-approved", preset: "opencode", kind: KindIdle},
		{name: p + "-bash-denied", preset: "opencode", kind: KindIdle},
		{name: p + "-bash-long-approved", preset: "opencode", kind: KindIdle},
		{name: p + "-bash-long-denied", preset: "opencode", kind: KindIdle},
		{name: p + "-write-approved", preset: "opencode", kind: KindIdle},
		{name: p + "-write-denied", preset: "opencode", kind: KindIdle},
		{name: p + "-idle", preset: "opencode", kind: KindIdle},
		{name: p + "-busy", preset: "opencode", kind: KindBusy},
		{name: p + "-quote", preset: "opencode", kind: KindIdle},
	}
}

// aiderFixtures are screens built from Aider's source (aider/io.py
// confirm_ask, aider/coders/base_coder.py): Aider is not run here.
func aiderFixtures() []fixture {
	const p = "aider-synthetic"
	return []fixture{
		{name: p + "-bash", preset: "aider", kind: KindPermission, tool: "Bash", action: rmBuild, approve: "y\r", deny: "n\r"},
		{name: p + "-bash-long", preset: "aider", kind: KindPermission, tool: "Bash", action: longCommand, approve: "y\r", deny: "n\r"},
		{name: p + "-bash-multi", preset: "aider", kind: KindPermission, tool: "Bash", action: "rm -rf build/\nmake all", approve: "y\r", deny: "n\r"},
		{name: p + "-create", preset: "aider", kind: KindPermission, tool: "Write", action: "notes/plan.md", approve: "y\r", deny: "n\r"},
		{name: p + "-bash-answered", preset: "aider", kind: KindIdle},
		{name: p + "-idle", preset: "aider", kind: KindIdle},
		{name: p + "-busy", preset: "aider", kind: KindBusy},
	}
}

func allFixtures() []fixture {
	var out []fixture
	out = append(out, aiderFixtures()...)
	out = append(out, claudeFixtures()...)
	out = append(out, codexFixtures()...)
	out = append(out, geminiFixtures()...)
	out = append(out, copilotFixtures()...)
	out = append(out, openCodeFixtures()...)
	return out
}

func keyString(b []byte) string { return string(b) }

// TestFixtures: every shipped detector reads every captured screen of its
// CLI as expected: the dialog, its tool, its action exactly (wrapped rows
// joined back), its keys; or the CLI's state.
func TestFixtures(t *testing.T) {
	ds := presets(t)
	for _, f := range allFixtures() {
		t.Run(f.name, func(t *testing.T) {
			d := ds[f.preset]
			if d == nil {
				t.Fatalf("no preset %q", f.preset)
			}
			scr := screen(t, f.name)
			m, ok := d.Check(scr)
			if ok != (f.kind == KindPermission) || m.Kind != f.kind {
				t.Fatalf("Check = %+v, %v; want kind %s", m, ok, f.kind)
			}
			if d.State(scr) != f.kind {
				t.Errorf("State = %s, want %s", d.State(scr), f.kind)
			}
			if !ok {
				if err := d.Diagnose(scr); err != nil {
					t.Errorf("Diagnose on a screen without a dialog: %v", err)
				}
				return
			}
			if m.Tool != f.tool || m.Action != f.action {
				t.Errorf("tool %q action %q\nwant tool %q action %q", m.Tool, m.Action, f.tool, f.action)
			}
			if keyString(m.Approve) != f.approve || keyString(m.ApproveAlways) != f.always || keyString(m.Deny) != f.deny {
				t.Errorf("keys approve %q always %q deny %q, want %q %q %q", m.Approve, m.ApproveAlways, m.Deny, f.approve, f.always, f.deny)
			}
			if len(m.Rows) == 0 {
				t.Error("no rows")
			}
			for _, r := range m.Rows {
				if r < 0 || r >= len(scr) {
					t.Errorf("row %d out of the screen", r)
				}
			}
			if !LooksLikeDialog(scr) {
				t.Error("LooksLikeDialog does not see this dialog")
			}
			if err := d.Diagnose(scr); err != nil {
				t.Errorf("Diagnose on a matched dialog: %v", err)
			}
			// The other presets' detectors do not take it for their own.
			for name, other := range ds {
				if name == f.preset || !other.HasPermission() {
					continue
				}
				if m, ok := other.Check(scr); ok {
					t.Errorf("preset %s also matches: %+v", name, m)
				} else if err := other.Diagnose(scr); !errors.Is(err, ErrUnmatchedDialog) {
					t.Errorf("preset %s: Diagnose = %v, want ErrUnmatchedDialog", name, err)
				}
			}
		})
	}
}

// TestEveryFixtureIsTested: a capture added to testdata without its
// expectations fails.
func TestEveryFixtureIsTested(t *testing.T) {
	files, err := filepath.Glob("testdata/*.screen.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	known := map[string]bool{}
	for _, f := range allFixtures() {
		known[f.name] = true
	}
	for _, c := range inputCaptures(t) {
		for _, st := range c.Steps {
			known[filepath.Base(c.base)+"-"+st.Name] = true
		}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".screen.txt")
		if !known[name] {
			t.Errorf("%s is not in the fixture table", f)
		}
	}
}

// TestEveryDetectorMatchesAFixture: a permission detector that matches
// none of its CLI's captured dialogs is broken (or untested), and so is a
// state pattern list that no fixture exercises.
func TestEveryDetectorMatchesAFixture(t *testing.T) {
	ds := presets(t)
	matched := map[string]map[string]bool{}
	for _, f := range allFixtures() {
		m, _ := ds[f.preset].Check(screen(t, f.name))
		if matched[f.preset] == nil {
			matched[f.preset] = map[string]bool{}
		}
		matched[f.preset][m.Kind] = true
	}
	for name, d := range ds {
		if d.HasPermission() && !matched[name][KindPermission] {
			t.Errorf("preset %s: its permission detector matches none of its fixtures", name)
		}
		if d.state != nil && len(d.state.busy) > 0 && !matched[name][KindBusy] {
			t.Errorf("preset %s: its busy patterns match none of its fixtures", name)
		}
		if d.state != nil && len(d.state.idle) > 0 && !matched[name][KindIdle] {
			t.Errorf("preset %s: its idle patterns match none of its fixtures", name)
		}
	}
}

// meta is the part of a capture's .json the replay needs.
type meta struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// TestReplay: each raw capture replayed through the terminal emulator
// reads as its screen fixture does (the fixture is what the console's
// emulator shows, not an edited text).
func TestReplay(t *testing.T) {
	ds := presets(t)
	for _, f := range allFixtures() {
		raw, err := os.ReadFile(filepath.Join("testdata", f.name+".bin"))
		if err != nil {
			continue
		}
		t.Run(f.name, func(t *testing.T) {
			var m meta
			js, err := os.ReadFile(filepath.Join("testdata", f.name+".json"))
			if err != nil || json.Unmarshal(js, &m) != nil || m.Cols == 0 {
				t.Fatalf("metadata: %v", err)
			}
			term := vt.New(m.Cols, m.Rows, vt.Options{Scrollback: 100})
			defer term.Close()
			term.Write(raw)
			got := Rows(term.Snapshot())
			want := screen(t, f.name)
			if g, w := strings.TrimRight(strings.Join(got, "\n"), "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("replayed screen differs from the fixture:\n%s\n---\n%s", g, w)
			}
			a, _ := ds[f.preset].Check(got)
			b, _ := ds[f.preset].Check(want)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("replayed %+v, fixture %+v", a, b)
			}
		})
	}
}

// TestFixtureSizes keeps the testdata small.
func TestFixtureSizes(t *testing.T) {
	var total int64
	filepath.Walk("testdata", func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			total += info.Size()
		}
		return nil
	})
	if total > 2<<20 {
		t.Errorf("testdata holds %d bytes, more than 2 MB", total)
	}
}

func ExampleDetector_Check() {
	ds, _ := ParsePresets(configs.Presets)
	screen := []string{
		"● I'll clean up.",
		"",
		"────────────────────────────────────────",
		" Bash command",
		" Remove the build directory",
		"╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
		" rm -rf build/",
		"╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌",
		" Do you want to proceed?",
		" ❯ 1. Yes",
		"   2. No",
		"",
		" Esc to cancel · Tab to amend",
	}
	m, ok := ds["claude-code"].Check(screen)
	fmt.Printf("%v %s %s %q %q rows %v\n", ok, m.Tool, m.Action, m.Approve, m.Deny, m.Rows)
	// Output: true Bash rm -rf build/ "1" "\x1b" rows [2 3 4 5 6 7 8 9 10 11 12]
}
