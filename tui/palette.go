package tui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/tui/components/palette"
)

// commands are the palette's slash commands (seed 004's, and /send).
var commands = []palette.Entry{
	{Name: "/ask", Usage: "<topic> <question>", Desc: "ask a question, routed by topic"},
	{Name: "/send", Usage: "<agent> <text>", Desc: "type text into an agent"},
	{Name: "/answer", Usage: "<id> <text>", Desc: "answer an item of the inbox"},
	{Name: "/questions", Usage: "[pending|answered|timeout|all|ID]", Desc: "show the inbox, or one question"},
	{Name: "/escalate", Usage: "<q-id|c-id>", Desc: "escalate a question or a consultation now"},
	{Name: "/reassign", Usage: "<q-id> <kind/name> | <c-id> <agent>", Desc: "give a question or a consultation to another answerer"},
	{Name: "/consults", Usage: "[open|all|<status>|<agent>|<decision>|c-id]", Desc: "show the consultations board"},
	{Name: "/tasks", Usage: "[<task>|<text>]", Desc: "show the tasks board, or one task's history"},
	{Name: "/permissions", Usage: "[pending|all|<agent>|p-id]", Desc: "show the permission requests, or one request"},
	{Name: "/acknowledge", Usage: "<c-id>", Desc: "accept the concerns raised on a consultation"},
	{Name: "/merge", Usage: "<agent>", Desc: "show an agent's worktree diff, then M merges it into your checkout"},
	{Name: "/filter", Usage: "<text>", Desc: "filter the activity log"},
	{Name: "/theme", Usage: "", Desc: "themes are chosen with --theme or ui.theme"},
}

func paletteEntries(k KeyMap) []palette.Entry {
	out := append([]palette.Entry(nil), commands...)
	for _, a := range k.Actions() {
		out = append(out, palette.Entry{Name: a.Name, Usage: a.Keys, Desc: a.Desc})
	}
	return out
}

func (m Model) onPaletteKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Cancel):
		m.mode = modeNormal
		return m, nil
	case k.Type == tea.KeyUp:
		m.palette.Move(-1)
		return m, nil
	case k.Type == tea.KeyDown:
		m.palette.Move(1)
		return m, nil
	case k.Type == tea.KeyEnter:
		m.mode = modeNormal
		run, ok := m.palette.Enter()
		if !ok {
			return m, nil
		}
		return m.run(run)
	}
	var cmd tea.Cmd
	m.palette, cmd = m.palette.Update(k)
	return m, cmd
}

// run carries out a palette choice: a slash command, or an action as if
// its key had been pressed.
func (m Model) run(r palette.Run) (tea.Model, tea.Cmd) {
	con := m.con
	fail := func(format string, a ...any) (tea.Model, tea.Cmd) {
		m.status, m.statusE = fmt.Sprintf(format, a...), true
		return m, nil
	}
	switch r.Name {
	case "/send":
		agent, text, ok := strings.Cut(r.Args, " ")
		if !ok || strings.TrimSpace(text) == "" {
			return fail("usage: /send <agent> <text>")
		}
		return m, func() tea.Msg {
			if err := con.Send(agent, strings.TrimSpace(text)); err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "sent to " + agent}
		}
	case "/answer":
		id, text, ok := strings.Cut(r.Args, " ")
		if !ok || strings.TrimSpace(text) == "" {
			return fail("usage: /answer <id> <text>")
		}
		return m, func() tea.Msg {
			if err := con.Answer(id, strings.TrimSpace(text)); err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "answered " + id}
		}
	case "/questions":
		if qid, ok := questions.ParseID(r.Args); ok {
			cmd := m.showQuestions("all")
			m.status = "showing all questions; " + qid + " is among them"
			return m, cmd
		}
		switch r.Args {
		case "", "pending", "answered", "timeout", "all":
			return m, m.showQuestions(r.Args)
		}
		return fail("usage: /questions [pending|answered|timeout|all|q-id]")
	case "/ask":
		topic, text, ok := strings.Cut(r.Args, " ")
		if !ok || strings.TrimSpace(text) == "" {
			return fail("usage: /ask <topic> <question>")
		}
		return m, func() tea.Msg {
			q, err := con.Ask(questions.Ask{Asker: "human", Topic: topic, Text: strings.TrimSpace(text)})
			if err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: q.ID + " routed to " + q.Answerer}
		}
	case "/escalate":
		if r.Args == "" {
			return fail("usage: /escalate <q-id|c-id>")
		}
		return m, m.escalate(r.Args)
	case "/reassign":
		id, to, ok := strings.Cut(r.Args, " ")
		if !ok {
			return fail("usage: /reassign <q-id> <kind/name> or /reassign <c-id> <agent>")
		}
		return m, func() tea.Msg {
			if err := con.Reassign(id, strings.TrimSpace(to)); err != nil {
				return statusMsg{text: err.Error(), err: true}
			}
			return statusMsg{text: "reassigned " + id + " to " + strings.TrimSpace(to)}
		}
	case "/consults":
		return m.showConsults(r.Args)
	case "/tasks":
		return m.showTasks(r.Args)
	case "/permissions":
		return m.showPermissions(r.Args)
	case "/acknowledge":
		id := strings.TrimSpace(r.Args)
		if id == "" {
			return fail("usage: /acknowledge <c-id>")
		}
		return m, m.consultAction(func() error { return con.Acknowledge(id) }, "acknowledged the concerns on "+id)
	case "/merge":
		agent := strings.TrimSpace(r.Args)
		if m.agents.Select(agent); agent == "" || m.agents.Selected() != agent {
			return fail("usage: /merge <agent> (one of the team)")
		}
		m.right = viewScreen
		cmd := m.toggleDiff()
		m.mergeArmed = agent // the command was the first press
		m.status, m.statusE = "merge "+agent+"'s branch into your checkout? read its diff, then press "+m.keys.Merge.Help().Key+" to merge, any other key to cancel", false
		return m, cmd
	case "/filter":
		m.activity.SetFilter(r.Args)
		m.setPane(paneActivity)
		return m, nil
	case "/theme":
		m.status = "choose a theme with --theme NAME (dark, light, high-contrast) or ui.theme in the team file"
		return m, nil
	}
	for _, a := range m.keys.Actions() {
		if a.Name == r.Name {
			return m.action(a.Name)
		}
	}
	return fail("unknown command %s (type / to see the commands)", r.Name)
}

// action performs the keymap action name by replaying its first key.
func (m Model) action(name string) (tea.Model, tea.Cmd) {
	for _, a := range m.keys.bindings() {
		if a.name == name && len(a.b.Keys()) > 0 {
			return m.onNormalKey(keyMsgFor(a.b.Keys()[0]))
		}
	}
	return m, nil
}
