// Package engine runs a team: it starts the agents over PTYs, parses their
// output, feeds the Team Lead state machine from one goroutine, commits
// every batch of its output to the store before anything is typed or
// acknowledged, types the deliveries, and publishes what happened on the bus.
package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teamlead/teamlead/internal/worktree"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/guard"
	"github.com/teamlead/teamlead/internal/launch"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/progresswatch"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/querywatch"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/textsafe"
)

// ErrStopped is returned by requests made after the engine stopped.
var ErrStopped = errors.New("engine stopped")

// maxBatch bounds how many inputs go into one store transaction; batching
// is what makes synced (power-loss durable) writes affordable.
const maxBatch = 512

// Options configure an engine.
type Options struct {
	// Remote links the console with its nodes, which run the agents
	// whose host: names one (remote.go); nil when there are none.
	Remote Remote
	// Team is the loaded team file.
	Team *config.Team
	// Store is the open store (the engine is its only writer).
	Store *store.Store
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Backoff is the base restart backoff (default from the agents package).
	Backoff time.Duration
	// Grace is the SIGTERM→SIGKILL grace period when stopping agents.
	Grace time.Duration
	// Socket is the control socket's path, given to agents as TEAMLEAD_SOCKET
	// so that `teamlead ask` run from an agent's shell reaches this console.
	Socket string
	// Fresh starts every agent on a new conversation instead of resuming
	// its last one (teamlead run --fresh).
	Fresh bool
	// Protect names what agents may read but never change (agents.Spec's
	// Protect): the state folder, the consoles' registry, teamlead's own
	// files and executable. Only a sandbox enforces it; the file guard
	// watches the files either way.
	Protect []string
	// Guarded, when set, reports whether a console's file guard checks the
	// protected file at path by its hash (agents.Spec's Guarded).
	Guarded func(path string) bool
	// OnError is told about trouble the engine survives, such as a store
	// write that failed and is being retried (a full disk).
	OnError func(error)
	// OwnWrite, when set, makes the engine's change of one of teamlead's
	// own files (path) on the human's word — change turns its accepted
	// content into the new one — so that the file guard takes it for the
	// human's (guard.Guard.Write); it returns the content written.
	OwnWrite func(path string, change func(current []byte) ([]byte, error)) ([]byte, error)
	// History is the folder the agents' screens are saved in, and read
	// back from at the next start ("": not kept).
	History string
	// MCP is the folder of the MCP configuration files the console writes
	// for the agents' CLIs ("": no teamlead tools).
	MCP string
}

// Engine is a running team.
type Engine struct {
	opts     Options
	problems []string // the team's configuration problems, recorded as warnings at start
	store    *store.Store
	bus      bus.Bus
	lead     *lead.Lead
	// sinks holds each agent's sink, and through it the agent once started
	// (see agent). The map itself is filled before any process starts and
	// never changes after, so any goroutine may read it.
	sinks map[string]*sink

	// moreProtect is what other consoles asked every sandbox to protect
	// since this one started (ProtectMore).
	moreMu      sync.Mutex
	moreProtect []string
	// startMu is held by Start while it fills sinks and starts each agent,
	// and by ProtectMore while it takes the agents to ask: a protect that
	// arrives while the console starts (its socket serves protect before
	// its agents start) reaches each agent in its spec or through its
	// ProtectMore, and the map is not read while it is filled.
	startMu sync.Mutex
	// linked are the protected files whose second name the human was
	// warned of (sink.Guarded): once each, not once per agent.
	linkedMu sync.Mutex
	linked   map[string]bool
	// spent is what each task cost so far (taskspend.go).
	spent  taskSpend
	roles  map[string]string
	prices map[string]config.Price // each agent's price (config.Agent.Price)
	order  []string
	in     chan input
	quit   chan struct{}
	done   chan struct{}
	now    func() time.Time
	errMu  sync.Mutex
	err    error
	// watcher watches the progress files.
	watcher *progresswatch.Watcher
	// queries watches the query files; files carries their changes to the
	// writer goroutine.
	// perm holds the permission policy and the hooks waiting on it.
	perm      *permissions
	queries   *querywatch.Watcher
	files     chan lead.FileOp
	filesDone chan struct{}
	// blocked names the agents waiting on a blocking question (rebuilt on
	// the loop goroutine when questions change, read by Agents).
	blocked atomic.Pointer[map[string]bool]
	// launch prepares the agents' starts: command, environment, primer,
	// hooks and MCP files (shared with nodes).
	launch *launch.Launcher
	// stopping is set (on the loop goroutine) once shutdown began: new
	// deliveries stay in the outbox for the next run instead of being typed.
	stopping bool
	// floods is each sending agent's flood control (loop goroutine only).
	floods map[string]*flood
}

