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

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/tui/style"
)

// KeyMap are the keys the board handles itself: moving and the detail.
type KeyMap struct {
	// Up and Down move the selection (or scroll the detail).
	Up, Down key.Binding
	// PageUp and PageDown move by a page.
	PageUp, PageDown key.Binding
	// Detail opens (and closes) the selected task's history.
	Detail key.Binding
	// Back leaves the detail.
	Back key.Binding
}

// States are the groups of the board, in lifecycle order.
var States = []tasks.State{tasks.StateInProgress, tasks.StateInReview, tasks.StatePassed, tasks.StateFailed, tasks.StateBlocked}

// Model is the board.
type Model struct {
	all     []tasks.Task
	rows    []tasks.Task // shown: filtered, grouped by state
	filter  string
	sel     int
	detail  bool
	offset  int
	width   int
	height  int
	focused bool
	keys    KeyMap
	now     func() time.Time
	st      *style.Styles
}

// New returns an empty board; now is the clock ages use.
func New(st *style.Styles, keys KeyMap, now func() time.Time) Model {
	return Model{st: st, keys: keys, now: now}
}

// Set replaces the tasks, keeping the selection on the same one.
func (m *Model) Set(ts []tasks.Task) {
	m.all = append([]tasks.Task(nil), ts...)
	m.refilter()
}

// SetFilter shows only the tasks whose id, state, developer or QA agent
// contain every word of text ("" or "all": every task).
func (m *Model) SetFilter(text string) {
	m.filter = strings.TrimSpace(text)
	m.refilter()
}

// Filter is the current filter text.
func (m Model) Filter() string { return m.filter }

