// Package consults is the consultations board: every consultation, open
// ones first, the decisions they hold highlighted, and one consultation's
// whole record (request, verdicts, events, lineage) on demand.
package consults

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/components/listview"
	"github.com/teamlead/teamlead/tui/style"
)

// KeyMap are the keys the board handles itself: moving and the detail.
type KeyMap = listview.KeyMap

// Block is a decision held by its mandatory consultations: the requester's
// decision on a task, and the consultations that do not let it pass.
type Block struct {
	// Requester is the agent whose decision is held.
	Requester string
	// Decision is the decision type (infrastructure, code-complete, ...).
	Decision string
	// Task is the task the decision is about.
	Task string
	// Held are the consultations holding it, oldest first.
	Held []consult.Consultation
}

// Model is the board. Its list holds the consultations as given (newest
// first) and as shown (filtered by Match, in Order), the selection and the
// detail; SetFilter's text is read by Match.
type Model struct {
	listview.List[consult.Consultation]
	blocks []Block // every blocked decision
	now    func() time.Time
	st     *style.Styles
}

// New returns an empty board; now is the clock ages and deadlines use.
func New(st *style.Styles, keys KeyMap, now func() time.Time) Model {
	id := func(c consult.Consultation) string { return c.ID }
	return Model{List: listview.New(keys, id, Match, Order), st: st, now: now}
}

// Set replaces the consultations, keeping the selection on the same one.
func (m *Model) Set(cs []consult.Consultation) {
	m.List.Set(cs)
	m.blocks = Blocked(m.All())
}

// Match reports whether c passes filter: "open" keeps the open ones, "all"
// or "" every one, other words must each appear in the id, an agent or
// role, the decision, the status or the task.
func Match(c consult.Consultation, filter string) bool {
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		switch w {
		case "all":
			continue
		case "open":
			if !c.Open() {
				return false
			}
			continue
		}
		hay := strings.ToLower(strings.Join([]string{c.ID, c.Requester, c.RequesterRole, c.Consulted, c.ConsultedRole,
			c.Decision, string(c.Status), c.Task, c.Priority}, " "))
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// Order sorts cs for the board: open ones first, oldest first (the longest
// waiting on top), then the closed ones newest first.
func Order(cs []consult.Consultation) {
	sort.SliceStable(cs, func(i, j int) bool {
		a, b := cs[i], cs[j]
		if a.Open() != b.Open() {
			return a.Open()
		}
		if a.Created.Equal(b.Created) {
			return idNum(a.ID) < idNum(b.ID) == a.Open()
		}
		return a.Created.Before(b.Created) == a.Open()
	})
}

func idNum(id string) int {
	var n int
	_, _ = fmt.Sscanf(id, "c-%d", &n)
	return n
}

// Blocked lists the decisions held by their mandatory consultations: for
// each requester, decision and task, the newest consultation of each
// consulted role that was not superseded; the decision is blocked while
// one of them is not approved (or its concerns resolved). Oldest first.
func Blocked(cs []consult.Consultation) []Block {
	type rk struct{ requester, decision, task, role string }
	live := map[rk]consult.Consultation{}
	for _, c := range cs {
		if !c.Mandatory || c.Status == consult.Superseded || c.Status == consult.Answered {
			continue
		}
		k := rk{c.Requester, c.Decision, c.Task, c.ConsultedRole}
		if have, ok := live[k]; !ok || c.Created.After(have.Created) || c.Created.Equal(have.Created) && idNum(c.ID) > idNum(have.ID) {
			live[k] = c
		}
	}
	type dk struct{ requester, decision, task string }
	byDecision := map[dk]*Block{}
	var out []*Block
	for _, c := range live {
		if c.Satisfied() {
			continue
		}
		k := dk{c.Requester, c.Decision, c.Task}
		b := byDecision[k]
		if b == nil {
			b = &Block{Requester: c.Requester, Decision: c.Decision, Task: c.Task}
			byDecision[k] = b
			out = append(out, b)
		}
		b.Held = append(b.Held, c)
	}
	res := make([]Block, 0, len(out))
	for _, b := range out {
		sort.Slice(b.Held, func(i, j int) bool { return idNum(b.Held[i].ID) < idNum(b.Held[j].ID) })
		res = append(res, *b)
	}
	sort.Slice(res, func(i, j int) bool {
		a, b := res[i].Held[0], res[j].Held[0]
		if !a.Created.Equal(b.Created) {
			return a.Created.Before(b.Created)
		}
		return idNum(a.ID) < idNum(b.ID)
	})
	return res
}

// Blocks lists every decision held by its consultations (filter or not).
func (m Model) Blocks() []Block { return m.blocks }

// Open counts the open consultations.
func (m Model) Open() int {
	n := 0
	for _, c := range m.All() {
		if c.Open() {
			n++
		}
	}
	return n
}

// Update moves the selection, scrolls the detail, opens and closes it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.List, cmd = m.List.Update(msg)
	return m, cmd
}