type inputKind int

const (
	inBlock inputKind = iota + 1
	inState
	inDelivered
	inUndeliverable
	inCall
	inTick     // a question's deadline passed
	inProgress // a progress file changed
	inStalled  // a workflow has not moved for too long
	inQuery    // a query file appeared or changed
	inDialog   // a permission dialog appeared on an agent's screen
	inDialogGone
	inKeyUnread // a dialog key the CLI did not read was taken back (reason: the request)
	inReleased  // a block that waited for its agent's relay rate
	inFloodOver // an agent's held blocks were all taken
)

type input struct {
	kind     inputKind
	agent    string
	block    protocol.Event
	state    agents.StateEvent
	delivery store.Delivery
	reason   string
	call     func(now time.Time) (lead.Output, error) // inCall: runs on the loop goroutine
	progress progress.State                           // inProgress, inStalled
	query    lead.QueryFile                           // inQuery
	keys     approvals.Keys                           // inDialog: the dialog's keys (reason: the action)
	n        int                                      // inFloodOver: how many blocks waited
	waited   time.Duration                            // inFloodOver: how long the flood lasted
	reply    chan error
}

// New prepares an engine for opts.Team; Start runs it.
func New(opts Options) (*Engine, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	next := uint64(1)
	if v, ok, err := opts.Store.Meta(lead.MetaNextMsg); err != nil {
		return nil, err
	} else if ok {
		if n, perr := strconv.ParseUint(v, 10, 64); perr == nil {
			next = n
		}
	}
	inbox, err := restoreInbox(opts.Store)
	if err != nil {
		return nil, err
	}
	qm, err := newQuestions(opts.Team, opts.Store)
	if err != nil {
		return nil, err
	}
	cfg := lead.Config{Delegate: opts.Team.Lead.Delegate, NextMsg: next, Inbox: inbox, Questions: qm}
	var cm []consult.Member
	e := &Engine{opts: opts, store: opts.Store, bus: bus.NewEmbedded(opts.Store),
		sinks: map[string]*sink{}, floods: map[string]*flood{}, roles: map[string]string{}, prices: map[string]config.Price{}, in: make(chan input, 4096), quit: make(chan struct{}), done: make(chan struct{}), now: opts.Now}
	e.launch = &launch.Launcher{Team: opts.Team, Socket: opts.Socket, MCP: opts.MCP, Warn: e.Warn, OnError: opts.OnError}
	for _, a := range opts.Team.Agents {
		cfg.Members = append(cfg.Members, lead.Member{Name: a.Name, Role: a.Role})
		cm = append(cm, consult.Member{Name: a.Name, Role: a.Role})
		e.roles[a.Name] = a.Role
		e.prices[a.Name] = a.Price
		e.order = append(e.order, a.Name)
	}
	if err := readmodel.EnsureConsultIndex(opts.Store); err != nil {
		return nil, fmt.Errorf("indexing the consultations: %w", err)
	}
	restored, err := readmodel.StoredConsultations(opts.Store)
	if err != nil {
		return nil, err
	}
	cfg.Consults = consult.New(opts.Team.Consultations.Parsed, cm, restored...)
	storedTasks, err := readmodel.StoredTasks(opts.Store)
	if err != nil {
		return nil, err
	}
	cfg.Tasks = tasks.Restore(storedTasks)
	if e.spent.byTask, err = readmodel.StoredTaskSpend(opts.Store); err != nil {
		return nil, err
	}
	if cfg.Approvals, err = e.newApprovals(); err != nil {
		return nil, err
	}
	cfg.PermissionNotify = opts.Team.Permissions.Notify
	for _, p := range cfg.Consults.Problems() {
		e.problems = append(e.problems, "consultations: "+p)
	}
	e.lead = lead.New(cfg)
	return e, nil
}

// agent returns the named agent, or nil when there is none or it has not
// been started yet. Safe from any goroutine.
func (e *Engine) agent(name string) runner {
	if s := e.sinks[name]; s != nil {
		return s.runner()
	}
	return nil
}

// Bus returns the engine's event bus.
func (e *Engine) Bus() bus.Bus { return e.bus }

// Store returns the engine's store.
func (e *Engine) Store() *store.Store { return e.store }

