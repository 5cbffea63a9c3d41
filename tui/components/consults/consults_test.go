package consults

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

var now = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func at(h, m int) time.Time { return time.Date(2026, 11, 21, h, m, 0, 0, time.UTC) }

// Fixture is a team's consultations, newest first as the engine gives
// them: the architect's infrastructure decision on T-1 rejected, then
// resubmitted and pending; the developer's handoff of T-2 held by a review
// escalated to the human (testing approved); concerns raised on a design
// decision; an answered query; acknowledged concerns.
func Fixture() []consult.Consultation {
	return []consult.Consultation{
		{ID: "c-7", Requester: "architect", RequesterRole: "architect", Consulted: "designer", ConsultedRole: "designer", Decision: "design-impact",
			Task: "T-4", Body: "Dark mode tokens.", Mandatory: true, Status: consult.Resolved, Created: at(11, 30), ResolvedAt: at(11, 50),
			Verdicts: []consult.Verdict{{By: "designer", Verdict: consult.ConcernsRaised, Body: "Contrast too low.", At: at(11, 40)},
				{By: "human", Verdict: consult.Resolved, At: at(11, 50)}}},
		{ID: "c-6", Requester: "pm", RequesterRole: "pm", Consulted: "architect", ConsultedRole: "architect", Decision: "estimate", Task: "T-5",
			Body: "How long for SSO?", Status: consult.Answered, Priority: "high", Created: at(11, 0), ResolvedAt: at(11, 20),
			Query: ".claude/queries/q-sso.md", Verdicts: []consult.Verdict{{By: "architect", Verdict: consult.Answered, Body: "Two sprints.", At: at(11, 20)}}},
		{ID: "c-5", Requester: "architect", RequesterRole: "architect", Consulted: "designer", ConsultedRole: "designer", Decision: "design-impact",
			Task: "T-3", Body: "Move settings into a modal.", Mandatory: true, Status: consult.ConcernsRaised, Created: at(10, 30),
			Verdicts: []consult.Verdict{{By: "designer", Verdict: consult.ConcernsRaised, Body: "Modals break deep links.", At: at(10, 45)}},
			Events:   []consult.Event{{Kind: consult.EventAddressed, By: "architect", Body: "Modal keeps a URL.", At: at(11, 5)}}},
		{ID: "c-3", Requester: "architect", RequesterRole: "architect", Consulted: "sec", ConsultedRole: "security", Decision: "infrastructure",
			Task: "T-1", Body: "Private S3 bucket behind CloudFront, KMS keys.", Mandatory: true, Status: consult.Pending, Supersedes: "c-1",
			Created: at(10, 0), Deadline: at(14, 0)},
		{ID: "c-4", Requester: "dev", RequesterRole: "developer", Consulted: "tester", ConsultedRole: "testing", Decision: "code-complete",
			Task: "T-2", Body: "Login form done.", Mandatory: true, Status: consult.Approved, Created: at(7, 0), ResolvedAt: at(8, 0),
			Verdicts: []consult.Verdict{{By: "tester", Verdict: consult.Approved, Body: "Suite green.", At: at(8, 0)}}},
		{ID: "c-2", Requester: "dev", RequesterRole: "developer", Consulted: "reviewer", ConsultedRole: "review", Decision: "code-complete",
			Task: "T-2", Body: "Login form done.", Mandatory: true, Status: consult.Escalated, Created: at(7, 0), Escalations: 1,
			Events: []consult.Event{{Kind: consult.EventEscalated, By: "team-lead", To: "human", Body: "no verdict within 4h0m0s", At: at(11, 0)}}},
		{ID: "c-1", Requester: "architect", RequesterRole: "architect", Consulted: "sec", ConsultedRole: "security", Decision: "infrastructure",
			Task: "T-1", Body: "Public S3 bucket for uploads.", Mandatory: true, Status: consult.Superseded, Created: at(9, 0), ResolvedAt: at(9, 30),
			Verdicts: []consult.Verdict{{By: "sec", Verdict: consult.Rejected, Body: "No public buckets.", At: at(9, 30)}}},
	}
}

func keys() KeyMap {
	b := func(k ...string) key.Binding { return key.NewBinding(key.WithKeys(k...)) }
	return KeyMap{Up: b("up", "k"), Down: b("down", "j"), PageUp: b("pgup"), PageDown: b("pgdown"), Detail: b("enter", "v"), Back: b("esc")}
}

func newBoard() Model {
	th, _ := themes.Load("dark")
	return New(style.New(th, true), keys(), func() time.Time { return now })
}

