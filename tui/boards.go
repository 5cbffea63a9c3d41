package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/worktree"
	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/components/listview"
	taskboard "github.com/teamlead/teamlead/tui/components/tasks"
)

// rightView is what the right-hand pane shows.
type rightView int

const (
	viewScreen      rightView = iota // the selected agent's live screen
	viewWorkflow                     // its workflow progress file
	viewConsults                     // the consultations board
	viewTasks                        // the tasks board
	viewPermissions                  // the permissions board
	viewDiff                         // what the selected agent changed in its worktree
)

// diffMsg carries an agent's diff, read off the update loop.
type diffMsg struct {
	agent   string
	tree    worktree.Tree
	changes worktree.Changes
	err     error
}

// toggleDiff shows the selected agent's diff in the right pane, or its
// screen again.
func (m *Model) toggleDiff() tea.Cmd {
	agent := m.agents.Selected()
	if m.right == viewDiff && m.diff.Agent() == agent {
		m.right = viewScreen
		return nil
	}
	if agent == "" {
		m.status, m.statusE = "no agent selected", true
		return nil
	}
	m.right = viewDiff
	m.setPane(paneScreen)
	m.mergeArmed = ""
	m.diff.Loading(agent)
	con := m.con
	return func() tea.Msg {
		t, c, err := con.Diff(agent)
		return diffMsg{agent: agent, tree: t, changes: c, err: err}
	}
}

// onDiffKey handles a key while the diff is shown and focused: scrolling,
// and esc back to the screen.
func (m Model) onDiffKey(k tea.KeyMsg) (tea.Model, tea.Cmd, bool) {
	ks := m.keys
	switch {
	case key.Matches(k, ks.Cancel):
		m.right = viewScreen
	case key.Matches(k, ks.Up):
		m.diff.Scroll(-1)
	case key.Matches(k, ks.Down):
		m.diff.Scroll(1)
	case key.Matches(k, ks.PageUp):
		m.diff.PageUp()
	case key.Matches(k, ks.PageDown):
		m.diff.PageDown()
	case key.Matches(k, ks.Bottom):
		m.diff.End()
	case key.Matches(k, ks.Merge):
		agent, p := m.diff.Agent(), m.diff.Merge()
		if p.Err != "" {
			m.status, m.statusE = "cannot merge: "+p.Err, true
			return m, nil, true
		}
		if p.At == "" {
			m.status, m.statusE = "the diff is not read yet: merge once it shows", true
			return m, nil, true
		}
		if m.mergeArmed != agent {
			m.mergeArmed = agent
			m.status, m.statusE = fmt.Sprintf("merge %s at %.12s into your checkout? press %s again to merge (%d files), other keys cancel", agent, p.At, ks.Merge.Help().Key, len(p.Changes.Files)), false
			return m, nil, true
		}
		m.mergeArmed = ""
		con := m.con
		return m, func() tea.Msg {
			t, r, err := con.Merge(agent, p)
			switch {
			case err != nil:
				return statusMsg{text: "not merged: " + err.Error(), err: true}
			case r.Commit == "":
				return statusMsg{text: t.Branch + " has nothing " + r.Into + " does not have already"}
			}
			return statusMsg{text: fmt.Sprintf("merged %s into %s: %.12s, %d files", t.Branch, r.Into, r.Commit, r.Files)}
		}, true
	default:
		return m, nil, false
	}
	m.mergeArmed = ""
	return m, nil, true
}

// consultsMsg carries a fresh list of consultations; gen orders fetches
// that ran concurrently, so an older answer never replaces a newer one.
type consultsMsg struct {
	gen uint64
	cs  []consult.Consultation
}

// tasksMsg carries a fresh list of tasks (gen as for consultsMsg).
type tasksMsg struct {
	gen uint64
	ts  []tasks.Task
}

// boardFilterMsg sets a board's filter (from its filter prompt).
type boardFilterMsg struct {
	view rightView
	text string
}

