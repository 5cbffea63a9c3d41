package tui

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/internal/worktree"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/testwait"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/components/screen"
	"github.com/teamlead/teamlead/tui/style"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

// fakeScreen is a fixed terminal: numbered lines of scrollback and screen.
type fakeScreen struct{ name string }

func (f fakeScreen) ScrollbackLen() int { return 100 }

func (f fakeScreen) Render(offset, w, h int) string {
	lines := make([]string, h)
	for i := range lines {
		lines[i] = fmt.Sprintf("%s line %d", f.name, 100+i-offset)
	}
	return strings.Join(lines, "\n")
}

// fakeConsole records what the dashboard asks of the team.
type fakeConsole struct {
	mu     sync.Mutex
	agents []readmodel.AgentInfo
	inbox  []lead.InboxItem
	calls  []string
	b      *bus.Embedded
	cols   int
	rows   int
	seq    uint64
	cs     []consult.Consultation
	ts     []tasks.Task
	perms  []approvals.Request
	// failWith is what Escalate returns.
	failWith error
}

func newFake() *fakeConsole {
	return &fakeConsole{
		agents: []readmodel.AgentInfo{
			{Name: "dev", Role: "developer", State: "running", Pid: 11, LastOutput: t0},
			{Name: "architect", Role: "architect", State: "running", Pid: 12, LastOutput: t0.Add(-time.Minute)},
			{Name: "qa", Role: "qa", State: "exited", Pid: 13},
		},
		inbox: []lead.InboxItem{{ID: "m-4", From: "dev", Type: "blocker", Task: "T-9", Body: "The staging DB is down.", Since: t0.Add(-5 * time.Minute)}},
		b:     bus.NewEmbedded(nil),
		cs:    consultFixture(),
		ts:    taskFixture(),
	}
}

// consultFixture: the architect's infrastructure decision on T-1 was
// rejected (c-1) and resubmitted (c-2, pending); its design decision on
// T-3 met concerns (c-3); the developer's handoff of T-2 waits for a
// review escalated to the human (c-4).
func consultFixture() []consult.Consultation {
	return []consult.Consultation{
		{ID: "c-4", Requester: "dev", RequesterRole: "developer", Consulted: "reviewer", ConsultedRole: "review", Decision: "code-complete",
			Task: "T-2", Body: "Login form done.", Mandatory: true, Status: consult.Escalated, Created: t0.Add(-time.Hour),
			Events: []consult.Event{{Kind: consult.EventEscalated, By: "team-lead", To: "human", Body: "no verdict within 30m0s", At: t0.Add(-30 * time.Minute)}}},
		{ID: "c-3", Requester: "architect", RequesterRole: "architect", Consulted: "designer", ConsultedRole: "designer", Decision: "design-impact",
			Task: "T-3", Body: "Settings in a modal.", Mandatory: true, Status: consult.ConcernsRaised, Created: t0.Add(-90 * time.Minute),
			Verdicts: []consult.Verdict{{By: "designer", Verdict: consult.ConcernsRaised, Body: "Modals break deep links.", At: t0.Add(-80 * time.Minute)}}},
		{ID: "c-2", Requester: "architect", RequesterRole: "architect", Consulted: "sec", ConsultedRole: "security", Decision: "infrastructure",
			Task: "T-1", Body: "Private bucket, KMS keys.", Mandatory: true, Status: consult.Pending, Supersedes: "c-1",
			Created: t0.Add(-2 * time.Hour), Deadline: t0.Add(2 * time.Hour)},
		{ID: "c-1", Requester: "architect", RequesterRole: "architect", Consulted: "sec", ConsultedRole: "security", Decision: "infrastructure",
			Task: "T-1", Body: "Public bucket.", Mandatory: true, Status: consult.Superseded, Created: t0.Add(-3 * time.Hour),
			Verdicts: []consult.Verdict{{By: "sec", Verdict: consult.Rejected, Body: "No public buckets.", At: t0.Add(-150 * time.Minute)}}},
	}
}

