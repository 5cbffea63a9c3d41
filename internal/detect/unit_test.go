package detect

import (
	"errors"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
)

func intp(n int) *int { return &n }

// TestJoin: rows the CLI wrapped are joined back, whatever the gutter,
// box or indentation; lines that ended short stay lines.
func TestJoin(t *testing.T) {
	for _, c := range []struct {
		name   string
		screen []string
		margin int
		want   string
	}{
		{"one row", []string{"rm -rf build/"}, -1, "rm -rf build/"},
		{"word wrap", []string{
			strings.Repeat("x", 36) + " aaaa",
			"bbbb cc",
			strings.Repeat("─", 40),
		}, 0, strings.Repeat("x", 36) + " aaaa bbbb cc"},
		{"short lines stay lines", []string{
			"make clean",
			"make all",
			strings.Repeat("─", 40),
		}, -1, "make clean\nmake all"},
		{"gutter", []string{
			" │ " + strings.Repeat("y", 30) + " zzzz",
			" │ tail",
			strings.Repeat("─", 40),
		}, 2, strings.Repeat("y", 30) + " zzzz tail"},
		{"nested box", []string{
			"│ ╭──────────────────────────────────╮ │",
			"│ │ abc defgh ijklm nopq rstu vwx  │ │",
			"│ │ yz                               │ │",
			"│ ╰──────────────────────────────────╯ │",
		}, 0, "abc defgh ijklm nopq rstu vwx yz"},
		{"a word longer than a row", []string{
			"  /" + strings.Repeat("p", 37),
			"  qqq/file",
		}, 0, "/" + strings.Repeat("p", 37) + "qqq/file"},
		{"blank rows at the ends", []string{"", "  a", ""}, -1, "a"},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, _ := rowsOf(c.screen)
			var picked []row
			for _, r := range rows {
				if strings.ContainsAny(r.text, "─╭╰") {
					continue
				}
				picked = append(picked, r)
			}
			if got := join(picked, c.margin); got != c.want {
				t.Errorf("join = %q, want %q", got, c.want)
			}
		})
	}
}

// TestStrip: box borders come off both ends, nested ones too; a pipe in
// a command stays.
func TestStrip(t *testing.T) {
	for _, c := range []struct{ in, text string }{
		{"│ Allow execution?   │", "Allow execution?"},
		{"│ │ rm -rf build/  │ │", "rm -rf build/"},
		{" │ rm -rf build/", "rm -rf build/"},
		{"ls | wc -l", "ls | wc -l"},
		{"│", ""},
		{"  indented", "  indented"},
	} {
		if got := strip(c.in, 40).text; got != c.text {
			t.Errorf("strip(%q) = %q, want %q", c.in, got, c.text)
		}
	}
}

// TestQuotedQuestionIsNotADialog: a reply that quotes a dialog, even with
// numbered Yes/No lines, is not taken for Claude Code's dialog without
// the selected option's ❯ and the Esc line; a paragraph alone is not even
// dialog-like.
func TestQuotedQuestionIsNotADialog(t *testing.T) {
	d := presets(t)["claude-code"]
	paragraph := []string{
		"❯ What will the installer ask?",
		"",
		`● The installer asks "Do you want to proceed?" before it deletes anything; answer yes.`,
		"",
		strings.Repeat("─", 80),
		"❯",
		strings.Repeat("─", 80),
		"  ⏸ manual mode on · ? for shortcuts",
	}
	if m, ok := d.Check(paragraph); ok || m.Kind != KindIdle {
		t.Errorf("paragraph: %+v %v", m, ok)
	}
	if LooksLikeDialog(paragraph) {
		t.Error("a quoted question in a paragraph looks like a dialog")
	}
	list := append(paragraph[:3:3], "  Do you want to proceed?", "  1. Yes", "  2. No", "")
	list = append(list, paragraph[4:]...)
	if m, ok := d.Check(list); ok {
		t.Errorf("a quoted list matched: %+v", m)
	}
	if !LooksLikeDialog(list) {
		t.Error("a question with numbered Yes/No options does not look like a dialog")
	}
	// A reply quoting the whole dialog, with the input box below it: the
	// real dialog is at the bottom of the screen.
	whole := append(paragraph[:3:3], "  Do you want to proceed?", "  ❯ 1. Yes", "    2. No", "  Esc to cancel · Tab to amend", "")
	whole = append(whole, paragraph[4:]...)
	if m, ok := d.Check(whole); ok {
		t.Errorf("a quoted dialog above the input box matched: %+v", m)
	}
	if m, ok := d.Check(whole[:7]); !ok {
		t.Errorf("the same rows at the bottom did not match: %+v", m)
	}
	if err := d.Diagnose(list); !errors.Is(err, ErrUnmatchedDialog) || !strings.Contains(err.Error(), "claude-code") || !strings.Contains(err.Error(), "presets.yaml") {
		t.Errorf("Diagnose = %v", err)
	}
}

