// Package agents supervises agent CLIs (Claude Code, Codex, Gemini CLI, or
// any program) as subprocesses over pseudo-terminals: it spawns each one in
// its own session and process group, streams everything it prints to a Sink,
// restarts it according to a policy, and types messages into it (bracketed
// paste when the program asked for it, a pause before the submit key).
//
// Each Agent runs three kinds of goroutines: a supervisor (spawn, wait,
// restart, stop), a reader per process (PTY output to the Sink) and a writer
// (typed messages, one at a time, in enqueue order). A blocked PTY write only
// ever blocks the writer goroutine of that agent.
package agents

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// Sentinel errors of this package. Errors returned or reported by an Agent
// wrap one of these; match them with errors.Is.
var (
	// ErrGone means the agent was stopped, or exited and will not restart:
	// nothing more can be typed into it.
	ErrGone = errors.New("agents: agent is gone (stopped, or exited with no restart)")
	// ErrNotRunning means no process is running right now (the agent is
	// starting or waiting to restart); raw writes are refused meanwhile.
	ErrNotRunning = errors.New("agents: agent has no running process")
	// ErrNoCommand means the Spec has an empty Command.
	ErrNoCommand = errors.New("agents: spec has no command")
	// ErrCommandNotFound means the command could not be found or is not
	// executable.
	ErrCommandNotFound = errors.New("agents: command not found")
	// ErrBadSpec means a Spec field has a value this package does not know.
	ErrBadSpec = errors.New("agents: invalid spec")
	// ErrSpawn means the process could not be started (PTY, directory or
	// exec failure).
	ErrSpawn = errors.New("agents: cannot start process")
	// ErrWrite means writing to the agent's PTY failed.
	ErrWrite = errors.New("agents: write to agent failed")
	// ErrBadSize means a terminal size of zero columns or rows was given.
	ErrBadSize = errors.New("agents: terminal size must be at least 1x1")
)

// RestartPolicy says when a process that exited is started again.
type RestartPolicy string

// Restart policies.
const (
	// RestartNever never restarts; the agent is done after its first exit.
	RestartNever RestartPolicy = "never"
	// RestartOnFailure restarts after a nonzero exit status or a death by signal.
	RestartOnFailure RestartPolicy = "on-failure"
	// RestartAlways restarts after any exit.
	RestartAlways RestartPolicy = "always"
)

// PasteMode says when typed text is sent as one bracketed paste.
type PasteMode string

// Paste modes.
const (
	// PasteAuto pastes when the program enabled bracketed paste (ESC[?2004h).
	PasteAuto PasteMode = "auto"
	// PasteAlways always pastes, whatever the program asked for.
	PasteAlways PasteMode = "always"
	// PasteNever always types line by line.
	PasteNever PasteMode = "never"
)

// Preset describes how to type into one kind of agent CLI.
type Preset struct {
	// Name names the preset (informational).
	Name string
	// Submit is the key or keys that submit typed text; default "\r".
	Submit string
	// Newline separates lines when typing line by line (not pasting);
	// default "\r" (what Enter sends, right for line-based programs).
	Newline string
	// SubmitDelay is the pause after the text and before Submit (Codex takes
	// an Enter within 120ms of a burst of typed characters as a newline).
	SubmitDelay time.Duration
	// LineDelay is the pause after each line when typing line by line.
	LineDelay time.Duration
	// Paste says when to use bracketed paste; default PasteAuto.
	Paste PasteMode
	// ReadyTimeout is how long typing into a new process waits for its
	// first output (a program sets up its terminal before it prints), after
	// which it types anyway; default 3s.
	ReadyTimeout time.Duration
	// Parse is "stream" or "screen": how the engine reads this agent's
	// output (informational here).
	Parse string
	// AcksWithNext keeps acknowledgements (Ack) from being typed as a
	// prompt of their own: each waits for the next text typed into the
	// agent and goes in with it (a CLI would spend a model turn on an
	// acknowledgement alone). More than MaxMergedNotices waiting are typed
	// together.
	AcksWithNext bool
	// SubmitRetries is how many times the submit key is pressed again
	// while Spec.SubmitCheck says the text still waits in the program's
	// input box; 0 checks nothing.
	SubmitRetries int
}

