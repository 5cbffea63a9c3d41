package queue

import (
	"testing"
	"time"

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