// taskFixture: T-1 in progress, T-2 in review with its review sent back.
func taskFixture() []tasks.Task {
	return []tasks.Task{
		{ID: "T-1", State: tasks.StateInProgress, Developer: "dev", Created: t0.Add(-time.Hour), Updated: t0.Add(-time.Hour),
			History: []tasks.Transition{{To: tasks.StateInProgress, At: t0.Add(-time.Hour), By: "dev", Note: "first message"}}},
		{ID: "T-2", State: tasks.StateInReview, Developer: "dev", QA: "qa", Created: t0.Add(-2 * time.Hour), Updated: t0.Add(-10 * time.Minute), Reviews: 1,
			LastReview: &tasks.Review{Decision: tasks.Pass, Missing: []string{"evidence summary: none given (add an 'evidence:' section)"}},
			History: []tasks.Transition{{To: tasks.StateInProgress, At: t0.Add(-2 * time.Hour), By: "dev"},
				{From: tasks.StateInProgress, To: tasks.StateInReview, At: t0.Add(-30 * time.Minute), By: "dev", Note: "handoff to qa"}}},
	}
}

func (f *fakeConsole) Consultations() []consult.Consultation {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]consult.Consultation(nil), f.cs...)
}

// Diff gives dev a small diff; any other agent has no worktree.
func (f *fakeConsole) Diff(agent string) (worktree.Tree, worktree.Changes, error) {
	if agent != "dev" {
		return worktree.Tree{}, worktree.Changes{}, errors.New(agent + " does not work in a worktree of its own")
	}
	var patch strings.Builder
	patch.WriteString("diff --git a/main.go b/main.go\n--- a/main.go\n+++ b/main.go\n@@ -1,40 +1,40 @@\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&patch, "+line %d of the change\n", i)
	}
	return worktree.Tree{Branch: "teamlead/dev", Path: "/w/dev"},
		worktree.Changes{Base: "abcdef123456", Head: "feedbeef7777", Committed: worktree.Part{Files: []worktree.File{{Path: "main.go", Status: "M", Added: 40}}, Patch: patch.String()},
			Merge: worktree.Preview{Into: "main", Head: "0a0b0c0d0e0f", At: "feedbeef7777", Tree: "1234567890ab",
				Changes: worktree.Part{Files: []worktree.File{{Path: "main.go", Status: "M", Added: 40}}, Patch: patch.String()}}}, nil
}

// Merge merges dev, and records the call.
func (f *fakeConsole) Merge(agent string, p worktree.Preview) (worktree.Tree, worktree.Merged, error) {
	f.record("merge " + agent + " at " + p.At)
	return worktree.Tree{Branch: "teamlead/" + agent}, worktree.Merged{Into: "main", Commit: "0123456789abcdef", Files: 3}, nil
}

func (f *fakeConsole) Tasks() []tasks.Task {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]tasks.Task(nil), f.ts...)
}

func (f *fakeConsole) Acknowledge(id string) error {
	f.record("acknowledge " + id)
	return nil
}

// setStatus changes consultation id's status, as the engine would.
func (f *fakeConsole) setStatus(id string, s consult.Status) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.cs {
		if f.cs[i].ID == id {
			f.cs[i].Status = s
		}
	}
}

func (f *fakeConsole) record(call string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, call)
}

func (f *fakeConsole) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeConsole) Agents() []readmodel.AgentInfo { return f.agents }
func (f *fakeConsole) Screen(agent string) screen.Source {
	if agent == "qa" {
		return nil
	}
	return fakeScreen{name: agent}
}
func (f *fakeConsole) Send(agent, text string) error {
	f.record("send " + agent + " " + text)
	return nil
}
func (f *fakeConsole) Keys(agent string, b []byte) error {
	f.record(fmt.Sprintf("keys %s %q", agent, b))
	return nil
}
func (f *fakeConsole) Inbox() []lead.InboxItem {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]lead.InboxItem(nil), f.inbox...)
}
func (f *fakeConsole) Answer(id, text string) error {
	f.record("answer " + id + " " + text)
	if strings.HasPrefix(id, "p-") {
		return f.decidePermission(id, text)
	}
	if id != "m-4" && !strings.HasPrefix(id, "c-") {
		return fmt.Errorf("no such pending item %q", id)
	}
	return nil
}
func (f *fakeConsole) Questions() []questions.Question {
	return []questions.Question{
		{ID: "q-0001", Topic: "requirements.scope", Text: "Is mobile in scope?", Asker: "qa", Urgency: "blocking", Answerer: "human/requester",
			Status: questions.Pending, Created: t0.Add(-2 * time.Minute), Deadline: t0.Add(30 * time.Minute)},
		{ID: "q-0002", Topic: "architecture.db", Text: "Postgres?", Asker: "dev", Answerer: "agent/architect", Status: questions.Pending, Created: t0},
	}
}

