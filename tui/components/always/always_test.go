package always

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

func TestOptions(t *testing.T) {
	cases := []struct {
		action string
		want   []string // scope: rule | says, or scope: - unavailable
	}{
		{"Bash(npm install left-pad)", []string{
			"exact: Bash(npm install left-pad) | this command exactly",
			"prefix: Bash(npm install left-pad:*) | `npm install left-pad` with any arguments",
			"dir: - only for file tools (Read, Edit, Write…)",
			"tool: Bash | every shell command — anything at all"}},
		{"Bash(go test ./... && npm run build)", []string{
			"exact: Bash(go test ./...), Bash(npm run build) | each of these commands exactly",
			"prefix: Bash(go test ./...:*), Bash(npm run build:*) | these commands with any arguments",
			"dir: - only for file tools (Read, Edit, Write…)",
			"tool: Bash | every shell command — anything at all"}},
		// A prefix keeps the operand that makes the request specific (red
		// team 9a, finding 11), or does not apply.
		{"Bash(npm install -- left-pad)", []string{
			"exact: Bash(npm install -- left-pad) | this command exactly",
			"prefix: Bash(npm install -- left-pad:*) | `npm install -- left-pad` with any arguments",
			"dir: - only for file tools (Read, Edit, Write…)",
			"tool: Bash | every shell command — anything at all"}},
		{"Bash(pip install $(echo left-pad))", []string{
			"exact: Bash(pip install $(echo left-pad)), Bash(echo left-pad) | each of these commands exactly",
			"prefix: - no prefix of pip install $(echo left-pad): its operand $(echo left-pad) is known only when it runs, so the rule would allow any value; choose exact",
			"dir: - only for file tools (Read, Edit, Write…)",
			"tool: Bash | every shell command — anything at all"}},
		{"Bash(sudo apt-get install x)", []string{
			"exact: - on the destructive floor: asked every time",
			"prefix: - on the destructive floor: asked every time",
			"dir: - on the destructive floor: asked every time",
			"tool: - on the destructive floor: asked every time"}},
		{"Edit(src/app/main.go)", []string{
			"exact:  | Edit of src/app/main.go only",
			"prefix:  | Edit of any file in src/app/ and below",
			"dir:  | Edit of any file in src/app/ and below",
			"tool: Edit | every Edit, of any file"}},
		{"WebFetch(https://docs.example.com/guide)", []string{
			"exact: WebFetch(domain:docs.example.com) | any page of docs.example.com",
			"prefix: WebFetch(domain:docs.example.com) | any page of docs.example.com",
			"dir: WebFetch(domain:docs.example.com) | any page of docs.example.com",
			"tool: WebFetch | every WebFetch — anything it can do"}},
		{"mcp__github__create_issue", []string{
			"exact: mcp__github__create_issue | this exactly",
			"prefix: mcp__github | every tool of the github server",
			"dir: mcp__github | every tool of the github server",
			"tool: mcp__github__create_issue | every mcp__github__create_issue — anything it can do"}},
	}
	for _, c := range cases {
		var got []string
		for _, o := range Options(c.action) {
			if o.Unavailable != "" {
				got = append(got, o.Scope+": - "+o.Unavailable)
			} else {
				got = append(got, o.Scope+": "+o.Rule+" | "+o.Says)
			}
		}
		if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", c.action, strings.Join(got, "\n"), strings.Join(c.want, "\n"))
		}
	}
}

func keys() KeyMap {
	b := func(help string, k ...string) key.Binding {
		return key.NewBinding(key.WithKeys(k...), key.WithHelp(help, ""))
	}
	return KeyMap{Up: b("↑", "up"), Down: b("↓", "down"), Toggle: b("tab", "tab"), Confirm: b("enter", "enter"), Cancel: b("esc", "esc")}
}

func TestChooseScopeAndAgents(t *testing.T) {
	th, _ := themes.Load(themes.Default)
	m := New(style.New(th, true), keys())
	m.Open("p-4", "qa", "Bash(npm install left-pad)", "medium")
	if s, all, ok := m.Choice(); s != "prefix" || all || !ok {
		t.Errorf("starts on %s all=%v ok=%v, want prefix for qa only", s, all, ok)
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyDown}) // dir does not apply to Bash: skipped
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyTab})
	if s, all, ok := m.Choice(); s != "tool" || !all || !ok {
		t.Errorf("after down and tab: %s all=%v ok=%v", s, all, ok)
	}
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyDown}) // the last one stays
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyUp})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyUp})
	if s, _, _ := m.Choice(); s != "exact" {
		t.Errorf("up twice from tool: %s", s)
	}
	// A file tool starts on its directory.
	m.Open("p-5", "dev", "Edit(src/main.go)", "low")
	if s, _, _ := m.Choice(); s != "dir" {
		t.Errorf("Edit starts on %s", s)
	}
	// Nothing applies on the floor: the choice says so.
	m.Open("p-6", "dev", "Bash(sudo reboot)", "critical")
	if _, _, ok := m.Choice(); ok {
		t.Error("a floor action offers a scope")
	}
}

