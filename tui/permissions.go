package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/tui/components/always"
	"github.com/teamlead/teamlead/tui/components/layout"
	permboard "github.com/teamlead/teamlead/tui/components/permissions"
	"github.com/teamlead/teamlead/tui/components/queue"
)

// decideGuard is how soon after one decision another keyed decision on a
// different request asks for a second press: the next request moved into
// view under the person's finger, and must be seen before it is decided.
const decideGuard = time.Second

// shownGuard is how long the request under the cursor or in the badge
// must have been there, since something other than the human's keys put
// it there, for a decision key to act on it. Agents decide when their
// requests arrive and leave: one leaving above the cursor, or the badge's
// request withdrawn, slides another under a key already on its way.
const shownGuard = time.Second

// permsMsg carries a fresh list of permission requests (gen as for
// consultsMsg); ok is false when the console cannot list them.
type permsMsg struct {
	gen uint64
	rs  []approvals.Request
	ok  bool
}

// permDoneMsg reports a decision on a permission request; the board is
// fetched again whatever happened.
type permDoneMsg struct {
	text string
	err  bool
}

func alwaysKeys(k KeyMap) always.KeyMap {
	return always.KeyMap{Up: k.Up, Down: k.Down, Toggle: k.AllAgents, Confirm: k.Confirm, Cancel: k.Cancel}
}

// fetchPermissions reads the permission requests off the update loop.
func (m *Model) fetchPermissions() tea.Cmd {
	m.permGen++
	con, gen := m.con, m.permGen
	return func() tea.Msg {
		pl, ok := con.(PermissionLister)
		if !ok {
			return permsMsg{gen: gen}
		}
		return permsMsg{gen: gen, rs: pl.Permissions(), ok: true}
	}
}

// permissionRecords reports whether the records change a permission request.
func permissionRecords(recs []store.Record) bool {
	for _, r := range recs {
		if r.Kind == wire.KindPermission {
			return true
		}
	}
	return false
}

// permissionItem is the inbox item of a permission request record.
func permissionItem(it queue.Item, fields map[string]string) queue.Item {
	if it.IsPermission() {
		it.Action, it.Risk, it.Rule = fields["action"], fields["risk"], fields["rule"]
	}
	return it
}

// notifyPermission rings for a new permission request: who wants what, at
// which risk, and what sent it to the human.
func (m Model) notifyPermission(r store.Record) tea.Cmd {
	title := fmt.Sprintf("permission: %s wants %s", r.From, r.Fields["action"])
	body := fmt.Sprintf("%s — risk %s — %s", r.MsgID, layout.OrDash(r.Fields["risk"]), layout.OrDash(r.Fields["rule"]))
	notify := m.opts.Notify
	return func() tea.Msg {
		if notify != nil {
			notify(title, body)
		}
		return nil
	}
}

// permTarget is the pending request a decision key acts on.
type permTarget struct {
	id, agent, action, risk, rule string
	floor                         []string
}

// confirmCritical is how long the first press of the approve key on a
// critical request waits for the second.
const confirmCritical = 10 * time.Second

// critical reports a request that one key press must not approve: risk
// critical, or on the destructive floor.
func (t permTarget) critical() bool { return t.risk == "critical" || t.onFloor() }

// criticalWhy says why it is critical, for the confirmation.
func (t permTarget) criticalWhy() string {
	if t.onFloor() {
		return "floor " + t.floorIDs()
	}
	return "risk critical"
}

// onFloor reports an action on the destructive floor: it can never be
// approved always.
func (t permTarget) onFloor() bool { return len(t.floor) > 0 || strings.HasPrefix(t.rule, "floor ") }

// floorIDs names the floor entries it hits.
func (t permTarget) floorIDs() string {
	if len(t.floor) > 0 {
		return strings.Join(t.floor, ", ")
	}
	return strings.TrimPrefix(t.rule, "floor ")
}

func targetOfRequest(r approvals.Request) permTarget {
	return permTarget{id: r.ID, agent: r.Agent, action: r.Action, risk: r.Risk, rule: r.Rule, floor: r.Floor}
}

func (m Model) targetOfItem(it queue.Item) permTarget {
	t := permTarget{id: it.ID, agent: it.From, action: it.Action, risk: it.Risk, rule: it.Rule}
	if r, ok := m.perms.Get(it.ID); ok {
		t.floor = r.Floor
	}
	return t
}

// badgePermission is the permission request the status bar shows: the
// oldest one waiting; n counts them all.
func (m Model) badgePermission() (it queue.Item, n int) {
	for _, x := range m.queue.Items() {
		if x.IsPermission() {
			if n == 0 {
				it = x
			}
			n++
		}
	}
	return it, n
}