// Spec describes one agent process and how to supervise it.
type Spec struct {
	// Name is the agent's name, passed to the Sink with everything it produces.
	Name string
	// Command is the argv to run; no shell is involved. A relative path with
	// a slash is resolved from Dir; a bare name is searched in PATH (the
	// PATH of Env when it sets one).
	Command []string
	// Dir is the working directory, created if missing; "" means the
	// current directory.
	Dir string
	// Env is added to os.Environ(), overriding variables of the same name.
	// TERM defaults to xterm-256color when neither sets it.
	Env map[string]string
	// Cols is the initial PTY width; default 120.
	Cols uint16
	// Rows is the initial PTY height; default 40.
	Rows uint16
	// Restart is the restart policy; default RestartNever.
	Restart RestartPolicy
	// Preset says how to type into the agent.
	Preset Preset
	// Grace is how long Stop waits after SIGTERM before SIGKILL; default 5s.
	// It also bounds how long stragglers left in the process group after an
	// exit get before they are killed.
	Grace time.Duration
	// Backoff is the first restart delay, doubled after each quick exit;
	// default 500ms.
	Backoff time.Duration
	// BackoffMax caps the restart delay; default 30s.
	BackoffMax time.Duration
	// StableAfter is how long a process must run for the restart delay to
	// go back to Backoff; default 30s.
	StableAfter time.Duration
	// SubmitCheck, with Preset.SubmitRetries > 0, is asked once the program
	// has read a message and its submit key whether the text still waits
	// in its input box (the key was lost, or taken as a newline); it
	// returns once the program's screen has settled. See submit.go.
	SubmitCheck func(text string) (pending bool)
	// DialogShown, when set, reports whether the program's screen shows a
	// permission dialog now (its preset's detector). Nothing is typed
	// while it does, nor the submit key pressed after a message typed
	// just before one appeared: a dialog takes typed keys as its answer.
	DialogShown func() bool
	// Isolation says whether the agent's processes run in a sandbox, a
	// user namespace of their own, or neither; "" means IsolationAuto.
	Isolation Isolation
	// StartArgs, when set, is asked at each start of a process for
	// arguments to put right after the program's name (a CLI's resume
	// arguments naming its last conversation).
	StartArgs func() []string
	// Protect names files and folders the agent may read but not change:
	// in a sandbox they are bound read-only over themselves (renamed,
	// removed or written, they fail with "read-only file system"; a
	// control socket among them still connects). teamlead's own state and
	// configuration, which only the human changes. A path that does not
	// exist when the agent starts, or that holds the agent's folder, is
	// left as it is. Without a sandbox nothing is protected this way. A
	// folder named SecretsDir directly inside one is hidden altogether.
	Protect []string
	// Binds are folders (or files) bound over themselves after Protect,
	// parents first: a read-only one with all it holds (what Protect bound
	// too), a writable one inside it writable again. Without a sandbox they
	// are left as they are.
	Binds []Bind
	// Hide are folders of other agents' the sandbox shows empty (their
	// query folders): what is there is theirs to read, and what would be
	// written there would be taken as theirs. Missing ones are left as
	// they are. Without a sandbox they are left as they are.
	Hide []string
	// Others are files other agents write (their progress files): read-only
	// here as Protect makes them, but a descriptor for writing one that no
	// process of this sandbox shows is taken for its owner's, and does not
	// stop this sandbox (repin_linux.go).
	Others []string
	// Guarded, when set, reports whether a console's guard (internal/guard)
	// checks the protected file at path by its hash (a team's files, this
	// console's or another's): a second name given to one, or a descriptor
	// for writing it that no process shows, is told to the console once
	// and the sandbox goes on, as whatever is written through it waits for
	// the human at that console's next start. Any other protected file (the
	// teamlead executable, a repository's shared git config), a write to
	// which nothing would see, stops the sandbox so (repin_linux.go).
	Guarded func(path string) bool
	// OnRetype, when set, is called before a message a process took but
	// may not have read is typed again into the next process (it exited
	// first), with the message's text: its echo comes back once more.
	OnRetype func(text string)
	// OnResubmit, when set, hears about a message whose submit key was
	// pressed again: how many times, and whether the text was then taken.
	OnResubmit func(text string, presses int, taken bool)
}

// State is the lifecycle state of an agent (wire.StateRunning ...).
type State = wire.AgentState