// Start redelivers what the last run accepted but did not deliver, starts
// the agents, and runs the loop until ctx ends; then it stops every agent.
func (e *Engine) Start(ctx context.Context) error {
	pending, err := e.store.Outbox()
	if err != nil {
		return fmt.Errorf("reading the outbox: %w", err)
	}
	// Every sink exists before the first process starts: a program's
	// first output (a cursor position query, say) is answered on the
	// emulator's goroutine while later agents are still being started.
	seen, err := readmodel.StoredUsageSeen(e.store)
	if err != nil {
		return fmt.Errorf("reading the agents' usage: %w", err)
	}
	e.startMu.Lock()
	for _, a := range e.opts.Team.Agents {
		s := newSink(e, a)
		// A conversation resumed is read from its start again: what the
		// last run recorded of it is not this run's.
		s.spend.priorPath, s.spend.prior = seen[a.Name].Path, seen[a.Name].Tokens
		e.sinks[a.Name] = s
	}
	e.startMu.Unlock()
	if err := e.loadSessions(); err != nil {
		return fmt.Errorf("reading the agents' conversations: %w", err)
	}
	e.watchWorktrees()
	// The progress files are read before any agent starts: what is found
	// then is the last run's (offered for resumption), and what an agent
	// writes from its first moment is this run's (handed over). Read after
	// the agents had started, a file the first agent wrote as the others
	// were still starting was taken for the last run's, and its next step
	// never handed over.
	if err := e.watchProgress(); err != nil && e.opts.OnError != nil {
		e.opts.OnError(fmt.Errorf("watching progress files: %w", err))
	}
	go e.watchHome(newHomeLook(guard.StartupMissing(), guard.HomeTold()))
	go e.watchBudgets()
	if e.opts.History != "" {
		go e.saveHistory()
	}
	for _, a := range e.opts.Team.Agents {
		if a.Branch != "" {
			go e.record(store.Record{Kind: wire.KindWorktree, Subject: "agent." + a.Name + ".worktree", Agent: a.Name, From: "team-lead",
				Body:   "works in " + a.Dir + " on branch " + a.Branch + " (from " + a.Repo + ")",
				Fields: map[string]string{"branch": a.Branch, "dir": a.Dir, "repo": a.Repo}}, nil, nil)
		}
		s := e.sinks[a.Name]
		if a.Host != "" {
			s.started(newRemoteAgent(e, a.Name, a.Host)) // its node starts it, with its primer and hooks
			if s.watches() {
				go s.scanLoop()
			}
			continue
		}
		e.launch.Prepare(a)
		e.startMu.Lock()
		s.started(agents.Start(e.spec(a, s), s))
		e.startMu.Unlock()
		if s.watches() {
			go s.scanLoop()
		}
	}
	// Each agent types one message at a time and the next only once the
	// last is recorded delivered, so of an agent's pending deliveries only
	// the first message typed may have been read before the last run
	// ended: its first delivery, or, when that is a notice, the notices
	// after it that were typed with it (agents.MaxMergedNotices at most).
	// Those are typed again (at most one duplicate per agent per crash),
	// except relay acknowledgements: an acknowledgement is never sent
	// twice, so one that may have been read is recorded as not repeated.
	heads := map[string]*headRun{}
	for _, d := range pending {
		h := heads[d.Agent]
		if h == nil {
			h = &headRun{open: true, withNext: e.opts.Team.Resolved[d.Agent].Acks == config.AcksWithNext}
			heads[d.Agent] = h
		}
		if h.mayHaveBeenRead(d) && d.Kind == lead.DeliverAck {
			go e.send(input{kind: inUndeliverable, delivery: d, reason: "not repeated: it may have been read before the console stopped, and an acknowledgement is never sent twice"})
			continue
		}
		e.lead.Typing(d.Agent, d.Text)
		e.dispatch(d)
	}
	e.updateBlocked()
	if afterAgentsStart != nil {
		afterAgentsStart()
	}
	if err := e.watchQueries(); err != nil && e.opts.OnError != nil {
		e.opts.OnError(fmt.Errorf("watching query files: %w", err))
	}
	go e.loop(ctx)
	return nil
}

// afterAgentsStart, when set (by tests), runs in Start once every agent
// has been started.
var afterAgentsStart func()

// Done is closed when the engine has stopped and every agent is gone.
func (e *Engine) Done() <-chan struct{} { return e.done }

// Err reports the error that stopped the engine, if any.
func (e *Engine) Err() error {
	e.errMu.Lock()
	defer e.errMu.Unlock()
	return e.err
}

