// Package permissions is the permissions board: every permission request
// (p-<n>) the team made, the pending ones first, with its status, who
// decided it (the policy's rule, the human, the hook), its risk, action and
// age; and one request's whole record (why, the floor entries it hits, the
// human's note) on demand.
package permissions

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/components/listview"
	"github.com/teamlead/teamlead/tui/style"
)

// KeyMap are the keys the board handles itself: moving and the detail.
type KeyMap = listview.KeyMap

// Model is the board. Its list holds the requests as given (newest first)
// and as shown (filtered by Match, in Order), the selection and the
// detail; SetFilter's text is read by Match.
type Model struct {
	listview.List[approvals.Request]
	now func() time.Time
	st  *style.Styles
}

// New returns an empty board; now is the clock ages use.
func New(st *style.Styles, keys KeyMap, now func() time.Time) Model {
	id := func(r approvals.Request) string { return r.ID }
	return Model{List: listview.New(keys, id, Match, Order), st: st, now: now}
}

// Match reports whether r passes filter: "pending" keeps the pending ones,
// "all" or "" every one; other words must each appear in the id, agent,
// status, who decided, risk, source, task or action.
func Match(r approvals.Request, filter string) bool {
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		switch w {
		case "all":
			continue
		case "pending":
			if r.Done() {
				return false
			}
			continue
		}
		hay := strings.ToLower(strings.Join([]string{r.ID, r.Agent, string(r.Status), r.DecidedBy, r.Risk, string(r.Source), r.Task, r.Action}, " "))
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// Order sorts rs for the board: pending ones first, oldest first (the one
// waiting longest on top, as in the inbox), then the rest newest first.
func Order(rs []approvals.Request) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Done() != b.Done() {
			return !a.Done()
		}
		if a.Created.Equal(b.Created) {
			return IDNum(a.ID) < IDNum(b.ID) == !a.Done()
		}
		return a.Created.Before(b.Created) == !a.Done()
	})
}

// IDNum is the number of p-<n> (0 when it is not one).
func IDNum(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "p-"))
	return n
}

// Pending counts the pending requests (filter or not).
func (m Model) Pending() int {
	n := 0
	for _, r := range m.All() {
		if !r.Done() {
			n++
		}
	}
	return n
}

// Total counts every request (filter or not).
func (m Model) Total() int { return len(m.All()) }

// Get returns request id, shown or not.
func (m Model) Get(id string) (approvals.Request, bool) {
	for _, r := range m.All() {
		if r.ID == id {
			return r, true
		}
	}
	return approvals.Request{}, false
}

// Update moves the selection, scrolls the detail, opens and closes it.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.List, cmd = m.List.Update(msg)
	return m, cmd
}

// StatusStyle colours a request's status.
func StatusStyle(st *style.Styles, s approvals.Status) lipgloss.Style {
	switch s {
	case approvals.Pending:
		return st.Warn
	case approvals.Approved:
		return st.Ok
	case approvals.Denied:
		return st.Error
	}
	return st.Muted
}

// columns are the widths of the table's cells; rule is 0 when it does not fit.
type columns struct {
	id, status, by, risk, agent, age, action, rule int
}

const (
	statusW  = 9 // withdrawn
	byW      = 6 // policy
	riskW    = 8 // critical
	ageW     = 4
	agentMax = 12
	actionW  = 32 // the least an action gets (if it needs it) before the board goes to two lines a row
	ruleMin  = 16
	ruleMax  = 44
)

// fixed is the width of a row without its action and rule, the selection
// mark included.
func (c columns) fixed() int {
	return 2 + c.id + 1 + c.status + 1 + c.by + 1 + c.risk + 1 + c.agent + 1 + c.age + 1
}

func (m Model) columns(w int) (columns, bool) {
	c := columns{id: 2, status: statusW, by: byW, risk: riskW, agent: 5, age: ageW}
	longest := 6
	for _, r := range m.Rows() {
		c.id = max(c.id, len(r.ID))
		c.agent = max(c.agent, lipgloss.Width(r.Agent))
		longest = max(longest, lipgloss.Width(Flat(r.Action)))
	}
	c.agent = min(c.agent, agentMax)
	room := w - c.fixed()
	if room < min(longest, actionW) {
		return c, false
	}
	c.action = min(longest, room)
	if left := room - c.action - 1; left >= ruleMin {
		c.rule = min(left, ruleMax)
	} else if room-1-ruleMin >= 32 && longest > room-1-ruleMin {
		// A long action still leaves the rule some room.
		c.action, c.rule = room-1-ruleMin, ruleMin
	}
	return c, true
}