func (f *fakeConsole) Escalate(id string) error { f.record("escalate " + id); return f.failWith }
func (f *fakeConsole) Ask(a questions.Ask) (questions.Question, error) {
	f.record("ask " + a.Asker + " " + a.Topic + " " + a.Text)
	return questions.Question{ID: "q-0009", Answerer: "agent/architect"}, nil
}
func (f *fakeConsole) Drop(id, reason string) error {
	f.record("drop " + id + " " + reason)
	if id == "q-0001" {
		return fmt.Errorf("no pending question %s", id)
	}
	return nil
}
func (f *fakeConsole) Reassign(id, answerer string) error {
	f.record("reassign " + id + " " + answerer)
	return nil
}

func (f *fakeConsole) ListQuestions(status string) ([]questions.Question, error) {
	f.record("list " + status)
	if status == "pending" || status == "all" {
		return f.Questions(), nil
	}
	return nil, nil
}

func (f *fakeConsole) Progress() []progress.State {
	wf, _ := progress.Parse([]byte(`{"version": "2.0", "workflow_id": "wf-1", "status": "in_progress", "current_step": 2, "total_steps": 3,
		"classification": {"primary_expert": "dev", "strategy": "sequential"},
		"completed_steps": [{"step": 1, "expert": "dev", "action": "design"}],
		"next_step": {"step": 2, "expert": "architect", "action": "review", "context": {"focus": "auth"}}}`))
	return []progress.State{{Agent: "dev", Path: "/x/.claude/state/progress.json", Workflow: wf, ModTime: t0}}
}

func (f *fakeConsole) Bus() bus.Bus    { return f.b }
func (f *fakeConsole) LastSeq() uint64 { return 0 }
func (f *fakeConsole) ResizeAgents(cols, rows int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.cols, f.rows = cols, rows
}

func (f *fakeConsole) publish(r store.Record) {
	f.mu.Lock()
	f.seq++
	r.Seq = f.seq
	f.mu.Unlock()
	f.b.Publish(r)
}

func newModel(f *fakeConsole) Model {
	return newModelAt(f, func() time.Time { return t0.Add(time.Second) })
}

// newModelAt is newModel on the clock now.
func newModelAt(f *fakeConsole, now func() time.Time) Model {
	th, _ := themes.Load("dark")
	return New(f, style.New(th, true), Options{Keys: DefaultKeyMap(), Now: now,
		Notify: func(title, body string) { f.record("notify " + title + ": " + body) }})
}

// clock is a test clock that moves only when told (safe to read from the
// program's goroutine).
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: t0.Add(time.Second)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// harness keeps everything the program drew: the renderer only repaints
// changed lines, so a later frame may not repeat what a test looks for.
type harness struct {
	*teatest.TestModel
	mu   sync.Mutex
	out  bytes.Buffer
	mark int // searches start here: after the previous match
}

func start(t *testing.T, f *fakeConsole) *harness {
	t.Helper()
	return startModel(t, newModel(f), 120, 36)
}

// startModel runs m in a cols x rows terminal.
func startModel(t *testing.T, m Model, cols, rows int) *harness {
	t.Helper()
	h := &harness{TestModel: teatest.NewTestModel(t, m, teatest.WithInitialTermSize(cols, rows))}
	done := make(chan struct{})
	t.Cleanup(func() { _ = h.Quit(); close(done) })
	go func() {
		buf := make([]byte, 4096)
		r := h.Output()
		for {
			select {
			case <-done:
				return
			default:
			}
			n, err := r.Read(buf)
			h.mu.Lock()
			h.out.Write(buf[:n])
			h.mu.Unlock()
			if err != nil && n == 0 {
				time.Sleep(2 * time.Millisecond) // the output reader returns EOF while idle
			}
		}
	}()
	waitOutput(t, h, "Agents (3)")
	return h
}