// consultDoneMsg reports an action on a consultation; the board is
// fetched again whatever happened.
type consultDoneMsg struct {
	text string
	err  bool
}

// boardKeys are the console's keys as the boards (consultations, tasks,
// permissions: each a listview) take them.
func boardKeys(k KeyMap) listview.KeyMap {
	return listview.KeyMap{Up: k.Up, Down: k.Down, PageUp: k.PageUp, PageDown: k.PageDown, Detail: k.Detail, Back: k.Cancel}
}

// fetchConsults reads the consultations off the update loop.
func (m *Model) fetchConsults() tea.Cmd {
	m.consultGen++
	con, gen := m.con, m.consultGen
	return func() tea.Msg { return consultsMsg{gen: gen, cs: con.Consultations()} }
}

// fetchTasks reads the tasks off the update loop.
func (m *Model) fetchTasks() tea.Cmd {
	m.taskGen++
	con, gen := m.con, m.taskGen
	return func() tea.Msg { return tasksMsg{gen: gen, ts: con.Tasks()} }
}

// boardRecords says which boards the records change.
func boardRecords(recs []store.Record) (consultsChanged, tasksChanged bool) {
	for _, r := range recs {
		switch r.Kind {
		case wire.KindConsult, wire.KindDecisionBlocked, wire.KindDecisionFinal:
			consultsChanged = true
		case wire.KindTask, wire.KindReviewIncomplete:
			tasksChanged = true
		}
	}
	return consultsChanged, tasksChanged
}

// onBoardMsg handles the boards' messages; ok is false for any other.
func (m Model) onBoardMsg(msg tea.Msg) (Model, tea.Cmd, bool) {
	switch msg := msg.(type) {
	case consultsMsg:
		if msg.gen > m.consultGot {
			m.consultGot = msg.gen
			m.consults.Set(msg.cs)
		}
		if id := m.pendingConsult; id != "" && m.consultGot >= m.pendingConsultGen {
			m.pendingConsult = ""
			if !m.consults.OpenDetail(id) {
				m.status, m.statusE = "no consultation "+id, true
			}
		}
	case tasksMsg:
		if msg.gen > m.taskGot {
			m.taskGot = msg.gen
			m.tasks.Set(msg.ts)
		}
		if arg := m.pendingTask; arg != "" && m.taskGot >= m.pendingTaskGen {
			m.pendingTask = ""
			if !m.tasks.OpenDetail(arg) {
				m.tasks.SetFilter(arg) // not a task: a filter
			}
		}
	case boardFilterMsg:
		if msg.view == viewTasks {
			m.tasks.SetFilter(msg.text)
		} else if msg.view == viewPermissions {
			m.perms.SetFilter(msg.text)
		} else {
			m.consults.SetFilter(msg.text)
		}
	case consultDoneMsg:
		m.status, m.statusE = msg.text, msg.err
		cmd := m.fetchConsults()
		return m, cmd, true
	case diffMsg:
		if m.diff.Agent() == msg.agent {
			if msg.err != nil {
				m.diff.SetError(msg.agent, msg.err)
			} else {
				m.diff.Set(msg.agent, msg.tree, msg.changes)
			}
		}
	default:
		return m, nil, false
	}
	return m, nil, true
}

// boardShown reports whether the right pane shows a board.
func (m Model) boardShown() bool {
	return m.mode != modeFocus && (m.right == viewConsults || m.right == viewTasks || m.right == viewPermissions)
}

// toggleBoard shows board v in the right pane and focuses it, or, when it
// is shown and focused already, goes back to the agent's screen.
func (m *Model) toggleBoard(v rightView) tea.Cmd {
	if m.right == v && m.pane == paneScreen {
		m.right = viewScreen
		return nil
	}
	if v == viewPermissions && m.right != v {
		m.perms.SelectFirst() // opened: on the one waiting longest
	}
	m.right = v
	m.setPane(paneScreen)
	switch v {
	case viewTasks:
		return m.fetchTasks()
	case viewPermissions:
		return m.fetchPermissions()
	}
	return m.fetchConsults()
}

