// Package tasks is the tasks board: every task grouped by state (in
// progress, in review, passed, failed, blocked) with its developer, QA
// agent, time in state, reviews and why a review was sent back, and one
// task's history and last review on demand.
package tasks

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/components/listview"
	"github.com/teamlead/teamlead/tui/style"
)

// KeyMap are the keys the board handles itself: moving and the history.
type KeyMap = listview.KeyMap

// States are the groups of the board, in lifecycle order.
var States = []tasks.State{tasks.StateInProgress, tasks.StateInReview, tasks.StatePassed, tasks.StateFailed, tasks.StateBlocked}

// Model is the board. Its list holds the tasks as given and as shown
// (filtered by match, grouped by state), the selection and the history
// shown; SetFilter's text is read by match.
type Model struct {
	listview.List[tasks.Task]
	now func() time.Time
	st  *style.Styles
}

// New returns an empty board; now is the clock ages use.
func New(st *style.Styles, keys KeyMap, now func() time.Time) Model {
	id := func(t tasks.Task) string { return t.ID }
	return Model{List: listview.New(keys, id, match, order), st: st, now: now}
}

// order groups ts by state in lifecycle order.
func order(ts []tasks.Task) {
	rank := map[tasks.State]int{}
	for i, s := range States {
		rank[s] = i
	}
	sort.SliceStable(ts, func(i, j int) bool {
		a, b := ts[i], ts[j]
		ra, oka := rank[a.State]
		rb, okb := rank[b.State]
		if !oka {
			ra = len(States)
		}
		if !okb {
			rb = len(States)
		}
		if ra != rb {
			return ra < rb
		}
		// Finished tasks newest first; the others longest waiting first.
		if a.State == tasks.StatePassed {
			return since(a).After(since(b))
		}
		return since(a).Before(since(b))
	})
}

// match reports whether the id, state, developer or QA agent of t contain
// every word of filter ("" or "all": every task).
func match(t tasks.Task, filter string) bool {
	hay := strings.ToLower(strings.Join([]string{t.ID, string(t.State), t.Developer, t.QA}, " "))
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if w != "all" && !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// since is when t entered its state: its last transition to it.
func since(t tasks.Task) time.Time {
	for i := len(t.History) - 1; i >= 0; i-- {
		if h := t.History[i]; h.To == t.State && h.From != h.To {
			return h.At
		}
	}
	if !t.Updated.IsZero() {
		return t.Updated
	}
	return t.Created
}

// SentBack is the first missing item of an in-review task's last review
// when it was sent back ("" otherwise).
func SentBack(t tasks.Task) string {
	if t.State != tasks.StateInReview || t.LastReview == nil || t.LastReview.Complete() {
		return ""
	}
	return brief(t.LastReview.Missing[0])
}

// brief drops a missing item's closing hint in parentheses (how to fix
// it, meant for the QA agent); the task's detail shows it whole.
func brief(item string) string {
	if strings.HasSuffix(item, ")") {
		if i := strings.LastIndex(item, " ("); i > 0 {
			return item[:i]
		}
	}
	return item
}

// Counts is how many tasks are in each state.
func (m Model) Counts() map[tasks.State]int {
	out := map[tasks.State]int{}
	for _, t := range m.All() {
		out[t.State]++
	}
	return out
}

// Select selects task id (any case) if it is shown.
func (m *Model) Select(id string) bool {
	return m.SelectFunc(func(t tasks.Task) bool { return strings.EqualFold(t.ID, id) })
}

// Update moves the selection, scrolls the history, opens and closes it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.List, cmd = m.List.Update(msg)
	return m, cmd
}

// stateStyle colours a state.
func (m Model) stateStyle(s tasks.State) lipgloss.Style {
	switch s {
	case tasks.StateInProgress:
		return m.st.Busy
	case tasks.StateInReview:
		return m.st.Accent
	case tasks.StatePassed:
		return m.st.Ok
	case tasks.StateFailed:
		return m.st.Error
	case tasks.StateBlocked:
		return m.st.Warn
	}
	return m.st.Text
}

