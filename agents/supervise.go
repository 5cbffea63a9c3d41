package agents

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// proc is one run of the agent's program.
type proc struct {
	cmd    *exec.Cmd
	master *os.File
	pid    int

	wmu sync.Mutex // serialises writes to master (typed messages and raw keys)

	bracketed atomic.Bool  // bracketed paste enabled by the program
	reads     atomic.Int64 // reads done, to tell a live reader from a stuck one
	inSink    atomic.Bool  // reader is inside Sink.Output

	exited     chan struct{} // closed when the process has exited
	exitedOnce sync.Once

	// spoke is closed at the process's first output: by then it has set up
	// its terminal (raw mode, bracketed paste), so typed text is read the
	// way the program means to read it.
	spoke     chan struct{}
	spokeOnce sync.Once

	tty     *os.File     // the console's copy of the slave side, to count unread input
	written atomic.Int64 // bytes written to the master in all
	lineEnd atomic.Int64 // p.written just after the last line end (\n, \r, ^D) written
	confirm *confirmer   // typed messages awaiting the program's read

	sandbox *sandboxCtl // the sandbox's socket; nil outside one

	// echo, while the console types a message into a terminal that would
	// echo it, is what it changed (echo.go); onEcho shows what the kernel
	// would have echoed. Both under wmu.
	echo   *quietEcho
	onEcho func([]byte)
}

// markExited closes p.exited once.
func (p *proc) markExited() { p.exitedOnce.Do(func() { close(p.exited) }) }

// isExited reports whether the process has exited.
func (p *proc) isExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// writeChunk is the most written to the PTY master in one write(2).
//
// A large text is written in pieces so that no single write has to fit the
// line discipline's buffer at once. Note that in canonical (cooked) mode the
// Linux line discipline keeps at most 4095 bytes of an unfinished line:
// the rest of a longer line is dropped until the newline arrives. That is
// the kernel's behaviour for any terminal; programs that read long input
// (all full-screen agent CLIs) put the terminal in raw mode, where it does
// not apply.
const writeChunk = 1024

// writeLocked writes b to the master in chunks; p.wmu must be held. A write
// blocks (only the calling goroutine) while the program is not reading and
// the PTY is full; closing the master ends it with an error.
func (p *proc) writeLocked(b []byte) (int, error) {
	n := 0
	for n < len(b) {
		end := min(n+writeChunk, len(b))
		m, err := p.master.Write(b[n:end])
		if p.echo != nil && p.onEcho != nil && m > 0 {
			p.onEcho(echoForm(&p.echo.orig, b[n:n+m]))
		}
		total := p.written.Add(int64(m))
		if i := bytes.LastIndexAny(b[n:n+m], "\n\r\x04"); i >= 0 {
			p.lineEnd.Store(total - int64(m) + int64(i) + 1)
		}
		n += m
		if err != nil {
			return n, fmt.Errorf("%w: %w", ErrWrite, err)
		}
		if p.isExited() && n < len(b) {
			return n, fmt.Errorf("%w: process exited", ErrWrite)
		}
	}
	return n, nil
}

// drainQuiet is how long the reader may go without reading after every
// process of the session is gone before the master is closed under it
// (something outside the session still holds the terminal open).
const drainQuiet = time.Second

// drainMax bounds the wait for the reader after every process is gone.
const drainMax = 10 * time.Second

// pollEvery is the period of the checks for leftover processes.
const pollEvery = 20 * time.Millisecond