func (c columns) header() string {
	h := fmt.Sprintf("  %s %s %s %s %s %*s %s", layout.Cell("id", c.id), layout.Cell("status", c.status), layout.Cell("by", c.by), layout.Cell("risk", c.risk),
		layout.Cell("agent", c.agent), c.age, "age", layout.Cell("action", c.action))
	if c.rule > 0 {
		h += " " + layout.Cell("rule", c.rule)
	}
	return strings.TrimRight(h, " ")
}

// cells are a row's cells, padded to their columns.
func (c columns) cells(r approvals.Request, now time.Time) []string {
	out := []string{layout.Cell(r.ID, c.id), layout.Cell(string(r.Status), c.status), layout.Cell(layout.OrDash(r.DecidedBy), c.by), layout.Cell(layout.OrDash(r.Risk), c.risk),
		layout.Cell(r.Agent, c.agent), fmt.Sprintf("%*s", c.age, report.Age(now.Sub(r.Created))), layout.Cell(Flat(r.Action), c.action)}
	if c.rule > 0 {
		out = append(out, layout.Cell(r.Rule, c.rule))
	}
	return out
}

// View renders the board, or the selected request's detail.
func (m Model) View() string {
	if m.InDetail() {
		return m.detailView()
	}
	w := max(m.Width(), 20)
	rows, sel := m.Rows(), m.Index()
	if len(rows) == 0 {
		what := "no permission requests yet"
		if f := m.Filter(); f != "" {
			what = fmt.Sprintf("no permission requests match %q (/ to change the filter)", f)
		}
		return m.st.Muted.Render(what)
	}
	now := m.now()
	cols, wide := m.columns(w)
	var lines []string
	if wide {
		lines = append(lines, m.st.Muted.Render(ansi.Truncate(cols.header(), w, "…")))
	}
	selFrom, selTo := 0, 0
	for i, r := range rows {
		mark := m.Mark(i)
		var rowLines []string
		switch {
		case wide && i == sel:
			rowLines = []string{mark + strings.Join(cols.cells(r, now), " ")}
		case wide:
			rowLines = []string{mark + m.colourCells(r, cols.cells(r, now))}
		default:
			rowLines = m.narrowRow(r, mark, w, i == sel)
		}
		if i == sel {
			selFrom, selTo = len(lines), len(lines)+len(rowLines)
		}
		for _, l := range rowLines {
			l = strings.TrimRight(ansi.Truncate(l, w, "…"), " ")
			switch {
			case i == sel && m.Focused():
				l = m.st.Selected.Render(layout.Pad(l, w))
			case i == sel:
				l = m.st.Accent.Render(l)
			}
			lines = append(lines, l)
		}
	}
	return strings.Join(m.Window(lines, selFrom, selTo), "\n")
}

// colourCells paints an unselected wide row: the status and risk in their
// colours, a pending request's text plain, a decided one's muted.
func (m Model) colourCells(r approvals.Request, cells []string) string {
	text := m.st.Text
	if r.Done() {
		text = m.st.Muted
	}
	out := make([]string, len(cells))
	for i, c := range cells {
		switch i {
		case 1:
			out[i] = StatusStyle(m.st, r.Status).Render(c)
		case 3:
			out[i] = m.st.Risk(r.Risk).Render(c)
		default:
			out[i] = text.Render(c)
		}
	}
	return strings.Join(out, " ")
}

// narrowRow is a row in two lines, for a pane too narrow for the table.
func (m Model) narrowRow(r approvals.Request, mark string, w int, selected bool) []string {
	first := fmt.Sprintf("%s %s", r.ID, r.Status)
	if r.DecidedBy != "" {
		first += " by " + r.DecidedBy
	}
	rest := fmt.Sprintf(" · %s · %s · %s", layout.OrDash(r.Risk), r.Agent, report.Age(m.now().Sub(r.Created)))
	second := "    " + ansi.Truncate(Flat(r.Action), max(w-4, 1), "…")
	if selected {
		return []string{mark + first + rest, second}
	}
	text := m.st.Text
	if r.Done() {
		text = m.st.Muted
	}
	return []string{text.Render(mark) + StatusStyle(m.st, r.Status).Render(first) + text.Render(" · ") + m.st.Risk(r.Risk).Render(layout.OrDash(r.Risk)) +
		text.Render(strings.TrimPrefix(rest, " · "+layout.OrDash(r.Risk))), text.Render(second)}
}

// Flat is an action on one line: every line break shown as ↵, tabs as a
// space, and a run of more than three spaces as ␣×N, so that no padding
// pushes the rest of a command past where a line is cut (red team 14a,
// finding 8: `go test ./...` and 300 spaces filled the status line's
// badge, whose y would have approved what followed them).
func Flat(s string) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\t", " ")
	s = strings.ReplaceAll(s, "\n", "↵")
	return spaceRuns.ReplaceAllStringFunc(s, func(run string) string {
		return fmt.Sprintf(" ␣×%d ", len(run))
	})
}

var spaceRuns = regexp.MustCompile(` {4,}`)