func press(m Model, k string) Model {
	var msg tea.KeyMsg
	switch k {
	case "enter":
		msg = tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		msg = tea.KeyMsg{Type: tea.KeyEsc}
	case "down":
		msg = tea.KeyMsg{Type: tea.KeyDown}
	default:
		msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
	}
	m, _ = m.Update(msg)
	return m
}

func TestView(t *testing.T) {
	m := newBoard()
	m.SetSize(118, 30)
	golden.Assert(t, "empty", m.View())
	m.Set(Fixture())
	m.SetFocused(true)
	// Open ones first, oldest first; then the rest newest first.
	var order []string
	for _, c := range m.Rows() {
		order = append(order, c.ID)
	}
	if got := join(order); got != "c-2 c-3 c-7 c-6 c-5 c-1 c-4" {
		t.Errorf("order %s", got)
	}
	golden.Assert(t, "wide", m.View())
	m.SetSize(68, 19)
	golden.Assert(t, "narrow", m.View())
}

func TestBlocked(t *testing.T) {
	bs := Blocked(Fixture())
	var got []string
	for _, b := range bs {
		s := b.Requester + "/" + b.Decision + "/" + b.Task + ":"
		for _, c := range b.Held {
			s += " " + c.ID
		}
		got = append(got, s)
	}
	// T-1 is held by the resubmission (not the superseded c-1), T-2 by the
	// escalated review only, T-3 by the concerns; T-4's were acknowledged.
	want := "dev/code-complete/T-2: c-2|architect/infrastructure/T-1: c-3|architect/design-impact/T-3: c-5"
	if g := joinSep(got, "|"); g != want {
		t.Errorf("blocked\n got %s\nwant %s", g, want)
	}
}

func TestFilter(t *testing.T) {
	m := newBoard()
	m.Set(Fixture())
	for _, c := range []struct{ filter, want string }{
		{"open", "c-2 c-3"},
		{"all", "c-2 c-3 c-7 c-6 c-5 c-1 c-4"},
		{"sec", "c-3 c-1"},
		{"designer concerns", "c-5"},
		{"T-2", "c-2 c-4"},
		{"escalated", "c-2"},
		{"nobody", ""},
	} {
		m.SetFilter(c.filter)
		var ids []string
		for _, r := range m.Rows() {
			ids = append(ids, r.ID)
		}
		if got := join(ids); got != c.want {
			t.Errorf("filter %q: %s, want %s", c.filter, got, c.want)
		}
	}
	m.SetSize(118, 10)
	m.SetFilter("T-1")
	golden.Assert(t, "filtered", m.View())
	m.SetFilter("nobody")
	golden.Assert(t, "filtered-none", m.View())
}

func TestDetail(t *testing.T) {
	m := newBoard()
	m.Set(Fixture())
	m.SetSize(100, 30)
	m.SetFocused(true)
	m = press(m, "down") // c-3: the resubmission
	m = press(m, "enter")
	if !m.InDetail() {
		t.Fatal("enter did not open the detail")
	}
	golden.Assert(t, "detail-resubmission", m.View())
	m = press(m, "esc")
	m = press(m, "k")
	if c, _ := m.Selected(); m.InDetail() || c.ID != "c-2" {
		t.Fatalf("esc and k: detail %v selected %s", m.InDetail(), c.ID)
	}
	m = press(m, "v")
	golden.Assert(t, "detail-escalated", m.View())
	m = press(m, "esc")
	m.Select("c-5")
	m = press(m, "v")
	golden.Assert(t, "detail-concerns", m.View())
}

func join(s []string) string { return joinSep(s, " ") }

func joinSep(s []string, sep string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += sep
		}
		out += x
	}
	return out
}

// TestBlockNamesWhoRejected: a decision the human rejected is held by the
// human's verdict, and the line says so (not the consulted agent's name).
func TestBlockNamesWhoRejected(t *testing.T) {
	m := newBoard()
	b := Block{Requester: "architect", Decision: "infrastructure", Task: "T-1", Held: []consult.Consultation{{
		ID: "c-1", Consulted: "security", Status: consult.Rejected, Created: at(11, 0), Mandatory: true,
		Verdicts: []consult.Verdict{{By: "human", Verdict: consult.Rejected, At: at(11, 30)}}}}}
	if got := m.blockLine(b); !strings.Contains(got, "held by c-1 (human: rejected") {
		t.Errorf("blockLine = %q, want the human named as the one who rejected", got)
	}
}