// TestLooksLikeDialog: the generic signs.
func TestLooksLikeDialog(t *testing.T) {
	for _, c := range []struct {
		screen []string
		want   bool
	}{
		{[]string{"Overwrite config.json? (y/n)"}, true},
		{[]string{"Proceed with install? [Y/n]", "", ""}, true},
		{[]string{"Run shell command? (Y)es/(N)o [Yes]:"}, true},
		{[]string{"Run shell command? (Y)es/(N)o [Yes]: y", "done"}, false},
		{[]string{"Allow execution of [Shell]?", "", "● 1. Allow once", "  2. No, suggest changes (esc)"}, true},
		{[]string{"Would you like to run it?", "› 1. Yes, proceed (y)", "  2. No (esc)"}, true},
		{[]string{"Do you want to proceed?", "1. No", "2. Never"}, false},
		{[]string{"Steps:", "1. Yes", "2. No"}, false},
		{[]string{"Do you want to proceed?"}, false},
		{nil, false},
		{[]string{"", "  ", ""}, false},
	} {
		if got := LooksLikeDialog(c.screen); got != c.want {
			t.Errorf("LooksLikeDialog(%q) = %v, want %v", c.screen, got, c.want)
		}
	}
}

// TestCompileErrors: every mistake in a detector's configuration is
// refused with the field named.
func TestCompileErrors(t *testing.T) {
	ok := PermissionSpec{Match: []string{"x"}, Approve: KeySpec{Key: "y"}, Deny: KeySpec{Key: "n"}}
	for _, c := range []struct {
		field string
		edit  func(p *PermissionSpec, s *StateSpec)
	}{
		{"permission.match[0]", func(p *PermissionSpec, _ *StateSpec) { p.Match = []string{"("} }},
		{"permission.match", func(p *PermissionSpec, _ *StateSpec) { p.Match = nil }},
		{"permission.approve", func(p *PermissionSpec, _ *StateSpec) { p.Approve = KeySpec{} }},
		{"permission.deny", func(p *PermissionSpec, _ *StateSpec) { p.Deny = KeySpec{} }},
		{"permission.top", func(p *PermissionSpec, _ *StateSpec) { p.Top = "[" }},
		{"permission.within", func(p *PermissionSpec, _ *StateSpec) { p.Within = -1 }},
		{"permission.tools[0].title", func(p *PermissionSpec, _ *StateSpec) { p.Tools = []ToolSpec{{Name: "Bash"}} }},
		{"permission.tools[0].title", func(p *PermissionSpec, _ *StateSpec) { p.Tools = []ToolSpec{{Title: "no group"}} }},
		{"permission.tools[0].action", func(p *PermissionSpec, _ *StateSpec) {
			p.Tools = []ToolSpec{{Name: "Bash", Title: "x", Action: &ActionSpec{}}}
		}},
		{"permission.action", func(p *PermissionSpec, _ *StateSpec) {
			p.Action = &ActionSpec{Pattern: "(?P<action>x)", Above: "y"}
		}},
		{"permission.action.between", func(p *PermissionSpec, _ *StateSpec) { p.Action = &ActionSpec{Between: []string{"x"}} }},
		{"permission.action.pattern", func(p *PermissionSpec, _ *StateSpec) { p.Action = &ActionSpec{Pattern: "no group"} }},
		{"permission.action.margin", func(p *PermissionSpec, _ *StateSpec) { p.Action = &ActionSpec{Above: "x", Margin: intp(-2)} }},
		{"permission.options", func(p *PermissionSpec, _ *StateSpec) { p.Options = "(?P<key>x)" }},
		{"permission.approve.option", func(p *PermissionSpec, _ *StateSpec) { p.Approve = KeySpec{Option: "Yes"} }},
		{"state.busy[1]", func(_ *PermissionSpec, s *StateSpec) { s.Busy = []string{"ok", "*"} }},
		{"state.idle[0]", func(_ *PermissionSpec, s *StateSpec) { s.Idle = []string{""} }},
	} {
		p, s := ok, StateSpec{}
		c.edit(&p, &s)
		_, err := Compile("mycli", &p, &s)
		if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "preset mycli: "+c.field+":") {
			t.Errorf("%s: %v", c.field, err)
		}
	}
	if d, err := Compile("mycli", &ok, nil); err != nil || !d.HasPermission() || d.Name() != "mycli" {
		t.Errorf("a minimal detector: %v", err)
	}
	if d, err := Compile("plain", &PermissionSpec{}, nil); err != nil || d.HasPermission() {
		t.Errorf("an empty permission section: %v %v", d, err)
	}
}

