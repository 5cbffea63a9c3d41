package engine

import (
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"
	"time"

	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/worktree"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/screenscan"
	"github.com/teamlead/teamlead/internal/vt"
)

const (
	// scanQuiet is how long a screen-mode agent's output must pause before
	// its screen is read: programs write a frame at once, so a pause means
	// the frame is complete.
	scanQuiet = 10 * time.Millisecond
	// scanMax bounds how long a scan waits while output keeps coming.
	scanMax = 100 * time.Millisecond
	// syncMax bounds the wait for a synchronized update (a frame a program
	// marked as in progress) to end, as terminals do.
	syncMax = time.Second
)

// sink receives one agent's output on its reader goroutine. Every agent
// has a terminal emulator: the console shows it, and it answers the
// program's queries (cursor position, colours). A stream-mode agent's
// output is parsed right there, so agents are parsed in parallel; a
// screen-mode agent's screen is read by its scan loop once output pauses.
type sink struct {
	e          *Engine
	name       string
	agent      atomic.Pointer[runnerBox] // set once by started
	ready      chan struct{}             // closed once agent is set
	term       *vt.Terminal
	parser     *protocol.Parser    // stream mode
	scanner    *screenscan.Scanner // screen mode
	changed    chan struct{}       // screen mode: output arrived (capacity 1)
	lastOutput atomic.Int64        // unix nanoseconds of the latest output
	dialogs    *dialogWatch        // the preset's detector (nil: none)
	// placeholders are the preset's submit_pending: input rows that hide
	// typed text (a long paste) but hold it.
	placeholders []*regexp.Regexp
	// session is the agent's conversation, for a CLI that resumes one.
	session session
	// spend is what the agent's CLI used, from its transcripts.
	spend spend
	// task is the task the agent last wrote about: what it uses is
	// counted against it.
	task agentTask
	// tree is its git worktree as watchWorktrees last saw it.
	tree atomic.Pointer[readmodel.Worktree]
	// worktreeDir is the folder of its worktree ("" for none): its
	// handoffs name the branch and commit checked out there.
	worktreeDir string
	// worktreeSpec is that worktree's spec.
	worktreeSpec worktree.Spec
	// history is its screen as earlier runs left it, and where this one's
	// is saved.
	history *history
	// view is what the console shows: term, below the earlier runs' lines
	// when there are any (one value, so the screen pane knows it again).
	view Screen
}

func newSink(e *Engine, a config.Agent) *sink {
	cols, rows := a.Cols, a.Rows
	if cols <= 0 {
		cols = 120
	}
	if rows <= 0 {
		rows = 40
	}
	s := &sink{e: e, name: a.Name, ready: make(chan struct{})}
	if a.Branch != "" {
		s.worktreeDir, s.worktreeSpec = a.Dir, e.opts.Team.WorktreeOf(a)
	}
	s.history = loadHistory(e.opts.History, a.Name, a.Scrollback)
	// Focus mode types keys in the classic xterm encodings, so programs are
	// not offered the kitty keyboard protocol (Claude Code would switch to
	// it and expect Esc and Ctrl keys in its CSI u form).
	s.term = vt.New(cols, rows, vt.Options{Scrollback: a.Scrollback, Reply: agentWriter{s: s}, NoKittyKeyboard: true})
	s.view = s.term
	if len(s.history.lines) > 0 {
		s.view = &withHistory{term: s.term, lines: s.history.lines}
	}
	if a.Parse == "screen" {
		s.scanner = screenscan.New()
	} else {
		s.parser = protocol.NewParser()
	}
	s.dialogs = newDialogWatch(e, a)
	s.placeholders, _ = e.opts.Team.Resolved[a.Name].SubmitPendingRE() // checked when the team was loaded
	if s.scanner != nil || s.dialogs != nil {
		s.changed = make(chan struct{}, 1)
	}
	return s
}

// watches reports whether the sink reads its agent's screen (screen mode,
// or a preset detector): then its scan loop runs.
func (s *sink) watches() bool { return s.changed != nil }

// runner is an agent's process as the engine drives it: an *agents.Agent
// here, or a remoteAgent whose node runs it (remote.go).
type runner interface {
	Info() agents.Info
	Write(p []byte) (int, error)
	Resize(cols, rows uint16) error
	Busy(on bool)
	Hold(on bool)
	Stop()
}

type runnerBox struct{ r runner }

// started records the agent once agents.Start returned it.
func (s *sink) started(a runner) {
	s.agent.Store(&runnerBox{a})
	close(s.ready)
}

// runner is the agent's process, nil before it started.
func (s *sink) runner() runner {
	if b := s.agent.Load(); b != nil {
		return b.r
	}
	return nil
}

// agentWriter types the emulator's answers into the agent. It runs on the
// emulator's reply goroutine, which may answer the program's first query
// before agents.Start has even returned the agent: the answer then waits
// for it (it is never dropped, or the program would wait forever).
type agentWriter struct{ s *sink }

func (w agentWriter) Write(p []byte) (int, error) {
	select {
	case <-w.s.ready:
	case <-w.s.e.quit:
		return len(p), nil
	}
	r := w.s.runner()
	if _, remote := r.(*remoteAgent); remote {
		return len(p), nil // its node's emulator answers the program
	}
	return r.Write(p)
}

func (s *sink) Output(agent string, data []byte) {
	s.lastOutput.Store(time.Now().UnixNano())
	_, _ = s.term.Write(data)
	if s.parser != nil {
		s.parser.Feed(data, s.emit)
	}
	if s.changed != nil {
		s.signal()
	}
}