// waitOutput waits until want is drawn after the previous match.
func waitOutput(t *testing.T, h *harness, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		h.mu.Lock()
		all := h.out.Bytes()
		i := bytes.Index(all[h.mark:], []byte(want))
		if i >= 0 {
			h.mark += i
			h.mu.Unlock()
			return
		}
		tail := string(all[max(len(all)-2000, h.mark):])
		h.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("%q not drawn within 5s; last output:\n%s", want, tail)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitCall(t *testing.T, f *fakeConsole, want string) {
	t.Helper()
	testwait.Until(t, 5*time.Second, func() bool { return slices.Contains(f.Calls(), want) },
		func() string { return fmt.Sprintf("no call %q; calls: %q", want, f.Calls()) })
}

func TestStartShowsTeamInboxAndSizesAgents(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	waitOutput(t, tm, "2 waiting for you") // the blocker and the question for the human, not the agent's
	f.mu.Lock()
	cols, rows := f.cols, f.rows
	f.mu.Unlock()
	// 120 columns less a 30-column left column and the screen's border;
	// 36 rows less the status bar, a 7-row activity pane and the border.
	if cols != 120-30-2 || rows != 36-1-7-2 {
		t.Errorf("agents sized %dx%d", cols, rows)
	}
}

func TestSwitchAgentsAndPageScrollback(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	waitOutput(t, tm, "dev line 100")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]")})
	waitOutput(t, tm, "architect — architect — idle")
	tm.Send(tea.KeyMsg{Type: tea.KeyPgUp})
	waitOutput(t, tm, "scrolled back 25 lines")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("G")})
	waitOutput(t, tm, "architect — architect — idle ─")
}

func TestFocusModePassesKeys(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "typing into dev")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")}) // not quit: it goes to the agent
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	tm.Send(tea.KeyMsg{Type: tea.KeyUp})
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlC})
	waitCall(t, f, `keys dev "q"`)
	waitCall(t, f, `keys dev "\r"`)
	waitCall(t, f, `keys dev "\x1b[A"`)
	waitCall(t, f, `keys dev "\x03"`)
	tm.Send(tea.KeyMsg{Type: tea.KeyCtrlCloseBracket})
	waitOutput(t, tm, "tab next pane")
}

func TestAnswerFromInbox(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a")})
	waitOutput(t, tm, "answer m-4 (dev)")
	tm.Type("Restarted it.")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter, Alt: true}) // a new line, not send
	tm.Type("Try again.")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "answer m-4 Restarted it.\nTry again.")
	waitOutput(t, tm, "answered m-4; typing it into dev")
}

// In the inbox enter answers the selected item, as a does: the key help
// says so, at 160 and at 80 columns, and no longer offers "enter type into
// agent", which the inbox does not do.
func TestInboxKeyHelp(t *testing.T) {
	for _, cols := range []int{160, 80} {
		mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: cols, Height: 24})
		view := ansi.Strip(press(mm.(Model), "2").View())
		bar := view[strings.LastIndex(view, "\n")+1:]
		if !strings.Contains(bar, "a/enter answer") || strings.Contains(bar, "type into") {
			t.Errorf("at %d columns, the inbox's status bar is %q", cols, bar)
		}
	}
}

