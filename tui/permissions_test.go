package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/muesli/termenv"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/style"
)

// permissionFixture: dev wants to delete /srv/data (on the floor,
// critical) and qa to install a package (medium), both waiting; the
// policy approved go test; the human denied a force push; a hook's
// request was withdrawn. Newest first, as the engine lists them.
func permissionFixture() []approvals.Request {
	return []approvals.Request{
		{ID: "p-5", Agent: "architect", Source: approvals.FromHook, Action: "Edit(/etc/hosts)", Policy: "ask", Rule: "floor edit-outside", Risk: "high",
			Why: "Edit of /etc/hosts: edits a file outside the working directory", Floor: []string{"edit-outside"}, Status: approvals.Withdrawn,
			Note: "the hook stopped waiting", Created: t0.Add(-20 * time.Minute), Decided: t0.Add(-19 * time.Minute)},
		{ID: "p-4", Agent: "qa", Source: approvals.FromRoute, Action: "Bash(npm install left-pad)", Task: "T-2", Policy: "ask",
			Rule: "Bash(npm install:*) at /x/permissions.yaml:199", Risk: "medium", Why: "installs packages from the network, whose install scripts run on this machine",
			Status: approvals.Pending, Created: t0.Add(-90 * time.Second), Deadline: t0.Add(28 * time.Minute)},
		{ID: "p-3", Agent: "dev", Source: approvals.FromRoute, Action: "Bash(rm -rf /srv/data)", Task: "T-1", Policy: "ask",
			Rule: "floor delete-recursive-outside", Risk: "critical", Why: "rm of /srv/data: a recursive delete reaches outside the working directory",
			Floor: []string{"delete-recursive-outside"}, Status: approvals.Pending, Created: t0.Add(-3 * time.Minute)},
		{ID: "p-2", Agent: "architect", Source: approvals.FromRoute, Action: "Bash(git push --force origin main)", Task: "T-3", Policy: "ask",
			Rule: "floor git-force-push", Risk: "critical", Why: "rewrites the shared history", Floor: []string{"git-force-push"},
			Status: approvals.Denied, DecidedBy: "human", Note: "never on main", Created: t0.Add(-time.Hour), Decided: t0.Add(-50 * time.Minute)},
		{ID: "p-1", Agent: "dev", Source: approvals.FromDialog, Action: "Bash(go test ./...)", Task: "-", Policy: "allow",
			Rule: "Bash(go test:*) at /x/permissions.yaml:12", Risk: "low", Why: "runs the tests", Status: approvals.Approved, DecidedBy: "policy",
			Created: t0.Add(-2 * time.Hour), Decided: t0.Add(-2 * time.Hour)},
	}
}

// inboxOf is the inbox item the lead keeps for a pending request.
func inboxOf(r approvals.Request) lead.InboxItem {
	return lead.InboxItem{ID: r.ID, From: r.Agent, Type: "permission", Task: r.Task, Since: r.Created,
		Body:  fmt.Sprintf("%s wants %s — risk %s — %s: %s", r.Agent, r.Action, r.Risk, r.Rule, r.Why),
		Extra: map[string]string{"permission": r.ID, "action": r.Action, "risk": r.Risk, "rule": r.Rule, "source": string(r.Source)}}
}

// newPermFake is the fake console with the permission fixture: its two
// pending requests wait in the inbox with the blocker.
func newPermFake() *fakeConsole {
	f := newFake()
	f.perms = permissionFixture()
	for i := len(f.perms) - 1; i >= 0; i-- {
		if !f.perms[i].Done() {
			f.inbox = append(f.inbox, inboxOf(f.perms[i]))
		}
	}
	return f
}

func (f *fakeConsole) Permissions() []approvals.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]approvals.Request(nil), f.perms...)
}