// StateEvent reports a change of an agent's state.
type StateEvent struct {
	// Agent is the agent's name.
	Agent string
	// State is the new state.
	State State
	// Pid is the process id while running, else the last one (0 if none).
	Pid int
	// ExitCode is the last exit status; -1 when killed by a signal.
	ExitCode int
	// Restarts counts the restarts so far.
	Restarts int
	// Err explains a failure or a death by signal; "" otherwise.
	Err string
	// Final is true when the agent will never run again (Done is closing).
	Final bool
	// Time is when the change happened.
	Time time.Time
	// Isolation, on the running event, says how the process is isolated:
	// "sandbox" (followed by "; " and what it could not hide, if anything),
	// "user namespace" (alone; ": why"), or "none: why".
	Isolation string
}

// Sink receives everything an agent produces.
//
// Output is called from the agent's reader goroutine, in order; it must not
// retain data after returning. State is called from the agent's supervisor
// goroutine. For one agent the two are never called concurrently: the
// "running" event comes before that process's first Output and the exit
// event after its last. A Sink that blocks stalls that agent (and, in the
// end, the program behind it, whose output is no longer read, and Stop).
// Do not call the agent's Stop from inside a Sink method: it waits for the
// goroutine that is calling the Sink.
type Sink interface {
	// Output receives a chunk of the agent's terminal output.
	Output(agent string, data []byte)
	// State receives a state change.
	State(ev StateEvent)
}

// Info is a snapshot of an agent's state.
type Info struct {
	// Name is the agent's name.
	Name string
	// State is the current state.
	State State
	// Pid is the current (or last) process id; 0 if none was started.
	Pid int
	// Restarts counts the restarts so far.
	Restarts int
	// ExitCode is the last exit status; -1 when killed by a signal.
	ExitCode int
	// StartedAt is when the current (or last) process started.
	StartedAt time.Time
	// Cols is the PTY width.
	Cols uint16
	// Rows is the PTY height.
	Rows uint16
	// Isolation says how the current process is isolated, as
	// StateEvent.Isolation.
	Isolation string
	// BracketedPaste is true while the running program has bracketed paste
	// enabled (it printed ESC[?2004h and not yet ESC[?2004l).
	BracketedPaste bool
	// Err says why the last start failed or the process died; "" while it runs.
	Err string
}

// Agent is one supervised agent process (restarted according to its policy).
// Its methods are safe for concurrent use.
type Agent struct {
	spec Spec
	sink Sink

	stopOnce sync.Once
	stopCh   chan struct{} // closed by Stop
	done     chan struct{} // closed when the agent will never run again

	mu   sync.Mutex
	more []string // protected since the agent started (ProtectMore)
	// built is closed once the sandbox being made (it read more and
	// KeepSecret) is the agent's process; nil when none is being made.
	built     chan struct{}
	state     State
	pid       int
	restarts  int
	exitCode  int
	startedAt time.Time
	isolation string // of the current process: isolatedSandbox, isolatedUserNS or isolatedNone, and why
	cols      uint16
	rows      uint16
	cur       *proc         // the running process, nil when none
	changed   chan struct{} // closed and replaced when cur or final changes
	final     bool          // set just before done is closed
	queue     []*message
	queueSig  chan struct{} // capacity 1: wakes the writer
	held      bool          // the writer types nothing while set (a dialog is on screen)
	busySince time.Time     // the program's turn began then (zero: between turns); see Busy
	ackWait   atomic.Bool   // the writer waits with only acknowledgements queued (AcksWithNext)
	turnWait  atomic.Bool   // the writer waits for the end of the program's turn (Busy)
	keyWait   atomic.Int32  // dialog keys typed and not yet read or taken back (PressKey)
	// afterTurn: messages waited for the end of the program's turn; the
	// ones waiting when it ends go in as one prompt (a.mu).
	afterTurn bool
	err       string // the last state change's explanation
}

// Start validates spec, applies defaults and starts the agent at once. It
// never blocks on the process: failures are reported through sink.State
// (state "failed" with Err saying what and what to do).
func Start(spec Spec, sink Sink) *Agent {
	if sink == nil {
		sink = nopSink{}
	}
	spec = withDefaults(spec)
	a := &Agent{
		spec:     spec,
		sink:     sink,
		stopCh:   make(chan struct{}),
		done:     make(chan struct{}),
		state:    wire.StateStarting,
		cols:     spec.Cols,
		rows:     spec.Rows,
		changed:  make(chan struct{}),
		queueSig: make(chan struct{}, 1),
	}
	go a.supervise()
	go a.writer()
	return a
}

// Name returns the agent's name.
func (a *Agent) Name() string { return a.spec.Name }

// Spec returns the agent's spec with defaults applied.
func (a *Agent) Spec() Spec { return a.spec }