// View renders the tasks grouped by state, or the selected one's history.
func (m Model) View() string {
	if m.InDetail() {
		return m.detailView()
	}
	rows, sel := m.Rows(), m.Index()
	if len(rows) == 0 {
		if f := m.Filter(); f != "" {
			return m.st.Muted.Render(fmt.Sprintf("no tasks match %q (/ to change the filter)", f))
		}
		return m.st.Muted.Render("no tasks yet: a task starts with a developer's first message naming it")
	}
	w := max(m.Width(), 20)
	idW, devW, qaW := 4, 9, 4
	for _, t := range rows {
		idW = max(idW, len(t.ID))
		devW = max(devW, len(t.Developer))
		qaW = max(qaW, len(t.QA))
	}
	idW, devW, qaW = min(idW, 12), min(devW, 14), min(qaW, 14)
	now := m.now()
	counts := map[tasks.State]int{}
	for _, t := range rows {
		counts[t.State]++
	}
	lines := []string{m.st.Muted.Render(ansi.Truncate(fmt.Sprintf("  %-*s %-*s %-*s %8s %-10s %7s %s", idW, "task", devW, "developer", qaW, "qa",
		"in state", "reviews", "tokens", "note"), w, "…"))}
	selAt, selEnd := 0, 0
	var group tasks.State = "none"
	for i, t := range rows {
		if t.State != group {
			group = t.State
			title := strings.ToUpper(strings.ReplaceAll(string(group), "-", " "))
			lines = append(lines, m.stateStyle(group).Bold(true).Render(ansi.Truncate(fmt.Sprintf("%s (%d)", title, counts[group]), w, "…")))
		}
		line := fmt.Sprintf("%-*s %-*s %-*s %8s %-10s %7s", idW, t.ID, devW, cut(layout.OrDash(t.Developer), devW), qaW, cut(layout.OrDash(t.QA), qaW),
			report.Age(now.Sub(since(t))), reviews(t.Reviews), spentShort(t))
		note := ""
		if sb := SentBack(t); sb != "" {
			note = "sent back: " + sb
		} else if t.LastReview != nil && t.LastReview.Decision != "" && (t.State == tasks.StateFailed || t.State == tasks.StateBlocked) {
			note = "QA: " + string(t.LastReview.Decision)
		}
		prefix := m.Mark(i)
		if i == sel {
			selAt = len(lines)
		}
		row := []string{prefix + line}
		if note != "" {
			// The note goes on a line of its own when it would not fit.
			if lipgloss.Width(prefix+line)+1+lipgloss.Width(note) <= w {
				row[0] += " " + note
			} else {
				row = append(row, strings.Repeat(" ", 2+idW+1)+note)
			}
		}
		for j, l := range row {
			l = ansi.Truncate(l, w, "…")
			switch {
			case i == sel && m.Focused():
				l = m.st.Selected.Render(layout.Pad(l, w))
			case i == sel:
				l = m.st.Accent.Render(l)
			case note != "" && (j == 1 || len(row) == 1):
				at := len(prefix) + lipgloss.Width(line) + 1
				if j == 1 {
					at = 2 + idW + 1
				}
				l = m.st.Text.Render(ansi.Cut(l, 0, at)) + m.st.Warn.Render(ansi.Cut(l, at, w))
			default:
				l = m.st.Text.Render(l)
			}
			lines = append(lines, strings.TrimRight(l, " "))
		}
		if i == sel {
			selEnd = len(lines)
		}
	}
	return strings.Join(m.Window(lines, selAt, selEnd), "\n")
}

// detailView is the selected task's history and its last review.
func (m Model) detailView() string {
	t, ok := m.Selected()
	if !ok {
		return m.st.Muted.Render("nothing selected")
	}
	w := max(m.Width(), 20)
	now := m.now()
	var lines []string
	add := func(render func(...string) string, text, indent string) {
		for _, l := range layout.Wrap(text, w, indent) {
			lines = append(lines, render(l))
		}
	}
	text, muted, title := m.st.Text.Render, m.st.Muted.Render, m.st.Title.Render
	head := fmt.Sprintf("%s · %s for %s", t.ID, t.State, report.Age(now.Sub(since(t))))
	lines = append(lines, m.stateStyle(t.State).Bold(true).Render(head))
	add(text, fmt.Sprintf("developer %s · QA %s · %s · %s tokens", layout.OrDash(t.Developer), layout.OrDash(t.QA), reviews(t.Reviews), t.Spent()), "  ")
	add(muted, fmt.Sprintf("created %s (%s ago) · updated %s (%s ago)", layout.Stamp(t.Created), report.Age(now.Sub(t.Created)),
		layout.Stamp(t.Updated), report.Age(now.Sub(t.Updated))), "  ")

	lines = append(lines, "", title("History"))
	if len(t.History) == 0 {
		lines = append(lines, muted("  (no transitions recorded)"))
	}
	for _, h := range t.History {
		move := "started " + string(h.To)
		if h.From != "" {
			move = string(h.From) + " → " + string(h.To)
		}
		s := "  " + layout.Stamp(h.At) + "  " + move
		if h.By != "" {
			s += " by " + h.By
		}
		if n := strings.Join(strings.Fields(h.Note), " "); n != "" {
			s += ": " + n
		}
		add(text, s, strings.Repeat(" ", 2+len(layout.Stamp(h.At))+2))
	}

	if r := t.LastReview; r != nil {
		verdict := "complete"
		if !r.Complete() {
			verdict = "sent back to QA"
		}
		decision := string(r.Decision)
		if decision == "" {
			decision = "none"
		}
		lines = append(lines, "", title(fmt.Sprintf("Last review — %s, decision %s", verdict, decision)))
		if len(r.Missing) > 0 {
			lines = append(lines, m.st.Warn.Render("  missing:"))
			for _, it := range r.Missing {
				add(m.st.Warn.Render, "  - "+it, "    ")
			}
		}
		if len(r.Commands) > 0 {
			lines = append(lines, text("  commands:"))
			for _, c := range r.Commands {
				s := "  - " + c.Text
				if c.Failed {
					s += " → failed"
					if c.Class != "" {
						s += " (" + c.Class + ")"
					}
				}
				add(text, s, "    ")
			}
		}
	}
	return strings.Join(m.Scroll(lines), "\n")
}

func reviews(n int) string {
	if n == 1 {
		return "1 review"
	}
	return fmt.Sprintf("%d reviews", n)
}

func cut(s string, w int) string { return ansi.Truncate(s, w, "…") }

// spentShort is the tokens column: the count alone (the cost shows in the
// task's detail).
func spentShort(t tasks.Task) string {
	s, _, _ := strings.Cut(t.Spent(), " ")
	return s
}
