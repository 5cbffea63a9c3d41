package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/textsafe"
	"github.com/teamlead/teamlead/tui/components/queue"
)

// sizes splits the window: the left column (agents over inbox), the screen
// on the right, the activity log below them, the status bar at the bottom.
// It returns the left column's width, the agents and inbox pane heights,
// and the activity pane's height, borders included.
func (m Model) sizes() (left, agentsH, inboxH, activityH int) {
	left = min(max(m.width/4, 30), 46)
	activityH = min(max(m.height/5, 5), 12)
	top := max(m.height-1-activityH, 6)
	agentsH = max(top/2, 3)
	inboxH = max(top-agentsH, 3)
	return left, agentsH, inboxH, activityH
}

// layout gives every pane its inner size and the agents their terminal
// size: the screen pane's.
func (m *Model) layout() {
	left, agentsH, inboxH, activityH := m.sizes()
	m.agents.SetSize(left-2, agentsH-2)
	m.queue.SetSize(left-2, inboxH-2)
	m.qlist.SetSize(left-2, inboxH-2)
	cols, rows := max(m.width-left-2, 10), max(agentsH+inboxH-2, 3)
	m.screen.SetSize(cols, rows)
	m.consults.SetSize(cols, rows)
	m.tasks.SetSize(cols, rows)
	m.perms.SetSize(cols, rows)
	m.diff.SetSize(cols, rows)
	m.always.SetWidth(max(m.width-4, 20))
	m.activity.SetSize(m.width-2, activityH-2)
	m.palette.SetWidth(m.width)
	m.help.Width = m.width
	m.con.ResizeAgents(cols, rows)
}

// View draws the whole console.
func (m Model) View() string {
	if m.width == 0 || m.height == 0 {
		return ""
	}
	left, agentsH, inboxH, activityH := m.sizes()
	if m.mode == modeHelp {
		return m.helpView()
	}
	agents := m.box(fmt.Sprintf("Agents (%d)", len(m.agents.Rows())), m.agents.View(), left, agentsH, m.pane == paneAgents)
	inboxTitle := "Inbox"
	if n := m.queue.Len(); n > 0 {
		inboxTitle = fmt.Sprintf("Inbox (%d)", n)
	}
	inboxView := m.queue.View()
	if m.qmode {
		inboxTitle = fmt.Sprintf("Questions — %s (%d)", m.qstatus, m.qlist.Len())
		inboxView = m.qlist.View()
	}
	inbox := m.box(inboxTitle, inboxView, left, inboxH, m.pane == paneInbox)
	right, rightTitle := m.screen.View(), m.screenTitle()
	if notice := m.failureNotice(m.width-left-2, agentsH+inboxH-2); notice != "" {
		right = notice
	}
	if m.mode != modeFocus {
		switch m.right {
		case viewWorkflow:
			right, rightTitle = m.workflowView(m.width-left-2, agentsH+inboxH-2), "workflow of "+m.agents.Selected()+" — "+m.keys.Progress.Help().Key+" for its screen"
		case viewConsults:
			right, rightTitle = m.consults.View(), m.boardTitle()
		case viewTasks:
			right, rightTitle = m.tasks.View(), m.boardTitle()
		case viewPermissions:
			right, rightTitle = m.permsView(), m.boardTitle()
		case viewDiff:
			rightTitle = fmt.Sprintf("diff of %s — %s or esc for its screen", m.diff.Agent(), m.keys.Diff.Help().Key)
			if first, total := m.diff.Position(); total > 0 {
				rightTitle = fmt.Sprintf("diff of %s — lines %d–%d of %d — %s or esc for its screen", m.diff.Agent(), first, min(first+agentsH+inboxH-3, total), total, m.keys.Diff.Help().Key)
			}
			right = m.diff.View()
		}
	}
	screen := m.box(rightTitle, right, m.width-left, agentsH+inboxH, m.pane == paneScreen || m.mode == modeFocus)
	actTitle := "Activity"
	if f := m.activity.Filter(); f != "" {
		actTitle += " — filter: " + f
	}
	activity := m.box(actTitle, m.activity.View(), m.width, activityH, m.pane == paneActivity)
	top := lipgloss.JoinHorizontal(lipgloss.Top, lipgloss.JoinVertical(lipgloss.Left, agents, inbox), screen)
	body := lipgloss.JoinVertical(lipgloss.Left, top, activity)
	switch m.mode {
	case modePalette:
		body = overlayBottom(body, m.box("Commands", m.palette.View(), m.width, min(14, m.height-1), true))
	case modeAlways:
		body = overlayBottom(body, m.box(m.always.Title(), m.always.View(), m.width, m.always.Height()+2, true))
	case modeInput:
		if m.prompt.multiline {
			body = overlayBottom(body, m.box(m.prompt.label, m.editor.View(), m.width, 6, true))
		} else {
			// A one-line prompt takes the status bar's line, not the
			// bottom border of the pane above it.
			return body + "\n" + textsafe.Clip(ansi.Truncate(m.input.View(), m.width, "…"), m.width)
		}
	}
	return body + "\n" + textsafe.Clip(m.statusBar(), m.width)
}