// ? shows every key with what it does, at every size people use: the key
// table flows onto more rows instead of cutting its columns (below about
// 150 columns answer, approve and quit were cut off), and the help fits
// the window, its title first.
func TestHelpShowsEveryKey(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {120, 40}, {160, 45}} {
		mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m := press(mm.(Model), "?")
		view := ansi.Strip(m.View())
		lines := strings.Split(view, "\n")
		if len(lines) > size[1] || !strings.Contains(strings.Join(lines[:3], "\n"), "teamlead — keys") {
			t.Errorf("at %dx%d the help is %d lines, its title not on top:\n%s", size[0], size[1], len(lines), view)
		}
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > size[0] {
				t.Errorf("at %dx%d line %d is %d wide", size[0], size[1], i+1, w)
			}
		}
		for _, group := range m.keys.FullHelp() {
			for _, b := range group {
				re := regexp.MustCompile(`(^|\s)` + regexp.QuoteMeta(b.Help().Key) + ` +` + regexp.QuoteMeta(b.Help().Desc) + `( |$)`)
				if !re.MatchString(view) {
					t.Errorf("at %dx%d the help does not show %q %s:\n%s", size[0], size[1], b.Help().Key, b.Help().Desc, view)
				}
			}
		}
	}
}

// The help tells what the README tells: one key never approves a
// critical request.
func TestHelpSaysACriticalRequestTakesTwo(t *testing.T) {
	mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: 160, Height: 45})
	view := strings.Join(strings.Fields(ansi.Strip(press(mm.(Model), "?").View())), " ")
	if want := "y approve once (y twice for a critical request)"; !strings.Contains(view, want) {
		t.Errorf("the help lacks %q:\n%s", want, view)
	}
}

// Issue 12 item 7: an item that cannot be delivered (its asker exited)
// can be dropped from the keyboard.
func TestDropFromInbox(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("D")})
	waitCall(t, f, "drop m-4 dropped in the console")
	waitOutput(t, tm, "dropped m-4; nothing was sent")
}

func TestNewInboxItemNotifiesAndAnsweredLeaves(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	f.publish(store.Record{Kind: wire.KindInbox, Subject: "human.inbox", From: "architect", Type: "blocker", Task: "T-3", MsgID: "m-7", Body: "Cookies or localStorage?", Time: t0})
	waitOutput(t, tm, "3 waiting for you")
	waitCall(t, f, "notify blocker from architect: Cookies or localStorage?")
	f.publish(store.Record{Kind: wire.KindAnswered, Subject: "human.answer.dev", MsgID: "m-4", Time: t0})
	waitOutput(t, tm, "2 waiting for you")
	// A question escalated to a person arrives; answered, it leaves.
	f.publish(store.Record{Kind: "question-queue", Subject: "human.questions", From: "dev", Type: "question", MsgID: "q-0003", Body: "Postgres?",
		Time: t0, Fields: map[string]string{"topic": "architecture.db", "urgency": "high", "answerer": "team/architecture"}})
	waitOutput(t, tm, "3 waiting for you")
	f.publish(store.Record{Kind: "question-answer", Subject: "question.answer.q-0003", MsgID: "q-0003", Time: t0})
	waitOutput(t, tm, "2 waiting for you")
	// Dropped from another terminal (teamlead drop), it leaves too (red
	// team 22b, finding 4).
	f.publish(store.Record{Kind: wire.KindDropped, Subject: "human.drop.architect", From: "human", MsgID: "m-7", Time: t0})
	waitOutput(t, tm, "1 waiting for you")
}

func TestPaletteSendAndActions(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":")})
	waitOutput(t, tm, "Commands")
	tm.Type("/send qa run the smoke tests")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "send qa run the smoke tests")
	waitOutput(t, tm, "sent to qa")
	// An action chosen by name does what its key does.
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":")})
	tm.Type("show-activ")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("/")})
	waitOutput(t, tm, "filter activity:")
}

func TestQuitAsksFirst(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("q")})
	waitOutput(t, tm, "quit and stop every agent? y/N")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")})
	tm.TestModel.WaitFinished(t, teatest.WithFinalTimeout(5*time.Second))
}