// supervise runs the agent: spawn, wait, restart per policy, until stopped
// or done.
func (a *Agent) supervise() {
	if err := validate(a.spec); err != nil {
		a.finish(wire.StateFailed, err.Error())
		return
	}
	bo := backoff{base: a.spec.Backoff, max: a.spec.BackoffMax, stable: a.spec.StableAfter}
	for {
		if a.stopping() {
			a.finish(wire.StateStopped, "")
			return
		}
		a.setState(wire.StateStarting, "")
		p, err := a.spawn()
		var ran time.Duration
		var failed bool
		if err != nil {
			if errors.Is(err, ErrCommandNotFound) || errors.Is(err, ErrNoCommand) {
				a.finish(wire.StateFailed, plainError(err))
				return
			}
			failed = true
			a.mu.Lock()
			a.exitCode = -1
			a.mu.Unlock()
			if a.stopping() {
				a.finish(wire.StateStopped, err.Error())
				return
			}
			if !a.willRestart(true) {
				a.finish(wire.StateFailed, err.Error())
				return
			}
			a.setState(wire.StateFailed, err.Error())
		} else {
			var why string
			var stopped bool
			ran, failed, why, stopped = a.runProc(p)
			if stopped {
				a.finish(wire.StateStopped, why)
				return
			}
			if !a.willRestart(failed) {
				a.finish(wire.StateExited, why)
				return
			}
			a.setState(wire.StateExited, why)
		}
		delay := bo.delay(ran)
		a.mu.Lock()
		a.restarts++
		a.mu.Unlock()
		a.setState(wire.StateRestarting, "")
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-a.stopCh:
			t.Stop()
			a.finish(wire.StateStopped, "")
			return
		}
	}
}

// backoff computes restart delays: base after a first exit, doubled after
// each exit that follows quickly, capped at max, and back to base after a
// run of at least stable.
type backoff struct {
	base, max, stable time.Duration
	next              time.Duration
}

// delay returns how long to wait before restarting a process that ran for ran.
func (b *backoff) delay(ran time.Duration) time.Duration {
	if b.next == 0 || ran >= b.stable {
		b.next = b.base
	}
	d := b.next
	b.next = min(b.next*2, b.max)
	return d
}

// willRestart applies the restart policy to an exit (failed: nonzero status
// or signal).
func (a *Agent) willRestart(failed bool) bool {
	if a.stopping() {
		return false
	}
	switch a.spec.Restart {
	case RestartAlways:
		return true
	case RestartOnFailure:
		return failed
	default:
		return false
	}
}

// stopping reports whether Stop was called.
func (a *Agent) stopping() bool {
	select {
	case <-a.stopCh:
		return true
	default:
		return false
	}
}

// setState records a state and reports it to the sink.
func (a *Agent) setState(s State, errText string) {
	a.mu.Lock()
	a.state = s
	ev := a.eventLocked(errText)
	a.mu.Unlock()
	a.sink.State(ev)
}

// finish records the final state, reports it, and closes Done.
func (a *Agent) finish(s State, errText string) {
	a.mu.Lock()
	a.state = s
	a.final = true
	ev := a.eventLocked(errText)
	ev.Final = true
	a.broadcastLocked()
	a.mu.Unlock()
	a.sink.State(ev)
	close(a.done)
}

func (a *Agent) eventLocked(errText string) StateEvent {
	a.err = errText
	return StateEvent{
		Agent:     a.spec.Name,
		State:     a.state,
		Pid:       a.pid,
		ExitCode:  a.exitCode,
		Restarts:  a.restarts,
		Err:       errText,
		Time:      time.Now(),
		Isolation: a.isolation,
	}
}