// permissionTarget is the request the decision keys act on: the one
// selected in the focused permissions board or inbox, else the one the
// badge shows. why says why there is none.
func (m Model) permissionTarget() (t permTarget, why string) {
	switch {
	case m.pane == paneScreen && m.right == viewPermissions:
		r, ok := m.perms.Selected()
		if !ok {
			return t, "no permission request is selected"
		}
		if r.Done() {
			return t, fmt.Sprintf("%s was %s by %s; nothing to decide", r.ID, r.Status, layout.OrDash(r.DecidedBy))
		}
		return targetOfRequest(r), ""
	case m.pane == paneInbox && !m.qmode:
		if it := m.queue.Selected(); it.IsPermission() {
			return m.targetOfItem(it), ""
		}
	}
	if it, n := m.badgePermission(); n > 0 {
		return m.targetOfItem(it), ""
	}
	return t, "no permission request is waiting"
}

// shownPermission is the id of the request the decision keys would act
// on now ("" for none).
func (m Model) shownPermission() string {
	t, _ := m.permissionTarget()
	return t.id
}

// noteShown follows the request the decision keys act on after a
// message: when it is another one and the message was not the human's
// key (moving the cursor, changing pane), the change is timed for
// shownTooShort. A key moving onto a request changed by an agent just
// before keeps that time.
func (m *Model) noteShown(byKey bool) {
	id := m.shownPermission()
	if id == m.shownPerm {
		return
	}
	left := m.shownPerm
	m.shownPerm = id
	if byKey {
		return
	}
	m.shownPermAt = m.opts.Now()
	if left != "" && left != m.lastDecided && left != m.humanDecided && m.pane == paneInbox && !m.qmode && !m.hasPermission(left) && id != "" {
		// The request the human was looking at went; the cursor is on
		// another one now, which the status line says.
		m.status, m.statusE = fmt.Sprintf("%s left the inbox; the cursor is on %s now", left, id), true
	}
}

// hasPermission reports whether request id is still in the inbox.
func (m Model) hasPermission(id string) bool {
	for _, it := range m.queue.Items() {
		if it.ID == id {
			return true
		}
	}
	return false
}

// shownTooShort refuses a decision key when the request it would act on
// changed less than shownGuard ago: the status line says so and shows
// the request now there.
func (m Model) shownTooShort() (Model, bool) {
	t, why := m.permissionTarget()
	if why != "" || m.opts.Now().Sub(m.shownPermAt) >= shownGuard {
		return m, false
	}
	where := "under the cursor"
	if m.targetIsBadge() {
		where = "in the badge"
	}
	m.status, m.statusE = fmt.Sprintf("the request %s just changed: look again — %s: %s wants %s",
		where, t.id, t.agent, permboard.Flat(t.action)), true
	return m, true
}

// targetIsBadge reports whether the decision keys act on the badge's
// request, no cursor being on one.
func (m Model) targetIsBadge() bool {
	switch {
	case m.pane == paneScreen && m.right == viewPermissions:
		return false
	case m.pane == paneInbox && !m.qmode:
		return !m.queue.Selected().IsPermission()
	}
	return true
}

// onPermissionKey handles y, A, n and N: approve once, approve always
// (the chooser), deny, deny with a message.
func (m Model) onPermissionKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	t, why := m.permissionTarget()
	if why != "" {
		m.status, m.statusE = why, false
		return m, nil
	}
	if mm, refused := m.shownTooShort(); refused {
		return mm, nil
	}
	now := m.opts.Now()
	if m.lastDecided != "" && m.lastDecided != t.id && now.Sub(m.lastDecidedAt) < decideGuard {
		// Pressed again right after a decision: the request under the
		// key now is another one. Show it; the next press decides it.
		m.lastDecided = ""
		m.status, m.statusE = fmt.Sprintf("%s is next: %s wants %s — %s again decides it", t.id, t.agent, permboard.Flat(t.action), k.String()), true
		return m, nil
	}
	ks := m.keys
	switch {
	case key.Matches(k, ks.Approve):
		if t.critical() && (m.armed != t.id || now.Sub(m.armedAt) > confirmCritical) {
			// One key must not approve what nothing brings back. What
			// to press comes first, the reason last: at 80 columns the
			// badge leaves the message about 55 columns.
			m.armed, m.armedAt = t.id, now
			m.status, m.statusE = fmt.Sprintf("%s is critical: %s again approves, other keys cancel (%s)",
				t.id, ks.Approve.Help().Key, t.criticalWhy()), true
			return m, nil
		}
		m.armed = ""
		return m.decided(t), m.decide(t, "approve", fmt.Sprintf("approved %s once: %s may %s", t.id, t.agent, permboard.Flat(t.action)))
	case key.Matches(k, ks.Deny):
		return m.decided(t), m.decide(t, "deny", fmt.Sprintf("denied %s: %s may not %s", t.id, t.agent, permboard.Flat(t.action)))
	case key.Matches(k, ks.DenyMessage):
		mm, cmd := m.openPrompt(fmt.Sprintf("deny %s (%s wants %s) — message to %s: ", t.id, t.agent, ansi.Truncate(permboard.Flat(t.action), 40, "…"), t.agent), "",
			func(text string) tea.Cmd {
				return m.decide(t, "deny "+text, fmt.Sprintf("denied %s with your message to %s", t.id, t.agent))
			})
		mm.lastDecided, mm.lastDecidedAt = t.id, now
		return mm, cmd
	case key.Matches(k, ks.ApproveAlways):
		if t.onFloor() {
			m.status, m.statusE = fmt.Sprintf("%s is on the destructive floor (%s): never approved always — %s approves it once",
				t.id, t.floorIDs(), ks.Approve.Help().Key), true
			return m, nil
		}
		m.always.Open(t.id, t.agent, t.action, t.risk)
		m.always.SetWidth(max(m.width-4, 20))
		m.mode = modeAlways
		return m, m.planAlways(t)
	}
	return m, nil
}