func TestRebind(t *testing.T) {
	k := DefaultKeyMap()
	if err := k.Rebind(map[string][]string{"quit": {"ctrl+q"}, "help": {"f1"}}); err != nil {
		t.Fatal(err)
	}
	if k.Quit.Keys()[0] != "ctrl+q" || k.Help.Keys()[0] != "f1" {
		t.Errorf("rebind: %v %v", k.Quit.Keys(), k.Help.Keys())
	}
	if err := k.Rebind(map[string][]string{"explode": {"x"}}); err == nil || !strings.Contains(err.Error(), `unknown action "explode"`) {
		t.Errorf("unknown action: %v", err)
	}
	if err := k.Rebind(map[string][]string{"quit": {"ctrl+banana"}}); err == nil || !strings.Contains(err.Error(), "is not a key") {
		t.Errorf("bad key: %v", err)
	}
}

func TestKeyBytes(t *testing.T) {
	cases := []struct {
		k    tea.KeyMsg
		want string
	}{
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("héllo")}, "héllo"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x"), Alt: true}, "\x1bx"},
		{tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("a\nb"), Paste: true}, "\x1b[200~a\nb\x1b[201~"},
		{tea.KeyMsg{Type: tea.KeyEnter}, "\r"},
		{tea.KeyMsg{Type: tea.KeyTab}, "\t"},
		{tea.KeyMsg{Type: tea.KeyBackspace}, "\x7f"},
		{tea.KeyMsg{Type: tea.KeyEsc}, "\x1b"},
		{tea.KeyMsg{Type: tea.KeyCtrlA}, "\x01"},
		{tea.KeyMsg{Type: tea.KeyLeft}, "\x1b[D"},
		{tea.KeyMsg{Type: tea.KeyShiftTab}, "\x1b[Z"},
		{tea.KeyMsg{Type: tea.KeyF5}, "\x1b[15~"},
		{tea.KeyMsg{Type: tea.KeySpace}, " "},
	}
	for _, c := range cases {
		if got := string(KeyBytes(c.k)); got != c.want {
			t.Errorf("KeyBytes(%v) = %q, want %q", c.k, got, c.want)
		}
	}
}

func TestKeysTypedTogetherActSeparately(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("]]")}) // two presses in one read
	waitOutput(t, tm, "qa — qa — exited")
}

func TestFocusModeKeepsKeyOrder(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitOutput(t, tm, "typing into dev")
	const text = "the quick brown fox jumps over the lazy dog"
	for _, r := range text {
		tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	want := ""
	for _, r := range text {
		want += fmt.Sprintf("keys dev %q\n", string(r))
	}
	got := ""
	testwait.Until(t, 5*time.Second, func() bool {
		got = ""
		for _, c := range f.Calls() {
			if strings.HasPrefix(c, "keys dev") {
				got += c + "\n"
			}
		}
		return got == want
	}, func() string { return fmt.Sprintf("keys reached the agent as\n%s\nwant\n%s", got, want) })
}

func TestEscalateAndReassignQuestion(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	tm.Send(tea.KeyMsg{Type: tea.KeyDown}) // the blocker m-4 is first (oldest), then q-0001
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("e")})
	waitCall(t, f, "escalate q-0001")
	// Where it went, in the words the CLI uses (questions.Escalated).
	waitOutput(t, tm, "escalated q-0001; it now waits for")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":")})
	tm.Type("/reassign q-0001 team/product")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "reassign q-0001 team/product")
}

func TestPaletteAsk(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":")})
	tm.Type("/ask architecture.db Postgres or SQLite?")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "ask human architecture.db Postgres or SQLite?")
	waitOutput(t, tm, "q-0009 routed to agent/architect")
}

func TestQuestionsView(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("4")})
	waitCall(t, f, "list pending")
	// Every pending question, the agent's too, with its answerer.
	waitOutput(t, tm, "Questions — pending (2)")
	waitOutput(t, tm, "q-0002") // the architect's question, not the human's, is listed too
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":")})
	tm.Type("/questions answered")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	waitCall(t, f, "list answered")
	waitOutput(t, tm, "Questions — answered (0)")
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	waitOutput(t, tm, "Inbox (2)")
}

func TestWorkflowView(t *testing.T) {
	f := newFake()
	tm := start(t, f)
	tm.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("5")})
	waitOutput(t, tm, "workflow of dev")
	waitOutput(t, tm, "next: 2. architect: review")
	f.publish(store.Record{Kind: "stalled", Subject: "progress.stalled.dev", Agent: "dev", Body: "workflow wf-1 has not moved for 10m0s", Time: t0})
	waitCall(t, f, "notify stalled from dev: workflow wf-1 has not moved for 10m0s")
}