// View renders the board, or the selected consultation's detail.
func (m Model) View() string {
	if m.InDetail() {
		return m.detailView()
	}
	w := max(m.Width(), 20)
	rows, sel := m.Rows(), m.Index()
	var lines []string
	shown := map[string]bool{}
	for _, c := range rows {
		shown[c.ID] = true
	}
	for _, b := range m.blocks {
		if !anyShown(b, shown) {
			continue
		}
		line := m.blockLine(b)
		if lipgloss.Width(line) > w {
			// Too long for one line: what is held, then by what.
			line = strings.Replace(line, " — held by ", "\nheld by ", 1)
		}
		for _, l := range layout.Wrap(line, w, "    ") {
			lines = append(lines, m.st.Error.Render(l))
		}
	}
	if len(rows) == 0 {
		what := "no consultations yet"
		if f := m.Filter(); f != "" {
			what = fmt.Sprintf("no consultations match %q (/ to change the filter)", f)
		}
		return strings.Join(append(lines, m.st.Muted.Render(what)), "\n")
	}
	cols := m.columns()
	wide := cols.total() <= w
	if wide {
		lines = append(lines, m.st.Muted.Render(ansi.Truncate(cols.header(), w, "…")))
	}
	selFrom, selTo := 0, 0
	for i, c := range rows {
		var rowLines []string
		if wide {
			rowLines = []string{cols.row(c, m.now())}
		} else {
			rowLines = m.narrowRow(c, w)
		}
		if i == sel {
			selFrom, selTo = len(lines), len(lines)+len(rowLines)
		}
		for j, l := range rowLines {
			prefix := "  "
			if j == 0 {
				prefix = m.Mark(i)
			}
			l = ansi.Truncate(prefix+l, w, "…")
			switch {
			case i == sel && m.Focused():
				l = m.st.Selected.Render(layout.Pad(l, w))
			case i == sel:
				l = m.st.Accent.Render(l)
			default:
				l = m.colour(c, l, cols, wide && j == 0)
			}
			lines = append(lines, l)
		}
	}
	if wide && slices.ContainsFunc(rows, func(c consult.Consultation) bool { return c.Mandatory }) {
		// The column is one cell wide: its heading alone says nothing.
		lines = append(lines, m.st.Muted.Render(ansi.Truncate("● mandatory: the decision waits for this consultation's verdict", w, "…")))
	}
	return strings.Join(m.Window(lines, selFrom, selTo), "\n")
}

func anyShown(b Block, shown map[string]bool) bool {
	for _, c := range b.Held {
		if shown[c.ID] {
			return true
		}
	}
	return false
}

// blockLine says which decision is held and by what.
func (m Model) blockLine(b Block) string {
	task := b.Task
	if task == "" || task == "-" {
		task = "no task"
	}
	var held []string
	for _, c := range b.Held {
		who := c.Consulted
		if n := len(c.Verdicts); n > 0 && c.Verdicts[n-1].By != "" {
			who = c.Verdicts[n-1].By // the human, when it was they who rejected
		}
		held = append(held, fmt.Sprintf("%s (%s: %s %s)", c.ID, who, c.Status, report.Age(m.now().Sub(c.Created))))
	}
	return fmt.Sprintf("BLOCKED: %s's %s decision on %s — held by %s", b.Requester, b.Decision, task, strings.Join(held, ", "))
}

// colour paints an unselected row: the status cell in its colour, the
// rest plain (closed ones muted).
func (m Model) colour(c consult.Consultation, line string, cols columns, statusCell bool) string {
	if !c.Open() && c.Status != consult.ConcernsRaised && c.Status != consult.Rejected {
		return m.st.Muted.Render(line)
	}
	if !statusCell {
		return m.st.Text.Render(line)
	}
	at := 2 + cols.id + 1
	if lipgloss.Width(line) < at+cols.status {
		return m.st.Text.Render(line)
	}
	before := ansi.Cut(line, 0, at)
	status := ansi.Cut(line, at, at+cols.status)
	after := ansi.Cut(line, at+cols.status, lipgloss.Width(line))
	return m.st.Text.Render(before) + m.statusStyle(c.Status).Render(status) + m.st.Text.Render(after)
}

func (m Model) statusStyle(s consult.Status) lipgloss.Style {
	switch s {
	case consult.Pending, consult.Escalated:
		return m.st.Warn
	case consult.ConcernsRaised, consult.Rejected:
		return m.st.Error
	case consult.Approved, consult.Resolved:
		return m.st.Ok
	case consult.Superseded, consult.Answered:
		return m.st.Muted
	}
	return m.st.Text
}