func (m Model) screenTitle() string {
	name := m.agents.Selected()
	if name == "" {
		return "Screen"
	}
	var state, role string
	for _, r := range m.agents.Rows() {
		if r.Name == name {
			state, role = r.State, r.Role
		}
	}
	title := fmt.Sprintf("%s — %s — %s", name, role, state)
	if off := m.screen.Offset(); off > 0 {
		title += fmt.Sprintf(" — scrolled back %d lines (G to follow)", off)
	}
	if m.mode == modeFocus {
		title = fmt.Sprintf("● typing into %s — %s to leave", name, m.keys.Unfocus.Help().Key)
	}
	return title
}

// failureNotice explains, in place of its empty screen, why the selected
// agent could not start and what to do; "" when it did start.
func (m Model) failureNotice(width, height int) string {
	name := m.agents.Selected()
	for _, r := range m.agents.Rows() {
		if r.Name != name || r.State != string(wire.StateFailed) || r.Err == "" {
			continue
		}
		text := name + " could not start.\n\n" + r.Err + "\n\nFix the agent in the team file and start the console again; `teamlead validate` checks the file first."
		lines := strings.Split(lipgloss.NewStyle().Width(max(width, 10)).Render(text), "\n")
		if len(lines) > height {
			lines = lines[:max(height, 1)]
		}
		return m.st.Error.Render(strings.Join(lines, "\n"))
	}
	return ""
}