// TestOldStatusGivesWayToHelp: a status message is cleared once it has
// been shown for its time (an error for longer), so the key help comes
// back; an armed critical approval keeps its prompt.
func TestOldStatusGivesWayToHelp(t *testing.T) {
	now := t0
	th, _ := themes.Load("dark")
	m := New(newFake(), style.New(th, true), Options{Keys: DefaultKeyMap(), Now: func() time.Time { return now }})
	tick := func() {
		mm, _ := m.Update(tickMsg(now))
		m = mm.(Model)
	}
	m.status, m.statusE = "sent to dev", false
	tick()
	now = now.Add(statusFor - time.Second)
	tick()
	if m.status == "" {
		t.Fatal("the message went before its time")
	}
	now = now.Add(2 * time.Second)
	tick()
	if m.status != "" {
		t.Fatalf("status %q still shown after %v", m.status, statusFor+time.Second)
	}
	m.status, m.statusE = "dev could not start", true
	tick()
	now = now.Add(statusFor + time.Second)
	tick()
	if m.status == "" {
		t.Fatal("an error went as soon as a message")
	}
	now = now.Add(statusErrorFor)
	tick()
	if m.status != "" {
		t.Fatalf("error %q still shown after %v", m.status, statusErrorFor+statusFor)
	}
	// A key dismisses a message read long enough, not a fresh one.
	m.status, m.statusE = "sent to dev", false
	tick()
	press := func() {
		mm, _ := m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("x")})
		m = mm.(Model)
	}
	press()
	if m.status == "" {
		t.Fatal("a key dismissed a message shown for no time")
	}
	now = now.Add(statusRead)
	press()
	if m.status != "" {
		t.Fatalf("a key left %q, shown for %v", m.status, statusRead)
	}
	m.status, m.armed, m.armedAt = "p-1 is critical: y again approves, other keys cancel", "p-1", now
	tick()
	now = now.Add(confirmCritical)
	tick()
	if m.status != "p-1 is critical: y again approves, other keys cancel" {
		t.Fatalf("an armed approval lost its prompt: %q", m.status)
	}
	// Once the second press would no longer approve, the prompt does not
	// say it would.
	now = now.Add(time.Second)
	tick()
	if m.armed != "" || m.status != "p-1 not approved: y twice within 10s approves it" {
		t.Fatalf("the confirmation lapsed, and the status says %q (armed %q)", m.status, m.armed)
	}
}

// TestActivityFilterPromptAndEsc: the filter prompt takes the status bar's
// line (the Activity pane keeps its border), and esc in the pane clears
// the filter its title shows.
func TestActivityFilterPromptAndEsc(t *testing.T) {
	mm, _ := newModel(newFake()).Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m := mm.(Model)
	send := func(msg tea.Msg) {
		mm, cmd := m.Update(msg)
		m = mm.(Model)
		for cmd != nil {
			out := cmd()
			if _, ok := out.(filterMsg); !ok {
				break
			}
			mm, cmd = m.Update(out)
			m = mm.(Model)
		}
	}
	send(runes("3"))
	send(runes("/"))
	send(runes("deliv"))
	lines := strings.Split(m.View(), "\n")
	if n := len(lines); n != 30 || !strings.HasPrefix(strings.TrimSpace(lines[n-2]), "╰") || !strings.Contains(lines[n-1], "filter activity: deliv") {
		t.Fatalf("the prompt is not on the last line, below the pane's border:\n%s", strings.Join(lines[max(n-3, 0):], "\n"))
	}
	send(tea.KeyMsg{Type: tea.KeyEnter})
	if m.activity.Filter() != "deliv" {
		t.Fatalf("filter = %q", m.activity.Filter())
	}
	send(tea.KeyMsg{Type: tea.KeyEsc})
	if f := m.activity.Filter(); f != "" {
		t.Fatalf("esc left the filter %q", f)
	}
}