// TestKeySpecYAML: a key is {key, option}.
func TestKeySpecYAML(t *testing.T) {
	var p PermissionSpec
	src := "approve: {key: \"1\"}\napprove_always: {option: '^Yes, and'}\ndeny: {key: \"\\x1b\", option: '^No'}\n"
	if err := yaml.Unmarshal([]byte(src), &p); err != nil {
		t.Fatal(err)
	}
	if p.Approve != (KeySpec{Key: "1"}) || p.ApproveAlways != (KeySpec{Option: "^Yes, and"}) || p.Deny != (KeySpec{Key: "\x1b", Option: "^No"}) {
		t.Errorf("decoded %+v", p)
	}
}

// TestOptionKeys: an option chosen by its label gives its own key, even
// when the label wraps; a missing option falls back to the literal key,
// or to none.
func TestOptionKeys(t *testing.T) {
	d, err := Compile("t", &PermissionSpec{
		Match:         []string{"^Allow\\?"},
		Options:       `^\s*(?:›\s*)?\d\.\s+(?P<label>.*?)\s*\((?P<key>[a-z])\)$`,
		Approve:       KeySpec{Option: "^Yes$", Key: "1"},
		ApproveAlways: KeySpec{Option: "^Always"},
		Deny:          KeySpec{Option: "^No", Key: "\x1b"},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := d.Check([]string{
		"Allow?",
		"› 1. Yes (y)",
		"  2. Always for commands that start with",
		"     `rm -rf` (p)",
		"  3. Never mind (esc)",
	})
	if !ok || string(m.Approve) != "y" || string(m.ApproveAlways) != "p" || string(m.Deny) != "\x1b" {
		t.Errorf("keys %q %q %q (%v)", m.Approve, m.ApproveAlways, m.Deny, ok)
	}
	m, _ = d.Check([]string{"Allow?", "› 1. Sure (s)"})
	if string(m.Approve) != "1" || m.ApproveAlways != nil {
		t.Errorf("fallbacks %q %q", m.Approve, m.ApproveAlways)
	}
}

// TestLatestDialog: with an old answered dialog higher up, the one at the
// bottom is read; within keeps an answered one-line prompt from matching.
func TestLatestDialog(t *testing.T) {
	d := presets(t)["aider"]
	screen := []string{
		"",
		"ls",
		"Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: y",
		"",
		"make all",
		"Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]:",
	}
	if m, ok := d.Check(screen); !ok || m.Action != "make all" || m.Rows[0] != 4 {
		t.Errorf("%+v %v", m, ok)
	}
	if m, ok := d.Check(append(screen, "some output")); ok {
		t.Errorf("a prompt with output after it matched: %+v", m)
	}
}

// FuzzDetect: no screen makes a shipped detector or the heuristic panic,
// and a match's rows are on the screen.
func FuzzDetect(f *testing.F) {
	f.Add("Do you want to proceed?\n ❯ 1. Yes\n Esc to cancel")
	f.Add("│ ? Shell rm │\n│ ╭──╮ │\n│ │ x │ │\n│ Allow execution of [Shell]? │\n│ ● 1. Allow once │")
	f.Add("\nrm -rf /\nRun shell command? (Y)es/(N)o [Yes]:")
	f.Add("  Would you like to run the following command?\n  $ ls\n› 1. Yes, proceed (y)\n esc to cancel")
	f.Add("│\n│ │\n \x00\xff│")
	ds, err := ParsePresets(configs.Presets)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		screen := strings.Split(text, "\n")
		LooksLikeDialog(screen)
		for _, d := range ds {
			m, ok := d.Check(screen)
			if ok != (m.Kind == KindPermission) {
				t.Fatalf("%s: ok %v kind %s", d.Name(), ok, m.Kind)
			}
			for _, r := range m.Rows {
				if r < 0 || r >= len(screen) {
					t.Fatalf("%s: row %d of %d", d.Name(), r, len(screen))
				}
			}
			d.Diagnose(screen)
		}
	})
}