// Info returns a snapshot of the agent's state.
func (a *Agent) Info() Info {
	a.mu.Lock()
	defer a.mu.Unlock()
	inf := Info{
		Name:      a.spec.Name,
		State:     a.state,
		Pid:       a.pid,
		Restarts:  a.restarts,
		ExitCode:  a.exitCode,
		StartedAt: a.startedAt,
		Isolation: a.isolation,
		Cols:      a.cols,
		Rows:      a.rows,
		Err:       a.err,
	}
	if a.cur != nil {
		inf.BracketedPaste = a.cur.bracketed.Load()
	}
	return inf
}

// Done returns a channel closed when the agent will never run again: it was
// stopped, failed to start, or exited with no restart.
func (a *Agent) Done() <-chan struct{} { return a.done }

// Stop ends the agent: SIGTERM to its whole process group (and session),
// SIGKILL after the Grace period, then the PTY is closed. There is no
// restart afterwards and queued messages fail with ErrGone. Stop returns
// when the process is gone; it is safe to call more than once.
func (a *Agent) Stop() {
	a.stopOnce.Do(func() { close(a.stopCh) })
	<-a.done
}

// Resize sets the PTY size (the kernel sends SIGWINCH to the program). The
// size is kept for later restarts too.
func (a *Agent) Resize(cols, rows uint16) error {
	if cols == 0 || rows == 0 {
		return fmt.Errorf("%w: got %dx%d", ErrBadSize, cols, rows)
	}
	a.mu.Lock()
	a.cols, a.rows = cols, rows
	p := a.cur
	a.mu.Unlock()
	if p == nil {
		return nil
	}
	if err := setWinsize(p.master, cols, rows); err != nil && !p.isExited() {
		return fmt.Errorf("agents: resize %s to %dx%d: %w", a.spec.Name, cols, rows, err)
	}
	return nil
}

// Write writes raw bytes (keys from the human) straight to the PTY, with no
// sanitizing. It fails with ErrNotRunning while no process runs (ErrGone
// once the agent is done). It blocks while the program does not read its
// input and the PTY buffer is full, and waits for a message being pasted by
// the writer to finish, so call it off any UI loop.
func (a *Agent) Write(p []byte) (int, error) {
	a.mu.Lock()
	pr, final := a.cur, a.final
	a.mu.Unlock()
	if final {
		return 0, a.gone()
	}
	if pr == nil || pr.isExited() {
		return 0, fmt.Errorf("%w (agent %q)", ErrNotRunning, a.spec.Name)
	}
	pr.wmu.Lock()
	defer pr.wmu.Unlock()
	return pr.writeLocked(p)
}

// gone returns ErrGone naming the agent.
func (a *Agent) gone() error { return fmt.Errorf("%w (agent %q)", ErrGone, a.spec.Name) }

// nopSink discards everything.
type nopSink struct{}

func (nopSink) Output(string, []byte) {}
func (nopSink) State(StateEvent)      {}

// Defaults applied by Start.
const (
	defaultCols         = 120
	defaultRows         = 40
	defaultGrace        = 5 * time.Second
	defaultBackoff      = 500 * time.Millisecond
	defaultBackoffMax   = 30 * time.Second
	defaultStableAfter  = 30 * time.Second
	defaultReadyTimeout = 3 * time.Second
	defaultSubmit       = "\r"
	defaultNewline      = "\r"
)

func withDefaults(s Spec) Spec {
	s.Command = append([]string(nil), s.Command...)
	if s.Env != nil {
		env := make(map[string]string, len(s.Env))
		for k, v := range s.Env {
			env[k] = v
		}
		s.Env = env
	}
	if s.Cols == 0 {
		s.Cols = defaultCols
	}
	if s.Rows == 0 {
		s.Rows = defaultRows
	}
	if s.Restart == "" {
		s.Restart = RestartNever
	}
	if s.Grace <= 0 {
		s.Grace = defaultGrace
	}
	if s.Backoff <= 0 {
		s.Backoff = defaultBackoff
	}
	if s.BackoffMax <= 0 {
		s.BackoffMax = defaultBackoffMax
	}
	if s.BackoffMax < s.Backoff {
		s.BackoffMax = s.Backoff
	}
	if s.StableAfter <= 0 {
		s.StableAfter = defaultStableAfter
	}
	if s.Preset.ReadyTimeout <= 0 {
		s.Preset.ReadyTimeout = defaultReadyTimeout
	}
	if s.Preset.Submit == "" {
		s.Preset.Submit = defaultSubmit
	}
	if s.Preset.Newline == "" {
		s.Preset.Newline = defaultNewline
	}
	if s.Preset.Paste == "" {
		s.Preset.Paste = PasteAuto
	}
	return s
}