// columns are the widths of the wide table's cells.
type columns struct {
	id, status, decision, task, who, age, deadline, prio int
}

const (
	whoMax      = 36
	deadlineW   = 18 // "escalated to human"
	statusW     = 15 // "concerns-raised"
	mandatoryW  = 1
	columnSpace = 1
)

func (m Model) columns() columns {
	c := columns{id: 4, status: statusW, decision: 8, task: 4, who: lipgloss.Width("requester → consulted"), age: 3, deadline: deadlineW, prio: 0}
	for _, r := range m.Rows() {
		c.id = max(c.id, len(r.ID))
		c.decision = max(c.decision, len(r.Decision))
		c.task = max(c.task, len(r.Task))
		c.who = max(c.who, lipgloss.Width(who(r)))
		c.prio = max(c.prio, len(r.Priority))
	}
	c.decision, c.task, c.who = min(c.decision, 16), min(c.task, 10), min(c.who, whoMax)
	if c.prio > 0 {
		c.prio = max(c.prio, 4)
	}
	return c
}

// total is the width of a wide row, the selection mark included.
func (c columns) total() int {
	n := 2 + c.id + c.status + c.decision + c.task + c.who + c.age + c.deadline + mandatoryW + 8*columnSpace
	if c.prio > 0 {
		n += columnSpace + c.prio
	}
	return n
}

func (c columns) header() string {
	who := "requester → consulted (role)"
	if lipgloss.Width(who) > c.who {
		who = "requester → consulted"
	}
	h := fmt.Sprintf("  %s %s %s %s %s %*s %s %s", layout.Cell("id", c.id), layout.Cell("status", c.status), layout.Cell("decision", c.decision), layout.Cell("task", c.task),
		layout.Cell(who, c.who), c.age, "age", layout.Cell("deadline", c.deadline), "●")
	if c.prio > 0 {
		h += " " + layout.Cell("prio", c.prio)
	}
	return h
}

func (c columns) row(r consult.Consultation, now time.Time) string {
	mark := " "
	if r.Mandatory {
		mark = "●"
	}
	s := fmt.Sprintf("%-*s %-*s %s %s %s %*s %-*s %s", c.id, r.ID, c.status, r.Status, layout.Cell(r.Decision, c.decision), layout.Cell(layout.OrDash(r.Task), c.task),
		layout.Cell(who(r), c.who), c.age, report.Age(now.Sub(r.Created)), c.deadline, deadline(r, now), mark)
	if c.prio > 0 {
		s += " " + layout.Cell(r.Priority, c.prio)
	}
	return strings.TrimRight(s, " ")
}

// narrowRow is a row in two lines, for a pane too narrow for the table.
func (m Model) narrowRow(r consult.Consultation, w int) []string {
	now := m.now()
	first := fmt.Sprintf("%s %s %s on %s · %s", r.ID, r.Status, r.Decision, layout.OrDash(r.Task), report.Age(now.Sub(r.Created)))
	second := "  " + who(r)
	if d := deadline(r, now); d != "" {
		second += " · " + d
	}
	if r.Mandatory {
		second += " · mandatory"
	}
	if r.Priority != "" {
		second += " · " + r.Priority
	}
	return []string{first, ansi.Truncate(second, max(w-2, 1), "…")}
}

// who is "requester → consulted (role)".
func who(c consult.Consultation) string {
	return fmt.Sprintf("%s → %s (%s)", c.Requester, c.Consulted, layout.OrDash(c.ConsultedRole))
}

// deadline is how long an open consultation has left, or where its
// escalation went.
func deadline(c consult.Consultation, now time.Time) string {
	if !c.Open() {
		return ""
	}
	if !c.Deadline.IsZero() {
		if left := c.Deadline.Sub(now); left > 0 {
			return "in " + countdown(left)
		}
		return "overdue " + countdown(now.Sub(c.Deadline))
	}
	if c.Status == consult.Escalated {
		for i := len(c.Events) - 1; i >= 0; i-- {
			if e := c.Events[i]; e.Kind == consult.EventEscalated {
				if e.To == consult.Human {
					return "escalated to human"
				}
				if e.To == "" {
					return "no escalation left"
				}
				return "escalated to " + e.To
			}
		}
		return "escalated"
	}
	return "no deadline"
}

// countdown is a duration to a deadline, to the minute under two days
// (report.Age would round 1h59m down to 1h).
func countdown(d time.Duration) string {
	if d < time.Hour || d >= 48*time.Hour {
		return report.Age(d)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}