// decidePermission decides request id as the engine would from the text
// forms, and publishes what the engine records.
func (f *fakeConsole) decidePermission(id, text string) error {
	word, rest, _ := strings.Cut(text, " ")
	f.mu.Lock()
	var r *approvals.Request
	for i := range f.perms {
		if f.perms[i].ID == id {
			r = &f.perms[i]
		}
	}
	switch {
	case r == nil:
		f.mu.Unlock()
		return fmt.Errorf("%w: %s", approvals.ErrNoRequest, id)
	case r.Done():
		f.mu.Unlock()
		return fmt.Errorf("%w: %s was %s by %s", approvals.ErrDecided, id, r.Status, r.DecidedBy)
	case word == "always" && len(r.Floor) > 0:
		f.mu.Unlock()
		return fmt.Errorf("%w: %s cannot be always allowed: %s; it will be asked every time", permit.ErrFloor, r.Action, r.Why)
	}
	r.Status, r.DecidedBy, r.Note, r.Decided = approvals.Approved, "human", rest, t0
	switch word {
	case "deny":
		r.Status = approvals.Denied
	case "always":
		r.Note = "approved always: Bash(npm install left-pad:*) added to /x/permissions.yaml"
	}
	done := *r
	f.mu.Unlock()
	f.publish(store.Record{Kind: wire.KindPermission, Subject: "permission.request." + done.Agent, MsgID: id, Time: t0,
		Fields: map[string]string{"status": string(done.Status), "decided_by": "human"}})
	f.publish(store.Record{Kind: wire.KindAnswered, Subject: "human.answer." + done.Agent, MsgID: id, Time: t0})
	return nil
}

// press sends keys to m as the program would, settling the commands the
// boards run (fetches); "\r" is enter.
func press(m Model, keys string) Model {
	for _, r := range keys {
		k := runes(string(r))
		if r == '\r' {
			k = tea.KeyMsg{Type: tea.KeyEnter}
		}
		mm, cmd := m.Update(k)
		m = settlePerms(mm.(Model), cmd)
	}
	return m
}

// settlePerms is settle for the permission views: it runs only the fetch
// commands (a decision's command would call the console).
func settlePerms(m Model, cmd tea.Cmd) Model {
	if cmd == nil {
		return m
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			m = settlePerms(m, c)
		}
		return m
	case permsMsg, consultsMsg, tasksMsg:
		mm, next := m.Update(msg)
		return settlePerms(mm.(Model), next)
	}
	return m
}

// TestPermissionsGolden draws the whole console with a pending permission
// selected in the inbox, the permissions board and the approve-always
// chooser, at 160x45 and 100x30; and the inbox once in the default theme's
// colours (testdata/TestPermissionsGolden/<name>.golden).
func TestPermissionsGolden(t *testing.T) {
	for _, size := range [][2]int{{160, 45}, {100, 30}} {
		for _, v := range []struct{ name, keys string }{{"inbox", "2j"}, {"board", "8"}, {"detail", "8\r"}, {"chooser", "2jjjA"}} {
			mm, _ := newModel(newPermFake()).Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			m := mm.(Model)
			m = settlePerms(m, m.fetchPermissions())
			m = press(m, v.keys)
			view := m.View()
			if got := len(strings.Split(view, "\n")); got != size[1] {
				t.Errorf("%s at %dx%d: %d lines", v.name, size[0], size[1], got)
			}
			t.Run(fmt.Sprintf("%s-%dx%d", v.name, size[0], size[1]), func(t *testing.T) { golden.RequireEqual(t, []byte(view)) })
		}
	}
	prof := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(prof)
	th, _ := themes.Load(themes.Default)
	f := newPermFake()
	m := New(f, style.New(th, false), Options{Keys: DefaultKeyMap(), Now: func() time.Time { return t0.Add(time.Second) }})
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = press(mm.(Model), "2j")
	view := m.View()
	for _, want := range []string{"\x1b[1;38;2;255;95;95;48;2;0;95;135mrisk critical", "\x1b[38;2;255;175;0mrisk medium"} {
		if !strings.Contains(view, want) {
			t.Errorf("the inbox lacks %q", want)
		}
	}
	t.Run("inbox-colour-100x30", func(t *testing.T) { golden.RequireEqual(t, []byte(view)) })
}