// validate reports spec values this package does not understand.
func validate(s Spec) error {
	if len(s.Command) == 0 || s.Command[0] == "" {
		return fmt.Errorf("%w: agent %q: set its command (argv, no shell)", ErrNoCommand, s.Name)
	}
	switch s.Restart {
	case RestartNever, RestartOnFailure, RestartAlways:
	default:
		return fmt.Errorf("%w: agent %q: restart policy %q: use never, on-failure or always", ErrBadSpec, s.Name, s.Restart)
	}
	switch s.Isolation {
	case "", IsolationAuto, IsolationSandbox, IsolationUserNS, IsolationNone:
	default:
		return fmt.Errorf("%w: agent %q: isolation %q: use auto, sandbox, userns or none", ErrBadSpec, s.Name, s.Isolation)
	}
	switch s.Preset.Paste {
	case PasteAuto, PasteAlways, PasteNever:
	default:
		return fmt.Errorf("%w: agent %q: paste mode %q: use auto, always or never", ErrBadSpec, s.Name, s.Preset.Paste)
	}
	return nil
}

// GuardSink is a Sink that also hears what an agent's sandbox did to keep
// teamlead's files read-only while the agent ran (repin_linux.go): a
// process killed because it held a protected file writable, the sandbox
// stopped because such a file got a second name, or a file that could not
// be pinned again. Guarded is called on the sandbox's own goroutine.
type GuardSink interface {
	Sink
	// Guarded receives what was done (killed, stopped or unpinned), the
	// file, and the details.
	Guarded(agent, what, path, detail string)
}

// guarded passes a word of the agent's sandbox on to its sink.
func (a *Agent) guarded(line string) {
	gs, ok := a.sink.(GuardSink)
	if !ok {
		return
	}
	what, rest, _ := strings.Cut(line, "\t")
	path, detail, _ := strings.Cut(rest, "\t")
	gs.Guarded(a.spec.Name, what, path, detail)
}

// protectRequest is what ProtectMore adds to an agent's sandbox: paths to
// make read-only, and files or folders to hide.
type protectRequest struct {
	Protect []string `json:"protect"`
	Hide    []string `json:"hide"`
	// Guarded are those of Protect that Spec.Guarded names.
	Guarded []string `json:"guarded,omitempty"`
}

// ProtectMore makes protect read-only and hides hide in the agent's
// sandbox, in the running one at once and in every one it starts from now
// on: a console started after this agent (its state folder, team files
// and secrets) asks every running console so, before it writes them
// (red team 9a, finding 5). Without a sandbox there is nothing to add to.
func (a *Agent) ProtectMore(protect, hide []string) error {
	KeepSecret(hide...) // hidden in every sandbox started from now on
	a.mu.Lock()
	a.more = append(a.more, protect...)
	p, built := a.cur, a.built
	a.mu.Unlock()
	if built != nil {
		// A sandbox being made read what to protect before this: it is
		// asked once it is the agent's, and the asker told only then (red
		// team 14c, finding 1: a hide that came meanwhile was lost, and
		// one protect answered before the sandbox had it).
		<-built
		a.mu.Lock()
		p = a.cur
		a.mu.Unlock()
	}
	if p == nil || p.isExited() || p.sandbox == nil {
		return nil
	}
	return p.sandbox.protect(protectRequest{Protect: protect, Hide: hide, Guarded: guardedOf(a.spec.Guarded, protect)})
}

// guardedOf returns the paths guarded names (Spec.Guarded).
func guardedOf(guarded func(string) bool, paths []string) []string {
	if guarded == nil {
		return nil
	}
	var out []string
	for _, p := range paths {
		if guarded(p) {
			out = append(out, p)
		}
	}
	return out
}

// building marks a sandbox being made, which protects what ProtectMore
// made read-only so far (added) and what KeepSecret names when it reads
// them; built ends the mark, once the process is the agent's.
func (a *Agent) building() (added []string, built func()) {
	ch := make(chan struct{})
	a.mu.Lock()
	a.built = ch
	added = append([]string(nil), a.more...)
	a.mu.Unlock()
	return added, func() {
		a.mu.Lock()
		if a.built == ch {
			a.built = nil
		}
		a.mu.Unlock()
		close(ch)
	}
}
