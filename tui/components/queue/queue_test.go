package queue

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

func TestView(t *testing.T) {
	th, _ := themes.Load("dark")
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	m := New(style.New(th, true), func() time.Time { return now })
	m.SetSize(60, 4)
	golden.Assert(t, "empty", m.View())
	m.Add(Item{Kind: "question", ID: "m-7", From: "architect", Task: "T-3", Text: "Cookies or localStorage for the refresh token?", Since: now.Add(-90 * time.Second)})
	m.Add(Item{Kind: "blocker", ID: "m-4", From: "dev", Task: "T-9", Text: "The staging DB\nis down.", Since: now.Add(-3 * time.Hour)})
	m.Add(Item{Kind: "blocker", ID: "m-4", From: "dev", Text: "duplicate is ignored", Since: now})
	m.SetFocused(true)
	// Items are oldest first; the selection stays on the item it was on.
	if m.Len() != 2 || m.Items()[0].ID != "m-4" || m.Selected().ID != "m-7" {
		t.Errorf("len %d items %+v selected %+v", m.Len(), m.Items(), m.Selected())
	}
	m.Move(-1)
	golden.Assert(t, "two-items", m.View())
	m.Remove("m-4")
	if m.Selected().ID != "m-7" {
		t.Errorf("after remove: %+v", m.Selected())
	}
	m.Add(Item{Kind: "blocking q", ID: "q-0002", From: "qa", Text: "requirements.scope: Is mobile in scope?", Since: now.Add(-time.Minute),
		Deadline: now.Add(25 * time.Minute), For: "team/product"})
	m.SetSize(70, 4)
	golden.Assert(t, "with-question", m.View())
}

// TestPermissionItems draws permission requests as the dark theme colours
// them: three lines each, the risk in its colour (low muted, medium warn,
// high error, critical error and bold), the selected one highlighted.
func TestPermissionItems(t *testing.T) {
	prof := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(prof)
	th, _ := themes.Load(themes.Default)
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	m := New(style.New(th, false), func() time.Time { return now })
	m.SetSize(44, 12)
	for i, risk := range []string{"low", "medium", "high", "critical"} {
		m.Add(Item{Kind: "permission", ID: fmt.Sprintf("p-%d", i+1), From: "dev", Task: "T-1", Since: now.Add(-time.Duration(10-i) * time.Minute),
			Action: "Bash(rm -rf /srv/data)", Risk: risk, Rule: "floor delete-recursive-outside", Text: "dev wants Bash(rm -rf /srv/data)"})
	}
	m.Move(3)
	m.SetFocused(true)
	view := m.View()
	if got := len(strings.Split(view, "\n")); got != 12 {
		t.Errorf("%d lines, want 12 (four items of three)", got)
	}
	golden.Assert(t, "permissions-colour", view)
	// Scrolled: the selected item is whole at the bottom.
	m.SetSize(44, 7)
	golden.Assert(t, "permissions-scrolled", m.View())
	if v := m.View(); !strings.Contains(v, "p-4") || strings.Contains(v, "p-1") {
		t.Errorf("scrolled view:\n%s", v)
	}
}

// TestRemoveKeepsTheSelectedItem: an item leaving above the selection
// does not slide the one below under it; the selected one leaving selects
// the next.
func TestRemoveKeepsTheSelectedItem(t *testing.T) {
	th, _ := themes.Load("dark")
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	m := New(style.New(th, true), func() time.Time { return now })
	for i, id := range []string{"p-2", "p-3", "p-4"} {
		m.Add(Item{Kind: "permission", ID: id, From: "a2", Since: now.Add(time.Duration(i) * time.Minute)})
	}
	m.Move(1)
	m.Remove("p-2")
	if got := m.Selected().ID; got != "p-3" {
		t.Fatalf("p-2 left above the selection: %s selected, want p-3", got)
	}
	m.Remove("p-3")
	if got := m.Selected().ID; got != "p-4" {
		t.Fatalf("the selected p-3 left: %s selected, want p-4", got)
	}
	m.Remove("p-4")
	if got := m.Selected().ID; got != "" || m.Len() != 0 {
		t.Fatalf("empty queue: %q selected, %d items", got, m.Len())
	}
}