func TestApproveOnceFromTheBadge(t *testing.T) {
	f := newPermFake()
	c := newClock()
	tm := startModel(t, newModelAt(f, c.Now), 160, 45)
	waitOutput(t, tm, "⚠ 2 permissions: dev wants Bash(rm -rf /srv/data) — y/n")
	// p-3 is critical: one press only asks for the second.
	tm.Send(runes("y"))
	waitOutput(t, tm, "p-3 is critical: y again approves, other keys cancel (floor delete-recursive-outside)")
	if calls := f.Calls(); strings.Contains(strings.Join(calls, "\n"), "answer p-3") {
		t.Fatalf("one key approved a critical request: %q", calls)
	}
	tm.Send(runes("y"))
	waitCall(t, f, "answer p-3 approve")
	waitOutput(t, tm, "approved p-3 once: dev may Bash(rm -rf /srv/data)")
	waitOutput(t, tm, "⚠ permission: qa wants Bash(npm install left-pad) — y/n")
	// Pressed again at once: the next request is shown, not decided.
	tm.Send(runes("y"))
	waitOutput(t, tm, "the request in the badge just changed: look again — p-4: qa wants Bash(npm install left-pad)")
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "answer p-4") {
			t.Fatalf("p-4 decided by the second press: %q", f.Calls())
		}
	}
	c.Advance(shownGuard)
	tm.Send(runes("y"))
	waitCall(t, f, "answer p-4 approve")
	waitOutput(t, tm, "● 2 waiting for you") // the blocker and the question are left
}

func TestApproveAlwaysPrefixForThisAgent(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	tm.Send(runes("2"))
	tm.Send(runes("jjj")) // m-4, p-3, q-0001, p-4: oldest first
	waitOutput(t, tm, "y approve • A always • n deny • N deny+message • a answer")
	tm.Send(runes("A"))
	waitOutput(t, tm, "Approve p-4 always — qa wants Bash(npm install left-pad)")
	waitOutput(t, tm, "▶ prefix  Bash(npm install left-pad:*)")
	waitOutput(t, tm, "● qa only")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer p-4 always prefix")
	waitOutput(t, tm, "p-4 approved always: Bash(npm install left-pad:*) added to /x/permissions.yaml")
}

// planFake is the fake console that also plans approve-always as the
// engine does: plans are its answers by scope, and an approve-always
// whose plan adds no rule is approved once, with the engine's note.
type planFake struct {
	*fakeConsole
	plans map[string]permit.AlwaysPlan
}

func (p planFake) PlanAlways(id, scope string) (permit.AlwaysPlan, error) {
	p.record("plan " + id + " " + scope)
	if plan, ok := p.plans[scope]; ok {
		return plan, nil
	}
	return permit.AlwaysPlan{}, fmt.Errorf("%w: not %s", permit.ErrScope, scope)
}

func (p planFake) Answer(id, text string) error {
	if err := p.fakeConsole.Answer(id, text); err != nil {
		return err
	}
	fields := strings.Fields(text)
	if len(fields) < 2 || fields[0] != "always" || len(p.plans[fields[1]].Rules) > 0 {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range p.perms {
		if p.perms[i].ID == id {
			p.perms[i].Note = approvals.NoRuleNote + p.plans[fields[1]].Why
		}
	}
	return nil
}

// TestApproveAlwaysShowsTheConsolesPlan: the chooser shows, before
// anything is written, what the console will write at the chosen scope —
// here nothing, the policy allowing the action by now — and the status
// line says it was approved once, never "always" of nothing (red team 9a,
// finding 11).
func TestApproveAlwaysShowsTheConsolesPlan(t *testing.T) {
	f := newPermFake()
	why := "the policy allows it already (Bash(npm install left-pad:*) at /x/permissions.yaml:14)"
	p := planFake{fakeConsole: f, plans: map[string]permit.AlwaysPlan{
		"exact":  {Rules: []string{"Bash(npm install left-pad)"}},
		"prefix": {Why: why},
		"tool":   {Rules: []string{"Bash"}},
	}}
	th, _ := themes.Load("dark")
	m := New(p, style.New(th, true), Options{Keys: DefaultKeyMap(), Now: func() time.Time { return t0.Add(time.Second) }})
	tm := startModel(t, m, 160, 45)
	tm.Send(runes("8"))
	waitOutput(t, tm, "Permissions — 2 pending of 5")
	tm.Send(runes("j")) // p-3, then p-4
	tm.Send(runes("A"))
	waitOutput(t, tm, "writes nothing: "+why+"; enter approves it once")
	tm.Send(tea.KeyMsg{Type: tea.KeyUp})
	waitOutput(t, tm, "writes  Bash(npm install left-pad)")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	waitOutput(t, tm, "writes nothing: "+why)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer p-4 always prefix")
	waitOutput(t, tm, "p-4 approved once, no rule added: the policy allows it already (Bash(npm install left-pad")
}

func TestApproveAlwaysForEveryAgentAndCancel(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	tm.Send(runes("8"))
	waitOutput(t, tm, "Permissions — 2 pending of 5")
	tm.Send(runes("j")) // p-3, then p-4
	tm.Send(runes("A"))
	waitOutput(t, tm, "Approve p-4 always")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "enter/v details") // the board's help again
	tm.Send(runes("A"))
	waitOutput(t, tm, "Approve p-4 always")
	tm.Send(tea.KeyMsg{Type: tea.KeyTab})
	waitOutput(t, tm, "● every agent")
	tm.Send(tea.KeyMsg{Type: tea.KeyUp})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer p-4 always exact all")
	for _, c := range f.Calls() {
		if c == "answer p-4 always prefix" {
			t.Errorf("esc still decided: %q", f.Calls())
		}
	}
}