// workflowView renders the selected agent's progress file.
func (m Model) workflowView(width, height int) string {
	agent := m.agents.Selected()
	var lines []string
	for _, st := range m.con.Progress() {
		if st.Agent != agent {
			continue
		}
		for _, l := range report.Workflow(st, m.opts.Now(), m.opts.Stall, width) {
			switch {
			case strings.Contains(l, "STALLED") || strings.HasPrefix(strings.TrimSpace(l), "ERROR"):
				l = m.st.Error.Render(l)
			case strings.HasPrefix(strings.TrimSpace(l), "next:"):
				l = m.st.Accent.Render(l)
			}
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return m.st.Muted.Render("no workflow progress file for " + agent)
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
}

// box frames content in a w x h rounded border with title in the top edge.
// Every line of content is cut to the box's inner width as it will be
// drawn (textsafe.Clip), before lipgloss pads it: whatever an agent's text
// holds, and whatever the width tables say, no line is wider than its box
// (a wider one wraps on the screen and shifts every row below it).
func (m Model) box(title, content string, w, h int, focused bool) string {
	st := m.st.Pane
	if focused {
		st = m.st.PaneFocus
	}
	lines := strings.Split(content, "\n")
	if len(lines) > max(h-2, 0) {
		lines = lines[:max(h-2, 0)]
	}
	for i, l := range lines {
		lines[i] = textsafe.Clip(l, max(w-2, 0))
	}
	inner := lipgloss.NewStyle().Width(w - 2).Height(h - 2).MaxWidth(w - 2).MaxHeight(h - 2).Render(strings.Join(lines, "\n"))
	framed := st.Render(inner)
	lines = strings.Split(framed, "\n")
	if len(lines) > 0 && w > 6 {
		label := " " + ansi.Truncate(textsafe.Clip(title, w), w-6, "…") + " "
		label = m.st.Title.Render(label)
		border := st.GetBorderStyle()
		edge := lipgloss.NewStyle().Foreground(st.GetBorderTopForeground())
		fill := w - 3 - lipgloss.Width(label)
		lines[0] = edge.Render(border.TopLeft+border.Top) + label + edge.Render(strings.Repeat(border.Top, max(fill, 0))+border.TopRight)
	}
	return strings.Join(lines, "\n")
}

// overlayBottom replaces the bottom lines of body with over.
func overlayBottom(body, over string) string {
	b := strings.Split(body, "\n")
	o := strings.Split(over, "\n")
	if len(o) >= len(b) {
		return over
	}
	return strings.Join(append(b[:len(b)-len(o)], o...), "\n")
}

func (m Model) statusBar() string {
	var right string
	if n := len(m.consults.Blocks()); n > 0 {
		right = m.st.Error.Render(plural(n, "decision")+" blocked") + " "
	}
	if n := m.queue.Len(); n > 0 {
		waiting := fmt.Sprintf("● %d waiting for you", n)
		if _, perms := m.badgePermission(); perms > 0 && m.width < 120 {
			waiting = strings.TrimSuffix(waiting, " for you")
		}
		right += m.st.Badge.Render(waiting)
		if m.width < 120 {
			// The key help gives way to what waits; the key to all keys stays.
			right += " " + m.st.Muted.Render(m.keys.Help.Help().Key+" help")
		}
	}
	var left string
	switch {
	case m.mode == modeQuit:
		left = m.st.Warn.Render("quit and stop every agent? y/N")
	case m.status != "" && m.statusE:
		left = m.st.Error.Render(textsafe.Line(m.status))
	case m.status != "":
		left = m.st.Text.Render(textsafe.Line(m.status))
	case m.mode == modeFocus:
		left = m.st.Accent.Render("keys go to " + m.agents.Selected() + " — " + m.keys.Unfocus.Help().Key + " to leave")
	case m.mode == modeAlways:
		left = m.st.Accent.Render("approving " + m.always.ID() + " always")
	case m.pane == paneScreen && m.boardShown():
		left = m.help.ShortHelpView(m.boardHelp())
	case m.pane == paneInbox && !m.qmode && m.queue.Selected().IsPermission():
		left = m.help.ShortHelpView(m.permissionHelp())
	case m.pane == paneInbox && m.activeQueue().Len() > 0:
		left = m.help.ShortHelpView(m.inboxHelp())
	default:
		left = m.help.ShortHelpView(m.keys.ShortHelp())
	}
	// The permission badge goes first, in the room the left side leaves:
	// up to two thirds of the bar for an error, half for a message, a
	// quarter for the key help.
	leftCap := m.width / 4
	switch {
	case m.status != "" && m.statusE:
		leftCap = m.width * 2 / 3
	case m.status != "" || m.mode == modeQuit:
		leftCap = m.width / 2
	}
	if m.mode != modeAlways { // the chooser is about one request already
		right = m.permissionBadge(m.width-lipgloss.Width(right)-min(lipgloss.Width(left), leftCap)-1) + right
	}
	space := m.width - lipgloss.Width(left) - lipgloss.Width(right)
	if space < 1 {
		left = ansi.Truncate(left, max(m.width-lipgloss.Width(right)-1, 0), "…")
		space = 1
	}
	return left + strings.Repeat(" ", space) + right
}

// inboxHelp is the key help while the inbox (or the questions view) has
// the keyboard on an item: there enter answers it, as a does, and types
// into no agent.
func (m Model) inboxHelp() []key.Binding {
	ks := m.keys
	answer := ks.Answer
	answer.SetHelp(ks.Answer.Help().Key+"/"+ks.Focus.Help().Key, ks.Answer.Help().Desc)
	return []key.Binding{answer, ks.Drop, ks.Escalate, ks.NextPane, ks.Palette, ks.Help, ks.Quit}
}

func (m Model) helpView() string {
	title := m.st.Title.Render("teamlead — keys") + m.st.Muted.Render("   (any key closes)")
	width := max(m.width-4, 20)
	body := m.helpKeys(width)
	extra := m.st.Muted.Render("Commands (" + m.keys.Palette.Help().Key + "): /send <agent> <text> · /answer <id> <text> · /questions [pending|ID] · /filter <text>\n" +
		"  /consults [open|all|<status>|<agent>|<decision>|c-id] · /tasks [<task>|<text>] · /acknowledge <c-id> · /escalate, /reassign <q-id|c-id>\n" +
		"Consultations (" + m.keys.Consults.Help().Key + "): " + m.keys.Answer.Help().Key + " verdict (approve, concerns, reject) · " +
		m.keys.Acknowledge.Help().Key + " accept the concerns · " + m.keys.Escalate.Help().Key + " escalate · " + m.keys.Reassign.Help().Key +
		" reassign · " + m.keys.Detail.Help().Key + " request, verdicts, lineage\n" +
		"Permissions (" + m.keys.Permissions.Help().Key + ", /permissions [pending|all|<agent>|p-id]): " + m.keys.Approve.Help().Key + " approve once (" + m.keys.Approve.Help().Key + " twice for a critical request) · " +
		m.keys.ApproveAlways.Help().Key + " approve always · " + m.keys.Deny.Help().Key + " deny · " + m.keys.DenyMessage.Help().Key +
		" deny with a message · " + m.keys.Answer.Help().Key + " type it (approve [note], always <scope> [all], deny [message])\n" +
		"  on the request selected in the inbox or the board, else the one in the badge, not in its first " + shownGuard.String() + " there; approve always asks how far: exact, prefix, dir or tool, " +
		"for this agent or every agent (" + m.keys.AllAgents.Help().Key + "); the destructive floor is never approved always")
	extra = lipgloss.NewStyle().Width(width).Render(extra)
	lines := strings.Split(lipgloss.JoinVertical(lipgloss.Left, title, "", body, "", extra), "\n")
	// Within the window's height: Bubble Tea drops the top lines of a
	// view taller than the terminal, the title and the keys with them.
	// The notes under the keys give way first, and say so.
	if room := m.height - 2; room > 1 && len(lines) > room {
		lines = append(lines[:room-1], m.st.Muted.Render("… (the rest in a taller window)"))
	}
	return lipgloss.NewStyle().Padding(1, 2).Render(strings.Join(lines, "\n"))
}

// helpKeys is the table of every key, its columns flowed into as many rows
// as width needs: the help component cuts the columns that do not fit on
// one row, and below about 150 columns those were answer, approve, deny
// and quit.
func (m Model) helpKeys(width int) string {
	h := m.help
	h.Width = 0
	sep := h.Styles.FullSeparator.Inline(true).Render(h.FullSeparator)
	var rows, row []string
	used := 0
	for _, group := range m.keys.FullHelp() {
		col := h.FullHelpView([][]key.Binding{group})
		w := lipgloss.Width(col)
		if len(row) > 0 && used+lipgloss.Width(sep)+w > width {
			rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
			row, used = nil, 0
		}
		if len(row) > 0 {
			row, used = append(row, sep), used+lipgloss.Width(sep)
		}
		row, used = append(row, col), used+w
	}
	rows = append(rows, lipgloss.JoinHorizontal(lipgloss.Top, row...))
	return strings.Join(rows, "\n")
}

// questionItems turns the pending questions waiting for a person or a team
// into queue items (those with an agent or a tool are not the human's).
func questionItems(qs []questions.Question) []queue.Item {
	var out []queue.Item
	for _, q := range qs {
		if strings.HasPrefix(q.Answerer, "human/") || strings.HasPrefix(q.Answerer, "team/") {
			out = append(out, queue.Item{Kind: q.Urgency + " q", ID: q.ID, From: q.Asker, Task: q.Task, Text: q.Topic + ": " + q.Text,
				Since: q.Created, Deadline: q.Deadline, For: q.Answerer})
		}
	}
	return out
}

// inboxItems turns the lead's inbox into queue items.
func inboxItems(items []lead.InboxItem) []queue.Item {
	out := make([]queue.Item, 0, len(items))
	for _, it := range items {
		kind := it.Type
		if it.Extra["topic"] != "" {
			kind = "gap"
		}
		out = append(out, permissionItem(queue.Item{Kind: kind, ID: it.ID, From: it.From, Task: it.Task, Text: it.Body, Since: it.Since}, it.Extra))
	}
	return out
}

// permsView is the permissions board, or why there is none.
func (m Model) permsView() string {
	if !m.permsListed && m.permGot > 0 {
		return m.st.Muted.Render("this console does not list permission requests; decide them in the inbox (" + m.keys.Inbox.Help().Key + ")")
	}
	return m.perms.View()
}
