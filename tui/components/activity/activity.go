// Package activity is the pane showing the audit trail as it happens,
// filterable by any text in the line (agent, kind, task, id, words).
package activity

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/tui/style"
)

// keep is how many records the pane holds; older ones are in the store.
const keep = 5000

type entry struct {
	kind wire.Kind
	line string
}

// Model is the activity pane.
type Model struct {
	entries []entry
	filter  string
	offset  int // lines scrolled back from the newest
	width   int
	height  int
	st      *style.Styles
}

// New returns an empty pane.
func New(st *style.Styles) Model { return Model{st: st} }

// Add appends records.
func (m *Model) Add(recs ...store.Record) {
	for _, r := range recs {
		m.entries = append(m.entries, entry{kind: r.Kind, line: report.Line(r)})
	}
	if over := len(m.entries) - keep; over > 0 {
		m.entries = append(m.entries[:0:0], m.entries[over:]...)
	}
}

// SetFilter shows only lines containing f (case-insensitive); "" shows all.
func (m *Model) SetFilter(f string) {
	m.filter = strings.ToLower(strings.TrimSpace(f))
	m.offset = 0
}

// Filter is the current filter.
func (m Model) Filter() string { return m.filter }

// SetSize sets the pane's inner size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Scroll moves back (positive) or forward through the lines.
func (m *Model) Scroll(lines int) {
	m.offset = min(max(m.offset+lines, 0), max(len(m.visible())-m.height, 0))
}

// Follow returns to the newest lines.
func (m *Model) Follow() { m.offset = 0 }

func (m Model) visible() []entry {
	if m.filter == "" {
		return m.entries
	}
	var out []entry
	for _, e := range m.entries {
		if strings.Contains(strings.ToLower(e.line), m.filter) {
			out = append(out, e)
		}
	}
	return out
}

// View renders the newest lines that fit (or older ones when scrolled).
func (m Model) View() string {
	vis := m.visible()
	if len(vis) == 0 {
		if m.filter != "" {
			return m.st.Muted.Render("nothing matches " + m.filter)
		}
		return m.st.Muted.Render("no activity yet")
	}
	end := len(vis) - m.offset
	start := max(end-m.height, 0)
	lines := make([]string, 0, end-start)
	for _, e := range vis[start:end] {
		line := ansi.Truncate(e.line, max(m.width, 1), "…")
		switch e.kind {
		case wire.KindRefusal, wire.KindReformat, wire.KindUndelivered:
			line = m.st.Error.Render(line)
		case wire.KindInbox, wire.KindGap:
			line = m.st.Warn.Render(line)
		case wire.KindAgent, wire.KindDelivered:
			line = m.st.Muted.Render(line)
		default:
			line = m.st.Text.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