func TestDenyWithMessage(t *testing.T) {
	f := newPermFake()
	c := newClock()
	tm := startModel(t, newModelAt(f, c.Now), 160, 45)
	tm.Send(runes("2"))
	tm.Send(runes("j"))
	tm.Send(runes("N"))
	waitOutput(t, tm, "deny p-3 (dev wants Bash(rm -rf /srv/data)) — message to dev:")
	tm.Type("use a temp dir under the workdir")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer p-3 deny use a temp dir under the workdir")
	waitOutput(t, tm, "denied p-3 with your message to dev")
	// n denies without one.
	tm.Send(runes("n"))
	waitOutput(t, tm, "just changed: look again — p-4") // the cursor went to the question after p-3: the badge's
	c.Advance(shownGuard)
	tm.Send(runes("n"))
	waitCall(t, f, "answer p-4 deny")
	waitOutput(t, tm, "denied p-4: qa may not Bash(npm install left-pad)")
}

func TestFloorCannotBeApprovedAlways(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	// Known on the floor: said at once, nothing asked of the engine.
	tm.Send(runes("A"))
	waitOutput(t, tm, "p-3 is on the destructive floor (delete-recursive-outside): never approved always — y approves it once")
	// Typed as text, the engine refuses it; the console says why.
	tm.Send(runes("2"))
	tm.Send(runes("j"))
	tm.Send(runes("a"))
	waitOutput(t, tm, "answer p-3 (dev wants Bash(rm -rf /srv/data)): approve [note] · always exact|prefix|dir|tool [all] · deny [message]")
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlU})
	tm.Type("always prefix")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer p-3 always prefix")
	waitOutput(t, tm, "p-3 is on the destructive floor: never approved always — y approves it once")
	for _, c := range f.Calls() {
		if c == "answer p-3 always prefix all" || strings.HasPrefix(c, "answer p-3 approve") {
			t.Errorf("unexpected %q", c)
		}
	}
}

func TestAnswerPermissionPrefilled(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	tm.Send(runes("2"))
	tm.Send(runes("j"))
	tm.Send(runes("a"))
	waitOutput(t, tm, "answer p-3 (dev wants Bash(rm -rf /srv/data))")
	tm.Type("checked with the owner")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer p-3 approve checked with the owner")
	waitOutput(t, tm, "p-3: approve sent; dev has it")
}