// broadcastLocked wakes everyone waiting on a.changed; a.mu must be held.
func (a *Agent) broadcastLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// spawn starts one process on a new PTY, in a new session (so its own
// process group) with the PTY as controlling terminal; in a sandbox, the
// sandbox's init leads the session and the program is its foreground
// process group (sandbox_linux.go).
func (a *Agent) spawn() (*proc, error) {
	s := a.spec
	if s.Dir != "" {
		if err := os.MkdirAll(s.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("%w: agent %q: create its dir: %w", ErrSpawn, s.Name, err)
		}
	}
	env := buildEnv(s.Env)
	argv := s.Command
	if s.StartArgs != nil {
		if extra := s.StartArgs(); len(extra) > 0 {
			argv = append(append(append([]string(nil), s.Command[:1]...), extra...), s.Command[1:]...)
		}
	}
	path, err := lookPath(s.Command[0], s.Dir, envValue(env, "PATH"))
	if err != nil {
		return nil, fmt.Errorf("agent %q: %w", s.Name, err)
	}
	start := func(cmd *exec.Cmd) error {
		var err error
		startRoot(func() int {
			if err = cmd.Start(); err != nil {
				return 0
			}
			return cmd.Process.Pid
		})
		return err
	}
	mode, isolation, err := a.isolationMode()
	if err != nil {
		return nil, fmt.Errorf("%w: agent %q: %w", ErrSpawn, s.Name, err)
	}
	if mode == modeSandbox {
		return a.spawnSandboxed(path, argv, env, isolation)
	}
	a.mu.Lock()
	cols, rows := a.cols, a.rows
	a.mu.Unlock()
	master, tty, err := openPTY(cols, rows)
	if err != nil {
		return nil, fmt.Errorf("%w: agent %q: open a pty: %w", ErrSpawn, s.Name, err)
	}
	// A new session makes the child the leader of its own session and
	// process group; Setctty makes the PTY (its fd 0) its controlling
	// terminal.
	attr := &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if mode == modeUserNS {
		userNamespace(attr)
	}
	cmd := &exec.Cmd{Path: path, Args: argv, Dir: s.Dir, Env: env, Stdin: tty, Stdout: tty, Stderr: tty, SysProcAttr: attr}
	if err := start(cmd); err != nil {
		_ = tty.Close()
		_ = master.Close()
		return nil, fmt.Errorf("%w: agent %q: %w", ErrSpawn, s.Name, err)
	}
	return a.started(cmd, master, tty, nil, isolation), nil
}

// started records the process cmd started, on the terminal master (the
// console keeps tty, a slave, open to count unread input — see
// confirm.go — until the process exits; then the master reads EIO once
// the child's copies close).
func (a *Agent) started(cmd *exec.Cmd, master, tty *os.File, sb *sandboxCtl, isolation string) *proc {
	p := &proc{cmd: cmd, master: master, pid: cmd.Process.Pid, exited: make(chan struct{}), spoke: make(chan struct{}),
		tty: tty, confirm: newConfirmer(), sandbox: sb}
	if es, ok := a.sink.(EchoSink); ok {
		name := a.spec.Name
		p.onEcho = func(b []byte) { es.Echo(name, b) }
	}
	a.mu.Lock()
	a.cur = p
	a.pid = p.pid
	a.startedAt = time.Now()
	a.isolation = isolation
	a.broadcastLocked()
	a.mu.Unlock()
	return p
}

// runProc reports the process running, reads its output until it exits,
// cleans up what it left in its session, and reports how it ended. It
// handles Stop while the process runs.
func (a *Agent) runProc(p *proc) (ran time.Duration, failed bool, why string, stopped bool) {
	a.setState(wire.StateRunning, "")
	started := time.Now()
	waitCh := make(chan error, 1)
	go func() {
		err := p.cmd.Wait()
		waitedRoot(p.pid)
		waitCh <- err
	}()
	readerDone := make(chan struct{})
	go a.reader(p, readerDone)
	go a.confirmLoop(p)

	var werr error
	leaderDone := false
	select {
	case werr = <-waitCh:
		leaderDone = true
		p.markExited()
	case <-p.sandbox.programExited():
		// The program itself has exited; its sandbox's init ends what is
		// left (endSession bounds it as for a leader's stragglers).
		p.markExited()
	case <-a.stopCh:
		stopped = true
	}
	ran = time.Since(started)
	werr = a.endSession(p, waitCh, leaderDone, werr)
	p.markExited()
	a.endConfirm(p)
	a.drain(p, readerDone)

	code, sig := exitStatus(p.cmd.ProcessState, werr)
	if p.sandbox != nil {
		// The program's own status, as its init saw it.
		if ws, ok := p.sandbox.status(5 * time.Second); ok {
			code, sig = waitCode(ws)
		}
	}
	failed = code != 0
	if sig != "" {
		why = "killed by signal: " + sig
	}
	a.mu.Lock()
	a.exitCode = code
	a.cur = nil
	a.broadcastLocked()
	a.mu.Unlock()
	return ran, failed, why, stopped || a.stopping()
}

