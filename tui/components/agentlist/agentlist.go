// Package agentlist is the pane listing the team: name, role, state,
// unread messages and items pending for the human.
package agentlist

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/style"
)

// Row is one agent as the list shows it.
type Row struct {
	Name, Role, State string
	// Unread counts messages to or from the agent since it was last viewed.
	Unread int
	// Pending counts the agent's items in the human's inbox.
	Pending int
	// Err says why the agent failed or died, and what to do.
	Err string
	// Tokens is what its CLI used this run, written short ("12.4k"); ""
	// when its CLI names no transcript. Shown when the row has room.
	Tokens string
	// Cost is what those tokens cost ("$0.03"): the CLI's own estimate, else
	// the team's price; "" when neither is known. Shown after Tokens.
	Cost string
	// Tree is its worktree's branch against yours, written short
	// ("teamlead/dev ↑2↓1 *": ahead, behind, uncommitted work); "" when
	// it works in none. Shown when the row has room, before Tokens.
	Tree string
	// Host is the node that runs it ("" for this machine), shown "@gpu1"
	// when the row has room, first.
	Host string
}

// Model is the agent list.
type Model struct {
	rows    []Row
	sel     int
	width   int
	height  int
	focused bool
	st      *style.Styles
}

// New returns an empty list.
func New(st *style.Styles) Model { return Model{st: st} }

// SetRows replaces the rows, keeping the selection on the same agent.
func (m *Model) SetRows(rows []Row) {
	cur := m.Selected()
	m.rows = rows
	m.sel = 0
	for i, r := range rows {
		if r.Name == cur {
			m.sel = i
		}
	}
}

// Rows returns the rows.
func (m Model) Rows() []Row { return m.rows }

// Selected is the selected agent's name ("" when empty).
func (m Model) Selected() string {
	if m.sel < len(m.rows) {
		return m.rows[m.sel].Name
	}
	return ""
}

// Select selects agent name if present.
func (m *Model) Select(name string) {
	for i, r := range m.rows {
		if r.Name == name {
			m.sel = i
		}
	}
}

// Move moves the selection by delta, wrapping around.
func (m *Model) Move(delta int) {
	if n := len(m.rows); n > 0 {
		m.sel = ((m.sel+delta)%n + n) % n
	}
}

// SetSize sets the pane's inner size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// SetFocused marks the pane focused.
func (m *Model) SetFocused(f bool) { m.focused = f }

// View renders the rows, the selected one highlighted.
func (m Model) View() string {
	if len(m.rows) == 0 {
		return m.st.Muted.Render("no agents")
	}
	nameW, roleW := 4, 4
	for _, r := range m.rows {
		nameW = max(nameW, len(r.Name))
		roleW = max(roleW, len(r.Role))
	}
	roleW = min(roleW, 12)
	// In a narrow pane the role gives way: state and badges matter more.
	if 2+nameW+1+roleW+1+10+8 > m.width {
		roleW = 0
	}
	var lines []string
	start := 0
	if m.height > 0 && m.sel >= m.height {
		start = m.sel - m.height + 1
	}
	for i := start; i < len(m.rows) && (m.height <= 0 || i-start < m.height); i++ {
		r := m.rows[i]
		marks := ""
		if r.Pending > 0 {
			marks += fmt.Sprintf(" ?%d", r.Pending)
		}
		if r.Unread > 0 {
			marks += fmt.Sprintf(" ✉%d", r.Unread)
		}
		tokens := ""
		if r.Tokens != "" {
			tokens = " " + r.Tokens + " tok"
			if r.Cost != "" {
				tokens += " " + r.Cost
			}
		}
		tree, host := "", ""
		if r.Tree != "" {
			tree = " " + r.Tree
		}
		if r.Host != "" {
			host = " @" + r.Host
		}
		if i == m.sel {
			prefix := "▶ "
			if !m.focused {
				prefix = "› "
			}
			plain := fmt.Sprintf("%s%-*s %s%-10s%s", prefix, nameW, r.Name, roleCell(r.Role, roleW), r.State, marks)
			for _, extra := range []string{host, tree, tokens} {
				if extra != "" && ansi.StringWidth(plain+extra) <= m.width {
					plain += extra
				}
			}
			lines = append(lines, m.st.Selected.Render(layout.Pad(ansi.Truncate(plain, max(m.width, 1), "…"), m.width)))
			continue
		}
		state := m.st.State(r.State).Render(fmt.Sprintf("%-10s", r.State))
		line := "  " + fmt.Sprintf("%-*s %s", nameW, r.Name, roleCell(r.Role, roleW)) + state
		if r.Pending > 0 {
			line += m.st.Warn.Render(fmt.Sprintf(" ?%d", r.Pending))
		}
		if r.Unread > 0 {
			line += m.st.Accent.Render(fmt.Sprintf(" ✉%d", r.Unread))
		}
		for _, extra := range []string{host, tree, tokens} {
			if extra != "" && ansi.StringWidth(line+extra) <= m.width {
				line += m.st.Muted.Render(extra)
			}
		}
		lines = append(lines, ansi.Truncate(line, max(m.width, 1), "…"))
	}
	return strings.Join(lines, "\n")
}

// roleCell is the role column: the role padded to w and a space, or
// nothing when the column is hidden.
func roleCell(role string, w int) string {
	if w == 0 {
		return ""
	}
	return fmt.Sprintf("%-*s ", w, ansi.Truncate(role, w, "…"))
}