// onBoardKey handles a key in a focused board: the actions on the
// selected consultation here, moving and the detail in the component.
func (m Model) onBoardKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	ks := m.keys
	inDetail := m.consults.InDetail()
	switch m.right {
	case viewTasks:
		inDetail = m.tasks.InDetail()
	case viewPermissions:
		inDetail = m.perms.InDetail()
	}
	switch {
	case key.Matches(k, ks.Cancel) && !inDetail:
		m.right = viewScreen
		return m, nil
	case key.Matches(k, ks.Filter):
		return m.filterBoard()
	}
	if m.right == viewTasks {
		var cmd tea.Cmd
		m.tasks, cmd = m.tasks.Update(k)
		return m, cmd
	}
	if m.right == viewPermissions {
		return m.onPermsBoardKey(k)
	}
	c, selected := m.consults.Selected()
	switch {
	case key.Matches(k, ks.Answer) && selected:
		return m.verdictOn(c)
	case key.Matches(k, ks.Acknowledge) && selected:
		return m, m.consultAction(func() error { return m.con.Acknowledge(c.ID) }, "acknowledged the concerns on "+c.ID+"; it no longer holds "+c.Decision)
	case key.Matches(k, ks.Escalate) && selected:
		return m, m.consultAction(func() error { return m.con.Escalate(c.ID) }, "escalated "+c.ID)
	case key.Matches(k, ks.Reassign) && selected:
		con := m.con
		return m.openPrompt(fmt.Sprintf("reassign %s (now %s, %s) to agent: ", c.ID, c.Consulted, c.ConsultedRole), "", func(to string) tea.Cmd {
			return func() tea.Msg {
				if err := con.Reassign(c.ID, to); err != nil {
					return consultDoneMsg{text: err.Error(), err: true}
				}
				return consultDoneMsg{text: "reassigned " + c.ID + " to " + to}
			}
		})
	}
	var cmd tea.Cmd
	m.consults, cmd = m.consults.Update(k)
	return m, cmd
}

// consultAction runs do off the update loop and reports ok or its error.
func (m Model) consultAction(do func() error, ok string) tea.Cmd {
	return func() tea.Msg {
		if err := do(); err != nil {
			return consultDoneMsg{text: err.Error(), err: true}
		}
		return consultDoneMsg{text: ok}
	}
}

// verdictOn opens the answer editor for the human's verdict on c,
// prefilled with "approve ".
func (m Model) verdictOn(c consult.Consultation) (tea.Model, tea.Cmd) {
	con := m.con
	m.mode = modeInput
	m.prompt = prompt{label: fmt.Sprintf("verdict on %s, %s's %s decision on %s: approve, concerns, reject or acknowledge, then why — enter sends, esc cancels",
		c.ID, c.Requester, c.Decision, layout.OrDash(c.Task)), multiline: true,
		submit: func(text string) tea.Cmd {
			return func() tea.Msg {
				if err := con.Answer(c.ID, text); err != nil {
					return consultDoneMsg{text: err.Error(), err: true}
				}
				word, _, _ := strings.Cut(text, " ")
				return consultDoneMsg{text: fmt.Sprintf("%s: %s sent; %s has it", c.ID, word, c.Requester)}
			}
		}}
	m.editor.Reset()
	m.editor.SetWidth(max(m.width-4, 10))
	m.editor.SetValue("approve ")
	return m, m.editor.Focus()
}

// filterBoard opens the prompt for the shown board's filter.
func (m Model) filterBoard() (tea.Model, tea.Cmd) {
	v, label, cur := m.right, "filter consultations (open, all, or words: id, agent, decision, status, task): ", m.consults.Filter()
	switch v {
	case viewTasks:
		label, cur = "filter tasks (words: id, state, agent): ", m.tasks.Filter()
	case viewPermissions:
		label, cur = "filter permissions (pending, all, or words: id, agent, status, risk, action): ", m.perms.Filter()
	}
	mm, cmd := m.openPrompt(label, cur, func(text string) tea.Cmd {
		return func() tea.Msg { return boardFilterMsg{view: v, text: text} }
	})
	mm.prompt.allowEmpty = true
	return mm, cmd
}