func (e *Engine) spec(a config.Agent, s *sink) agents.Spec {
	p := e.opts.Team.Resolved[a.Name]
	env, command := e.launch.Env(a), e.launch.Command(a)
	return agents.Spec{
		Name: a.Name, Command: command, Dir: a.Dir, Env: env,
		Cols: uint16(a.Cols), Rows: uint16(a.Rows),
		Restart: agents.RestartPolicy(a.Restart), Grace: e.opts.Grace, Backoff: e.opts.Backoff,
		Preset: agents.Preset{Name: a.Preset, Submit: p.Submit, Newline: p.Newline, SubmitDelay: p.SubmitDelay,
			LineDelay: p.LineDelay, Paste: agents.PasteMode(p.Paste), ReadyTimeout: p.ReadyTimeout, Parse: a.Parse,
			SubmitRetries: p.SubmitRetries, AcksWithNext: p.Acks == config.AcksWithNext},
		Isolation:   agents.Isolation(a.Isolation),
		Protect:     append(e.protected(), e.agentPrograms()...),
		Guarded:     e.opts.Guarded,
		Others:      append(e.othersProgress(a.Name), e.othersFolders(a.Name)...),
		Hide:        append(e.othersQueries(a.Name), e.othersConversations(a.Name)...),
		Binds:       binds(a.Confined),
		StartArgs:   func() []string { return e.startArgs(a.Name) },
		SubmitCheck: s.submitPending,
		DialogShown: s.dialogShown,
		OnRetype: func(text string) {
			// Typed again into the next process, it is echoed again: the
			// echo of the first process may already have used its
			// fingerprint up.
			_ = e.do(func(time.Time) (lead.Output, error) { e.lead.Typing(a.Name, text); return lead.Output{}, nil })
		},
		OnResubmit: func(text string, presses int, taken bool) {
			e.resubmitted(a.Name, text, presses, taken)
		},
	}
}

// binds are a worktree agent's confining binds, for its sandbox.
func binds(c []worktree.Bind) []agents.Bind {
	var out []agents.Bind
	for _, b := range c {
		out = append(out, agents.Bind{Path: b.Path, From: b.From, Writable: b.Writable})
	}
	return out
}

func (e *Engine) send(in input) bool {
	select {
	case e.in <- in:
		return true
	case <-e.quit:
		return false
	}
}

func (e *Engine) loop(ctx context.Context) {
	defer close(e.done)
	batch := make([]input, 0, maxBatch)
	deadline := time.NewTimer(time.Hour)
	defer deadline.Stop()
	release := time.NewTimer(time.Hour)
	defer release.Stop()
	sweep := time.NewTicker(sweepEvery)
	defer sweep.Stop()
	stalls := time.NewTicker(max(e.opts.Team.Progress.Stall/4, time.Second))
	defer stalls.Stop()
	e.sweep()
	for {
		e.armDeadline(deadline)
		e.armRelease(release)
		select {
		case <-ctx.Done():
			e.shutdown()
			return
		case <-release.C:
			if err := e.release(); err != nil {
				e.fail(err)
				e.shutdown()
				return
			}
		case <-sweep.C:
			e.sweep()
		case <-stalls.C:
			e.checkStalls()
		case <-deadline.C:
			if err := e.step([]input{{kind: inTick}}); err != nil {
				e.fail(err)
				e.shutdown()
				return
			}
		case in := <-e.in:
			batch = append(batch[:0], in)
		drain:
			for len(batch) < maxBatch {
				select {
				case more := <-e.in:
					batch = append(batch, more)
				default:
					break drain
				}
			}
			if err := e.step(batch); err != nil {
				e.fail(err)
				e.shutdown()
				return
			}
		}
	}
}

func (e *Engine) fail(err error) {
	e.errMu.Lock()
	defer e.errMu.Unlock()
	if e.err == nil {
		e.err = err
	}
}