// Echo shows the echo the console draws for what it typed (agents.EchoSink)
// on the agent's screen; it is never parsed: the agent did not write it.
func (s *sink) Echo(agent string, data []byte) {
	s.lastOutput.Store(time.Now().UnixNano())
	_, _ = s.term.Write(data)
	if s.changed != nil {
		s.signal()
	}
}

func (s *sink) State(ev agents.StateEvent) {
	switch agents.State(ev.State) {
	case wire.StateExited, wire.StateRestarting:
		s.e.resumeEnded(s.name, ev.ExitCode, time.Now())
		go s.e.findSession(s.name)
	}
	switch agents.State(ev.State) {
	case wire.StateExited, wire.StateFailed, wire.StateStopped, wire.StateRestarting:
		if a := s.runner(); a != nil {
			a.Busy(false) // its turn ended with it
		}
		// The process is gone: an open block is cut off, the next process starts clean.
		if s.parser != nil {
			s.parser.Flush(s.emit)
			s.parser.Reset()
		}
	case wire.StateStarting:
		// A new program gets a reset terminal. The screen scanner keeps
		// what it saw: the scrollback still holds the last process's
		// blocks, which a scanner that forgot them read again as new (red
		// team 22b, finding 2); an identical block counts again once out
		// of sight for a while, as always.
		_, _ = s.term.Write([]byte("\x1bc"))
	}
	s.e.send(input{kind: inState, agent: ev.Agent, state: ev})
}

func (s *sink) emit(ev protocol.Event) {
	s.stampHandoff(&ev)
	if ev.Kind == protocol.KindEnvelope {
		s.task.set(ev.Envelope.Get("task"))
	}
	s.e.send(input{kind: inBlock, agent: s.name, block: ev})
}

// stampHandoff writes into a handoff from an agent with a worktree the
// branch and commit checked out there, so that QA's assignment names what
// to review: read from the worktree, not taken from the agent's words.
func (s *sink) stampHandoff(ev *protocol.Event) {
	if s.worktreeDir == "" || ev.Kind != protocol.KindEnvelope || !strings.EqualFold(strings.TrimSpace(ev.Envelope.Get("type")), protocol.TypeHandoff) {
		return
	}
	// Its commits are copied into the repository first, checked, so that
	// QA's git finds the commit named (worktree.ImportObjects).
	if t, err := worktree.Open(s.worktreeSpec); err == nil {
		_ = worktree.ImportObjects(t)
	}
	branch, commit, err := worktree.Head(s.worktreeDir)
	if err != nil {
		return
	}
	if branch != "" {
		ev.Envelope.Set("branch", branch)
	} else {
		ev.Envelope.Del("branch") // detached: the commit alone says it
	}
	ev.Envelope.Set("commit", commit)
}

func (s *sink) signal() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// scanLoop reads the agent's screen each time its output pauses: for its
// CLI's permission dialog (with a detector), and in screen mode for blocks,
// once more after screenscan.Settle while blocks wait to be confirmed.
func (s *sink) scanLoop() {
	for {
		select {
		case <-s.changed:
		case <-s.e.quit:
			return
		}
		if !s.settle() {
			return
		}
		if s.dialogs != nil {
			s.look()
		}
		if s.scanner == nil {
			continue
		}
		cols, _ := s.term.Size()
		if s.scanner.Scan(s.term.SnapshotTail(screenscan.ScrollbackWindow), cols, time.Now(), s.emit) {
			time.AfterFunc(screenscan.Settle, s.signal)
		}
	}
}

// settle waits until output has paused for scanQuiet (at most scanMax) and
// no synchronized update is open (at most syncMax); false when stopping.
func (s *sink) settle() bool {
	first := time.Now()
	quiet := time.NewTimer(scanQuiet)
	defer quiet.Stop()
	for {
		select {
		case <-s.changed:
			if time.Since(first) < scanMax {
				quiet.Reset(scanQuiet)
				continue
			}
		case <-quiet.C:
		case <-s.e.quit:
			return false
		}
		if !s.term.Modes().SyncOutput || time.Since(first) > syncMax {
			return true
		}
		quiet.Reset(scanQuiet)
	}
}

// Guarded takes what the agent's sandbox did to keep teamlead's files
// read-only (agents.GuardSink): a process killed, or the sandbox stopped,
// is recorded as a refusal of the agent's, for the human to see; so is a
// team's file found with a second name, which the human is also warned of
// once (the status line) with what to remove.
func (s *sink) Guarded(agent, what, path, detail string) {
	switch what {
	case "killed", "stopped":
		s.e.Impersonation(agent, "keep "+path+" writable", what+": "+detail, map[string]string{"file": path})
	case "linked":
		// A second name of a team's file: read-only under this one, the
		// sandbox goes on (repin_linux.go); the human removes the other.
		s.e.Impersonation(agent, "keep "+path+" writable", "refused: "+detail, map[string]string{"file": path})
		s.e.linkedMu.Lock()
		warned := s.e.linked[path]
		if s.e.linked == nil {
			s.e.linked = map[string]bool{}
		}
		s.e.linked[path] = true
		s.e.linkedMu.Unlock()
		if !warned {
			s.e.Warn(fmt.Sprintf("%s has another name an agent may write (seen in %s's sandbox): %s", path, agent, detail))
		}
	case "connect", "send":
		// A connection, or a datagram, to a server of the human's
		// (agents/connectguard_linux.go, sendguard_linux.go).
		s.e.Impersonation(agent, what+" to "+path, "refused: "+detail, map[string]string{"socket": path})
	case "unhidden":
		s.e.Warn(fmt.Sprintf("%s's sandbox could not hide %s, a socket of yours that appeared after it started: %s (it is hidden at the agent's next start)", agent, path, detail))
	default:
		s.e.Warn(fmt.Sprintf("%s's sandbox could not make %s read-only again: %s", agent, path, detail))
	}
}
