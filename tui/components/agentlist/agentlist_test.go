package agentlist

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

func TestView(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	m.SetSize(40, 5)
	m.SetRows([]Row{
		{Name: "dev", Role: "developer", State: "busy", Unread: 3},
		{Name: "architect", Role: "architect", State: "idle", Pending: 1},
		{Name: "qa", Role: "qa", State: "exited"},
		{Name: "writer", Role: "technical-writer", State: "restarting", Unread: 12, Pending: 2},
	})
	m.Move(1)
	m.SetFocused(true)
	golden.Assert(t, "focused", m.View())
	m.SetFocused(false)
	m.Move(-2) // wraps to the last row
	golden.Assert(t, "unfocused-last", m.View())
	if m.Selected() != "writer" {
		t.Errorf("selected %q", m.Selected())
	}
	// At a tight width the selected row is cut, never wrapped.
	m.SetSize(31, 5)
	m.Select("architect")
	golden.Assert(t, "narrow", m.View())
	for _, line := range strings.Split(m.View(), "\n") {
		if w := lipgloss.Width(line); w > 31 {
			t.Errorf("line %q is %d wide", line, w)
		}
	}
	m.Select("writer")
	m.SetRows(m.Rows()[:2]) // the selected agent left: selection falls back
	if m.Selected() != "dev" {
		t.Errorf("selected after removal %q", m.Selected())
	}
}

// What an agent's CLI spent shows at the end of its row when the row has
// room, and gives way first when it has not.
func TestViewTokens(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	m.SetRows([]Row{{Name: "dev", Role: "developer", State: "busy", Tokens: "12.4k", Cost: "$0.03"}, {Name: "qa", Role: "qa", State: "idle", Tokens: "950"}})
	m.SetSize(50, 5)
	for _, want := range []string{"12.4k tok $0.03", "950 tok"} {
		if !strings.Contains(m.View(), want) {
			t.Errorf("wide: no %q in\n%s", want, m.View())
		}
	}
	m.SetSize(20, 5)
	if v := m.View(); strings.Contains(v, "tok") || !strings.Contains(v, "busy") || !strings.Contains(v, "idle") {
		t.Errorf("narrow: the tokens did not give way:\n%s", v)
	}
}

// An agent's worktree shows when the row has room, before its tokens.
func TestViewWorktree(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	m.SetRows([]Row{{Name: "dev", Role: "developer", State: "busy", Tree: "teamlead/dev ↑2↓1 *", Tokens: "3k"}, {Name: "qa", Role: "qa", State: "idle", Tree: "teamlead/qa ↑0↓0"}})
	m.SetSize(70, 5)
	for _, want := range []string{"teamlead/dev ↑2↓1 * 3k tok", "teamlead/qa ↑0↓0"} {
		if !strings.Contains(ansi.Strip(m.View()), want) {
			t.Errorf("wide: no %q in\n%s", want, m.View())
		}
	}
	m.SetSize(30, 5)
	if strings.Contains(m.View(), "teamlead/") {
		t.Errorf("narrow: the branch crowds the row\n%s", m.View())
	}
}