func TestNewPermissionRingsWithoutStealingFocus(t *testing.T) {
	f := newFake()
	f.perms = permissionFixture()[3:] // decided ones only
	tm := startModel(t, newModel(f), 160, 45)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "typing into dev")
	r := approvals.Request{ID: "p-9", Agent: "architect", Source: approvals.FromRoute, Action: "Bash(git push --force origin main)", Task: "T-3",
		Rule: "floor git-force-push", Risk: "critical", Floor: []string{"git-force-push"}, Status: approvals.Pending, Created: t0}
	f.mu.Lock()
	f.perms = append([]approvals.Request{r}, f.perms...)
	f.mu.Unlock()
	it := inboxOf(r)
	f.publish(store.Record{Kind: wire.KindPermission, Subject: "permission.request.architect", Agent: "architect", From: "architect", MsgID: "p-9", Time: t0,
		Fields: map[string]string{"status": "pending", "action": r.Action, "risk": r.Risk, "rule": r.Rule}})
	f.publish(store.Record{Kind: wire.KindInbox, Subject: "human.inbox", Agent: "architect", From: "architect", Type: "permission", Task: "T-3",
		MsgID: "p-9", Body: it.Body, Time: t0, Fields: it.Extra})
	waitOutput(t, tm, "⚠ permission: architect wants Bash(git push --force origin main) — y/n")
	waitCall(t, f, "notify permission: architect wants Bash(git push --force origin main): p-9 — risk critical — floor git-force-push")
	// Still typing into dev: y is dev's, not an approval.
	tm.Send(runes("y"))
	waitCall(t, f, `keys dev "y"`)
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlCloseBracket})
	tm.Send(runes("8"))
	waitOutput(t, tm, "Permissions — 1 pending of 3")
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "answer p-9") {
			t.Errorf("decided while typing into dev: %q", c)
		}
	}
}

func TestPermissionsBoardKeysAndPalette(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	tm.Send(runes("8"))
	waitOutput(t, tm, "Permissions — 2 pending of 5")
	waitOutput(t, tm, "▶ p-3 pending")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Permission p-3 — esc for the board")
	waitOutput(t, tm, "Floor (never approved always; asked every time)")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	waitOutput(t, tm, "Permissions — 2 pending of 5")
	tm.Send(runes("j"))
	tm.Send(runes("y"))
	waitCall(t, f, "answer p-4 approve")
	waitOutput(t, tm, "Permissions — 1 pending of 5") // fetched again on the record
	// A decided one has nothing to decide.
	tm.Send(runes("G")) // not a board key: nothing happens
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	tm.Send(runes("n"))
	waitOutput(t, tm, "nothing to decide")

	tm.Send(runes(":"))
	tm.Type("/permissions architect")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Permissions — 1 pending of 5 — filter: architect")
	tm.Send(runes(":"))
	tm.Type("/permissions p-2")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "Permission p-2 — esc for the board")
	waitOutput(t, tm, "never on main")
	tm.Send(tea.KeyMsg{Type: tea.KeyEsc})
	tm.Send(runes("8")) // again: the screen (dev waits: its p-3 is pending)
	waitOutput(t, tm, "dev — developer — waiting")
}

func TestPermissionKeysRebind(t *testing.T) {
	f := newPermFake()
	k := DefaultKeyMap()
	if err := k.Rebind(map[string][]string{"approve": {"Y"}, "deny": {"X"}, "show-permissions": {"f8"}}); err != nil {
		t.Fatal(err)
	}
	th, _ := themes.Load("dark")
	tm := startModel(t, New(f, style.New(th, true), Options{Keys: k, Now: func() time.Time { return t0 }}), 160, 45)
	waitOutput(t, tm, "dev wants Bash(rm -rf /srv/data) — Y/X")
	tm.Send(runes("y")) // no longer a key
	tm.Send(tea.KeyMsg{Type: tea.KeyF8})
	waitOutput(t, tm, "Permissions — 2 pending of 5")
	tm.Send(runes("Y")) // p-3 is critical: the rebound key twice
	waitOutput(t, tm, "Y again approves, other keys cancel")
	tm.Send(runes("Y"))
	waitCall(t, f, "answer p-3 approve")
	tm.Send(runes("?"))
	waitOutput(t, tm, "f8 permissions")
}