// alwaysPlanMsg carries the console's own plans for request id, one for
// each scope.
type alwaysPlanMsg struct {
	id    string
	plans []always.Option
}

// planAlways asks the console, off the update loop, what approving t
// always would write at each scope; nil when it cannot say.
func (m Model) planAlways(t permTarget) tea.Cmd {
	pl, ok := m.con.(AlwaysPlanner)
	if !ok {
		return nil
	}
	return func() tea.Msg {
		msg := alwaysPlanMsg{id: t.id}
		for _, scope := range always.Scopes {
			plan, err := pl.PlanAlways(t.id, scope)
			msg.plans = append(msg.plans, always.Planned(t.action, scope, plan, err))
		}
		return msg
	}
}

// decided notes the decision for the double-press guard.
func (m Model) decided(t permTarget) Model {
	m.lastDecided, m.lastDecidedAt = t.id, m.opts.Now()
	return m
}

// decide answers request t with text ("approve", "deny <message>",
// "always <scope> [all]") off the update loop.
func (m Model) decide(t permTarget, text, ok string) tea.Cmd {
	con, approveKey := m.con, m.keys.Approve.Help().Key
	return func() tea.Msg {
		if err := con.Answer(t.id, text); err != nil {
			if errors.Is(err, permit.ErrFloor) {
				return permDoneMsg{text: fmt.Sprintf("%s is on the destructive floor: never approved always — %s approves it once", t.id, approveKey), err: true}
			}
			return permDoneMsg{text: t.id + ": " + err.Error(), err: true}
		}
		if strings.HasPrefix(text, "always") {
			if pl, has := con.(PermissionLister); has {
				for _, r := range pl.Permissions() {
					if r.ID == t.id && r.Note != "" {
						ok = t.id + " " + r.Note // approved always: <rule> added to <file>
					}
				}
			}
		}
		return permDoneMsg{text: ok}
	}
}

// onAlwaysKey drives the approve-always chooser.
func (m Model) onAlwaysKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	switch {
	case key.Matches(k, m.keys.Cancel):
		m.mode = modeNormal
		return m, nil
	case k.Type == tea.KeyEnter:
		scope, all, ok := m.always.Choice()
		if !ok {
			m.status, m.statusE = fmt.Sprintf("%s: %s does not apply here — %s", m.always.ID(), scope, m.always.Selected().Unavailable), true
			return m, nil
		}
		m.mode = modeNormal
		var t permTarget
		if r, has := m.perms.Get(m.always.ID()); has {
			t = targetOfRequest(r)
		}
		t.id = m.always.ID()
		text, who := "always "+scope, t.agent
		if all {
			text, who = text+" all", "every agent"
		}
		if who == "" {
			who = "the agent"
		}
		sel := m.always.Selected()
		done := fmt.Sprintf("approved %s always (%s, for %s)", t.id, scope, who)
		switch {
		case sel.Rule == "" && sel.Why != "":
			done = fmt.Sprintf("approved %s once, no rule added: %s", t.id, sel.Why)
		case sel.Rule != "":
			done += ": " + sel.Rule + " added to the policy"
		}
		m = m.decided(t)
		return m, m.decide(t, text, done)
	}
	var cmd tea.Cmd
	m.always, cmd = m.always.Update(k)
	return m, cmd
}

// answerPermission opens the editor on request t prefilled with
// "approve ", for a note with the approval or any of the text forms.
func (m Model) answerPermission(t permTarget) (tea.Model, tea.Cmd) {
	m.mode = modeInput
	m.prompt = prompt{label: fmt.Sprintf("answer %s (%s wants %s): approve [note] · always exact|prefix|dir|tool [all] · deny [message] — enter sends, esc cancels",
		t.id, t.agent, permboard.Flat(t.action)), multiline: true,
		submit: func(text string) tea.Cmd {
			word, _, _ := strings.Cut(text, " ")
			return m.decide(t, text, fmt.Sprintf("%s: %s sent; %s has it", t.id, word, t.agent))
		}}
	m.editor.Reset()
	m.editor.SetWidth(max(m.width-4, 10))
	m.editor.SetValue("approve ")
	return m, m.editor.Focus()
}