// TestView draws the chooser plain and in the default theme's colours.
func TestView(t *testing.T) {
	th, _ := themes.Load(themes.Default)
	m := New(style.New(th, true), keys())
	m.SetWidth(96)
	m.Open("p-4", "qa", "Bash(npm install left-pad)", "medium")
	if got := len(strings.Split(m.View(), "\n")); got != m.Height() {
		t.Errorf("%d lines, Height says %d", got, m.Height())
	}
	golden.Assert(t, "npm-install", m.View())
	if m.Title() != "Approve p-4 always — qa wants Bash(npm install left-pad)" {
		t.Errorf("title %q", m.Title())
	}

	prof := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(prof)
	c := New(style.New(th, false), keys())
	c.SetWidth(96)
	c.Open("p-4", "qa", "Bash(npm install left-pad)", "medium")
	c, _ = c.Update(tea.KeyMsg{Type: tea.KeyTab})
	golden.Assert(t, "npm-install-every-agent-colour", c.View())
}

// TestPlansShowWhatIsWritten: the console's own plans replace the
// preview, and the chooser shows in full what the selected scope writes,
// or that it writes nothing and why (red team 9a, finding 11).
func TestPlansShowWhatIsWritten(t *testing.T) {
	th, _ := themes.Load(themes.Default)
	m := New(style.New(th, true), keys())
	m.SetWidth(60)
	action := "Bash(npm install left-pad; npm install is-number)"
	m.Open("p-7", "dev", action, "medium")
	if v := m.View(); !strings.Contains(v, "writes  Bash(npm install left-pad:*)\n        Bash(npm install is-number:*)  (preview)") {
		t.Errorf("preview:\n%s", v)
	}
	m.SetPlans("p-7", []Option{
		Planned(action, "exact", permit.AlwaysPlan{Rules: []string{"Bash(npm install is-number)"}}, nil),
		Planned(action, "prefix", permit.AlwaysPlan{Rules: []string{"Bash(npm install is-number:*)"}}, nil),
	})
	v := m.View()
	if !strings.Contains(v, "writes  Bash(npm install is-number:*)\n") || strings.Contains(v, "preview") || strings.Contains(v, "left-pad:*") {
		t.Errorf("planned:\n%s", v)
	}
	if got := len(strings.Split(v, "\n")); got != m.Height() {
		t.Errorf("%d lines, Height says %d", got, m.Height())
	}
	// Nothing to add: approved once, and why; never "always" of nothing.
	m.SetPlans("p-7", []Option{Planned(action, "prefix", permit.AlwaysPlan{Why: "the policy allows it already (Bash(npm install:*) at permissions.yaml:3)"}, nil)})
	if v := strings.ReplaceAll(m.View(), "\n        ", " "); !strings.Contains(v, "writes nothing: the policy allows it already (Bash(npm install:*) at permissions.yaml:3); enter approves it once") {
		t.Errorf("nothing to add:\n%s", m.View())
	}
	if o := m.Selected(); o.Scope != "prefix" || o.Rule != "" || o.Says != "nothing to add: approved once" {
		t.Errorf("selected %+v", o)
	}
	// A scope the console refuses no longer applies: the selection moves.
	m.SetPlans("p-7", []Option{Planned(action, "prefix", permit.AlwaysPlan{}, fmt.Errorf("%w: no prefix of x", permit.ErrScope))})
	if s, _, ok := m.Choice(); s != "tool" || !ok {
		t.Errorf("after prefix was refused: %s %v", s, ok)
	}
	if o := m.opts[1]; o.Unavailable != "no prefix of x" {
		t.Errorf("prefix: %+v", o)
	}
	// Plans for another request are not this one's.
	m.SetPlans("p-8", []Option{Planned(action, "tool", permit.AlwaysPlan{}, fmt.Errorf("%w: x", permit.ErrFloor))})
	if _, _, ok := m.Choice(); !ok {
		t.Error("another request's plan was taken")
	}
}