// A request that waited past permissions.escalate_after rings again and
// says so in the status bar.
func TestEscalatedPermissionRingsAgain(t *testing.T) {
	f := newPermFake()
	notified := make(chan string, 4)
	m := newModel(f)
	m.opts.Notify = func(title, body string) { notified <- title }
	tm := startModel(t, m, 160, 45)
	waitOutput(t, tm, "⚠ 2 permissions")
	f.publish(store.Record{Time: t0, Kind: wire.KindPermission, Agent: "dev", MsgID: "p-3",
		Body:   "p-3 has waited since 09:57:00 for the human: escalated",
		Fields: map[string]string{"action": "Bash(rm -rf /srv/data)", "status": "pending", "escalated": "true"}})
	waitOutput(t, tm, "p-3 still waits for you: dev wants Bash(rm -rf /srv/data)")
	select {
	case <-notified:
	case <-time.After(10 * time.Second):
		t.Fatal("no notification for the escalation")
	}
}

// An agent's hook (or its preset's screen detector) says whether it is
// busy, idle or waiting: that wins over how recently it printed, since
// full-screen CLIs redraw while idle.
func TestAgentStateFromHook(t *testing.T) {
	f := newFake()
	f.agents[0].Hook = "idle" // dev printed just now, but its hook says idle
	f.agents[1].Hook = "waiting"
	m := newModel(f)
	rows := m.agents.Rows()
	if rows[0].State != "idle" || rows[1].State != "waiting" {
		t.Errorf("states %+v", rows)
	}
}

// At 80 columns, with the badge and the count beside it, the confirmation
// still says what to press and that other keys cancel (it used to end "y
// ag…", its reason first).
func TestCriticalConfirmationAt80Columns(t *testing.T) {
	mm, _ := newModel(newPermFake()).Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	view := ansi.Strip(press(mm.(Model), "y").View())
	bar := view[strings.LastIndex(view, "\n")+1:]
	if !strings.Contains(bar, "p-3 is critical: y again approves, other keys cancel") || !strings.Contains(bar, "waiting") {
		t.Errorf("at 80 columns the confirmation is %q", bar)
	}
}

// A critical request armed by the approve key is not approved by a later
// press once another key came between.
func TestCriticalApprovalDisarmedByAnotherKey(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	waitOutput(t, tm, "⚠ 2 permissions: dev wants Bash(rm -rf /srv/data) — y/n")
	tm.Send(runes("y"))
	waitOutput(t, tm, "y again approves, other keys cancel")
	tm.Send(runes("3")) // the activity pane: any key disarms
	waitOutput(t, tm, "not approved")
	tm.Send(runes("y"))
	waitOutput(t, tm, "y again approves, other keys cancel")
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "answer p-3") {
			t.Fatalf("approved after the confirmation was broken off: %q", f.Calls())
		}
	}
	tm.Send(runes("y"))
	waitCall(t, f, "answer p-3 approve")
}

// slideFake is a fake console whose inbox holds only the pending requests
// rs (red team 19b's fixtures).
func slideFake(rs ...approvals.Request) *fakeConsole {
	f := newFake()
	f.inbox = nil
	for _, r := range rs {
		f.perms = append(f.perms, r)
		f.inbox = append(f.inbox, inboxOf(r))
	}
	return f
}

// arrive records a new pending request r as the engine does.
func arrive(f *fakeConsole, r approvals.Request) []store.Record {
	f.mu.Lock()
	f.perms = append(f.perms, r)
	f.mu.Unlock()
	it := inboxOf(r)
	return []store.Record{
		{Kind: wire.KindPermission, Subject: "permission.request." + r.Agent, Agent: r.Agent, From: r.Agent, MsgID: r.ID, Time: r.Created,
			Fields: map[string]string{"status": "pending", "action": r.Action, "risk": r.Risk, "rule": r.Rule}},
		{Kind: wire.KindInbox, Subject: "human.inbox", Agent: r.Agent, From: r.Agent, Type: "permission", Task: r.Task,
			MsgID: r.ID, Body: it.Body, Time: r.Created, Fields: it.Extra},
	}
}