// endSession makes sure no process of the agent's session is left. When
// the leader still runs (Stop) or others remain after it exited
// (stragglers, like the daemon Codex leaves behind), they get SIGTERM, then
// SIGKILL after the grace period. It returns the leader's wait error.
func (a *Agent) endSession(p *proc, waitCh <-chan error, leaderDone bool, werr error) error {
	if leaderDone && !sessionAlive(p.pid) {
		return werr
	}
	p.terminate()
	deadline := time.NewTimer(a.spec.Grace)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		if leaderDone && !sessionAlive(p.pid) {
			return werr
		}
		select {
		case werr = <-waitCh:
			leaderDone = true
			p.markExited()
			continue
		case <-tick.C:
			continue
		case <-deadline.C:
		}
		break
	}
	signalSession(p.pid, syscall.SIGKILL)
	if !leaderDone {
		werr = <-waitCh
		p.markExited()
	}
	// SIGKILL cannot be ignored; wait (bounded) for the kernel to finish.
	for range 100 {
		if !sessionAlive(p.pid) {
			break
		}
		signalSession(p.pid, syscall.SIGKILL)
		<-tick.C
	}
	return werr
}

// drain waits for the reader to see the end of the output, and closes the
// master. If something outside the session keeps the terminal open, the
// master is closed under the reader once it has been quiet for drainQuiet
// (or after drainMax in all).
func (a *Agent) drain(p *proc, readerDone <-chan struct{}) {
	defer func() { _ = p.master.Close() }()
	tick := time.NewTicker(drainQuiet / 4)
	defer tick.Stop()
	limit := time.NewTimer(drainMax)
	defer limit.Stop()
	last, quiet := p.reads.Load(), 0
	for {
		select {
		case <-readerDone:
			return
		case <-limit.C:
			_ = p.master.Close()
			<-readerDone
			return
		case <-tick.C:
			n := p.reads.Load()
			if n != last || p.inSink.Load() {
				last, quiet = n, 0
				continue
			}
			quiet++
			if quiet >= 4 {
				_ = p.master.Close()
				<-readerDone
				return
			}
		}
	}
}

// reader passes the process's output to the sink until the terminal closes.
// EIO from the master means every holder of the slave side closed it: that
// is the end of the output, not an error.
func (a *Agent) reader(p *proc, done chan<- struct{}) {
	defer close(done)
	var ms modeScanner
	set := func(on bool) { p.bracketed.Store(on) }
	buf := make([]byte, 32*1024)
	for {
		n, err := p.master.Read(buf)
		p.reads.Add(1)
		if n > 0 {
			p.spokeOnce.Do(func() { close(p.spoke) })
			ms.scan(buf[:n], set)
			p.inSink.Store(true)
			a.sink.Output(a.spec.Name, buf[:n])
			p.inSink.Store(false)
		}
		if err != nil {
			return
		}
	}
}

// exitStatus turns a wait result into an exit code (-1 for a signal) and
// the signal's name.
func exitStatus(ps *os.ProcessState, werr error) (code int, sig string) {
	if ps == nil {
		return -1, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return ps.ExitCode(), ""
}

// waitCode is exitStatus for a wait status.
func waitCode(ws syscall.WaitStatus) (code int, sig string) {
	if ws.Signaled() {
		return -1, ws.Signal().String()
	}
	return ws.ExitStatus(), ""
}

// buildEnv returns os.Environ() with env set in it (replacing a variable
// of the same name, not added after it) and TERM defaulted. Each name
// appears once: exec.Cmd would drop the earlier of two, but the sandbox
// starts the program with execve, and a program reading the first one
// (Claude Code does) would see the console's HOME, not the agent's.
// consoleOnlyEnv are the console's variables no agent gets, whatever its
// isolation: TEAMLEAD_NATS may carry the token of the team's NATS server.
var consoleOnlyEnv = []string{"TEAMLEAD_NATS"}

// Environ is the environment an agent started with env gets (the
// policy judges what prints a variable by its value there).
func Environ(env map[string]string) []string { return buildEnv(env) }

func buildEnv(env map[string]string) []string {
	base := dedupEnv(os.Environ())
	out := make([]string, 0, len(base)+len(env)+1)
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := env[k]; !set && !slices.Contains(consoleOnlyEnv, k) {
			out = append(out, kv)
		}
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	if envValue(out, "TERM") == "" {
		out = append(out, "TERM=xterm-256color")
	}
	return out
}

// dedupEnv returns env with each name once, its last value (the one
// exec.Cmd would pass) in the place of its first.
func dedupEnv(env []string) []string {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		last[k] = i
	}
	out := make([]string, 0, len(last))
	for i, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if j := last[k]; j == i {
			out = append(out, kv)
		} else if j > i {
			out = append(out, env[j])
			last[k] = -1
		}
	}
	return out
}