// showConsults is /consults [filter|c-id]: the board, filtered, or with
// one consultation's detail open.
func (m Model) showConsults(args string) (tea.Model, tea.Cmd) {
	args = strings.TrimSpace(args)
	m.right = viewConsults
	m.setPane(paneScreen)
	m.pendingConsult = ""
	m.consults.ShowDetail(false)
	cmd := m.fetchConsults()
	switch {
	case strings.HasPrefix(args, "c-") && !strings.Contains(args, " "):
		m.consults.SetFilter("")
		if !m.consults.OpenDetail(args) {
			m.pendingConsult, m.pendingConsultGen = args, m.consultGen
		}
	case args != "":
		m.consults.SetFilter(args)
	}
	return m, cmd
}

// showTasks is /tasks [task-id|filter]: the board, with one task's history
// open when args names a task, else filtered by args.
func (m Model) showTasks(args string) (tea.Model, tea.Cmd) {
	args = strings.TrimSpace(args)
	m.right = viewTasks
	m.setPane(paneScreen)
	m.pendingTask = ""
	m.tasks.ShowDetail(false)
	cmd := m.fetchTasks()
	if args != "" {
		m.tasks.SetFilter("")
		if !m.tasks.OpenDetail(args) {
			m.pendingTask, m.pendingTaskGen = args, m.taskGen // decided when the fresh list arrives
		}
	}
	return m, cmd
}

// boardTitle is the right pane's title when it shows a board (the status
// bar says how to leave it).
func (m Model) boardTitle() string {
	back := m.keys.Cancel.Help().Key + " for the board"
	if m.right == viewPermissions {
		return m.permissionsTitle()
	}
	if m.right == viewTasks {
		if t, ok := m.tasks.Selected(); ok && m.tasks.InDetail() {
			return fmt.Sprintf("Task %s — %s", t.ID, back)
		}
		counts := m.tasks.Counts()
		var parts []string
		for _, s := range taskboard.States {
			if counts[s] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[s], strings.ReplaceAll(string(s), "-", " ")))
			}
		}
		title := "Tasks"
		if len(parts) > 0 {
			title += " — " + strings.Join(parts, " · ")
		}
		if f := m.tasks.Filter(); f != "" {
			title += " — filter: " + f
		}
		return title
	}
	if c, ok := m.consults.Selected(); ok && m.consults.InDetail() {
		return fmt.Sprintf("Consultation %s — %s", c.ID, back)
	}
	title := fmt.Sprintf("Consultations — %d open", m.consults.Open())
	if n := len(m.consults.Blocks()); n > 0 {
		title += " · " + plural(n, "decision") + " blocked"
	}
	if f := m.consults.Filter(); f != "" {
		title += " — filter: " + f
	}
	return title
}

// boardHelp is the status bar's key help while a board has the keyboard.
// How to leave comes first: the board's title leaves it to the status bar,
// whose end is cut first (at 80 columns, or beside the badge).
func (m Model) boardHelp() []key.Binding {
	with := func(b key.Binding, desc string) key.Binding {
		b.SetHelp(b.Help().Key, desc)
		return b
	}
	ks := m.keys
	if m.right == viewTasks {
		return []key.Binding{with(ks.Cancel, "back"), with(ks.Detail, "history"), ks.Filter, ks.Palette, ks.Help}
	}
	if m.right == viewPermissions {
		return append([]key.Binding{with(ks.Cancel, "back"), with(ks.Detail, "details")}, append(m.permissionHelp(), ks.Filter)...)
	}
	return []key.Binding{with(ks.Cancel, "back"), with(ks.Detail, "details"), with(ks.Answer, "verdict"), with(ks.Acknowledge, "acknowledge"),
		ks.Escalate, ks.Reassign, ks.Filter}
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