// withdraw records request id withdrawn (its dialog left the screen).
func withdraw(f *fakeConsole, id string) []store.Record {
	f.mu.Lock()
	agent := ""
	for i := range f.perms {
		if f.perms[i].ID == id {
			f.perms[i].Status, f.perms[i].Note, agent = approvals.Withdrawn, "the dialog left the screen before anyone here decided", f.perms[i].Agent
		}
	}
	f.mu.Unlock()
	return []store.Record{
		{Kind: wire.KindPermission, Subject: "permission.request." + agent, Agent: agent, From: agent, MsgID: id, Time: t0,
			Body: "the dialog left the screen before anyone here decided", Fields: map[string]string{"status": "withdrawn"}},
		{Kind: wire.KindAnswered, Subject: "human.answer." + agent, MsgID: id, Time: t0},
	}
}

// deliver hands m records as the bus would, in one batch.
func deliver(m Model, recs ...[]store.Record) Model {
	var all []store.Record
	for _, rs := range recs {
		all = append(all, rs...)
	}
	mm, _ := m.Update(recordsMsg{recs: all, sub: m.sub})
	return mm.(Model)
}

func sized(m Model) Model {
	mm, _ := m.Update(tea.WindowSizeMsg{Width: 160, Height: 45})
	return mm.(Model)
}

func answered(f *fakeConsole) []string {
	var out []string
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "answer ") {
			out = append(out, c)
		}
	}
	return out
}

// The red team's p-2, p-3 and p-4: a dialog of cc's, a2's delete of its
// cache, and a2's delete of something else, in the inbox after the fake's
// question (q-0001).
var (
	slideP2 = approvals.Request{ID: "p-2", Agent: "cc", Source: approvals.FromDialog, Action: "Edit(main.go)", Rule: "dialog", Risk: "medium",
		Status: approvals.Pending, Created: t0.Add(-50 * time.Second)}
	slideP3 = approvals.Request{ID: "p-3", Agent: "a2", Source: approvals.FromRoute, Action: "Bash(rm -rf /w/a2/cache)", Rule: "Bash(rm:*) at /x/permissions.yaml:40",
		Risk: "high", Status: approvals.Pending, Created: t0.Add(-40 * time.Second)}
	slideP4 = approvals.Request{ID: "p-4", Agent: "a2", Source: approvals.FromRoute, Action: "Bash(rm -rf /w/DANGER)", Rule: "Bash(rm:*) at /x/permissions.yaml:40",
		Risk: "high", Status: approvals.Pending, Created: t0}
)

// TestInboxSelectionFollowsTheRequest (red team 19b): the cursor is on
// p-3, the row after p-2; p-4 arrives and p-2 is withdrawn. The cursor
// stays on p-3 (now a row up) and y approves p-3, never p-4.
func TestInboxSelectionFollowsTheRequest(t *testing.T) {
	c := newClock()
	f := slideFake(slideP2, slideP3)
	m := press(sized(newModelAt(f, c.Now)), "2jj")
	if got := m.queue.Selected().ID; got != "p-3" {
		t.Fatalf("cursor on %s, want p-3", got)
	}
	c.Advance(5 * time.Second) // the human reads it
	m = deliver(m, arrive(f, slideP4), withdraw(f, "p-2"))
	if got := m.queue.Selected().ID; got != "p-3" {
		t.Fatalf("after p-2 left and p-4 came: cursor on %s, want p-3", got)
	}
	m = press(m, "y")
	if got := answered(f); len(got) != 1 || got[0] != "answer p-3 approve" {
		t.Fatalf("y on p-3 answered %q, want only p-3 approved", got)
	}
}