// envValue returns the last value of key in env (the one exec uses).
func envValue(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v
		}
	}
	return ""
}

// lookPath finds the program to run the way the child would: a name with a
// slash is a path, relative to dir; a bare name is searched in pathEnv
// (relative entries are relative to dir too).
func lookPath(name, dir, pathEnv string) (string, error) {
	base := dir
	if base == "" {
		base, _ = os.Getwd()
	} else if !filepath.IsAbs(base) {
		if abs, err := filepath.Abs(base); err == nil {
			base = abs
		}
	}
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(base, p)
		}
		if err := checkExecutable(p); err != nil {
			return "", commandError{fmt.Sprintf("%q (%s): %v; check the command path (a relative path is taken from the agent's dir %q)",
				name, p, err, base)}
		}
		return p, nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(base, d)
		}
		p := filepath.Join(d, name)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", commandError{fmt.Sprintf("%q is not on PATH: install it, or set the agent's command to its full path (PATH is %s)",
		name, pathEnv)}
}

// commandError is ErrCommandNotFound in words a person acts on.
type commandError struct{ msg string }

func (e commandError) Error() string        { return e.msg }
func (e commandError) Is(target error) bool { return target == ErrCommandNotFound }

// plainError is what a failure says to the person: a missing command's
// own words, without the wrapping that names the package.
func plainError(err error) string {
	var ce commandError
	if errors.As(err, &ce) {
		return ce.msg
	}
	return err.Error()
}

// checkExecutable reports why p cannot be executed, or nil.
func checkExecutable(p string) error {
	st, err := os.Stat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return errors.New("is a directory")
	}
	if st.Mode().Perm()&0o111 == 0 {
		return errors.New("not executable (no x permission)")
	}
	return nil
}

// Ways to start a process.
const (
	modeNone = iota
	modeUserNS
	modeSandbox
)

// isolationMode says how to start the next process, and the isolation
// its running record says. Whether the kernel gives this user a sandbox,
// or a user namespace, is probed once, away from any agent (probeSandbox,
// probeUserNS): a spawn that fails inside one is never retried with less,
// or an agent could make its own start fail there (a folder it cannot
// enter from the namespace) and come back less contained.
func (a *Agent) isolationMode() (int, string, error) {
	switch a.spec.Isolation {
	case IsolationNone:
		return modeNone, isolatedNone + ": the team file says isolation: none", nil
	case IsolationUserNS:
		if !userNamespaces {
			return modeNone, isolatedNone + ": this system has no user namespaces", nil
		}
		return modeUserNS, isolatedUserNS + ": the team file says isolation: userns", nil
	case IsolationSandbox:
		if !sandboxes {
			return 0, "", errors.New("isolation: sandbox: this system has no sandbox for agents (Linux only)")
		}
		if err := probeSandbox(); err != nil {
			return 0, "", fmt.Errorf("isolation: sandbox: the kernel refuses it here: %w", err)
		}
		return modeSandbox, isolatedSandbox, nil
	}
	if !userNamespaces {
		return modeNone, isolatedNone + ": this system has no user namespaces", nil
	}
	serr := probeSandbox()
	if serr == nil {
		return modeSandbox, isolatedSandbox, nil
	}
	if err := probeUserNS(); err != nil {
		return modeNone, isolatedNone + ": the kernel gives this user no user namespace (" + err.Error() + ")", nil
	}
	return modeUserNS, isolatedUserNS + ": the kernel refused the sandbox (" + serr.Error() + ")", nil
}