// step runs a batch of inputs through the lead, commits everything they
// produced in one transaction, and only then types and publishes.
func (e *Engine) step(batch []input) error {
	var b store.Batch
	var notes []questions.Notification
	var tools []questions.ToolTask
	var files []lead.FileOp
	var keys []lead.KeyPress
	var resolved []approvals.Request
	var replies []chan error
	var replyErrs []error
	for _, in := range batch {
		now := e.now()
		var out lead.Output
		switch in.kind {
		case inBlock:
			// The echo of what the console typed is not the agent's own
			// message and costs it no token.
			if !e.lead.IsEcho(in.agent, in.block) {
				if held, first := e.hold(in, now); held {
					if first {
						out = e.lead.Flood(in.agent, e.opts.Team.Lead.RelayRate, max(e.opts.Team.Lead.RelayBurst, 1), now)
					}
					break
				}
			}
			out = e.lead.Block(in.agent, in.block, now)
		case inReleased:
			out = e.lead.Block(in.agent, in.block, now)
		case inFloodOver:
			out = e.lead.FloodOver(in.agent, in.n, in.waited, now)
		case inState:
			out = e.lead.AgentState(in.agent, in.state.State, stateFields(in.state), now)
			if in.state.State == wire.StateRunning {
				go e.typePrimer(in.agent) // a new process: a message-mode agent is taught again
			}
		case inDelivered:
			out = e.lead.Delivered(in.delivery, now)
			b.Dequeue = append(b.Dequeue, in.delivery.ID)
			if in.reply != nil {
				replies = append(replies, in.reply)
				replyErrs = append(replyErrs, nil)
			}
		case inUndeliverable:
			if e.stopping {
				continue // the agent was stopped with us: redeliver on the next start
			}
			out = e.lead.Undeliverable(in.delivery, in.reason, now)
			b.Dequeue = append(b.Dequeue, in.delivery.ID)
		case inTick:
			out = e.lead.Tick(now)
		case inProgress:
			out = e.lead.Progress(in.progress, now)
		case inStalled:
			out = e.lead.Stalled(in.progress, e.opts.Team.Progress.Stall, now)
		case inQuery:
			out = e.lead.Query(in.query, now)
		case inDialog:
			out = e.lead.PermissionDialog(in.agent, in.reason, in.keys, now)
		case inDialogGone:
			out = e.lead.DialogGone(in.agent, now)
		case inKeyUnread:
			out = e.lead.KeyUnread(in.reason, in.n == keyOpen, in.n == keyNotTyped, now)
		case inCall:
			if e.stopping {
				in.reply <- ErrStopped
				continue
			}
			var err error
			out, err = in.call(now)
			replies = append(replies, in.reply)
			replyErrs = append(replyErrs, err)
		}
		b.Records = append(b.Records, out.Records...)
		b.Enqueue = append(b.Enqueue, out.Deliveries...)
		b.MetaDel = append(b.MetaDel, out.MetaDel...)
		notes = append(notes, out.Notify...)
		tools = append(tools, out.Tools...)
		files = append(files, out.Files...)
		keys = append(keys, out.Keys...)
		resolved = append(resolved, out.Resolved...)
		for k, v := range out.Meta {
			if b.Meta == nil {
				b.Meta = map[string]string{}
			}
			b.Meta[k] = v
		}
	}
	var err error
	if len(b.Records) > 0 || len(b.Enqueue) > 0 || len(b.Dequeue) > 0 || len(b.Meta) > 0 || len(b.MetaDel) > 0 {
		err = e.commit(&b)
	}
	for i, r := range replies {
		if err != nil {
			r <- err
		} else {
			r <- replyErrs[i]
		}
	}
	if err != nil {
		return fmt.Errorf("writing to the store: %w", err)
	}
	if !e.stopping {
		for _, d := range b.Enqueue {
			e.dispatch(d)
		}
	}
	e.bus.Publish(b.Records...)
	if !e.stopping {
		e.afterCommit(notes, tools)
	}
	for _, f := range files {
		if e.files != nil {
			e.files <- f
		}
	}
	e.afterPermissions(keys, resolved)
	if questionsChanged(b.Meta) {
		e.updateBlocked()
	}
	return nil
}

func questionsChanged(meta map[string]string) bool {
	for k := range meta {
		if strings.HasPrefix(k, "q/") {
			return true
		}
	}
	return false
}

// updateBlocked notes which agents wait on a blocking question.
func (e *Engine) updateBlocked() {
	blocking := map[string]bool{}
	for _, u := range e.opts.Team.Questions.BlockOn {
		blocking[u] = true
	}
	m := map[string]bool{}
	for _, q := range e.lead.Questions() {
		if blocking[q.Urgency] {
			m[q.Asker] = true
		}
	}
	e.blocked.Store(&m)
}

// sweep removes expired questions, reporting trouble without stopping.
func (e *Engine) sweep() {
	b, err := e.expireQuestions(e.now())
	if err == nil && len(b.MetaDel) > 0 {
		err = e.commit(&b)
		e.bus.Publish(b.Records...)
	}
	if err != nil && e.opts.OnError != nil {
		e.opts.OnError(fmt.Errorf("expiring old questions: %w", err))
	}
}

// armRelease sets t to fire when a held block may be taken (or in an
// hour, when none waits).
func (e *Engine) armRelease(t *time.Timer) {
	wait, ok := e.nextRelease(e.now())
	if !ok {
		wait = time.Hour
	}
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(max(wait, 0))
}