// TestSelectedRequestLeavingIsNotDecided: the request under the cursor is
// withdrawn and another slides under it; a decision key right after
// decides nothing and says why, until the new one has been in view for
// shownGuard.
func TestSelectedRequestLeavingIsNotDecided(t *testing.T) {
	c := newClock()
	f := slideFake(slideP2, slideP3)
	m := press(sized(newModelAt(f, c.Now)), "2jj")
	c.Advance(5 * time.Second)
	m = deliver(m, arrive(f, slideP4), withdraw(f, "p-3"))
	if got := m.queue.Selected().ID; got != "p-4" {
		t.Fatalf("after p-3 left: cursor on %s, want p-4", got)
	}
	if want := "p-3 left the inbox; the cursor is on p-4 now"; m.status != want {
		t.Errorf("status %q, want %q", m.status, want)
	}
	c.Advance(shownGuard - time.Millisecond)
	for _, k := range []string{"y", "n", "A", "N", "a", "\r"} {
		m = press(m, k)
		if got := answered(f); len(got) != 0 {
			t.Fatalf("%q right after p-4 slid under the cursor answered %q", k, got)
		}
		if m.mode != modeNormal {
			t.Fatalf("%q right after p-4 slid under the cursor opened mode %d", k, m.mode)
		}
		if want := "the request under the cursor just changed: look again — p-4: a2 wants Bash(rm -rf /w/DANGER)"; m.status != want {
			t.Fatalf("after %q: status %q, want %q", k, m.status, want)
		}
	}
	// In view for the guard time: the key decides what it shows.
	c.Advance(time.Millisecond)
	m = press(m, "n")
	if got := answered(f); len(got) != 1 || got[0] != "answer p-4 deny" {
		t.Fatalf("n after the guard time answered %q, want p-4 denied", got)
	}
}

// TestBadgeRequestWithdrawnBeforeTheKey (red team 19b): the badge shows
// cc's p-15; cc withdraws it 26ms before the human's y, and the badge now
// shows another agent's p-16. The y decides nothing; a y after the guard
// time decides p-16, the request then shown.
func TestBadgeRequestWithdrawnBeforeTheKey(t *testing.T) {
	c := newClock()
	p15 := approvals.Request{ID: "p-15", Agent: "cc", Source: approvals.FromDialog, Action: `Bash("ls build")`, Rule: "dialog", Risk: "low",
		Status: approvals.Pending, Created: t0.Add(-2 * time.Minute)}
	p16 := approvals.Request{ID: "p-16", Agent: "a2", Source: approvals.FromRoute, Action: "Bash(rm -rf /w/DANGER)", Rule: "Bash(rm:*) at /x/permissions.yaml:40",
		Risk: "high", Status: approvals.Pending, Created: t0.Add(-time.Minute)}
	f := slideFake(p15, p16)
	m := sized(newModelAt(f, c.Now))
	if v := m.View(); !strings.Contains(v, `⚠ 2 permissions: cc wants Bash("ls build") — y/n`) {
		t.Fatalf("badge not on p-15:\n%s", v)
	}
	c.Advance(10 * time.Second)
	m = deliver(m, withdraw(f, "p-15"))
	c.Advance(26 * time.Millisecond)
	m = press(m, "y")
	if got := answered(f); len(got) != 0 {
		t.Fatalf("y 26ms after p-15 left the badge answered %q", got)
	}
	if want := "the request in the badge just changed: look again — p-16: a2 wants Bash(rm -rf /w/DANGER)"; m.status != want {
		t.Errorf("status %q, want %q", m.status, want)
	}
	if v := m.View(); !strings.Contains(v, "⚠ permission: a2 wants Bash(rm -rf") {
		t.Errorf("badge not on p-16:\n%s", v)
	}
	c.Advance(shownGuard - 26*time.Millisecond)
	m = press(m, "y")
	if got := answered(f); len(got) != 1 || got[0] != "answer p-16 approve" {
		t.Fatalf("y after the guard time answered %q, want p-16 approved", got)
	}
}

// In focus mode, an agent with a permission request waiting gets none of
// the human's keys: typing on would answer the dialog it drew under them
// (red team 19b, finding 6: "1" and Enter typed as text approved a git
// push --force, recorded as withdrawn).
func TestFocusModeHoldsKeysWhileADialogWaits(t *testing.T) {
	f := newPermFake()
	tm := startModel(t, newModel(f), 160, 45)
	waitOutput(t, tm, "⚠ 2 permissions")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "keys go to dev")
	tm.Send(runes("1"))
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "dev has a permission request waiting (p-3): keys are held")
	for _, c := range f.Calls() {
		if strings.HasPrefix(c, "keys dev") {
			t.Fatalf("a key reached dev's dialog: %q", f.Calls())
		}
	}
}
