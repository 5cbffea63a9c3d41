// Package queue is the pane of what waits for the human. Items are generic
// (a kind, an id, who, what, since when), so questions, consultations and
// permission requests can join the inbox without a new pane.
package queue

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/style"
)

// Item is one thing waiting for the human.
type Item struct {
	// Kind says what it is: question, blocker, gap, ... (shown as a tag).
	Kind string
	// ID is how to answer it (m-7).
	ID string
	// From is the agent that asked.
	From string
	// Task is the task reference.
	Task string
	// Text is the question itself.
	Text string
	// Since is when it arrived.
	Since time.Time
	// Deadline is when it escalates (zero: never).
	Deadline time.Time
	// For is who it waits for (human/x, team/y), when not simply you.
	For string
	// Action, Risk and Rule describe a permission request (Kind
	// "permission"): what the agent wants to do (Bash(rm -rf build/)),
	// low, medium, high or critical, and what sent it to the human.
	Action, Risk, Rule string
}

// IsPermission reports whether it is a permission request (p-<n>).
func (it Item) IsPermission() bool { return it.Kind == "permission" }

// Model is the queue pane.
type Model struct {
	items   []Item
	sel     int
	width   int
	height  int
	focused bool
	now     func() time.Time
	st      *style.Styles
}

// New returns an empty queue; now is the clock used for ages.
func New(st *style.Styles, now func() time.Time) Model { return Model{st: st, now: now} }

// Set replaces the items (kept oldest first), keeping the selection.
func (m *Model) Set(items []Item) {
	cur := m.Selected()
	m.items = append([]Item(nil), items...)
	sort.SliceStable(m.items, func(i, j int) bool { return m.items[i].Since.Before(m.items[j].Since) })
	m.sel = 0
	for i, it := range m.items {
		if it.ID == cur.ID {
			m.sel = i
		}
	}
}

// SetOrdered replaces the items keeping the given order (the questions
// view comes ordered by urgency and deadline).
func (m *Model) SetOrdered(items []Item) {
	cur := m.Selected()
	m.items = append([]Item(nil), items...)
	m.sel = 0
	for i, it := range m.items {
		if it.ID == cur.ID {
			m.sel = i
		}
	}
}

// Add appends an item unless its id is already queued.
func (m *Model) Add(it Item) {
	for _, have := range m.items {
		if have.ID == it.ID {
			return
		}
	}
	m.Set(append(m.items, it))
}

// Remove drops the item with id. The selection stays on the item it was
// on: an item leaving above it does not slide the next one under it. When
// the selected item itself leaves, the one after it (else the one before)
// is selected.
func (m *Model) Remove(id string) {
	cur := m.Selected().ID
	out := m.items[:0]
	for _, it := range m.items {
		if it.ID != id {
			out = append(out, it)
		}
	}
	m.items = out
	for i, it := range m.items {
		if it.ID == cur {
			m.sel = i
		}
	}
	if m.sel >= len(m.items) {
		m.sel = max(len(m.items)-1, 0)
	}
}

// Len is the number of items.
func (m Model) Len() int { return len(m.items) }

// Items returns the items, oldest first.
func (m Model) Items() []Item { return m.items }

// Selected is the selected item (zero when empty).
func (m Model) Selected() Item {
	if m.sel < len(m.items) {
		return m.items[m.sel]
	}
	return Item{}
}

// Move moves the selection by delta.
func (m *Model) Move(delta int) {
	if n := len(m.items); n > 0 {
		m.sel = min(max(m.sel+delta, 0), n-1)
	}
}

// SetSize sets the pane's inner size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetFocused marks the pane focused.
func (m *Model) SetFocused(f bool) { m.focused = f }

// View renders the items, two lines each: id, kind, sender, task and age,
// then the text, so the text stays readable in a narrow pane. A permission
// request takes three: the action, then its risk (coloured) and the rule
// that sent it here.
func (m Model) View() string {
	if len(m.items) == 0 {
		return m.st.Muted.Render("nothing waits for you")
	}
	start := 0
	if m.height > 0 {
		// Scroll so the selected item is whole on screen.
		used := 0
		for i := m.sel; i >= 0; i-- {
			used += m.items[i].lines()
			if used > m.height && i < m.sel {
				start = i + 1
				break
			}
		}
	}
	w := max(m.width, 1)
	var lines []string
	for i := start; i < len(m.items); i++ {
		if m.height > 0 && len(lines) >= m.height {
			break
		}
		lines = append(lines, m.item(i, w)...)
	}
	if m.height > 0 && len(lines) > m.height {
		lines = lines[:m.height]
	}
	return strings.Join(lines, "\n")
}

// lines is how many lines the item takes.
func (it Item) lines() int {
	if it.IsPermission() {
		return 3
	}
	return 2
}

// item renders item i in width w.
func (m Model) item(i, w int) []string {
	it := m.items[i]
	now := m.now()
	head := fmt.Sprintf("%s %s from %s", it.ID, it.Kind, it.From)
	if it.Task != "" && it.Task != "-" {
		head += " · " + it.Task
	}
	if it.For != "" && it.For != "human/requester" {
		head += " · for " + it.For
	}
	age := report.Age(now.Sub(it.Since))
	if !it.Deadline.IsZero() {
		age += " ⏱" + report.Age(max(it.Deadline.Sub(now), 0))
	}
	head = ansi.Truncate(head, max(w-lipgloss.Width(age)-1, 1), "…")
	head += strings.Repeat(" ", max(w-lipgloss.Width(head)-lipgloss.Width(age), 1)) + age
	text := it.Text
	if it.IsPermission() && it.Action != "" {
		text = it.Action
	}
	text = ansi.Truncate("  "+report.Flat(text), w, "…")
	selected, focused := i == m.sel, i == m.sel && m.focused
	switch {
	case focused:
		head = m.st.Selected.Render(layout.Pad(head, w))
		text = m.st.Selected.Render(layout.Pad(text, w))
	case selected:
		head = m.st.Accent.Render(head)
	default:
		head = m.st.Muted.Render(head)
	}
	if !it.IsPermission() {
		return []string{head, text}
	}
	return []string{head, text, m.riskLine(it, w, focused)}
}

// riskLine is a permission request's third line: "  risk high · <rule>",
// the risk in its colour.
func (m Model) riskLine(it Item, w int, focused bool) string {
	risk := it.Risk
	if risk == "" {
		risk = "unknown"
	}
	rule := ""
	if it.Rule != "" {
		rule = " · " + it.Rule
	}
	word := "risk " + risk
	rest := ansi.Truncate(rule, max(w-2-lipgloss.Width(word), 0), "…")
	rs, ts := m.st.Risk(it.Risk), m.st.Muted
	if focused {
		sel := m.st.Selected
		if !m.st.NoColor {
			rs = sel.Foreground(rs.GetForeground()).Bold(rs.GetBold())
		}
		ts = sel
		rest = layout.Pad(rest, max(w-2-lipgloss.Width(word), 0))
		return ts.Render("  ") + rs.Render(word) + ts.Render(rest)
	}
	return "  " + rs.Render(word) + ts.Render(rest)
}