func (m *Model) refilter() {
	cur, _ := m.Selected()
	m.rows = m.rows[:0]
	for _, t := range m.all {
		if match(t, m.filter) {
			m.rows = append(m.rows, t)
		}
	}
	rank := map[tasks.State]int{}
	for i, s := range States {
		rank[s] = i
	}
	sort.SliceStable(m.rows, func(i, j int) bool {
		a, b := m.rows[i], m.rows[j]
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
	m.sel = 0
	found := false
	for i, t := range m.rows {
		if t.ID == cur.ID {
			m.sel, found = i, true
		}
	}
	if !found {
		m.detail = false // its subject is gone: never show another's
	}
}

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
	for _, t := range m.all {
		out[t.State]++
	}
	return out
}

// Len is the number of tasks shown.
func (m Model) Len() int { return len(m.rows) }

// Selected is the selected task (false when none is shown).
func (m Model) Selected() (tasks.Task, bool) {
	if m.sel < len(m.rows) {
		return m.rows[m.sel], true
	}
	return tasks.Task{}, false
}

// Select selects task id if it is shown.
func (m *Model) Select(id string) bool {
	for i, t := range m.rows {
		if strings.EqualFold(t.ID, id) {
			m.sel = i
			return true
		}
	}
	return false
}

// Move moves the selection by delta.
func (m *Model) Move(delta int) {
	if n := len(m.rows); n > 0 {
		m.sel = min(max(m.sel+delta, 0), n-1)
	}
}

// InDetail reports whether the selected task's history is shown.
func (m Model) InDetail() bool { return m.detail }

// ShowDetail opens (true) or closes the selected task's history.
func (m *Model) ShowDetail(on bool) {
	_, ok := m.Selected()
	m.detail, m.offset = on && ok, 0
}

// SetSize sets the pane's inner size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetFocused marks the pane focused.
func (m *Model) SetFocused(f bool) { m.focused = f }

// Update moves the selection, scrolls the detail, opens and closes it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	page := max(m.height-1, 1)
	if m.detail {
		switch {
		case key.Matches(k, m.keys.Back), key.Matches(k, m.keys.Detail):
			m.detail = false
		case key.Matches(k, m.keys.Up):
			m.offset = max(m.offset-1, 0)
		case key.Matches(k, m.keys.Down):
			m.offset++
		case key.Matches(k, m.keys.PageUp):
			m.offset = max(m.offset-page, 0)
		case key.Matches(k, m.keys.PageDown):
			m.offset += page
		}
		return m, nil
	}
	switch {
	case key.Matches(k, m.keys.Up):
		m.Move(-1)
	case key.Matches(k, m.keys.Down):
		m.Move(1)
	case key.Matches(k, m.keys.PageUp):
		m.Move(-page)
	case key.Matches(k, m.keys.PageDown):
		m.Move(page)
	case key.Matches(k, m.keys.Detail):
		m.ShowDetail(true)
	}
	return m, nil
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
	if m.detail {
		return m.detailView()
	}
	if len(m.rows) == 0 {
		if m.filter != "" {
			return m.st.Muted.Render(fmt.Sprintf("no tasks match %q (/ to change the filter)", m.filter))
		}
		return m.st.Muted.Render("no tasks yet: a task starts with a developer's first message naming it")
	}
	w := max(m.width, 20)
	idW, devW, qaW := 4, 9, 4
	for _, t := range m.rows {
		idW = max(idW, len(t.ID))
		devW = max(devW, len(t.Developer))
		qaW = max(qaW, len(t.QA))
	}
	idW, devW, qaW = min(idW, 12), min(devW, 14), min(qaW, 14)
	now := m.now()
	counts := map[tasks.State]int{}
	for _, t := range m.rows {
		counts[t.State]++
	}
	lines := []string{m.st.Muted.Render(ansi.Truncate(fmt.Sprintf("  %-*s %-*s %-*s %8s %-10s %s", idW, "task", devW, "developer", qaW, "qa",
		"in state", "reviews", "note"), w, "…"))}
	selAt, selEnd := 0, 0
	var group tasks.State = "none"
	for i, t := range m.rows {
		if t.State != group {
			group = t.State
			title := strings.ToUpper(strings.ReplaceAll(string(group), "-", " "))
			lines = append(lines, m.stateStyle(group).Bold(true).Render(ansi.Truncate(fmt.Sprintf("%s (%d)", title, counts[group]), w, "…")))
		}
		line := fmt.Sprintf("%-*s %-*s %-*s %8s %-10s", idW, t.ID, devW, cut(orDash(t.Developer), devW), qaW, cut(orDash(t.QA), qaW),
			report.Age(now.Sub(since(t))), reviews(t.Reviews))
		note := ""
		if sb := SentBack(t); sb != "" {
			note = "sent back: " + sb
		} else if t.LastReview != nil && t.LastReview.Decision != "" && (t.State == tasks.StateFailed || t.State == tasks.StateBlocked) {
			note = "QA: " + string(t.LastReview.Decision)
		}
		prefix := "  "
		if i == m.sel {
			selAt = len(lines)
			prefix = "› "
			if m.focused {
				prefix = "▶ "
			}
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
			case i == m.sel && m.focused:
				l = m.st.Selected.Render(pad(l, w))
			case i == m.sel:
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
		if i == m.sel {
			selEnd = len(lines)
		}
	}
	if m.height > 0 && len(lines) > m.height {
		start := 0
		if selEnd > m.height {
			start = min(selEnd-m.height, selAt)
		}
		lines = lines[start:min(start+m.height, len(lines))]
	}
	return strings.Join(lines, "\n")
}

// detailView is the selected task's history and its last review.
func (m Model) detailView() string {
	t, ok := m.Selected()
	if !ok {
		return m.st.Muted.Render("nothing selected")
	}
	w := max(m.width, 20)
	now := m.now()
	var lines []string
	add := func(render func(...string) string, text, indent string) {
		for _, l := range wrap(text, w, indent) {
			lines = append(lines, render(l))
		}
	}
	text, muted, title := m.st.Text.Render, m.st.Muted.Render, m.st.Title.Render
	head := fmt.Sprintf("%s · %s for %s", t.ID, t.State, report.Age(now.Sub(since(t))))
	lines = append(lines, m.stateStyle(t.State).Bold(true).Render(head))
	add(text, fmt.Sprintf("developer %s · QA %s · %s", orDash(t.Developer), orDash(t.QA), reviews(t.Reviews)), "  ")
	add(muted, fmt.Sprintf("created %s (%s ago) · updated %s (%s ago)", stamp(t.Created), report.Age(now.Sub(t.Created)),
		stamp(t.Updated), report.Age(now.Sub(t.Updated))), "  ")

	lines = append(lines, "", title("History"))
	if len(t.History) == 0 {
		lines = append(lines, muted("  (no transitions recorded)"))
	}
	for _, h := range t.History {
		move := "started " + string(h.To)
		if h.From != "" {
			move = string(h.From) + " → " + string(h.To)
		}
		s := "  " + stamp(h.At) + "  " + move
		if h.By != "" {
			s += " by " + h.By
		}
		if n := strings.Join(strings.Fields(h.Note), " "); n != "" {
			s += ": " + n
		}
		add(text, s, strings.Repeat(" ", 2+len(stamp(h.At))+2))
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
	if m.height > 0 && len(lines) > m.height {
		off := min(m.offset, len(lines)-m.height)
		lines = lines[off : off+m.height]
	}
	return strings.Join(lines, "\n")
}

func reviews(n int) string {
	if n == 1 {
		return "1 review"
	}
	return fmt.Sprintf("%d reviews", n)
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.Format("Jan 02 15:04:05")
}

func cut(s string, w int) string { return ansi.Truncate(s, w, "…") }

func pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-lipgloss.Width(s), 0))
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// wrap breaks s into lines of at most w columns, continuation lines
// starting with indent.
func wrap(s string, w int, indent string) []string {
	lines := strings.Split(ansi.Wrap(s, w, ""), "\n")
	if len(lines) == 1 {
		return lines
	}
	out := []string{lines[0]}
	for _, l := range strings.Split(ansi.Wrap(strings.Join(lines[1:], " "), max(w-len(indent), 1), ""), "\n") {
		out = append(out, indent+l)
	}
	return out
}