// release runs the held blocks whose turn came, and notes the floods that
// ended, as one batch.
func (e *Engine) release() error {
	batch, over := e.released(e.now())
	batch = append(batch, over...)
	if len(batch) == 0 {
		return nil
	}
	for len(batch) > 0 {
		n := min(len(batch), maxBatch)
		if err := e.step(batch[:n]); err != nil {
			return err
		}
		batch = batch[n:]
	}
	return nil
}

// armDeadline sets t to fire at the next question deadline (or in an hour,
// to look again).
func (e *Engine) armDeadline(t *time.Timer) {
	wait := time.Hour
	if at, ok := e.lead.NextDeadline(); ok {
		wait = max(at.Sub(e.now()), 0)
	}
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	t.Reset(wait)
}

// commit writes b, retrying with backoff while the store refuses (a full
// disk, say): nothing is typed or acknowledged until it is on disk, and the
// agents wait meanwhile because their output is not being consumed.
func (e *Engine) commit(b *store.Batch) error {
	wait := 100 * time.Millisecond
	for {
		err := e.store.Commit(b)
		if err == nil || !errors.Is(err, store.ErrDiskFull) {
			return err
		}
		if e.opts.OnError != nil {
			e.opts.OnError(fmt.Errorf("%w; retrying in %v, nothing is lost meanwhile", err, wait))
		}
		select {
		case <-time.After(wait):
		case <-e.quit:
			return err
		}
		if wait < 5*time.Second {
			wait *= 2
		}
	}
}

func stateFields(ev agents.StateEvent) map[string]string {
	f := map[string]string{"pid": strconv.Itoa(ev.Pid), "restarts": strconv.Itoa(ev.Restarts)}
	if (ev.State == wire.StateExited || ev.State == wire.StateFailed) && ev.Pid > 0 {
		f["exit_code"] = strconv.Itoa(ev.ExitCode)
	}
	if ev.Err != "" {
		f["error"] = ev.Err
	}
	if ev.State == wire.StateRunning && ev.Isolation != "" {
		f["isolation"] = ev.Isolation
	}
	if (ev.State == wire.StateExited || ev.State == wire.StateFailed) && !ev.Final {
		f["final"] = "false" // a restart follows at once
	}
	return f
}

// headRun walks one agent's pending deliveries in order and tells which
// may have been read in the first message typed: the first delivery, the
// notices typed with it (agents.MaxMergedNotices at most), and, for an
// agent whose acknowledgements wait for the next text (withNext), the
// message they went in with.
type headRun struct {
	seen     int
	open     bool // still inside the first message's run
	withNext bool
}

func (h *headRun) mayHaveBeenRead(d store.Delivery) bool {
	h.seen++
	read := h.open && (h.seen == 1 || isNotice(d) && h.seen <= agents.MaxMergedNotices ||
		h.withNext && !isNotice(d) && h.seen <= agents.MaxMergedNotices+1)
	h.open = read && isNotice(d)
	return read
}

// isNotice reports a delivery typed as a notice: the console's short
// words, which the agent joins with the notices next to them.
func isNotice(d store.Delivery) bool {
	return d.Kind == lead.DeliverAck || d.Kind == lead.DeliverNotice
}

// dispatch types d into its agent; the outcome comes back as an input.
func (e *Engine) dispatch(d store.Delivery) {
	a := e.agent(d.Agent)
	if a == nil {
		go e.send(input{kind: inUndeliverable, delivery: d, reason: "no such agent"})
		return
	}
	done := func(err error) {
		if err != nil {
			e.send(input{kind: inUndeliverable, delivery: d, reason: err.Error()})
			return
		}
		// Return only once the delivery is on disk: the agent types its
		// next message after this returns (one read-but-unrecorded message
		// per agent at most, so a crash repeats at most one).
		reply := make(chan error, 1)
		if e.send(input{kind: inDelivered, delivery: d, reply: reply}) {
			select {
			case <-reply:
			case <-e.done:
			}
		}
	}
	switch a := a.(type) {
	case *remoteAgent:
		a.deliver(d, done) // its node types it
	case *agents.Agent:
		// The human's words and blockers do not wait for the end of a turn.
		a.TypeAs(d.Typing(), d.Text, done)
	}
}

