package tasks

import (
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/usage"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func at(h, m int) time.Time { return time.Date(2026, 11, 21, h, m, 0, 0, time.UTC) }

// Fixture is a task in every state; T-2's last review was sent back.
func Fixture() []tasks.Task {
	sentBack := &tasks.Review{Decision: tasks.Fail, Commands: []tasks.Command{{Text: "go test ./...", Failed: true}},
		Missing: []string{"failed command `go test ./...` has no classification (regression or env_blocker)",
			"evidence summary: none given (add an 'evidence:' section: log excerpts, screenshots or request/response)"}}
	return []tasks.Task{
		{ID: "T-6", State: tasks.StateInProgress, Developer: "dev2", Created: at(11, 50), Updated: at(11, 50),
			History: []tasks.Transition{{To: tasks.StateInProgress, At: at(11, 50), By: "dev2", Note: "first message"}}},
		{ID: "T-1", State: tasks.StateInProgress, Developer: "dev", Created: at(8, 0), Updated: at(8, 0),
			History: []tasks.Transition{{To: tasks.StateInProgress, At: at(8, 0), By: "dev", Note: "first message"}}},
		{ID: "T-2", State: tasks.StateInReview, Developer: "dev", QA: "qa", Created: at(9, 0), Updated: at(11, 40), Reviews: 1, LastReview: sentBack,
			History: []tasks.Transition{{To: tasks.StateInProgress, At: at(9, 0), By: "dev", Note: "first message"},
				{From: tasks.StateInProgress, To: tasks.StateInReview, At: at(11, 0), By: "dev", Note: "handoff to qa"}}},
		{ID: "T-3", State: tasks.StatePassed, Developer: "dev", QA: "qa", Created: at(7, 0), Updated: at(10, 0), Reviews: 1,
			Tokens:     &usage.Tokens{Input: 120000, Output: 8400, CacheRead: 900000, CostUSD: 0.41},
			LastReview: &tasks.Review{Decision: tasks.Pass, Commands: []tasks.Command{{Text: "go test ./..."}}},
			History: []tasks.Transition{{To: tasks.StateInProgress, At: at(7, 0), By: "dev"},
				{From: tasks.StateInProgress, To: tasks.StateInReview, At: at(9, 30), By: "dev", Note: "handoff to qa"},
				{From: tasks.StateInReview, To: tasks.StatePassed, At: at(10, 0), By: "qa", Note: "review PASS"}}},
		{ID: "T-4", State: tasks.StateFailed, Developer: "dev2", QA: "qa", Created: at(6, 0), Updated: at(11, 0), Reviews: 2,
			LastReview: &tasks.Review{Decision: tasks.Fail, Commands: []tasks.Command{{Text: "npm test", Failed: true, Class: tasks.Regression}}},
			History: []tasks.Transition{{To: tasks.StateInProgress, At: at(6, 0), By: "dev2"},
				{From: tasks.StateInProgress, To: tasks.StateInReview, At: at(10, 0), By: "dev2", Note: "handoff to qa"},
				{From: tasks.StateInReview, To: tasks.StateFailed, At: at(11, 0), By: "qa", Note: "review FAIL: npm test regression"}}},
		{ID: "T-5", State: tasks.StateBlocked, Developer: "dev", QA: "qa2", Created: at(5, 0), Updated: at(9, 0), Reviews: 1,
			LastReview: &tasks.Review{Decision: tasks.Blocked, Commands: []tasks.Command{{Text: "make e2e", Failed: true, Class: tasks.EnvBlocker}}},
			History: []tasks.Transition{{To: tasks.StateInProgress, At: at(5, 0), By: "dev"},
				{From: tasks.StateInProgress, To: tasks.StateInReview, At: at(8, 0), By: "dev"},
				{From: tasks.StateInReview, To: tasks.StateBlocked, At: at(9, 0), By: "qa2", Note: "review BLOCKED: staging down"}}},
	}
}

func newBoard() Model {
	th, _ := themes.Load("dark")
	b := func(k ...string) key.Binding { return key.NewBinding(key.WithKeys(k...)) }
	keys := KeyMap{Up: b("up", "k"), Down: b("down", "j"), PageUp: b("pgup"), PageDown: b("pgdown"), Detail: b("enter", "v"), Back: b("esc")}
	return New(style.New(th, true), keys, func() time.Time { return now })
}

func TestView(t *testing.T) {
	m := newBoard()
	m.SetSize(118, 30)
	golden.Assert(t, "empty", m.View())
	m.Set(Fixture())
	m.SetFocused(true)
	var order []string
	for _, r := range m.Rows() {
		order = append(order, r.ID)
	}
	// By state in lifecycle order; the longest waiting first.
	if got := join(order); got != "T-1 T-6 T-2 T-3 T-4 T-5" {
		t.Errorf("order %s", got)
	}
	if c := m.Counts(); c[tasks.StateInProgress] != 2 || c[tasks.StateBlocked] != 1 {
		t.Errorf("counts %v", c)
	}
	golden.Assert(t, "wide", m.View())
	m.SetSize(68, 12)
	golden.Assert(t, "narrow", m.View())
	m.SetFilter("qa2")
	golden.Assert(t, "filtered", m.View())
}

func TestDetail(t *testing.T) {
	m := newBoard()
	m.Set(Fixture())
	m.SetSize(100, 24)
	m.SetFocused(true)
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")}) // not one key: nothing moves
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyDown})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyDown})
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEnter})
	if tk, _ := m.Selected(); !m.InDetail() || tk.ID != "T-2" {
		t.Fatalf("detail %v of %s", m.InDetail(), tk.ID)
	}
	golden.Assert(t, "detail-sent-back", m.View())
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	m.Select("t-4")
	m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("v")})
	golden.Assert(t, "detail-failed", m.View())
}

func join(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}