// showPermissions is /permissions [pending|all|<agent>|p-id]: the board,
// filtered, or with one request's detail open.
func (m Model) showPermissions(args string) (tea.Model, tea.Cmd) {
	args = strings.TrimSpace(args)
	m.right = viewPermissions
	m.setPane(paneScreen)
	m.pendingPerm = ""
	m.perms.ShowDetail(false)
	cmd := m.fetchPermissions()
	switch {
	case strings.HasPrefix(args, "p-") && !strings.Contains(args, " "):
		m.perms.SetFilter("")
		if !m.perms.OpenDetail(args) {
			m.pendingPerm, m.pendingPermGen = args, m.permGen
		}
	default:
		m.perms.SetFilter(args)
		m.perms.SelectFirst()
	}
	return m, cmd
}

// onPermsMsg takes a fresh list of requests.
func (m Model) onPermsMsg(msg permsMsg) Model {
	if msg.gen > m.permGot {
		m.permGot, m.permsListed = msg.gen, msg.ok
		m.perms.Set(msg.rs)
	}
	if id := m.pendingPerm; id != "" && m.permGot >= m.pendingPermGen {
		m.pendingPerm = ""
		if !m.perms.OpenDetail(id) {
			m.status, m.statusE = "no permission request "+id, true
		}
	}
	return m
}

// onPermsBoardKey handles a key in the focused permissions board: a
// (the editor, prefilled) here, moving and the detail in the component.
func (m Model) onPermsBoardKey(k tea.KeyMsg) (tea.Model, tea.Cmd) {
	if r, ok := m.perms.Selected(); ok && key.Matches(k, m.keys.Answer) {
		if r.Done() {
			m.status, m.statusE = fmt.Sprintf("%s was %s by %s; nothing to decide", r.ID, r.Status, layout.OrDash(r.DecidedBy)), false
			return m, nil
		}
		if mm, refused := m.shownTooShort(); refused {
			return mm, nil
		}
		return m.answerPermission(targetOfRequest(r))
	}
	var cmd tea.Cmd
	m.perms, cmd = m.perms.Update(k)
	return m, cmd
}

// permissionsTitle is the right pane's title over the permissions board.
func (m Model) permissionsTitle() string {
	if r, ok := m.perms.Selected(); ok && m.perms.InDetail() {
		return fmt.Sprintf("Permission %s — %s for the board", r.ID, m.keys.Cancel.Help().Key)
	}
	title := fmt.Sprintf("Permissions — %d pending of %d", m.perms.Pending(), m.perms.Total())
	if f := m.perms.Filter(); f != "" {
		title += " — filter: " + f
	}
	return title
}

// permissionHelp is the key help while a permission request is in view.
func (m Model) permissionHelp() []key.Binding {
	ks := m.keys
	with := func(b key.Binding, desc string) key.Binding {
		b.SetHelp(b.Help().Key, desc)
		return b
	}
	return []key.Binding{with(ks.Approve, "approve"), with(ks.ApproveAlways, "always"), ks.Deny, with(ks.DenyMessage, "deny+message"), ks.Answer}
}

// permissionBadge is the status bar's badge while requests wait: the
// oldest one's agent and action and the keys that decide it, shortened to
// the count when room is short.
func (m Model) permissionBadge(room int) string {
	it, n := m.badgePermission()
	if n == 0 {
		return ""
	}
	what, count := "⚠ permission: ", "⚠ permission waiting"
	if n > 1 {
		what, count = fmt.Sprintf("⚠ %d permissions: ", n), fmt.Sprintf("⚠ %d permissions waiting", n)
	}
	keys := fmt.Sprintf(" — %s/%s", m.keys.Approve.Help().Key, m.keys.Deny.Help().Key)
	action := it.Action
	if action == "" {
		action = it.ID
	}
	action = permboard.Flat(action)
	head := what + it.From + " wants "
	var text string
	switch fixed := lipgloss.Width(head) + lipgloss.Width(keys) + 1; {
	case room-fixed >= min(lipgloss.Width(action), 16):
		text = head + ansi.Truncate(action, room-fixed, "…") + keys
	case room >= lipgloss.Width(count+keys)+1:
		text = count + keys
	default:
		text = fmt.Sprintf("⚠ %d", n)
	}
	st := m.st.Warn
	if it.Risk == "high" || it.Risk == "critical" {
		st = m.st.Error
	}
	return st.Bold(true).Render(text) + " "
}