// shutdown stops every agent in parallel and waits for them, still
// recording what they say and what was delivered until they are gone.
func (e *Engine) shutdown() {
	e.stopping = true
	// Blocks still held by flood control are taken now, so that they are
	// recorded and their deliveries wait in the outbox for the next run:
	// never dropped.
	if err := e.release(); err != nil {
		e.fail(err)
	}
	var wg sync.WaitGroup
	for _, s := range e.sinks {
		a := s.runner()
		if a == nil {
			continue
		}
		wg.Add(1)
		go func(a runner) {
			defer wg.Done()
			a.Stop()
		}(a)
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	for {
		select {
		case <-stopped:
			if e.watcher != nil {
				_ = e.watcher.Close()
			}
			if e.queries != nil {
				_ = e.queries.Close()
			}
			close(e.quit)
			e.drain()
			if e.files != nil {
				close(e.files) // the last responses are written before we are done
				<-e.filesDone
			}
			for _, s := range e.sinks {
				s.term.Close()
			}
			return
		case in := <-e.in:
			if err := e.step([]input{in}); err != nil {
				e.fail(err)
			}
		}
	}
}

// drain records whatever arrived before quit was closed.
func (e *Engine) drain() {
	for {
		select {
		case in := <-e.in:
			if err := e.step([]input{in}); err != nil {
				e.fail(err)
			}
		default:
			return
		}
	}
}

// do runs fn on the engine goroutine, commits what it produced (even when
// it also returns an error) and returns its error once that is on disk.
func (e *Engine) do(fn func(now time.Time) (lead.Output, error)) error {
	reply := make(chan error, 1)
	if !e.send(input{kind: inCall, call: fn, reply: reply}) {
		return ErrStopped
	}
	select {
	case err := <-reply:
		return err
	case <-e.done:
		return ErrStopped
	}
}

// Send types text from the human into agent, after recording it.
func (e *Engine) Send(agent, text string) error {
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.HumanSend(agent, text, now) })
}

// Answer sends the human's answer to inbox item id.
func (e *Engine) Answer(id, text string) error {
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.Answer(id, text, now) })
}

// Drop closes inbox item or question id without answering it (the human
// gives it up: its asker is gone, say). Nothing is typed into anyone.
// Merged records that the human merged agent's branch into their
// checkout (teamlead merge), with what text says, in the audit.
func (e *Engine) Merged(agent, text string) error {
	if _, ok := e.sinks[agent]; !ok {
		return fmt.Errorf("no agent named %q", agent)
	}
	e.record(store.Record{Kind: wire.KindWorktree, Subject: "agent." + agent + ".merge", Agent: agent, From: "human",
		Body: textsafe.Line(text), Fields: map[string]string{"action": "merge"}}, nil, nil)
	return nil
}

func (e *Engine) Drop(id, reason string) error {
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.Drop(id, reason, now) })
}

// Inbox lists what waits for the human, oldest first.
func (e *Engine) Inbox() []lead.InboxItem {
	var items []lead.InboxItem
	_ = e.do(func(time.Time) (lead.Output, error) {
		items = e.lead.Inbox()
		return lead.Output{}, nil
	})
	return items
}

// restoreInbox reads the inbox and answer records back from the store.
func restoreInbox(st *store.Store) ([]lead.InboxItem, error) {
	var recs []store.Record
	for _, kind := range []wire.Kind{wire.KindInbox, wire.KindAnswered, wire.KindDropped} {
		r, err := st.Query(store.Query{Kind: kind})
		if err != nil {
			return nil, fmt.Errorf("reading the inbox: %w", err)
		}
		recs = append(recs, r...)
	}
	sort.Slice(recs, func(i, j int) bool { return recs[i].Seq < recs[j].Seq })
	return lead.RestoreInbox(recs), nil
}

// Agents lists the team in configuration order.
func (e *Engine) Agents() []readmodel.AgentInfo {
	out := make([]readmodel.AgentInfo, 0, len(e.order))
	var blocked map[string]bool
	if p := e.blocked.Load(); p != nil {
		blocked = *p
	}
	for _, n := range e.order {
		var info agents.Info
		if a := e.agent(n); a != nil {
			info = a.Info()
		}
		var last time.Time
		if ns := e.sinks[n].lastOutput.Load(); ns > 0 {
			last = time.Unix(0, ns)
		}
		hs := e.hookStateOf(n)
		ai := readmodel.AgentInfo{Name: n, Role: e.roles[n], State: info.State, Pid: info.Pid,
			Restarts: info.Restarts, ExitCode: info.ExitCode, Since: info.StartedAt, LastOutput: last, Blocked: blocked[n], Hook: hs.state, HookAt: hs.at, HookFrom: hs.from, Err: info.Err,
			Tokens: priced(e.sinks[n].spend.total(), e.priceOf(n)), Worktree: e.sinks[n].tree.Load()}
		if r, ok := e.agent(n).(*remoteAgent); ok {
			ai.Host = r.host
			if e.opts.Remote != nil && !e.opts.Remote.Reachable(r.host) {
				ai.State = wire.StateUnreachable
			}
		}
		out = append(out, ai)
	}
	return out
}

// Keys passes raw key bytes from the human to agent (focus mode), encoded
// for the modes the agent's program set. They are not recorded: they are
// keystrokes, not messages.
func (e *Engine) Keys(agent string, b []byte) error {
	a := e.agent(agent)
	if a == nil {
		return fmt.Errorf("%w: %q", lead.ErrUnknownAgent, agent)
	}
	m := e.sinks[agent].term.Modes()
	_, err := a.Write(encodeKeys(b, m.AppCursorKeys, m.BracketedPaste))
	return err
}

// encodeKeys adapts keys as an xterm would: arrows and Home/End as SS3
// sequences in application cursor mode, and a paste without its brackets
// for a program that did not ask for bracketed paste.
func encodeKeys(b []byte, appCursor, bracketed bool) []byte {
	s := string(b)
	if appCursor {
		for _, k := range []string{"A", "B", "C", "D", "H", "F"} {
			s = strings.ReplaceAll(s, "\x1b["+k, "\x1bO"+k)
		}
	}
	if !bracketed {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "\x1b[200~", ""), "\x1b[201~", "")
	}
	return []byte(s)
}

// ResizeAgents sets every agent's terminal size.
func (e *Engine) ResizeAgents(cols, rows int) {
	if cols <= 0 || rows <= 0 || cols > 1000 || rows > 1000 {
		return
	}
	for _, s := range e.sinks {
		s.term.Resize(cols, rows)
		if a := s.runner(); a != nil {
			_ = a.Resize(uint16(cols), uint16(rows))
		}
	}
}

// Screen is an agent's emulated terminal, as the console shows it.
type Screen interface {
	// Render draws width x height cells scrolled back by offset lines, with SGR colours.
	Render(offset, width, height int) string
	// ScrollbackLen is how many lines can be scrolled back.
	ScrollbackLen() int
}

// Screen returns agent's emulated terminal, or nil.
func (e *Engine) Screen(agent string) Screen {
	if s := e.sinks[agent]; s != nil {
		return s.view
	}
	return nil
}

// AgentOfSession names the agent whose process session is sid (every agent
// runs as the leader of its own session), or "".
func (e *Engine) AgentOfSession(sid int) string {
	for name, s := range e.sinks {
		a := s.runner()
		if a == nil {
			continue
		}
		if info := a.Info(); info.Pid == sid && sid > 0 && info.State == wire.StateRunning {
			return name
		}
	}
	return ""
}

// Problems are what the team's files ask that cannot be done in this
// team (a consultation rule whose role no agent has): the console records
// them as warnings once it runs, where the person sees them.
func (e *Engine) Problems() []string { return e.problems }

// LastSeq is the sequence of the newest committed record.
func (e *Engine) LastSeq() uint64 { return e.store.LastSeq() }

// Diff is what agent changed in its git worktree since it was made.
func (e *Engine) Diff(agent string) (worktree.Tree, worktree.Changes, error) {
	for _, a := range e.opts.Team.Agents {
		if a.Name != agent {
			continue
		}
		if a.Branch == "" {
			return worktree.Tree{}, worktree.Changes{}, fmt.Errorf("%s does not work in a worktree of its own (worktree: true on it in the team file gives it one)", agent)
		}
		t, err := worktree.Open(e.opts.Team.WorktreeOf(a))
		if err != nil {
			return t, worktree.Changes{}, err
		}
		c, err := worktree.Diff(t)
		return t, c, err
	}
	return worktree.Tree{}, worktree.Changes{}, fmt.Errorf("no agent %q", agent)
}

// Merge merges agent's worktree branch into the person's checkout as the
// preview they were shown computed it (worktree.Merge: nothing changes on
// a conflict, a dirty checkout or a HEAD that moved since). The console
// calls it on the human's keys only.
func (e *Engine) Merge(agent string, p worktree.Preview) (worktree.Tree, worktree.Merged, error) {
	for _, a := range e.opts.Team.Agents {
		if a.Name != agent {
			continue
		}
		if a.Branch == "" {
			return worktree.Tree{}, worktree.Merged{}, fmt.Errorf("%s does not work in a worktree of its own", agent)
		}
		t, err := worktree.Open(e.opts.Team.WorktreeOf(a))
		if err != nil {
			return t, worktree.Merged{}, err
		}
		m, err := worktree.Merge(t, p)
		return t, m, err
	}
	return worktree.Tree{}, worktree.Merged{}, fmt.Errorf("no agent %q", agent)
}
