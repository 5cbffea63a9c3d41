//go:build linux

package agents

// The sandbox. An agent's program is started through a shim, this very
// executable started again (/proc/self/exe, its argv[0] shimArg0, handled
// by init below before anything else of the program runs):
//
//	console ──clone(NEWUSER|NEWNS|NEWPID, setsid)──▶ shim: PID 1 of a new
//	PID namespace, CAP_SYS_ADMIN in a new user namespace (kept across exec
//	as an ambient capability; the console's uid and gid map to themselves)
//	    mounts: /proc for the namespace, a devpts instance of its own at
//	    /dev/pts, an empty tmpfs over each folder of your per-user servers'
//	    sockets, /dev/null over each other listening socket of yours
//	    (tmux -S, an ssh-agent socket in a shared folder), /sys/fs/cgroup
//	    read-only; opens the agent's terminal in its devpts; Landlock
//	    scopes (abstract sockets, signals) on itself
//	shim ──clone(NEWUSER|NEWNS)──▶ the agent's program, in a nested user
//	    and mount namespace: every mount above came across a user
//	    namespace boundary, so the kernel locks it (MNT_LOCKED: no umount,
//	    no move, no bind that would show what is below); no capability
//	    in the shim's namespace or above survives.
//
// The shim passes the terminal's master (and a slave, for the console to
// count unread input, confirm.go) back to the console over a socket
// (SCM_RIGHTS): the agent's terminal lives in a devpts instance mounted
// nowhere else, so no other process can open it by name, and the agent
// finds no other terminal under /dev/pts. The shim stays as the
// namespace's init: it reaps, passes signals on (SIGTERM and SIGHUP to
// every process of the namespace, SIGINT, SIGQUIT, SIGUSR1 and SIGUSR2 to
// the agent's program), and when the program exits it gives what is left
// SIGTERM, then the grace period, then exits — the kernel kills whatever
// remains in the namespace. It tells the console the program's wait
// status on the socket as soon as the program exits (an init cannot die
// by a signal sent from inside its own namespace, so its own status would
// not say), which the console reports as the agent's.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// shimArg0 is the shim's argv[0]: the executable started with it (and no
// other argument) becomes a sandbox's init instead of what it is.
const shimArg0 = "teamlead-sandbox"

func init() {
	// Package initialisation runs on the main thread, locked to it: what
	// the shim sets per thread (Landlock) holds for the agent it starts.
	if len(os.Args) == 1 && os.Args[0] == shimArg0 {
		os.Exit(shimMain())
	}
}

// sandboxes reports whether this system can have them.
const sandboxes = true

// shimConfig is what the console tells the shim, as JSON on fd 4.
type shimConfig struct {
	Path     string        `json:"path"`
	Args     []string      `json:"args"`
	Env      []string      `json:"env"`
	Dir      string        `json:"dir"`
	Cols     uint16        `json:"cols"`
	Rows     uint16        `json:"rows"`
	Grace    time.Duration `json:"grace"`
	Hide     []string      `json:"hide"`
	HideFile []string      `json:"hide_file"`
	ReadOnly []string      `json:"read_only"`
	Protect  []string      `json:"protect"`
	Pin      []string      `json:"pin"`
	Binds    []Bind        `json:"binds,omitempty"`
	// Watch are the protected files, and those still to be made, that
	// the shim pins again whenever they are replaced or appear
	// (repin_linux.go).
	Watch []string `json:"watch,omitempty"`
	// WatchHidden are the secret files (KeepSecret) the shim hides again
	// whenever they are replaced (a credentials file rotated by rename).
	WatchHidden []string `json:"watch_hidden,omitempty"`
	// WatchOthers are those of Watch that other agents write (Spec.Others).
	WatchOthers []string `json:"watch_others,omitempty"`
	// WatchGuarded are those of Watch a console's guard checks by hash
	// (Spec.Guarded).
	WatchGuarded []string `json:"watch_guarded,omitempty"`
	// KeepSockets are the sockets, and folders of sockets, the agent must
	// reach: one that appears there later is not covered
	// (watchLateSockets).
	KeepSockets []string `json:"keep_sockets,omitempty"`
	// Stdio: the program has the shim's standard streams (Isolate), not
	// a terminal of its own passed to the console.
	Stdio bool `json:"stdio,omitempty"`
}

// sandboxCtl is the console's end of a shim's socket.
type sandboxCtl struct {
	conn   *net.UnixConn
	exited chan struct{} // closed when the shim says the program exited
	done   chan struct{} // closed when the shim's end is closed
	ws     syscall.WaitStatus
	got    bool // ws was reported
	note   string
	// heard takes what the shim says about teamlead's files while the
	// program runs (repin_linux.go); nil drops it.
	heard func(string)
	// replies takes the shim's answers to protect requests ("" or why
	// not); one request at a time (protectMu).
	replies   chan string
	protectMu sync.Mutex
}

// protectTimeout bounds the wait for a sandbox to protect what it is asked.
const protectTimeout = 10 * time.Second

// protect asks the shim to hide and protect more (protectRequest), and
// waits for its answer.
func (c *sandboxCtl) protect(req protectRequest) error {
	c.protectMu.Lock()
	defer c.protectMu.Unlock()
	data, err := json.Marshal(req)
	if err != nil {
		return err
	}
	if _, err := c.conn.Write(append([]byte("protect "), data...)); err != nil {
		return fmt.Errorf("its sandbox is gone: %w", err)
	}
	select {
	case why := <-c.replies:
		if why != "" {
			return errors.New(why)
		}
		return nil
	case <-c.done:
		return errors.New("its sandbox ended")
	case <-time.After(protectTimeout):
		return errors.New("its sandbox did not answer")
	}
}

// programExited is closed once the agent's program has exited (its init
// then ends what is left in the sandbox); nil outside a sandbox.
func (c *sandboxCtl) programExited() <-chan struct{} {
	if c == nil {
		return nil
	}
	return c.exited
}

// status waits (at most d) for the shim to close its end and returns the
// wait status it reported for the agent's program, if it did.
func (c *sandboxCtl) status(d time.Duration) (syscall.WaitStatus, bool) {
	select {
	case <-c.done:
		return c.ws, c.got
	case <-time.After(d):
		_ = c.conn.Close()
		<-c.done
		return c.ws, c.got
	}
}

// shimStderr keeps the first KiB of what the shim writes to its stderr (a
// Go runtime's panic), for the error when it fails to answer.
type shimStderr struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *shimStderr) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if room := 1024 - s.b.Len(); room > 0 {
		s.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (s *shimStderr) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.TrimSpace(s.b.String())
}

// sandboxStartTimeout bounds the wait for the shim's first word.
const sandboxStartTimeout = 30 * time.Second

// startSandbox starts cfg's program in a sandbox. It returns once the
// program runs (or failed to start), with the shim's command (registered
// with the reaper: waitedRoot once waited for), the terminal's master
// and a slave.
func startSandbox(cfg shimConfig, heard func(string)) (cmd *exec.Cmd, ctl *sandboxCtl, master, tty *os.File, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("socketpair: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "sandbox"), os.NewFile(uintptr(fds[1]), "sandbox")
	cfgR, cfgW, err := os.Pipe()
	if err != nil {
		ours.Close()
		theirs.Close()
		return nil, nil, nil, nil, fmt.Errorf("pipe: %w", err)
	}
	stderr := &shimStderr{}
	uid, gid := os.Getuid(), os.Getgid()
	cmd = &exec.Cmd{
		// The agent's environment goes with cfg; the shim's own holds only
		// what a race-detecting build (tests) reads: no second's sleep at
		// exit.
		Path: "/proc/self/exe", Args: []string{shimArg0}, Dir: "/", Env: []string{"GORACE=atexit_sleep_ms=0"},
		ExtraFiles: []*os.File{theirs, cfgR}, Stderr: stderr,
		SysProcAttr: &syscall.SysProcAttr{
			Setsid:      true,
			Cloneflags:  sandboxNamespaces,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
			AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SYS_PTRACE}, // ptrace: to look into every process (repin_linux.go)
		},
	}
	startRoot(func() int {
		if err = cmd.Start(); err != nil {
			return 0
		}
		return cmd.Process.Pid
	})
	theirs.Close()
	cfgR.Close()
	if err != nil {
		ours.Close()
		cfgW.Close()
		return nil, nil, nil, nil, fmt.Errorf("start its init: %w", err)
	}
	data, _ := json.Marshal(cfg)
	go func() {
		_, _ = cfgW.Write(data)
		cfgW.Close()
	}()
	reap := func() {
		_ = cmd.Wait()
		waitedRoot(cmd.Process.Pid)
	}
	fail := func(err error) (*exec.Cmd, *sandboxCtl, *os.File, *os.File, error) {
		_ = cmd.Process.Kill()
		reap()
		if s := stderr.String(); s != "" {
			err = fmt.Errorf("%w (%s)", err, s)
		}
		return nil, nil, nil, nil, err
	}
	fc, err := net.FileConn(ours)
	ours.Close()
	if err != nil {
		return fail(err)
	}
	conn := fc.(*net.UnixConn)
	buf, oob := make([]byte, 4096), make([]byte, unix.CmsgSpace(2*4))
	_ = conn.SetReadDeadline(time.Now().Add(sandboxStartTimeout))
	n, oobn, _, _, err := conn.ReadMsgUnix(buf, oob)
	_ = conn.SetReadDeadline(time.Time{})
	if err != nil || n == 0 {
		conn.Close()
		if err == nil {
			err = errors.New("its init exited without a word")
		}
		return fail(fmt.Errorf("no word from its init: %w", err))
	}
	word, rest, _ := strings.Cut(string(buf[:n]), " ")
	if word != "ready" {
		conn.Close()
		reap()
		return nil, nil, nil, nil, errors.New(rest)
	}
	got, err := receivedFDs(oob[:oobn])
	if err != nil || len(got) != 2 {
		for _, fd := range got {
			unix.Close(fd)
		}
		conn.Close()
		return fail(fmt.Errorf("its terminal was not passed (%v)", err))
	}
	if err := unix.SetNonblock(got[0], true); err != nil {
		unix.Close(got[0])
		unix.Close(got[1])
		conn.Close()
		return fail(fmt.Errorf("non-blocking master: %w", err))
	}
	_, note, _ := strings.Cut(rest, " ")
	ctl = &sandboxCtl{conn: conn, exited: make(chan struct{}), done: make(chan struct{}), note: note, heard: heard, replies: make(chan string, 1)}
	go ctl.read()
	return cmd, ctl, os.NewFile(uintptr(got[0]), "/dev/ptmx"), os.NewFile(uintptr(got[1]), "/dev/pts/0"), nil
}

// read takes the shim's words until it closes its end: "exit" is the
// program's wait status.
func (c *sandboxCtl) read() {
	defer close(c.done)
	buf := make([]byte, 16<<10)
	for {
		n, err := c.conn.Read(buf)
		word, rest, _ := strings.Cut(string(buf[:n]), " ")
		switch {
		case n > 0 && word == "note" && c.heard != nil:
			c.heard(rest)
		case n > 0 && (word == "protected" || word == "protect-error"):
			select {
			case c.replies <- rest:
			default: // nobody waits any more
			}
		case n > 0 && !c.got:
			if word == "exit" {
				if v, err := strconv.ParseUint(rest, 10, 32); err == nil {
					c.ws, c.got = syscall.WaitStatus(v), true
					close(c.exited)
				}
			}
		}
		if err != nil || n == 0 {
			c.conn.Close()
			return
		}
	}
}

// receivedFDs parses the descriptors passed in oob.
func receivedFDs(oob []byte) ([]int, error) {
	msgs, err := unix.ParseSocketControlMessage(oob)
	if err != nil {
		return nil, err
	}
	var fds []int
	for _, m := range msgs {
		got, err := unix.ParseUnixRights(&m)
		if err != nil {
			return fds, err
		}
		fds = append(fds, got...)
	}
	return fds, nil
}

var sandboxProbe struct {
	once sync.Once
	err  error
}

// SandboxProblem says why the kernel refuses agents' sandbox here (then
// isolation: auto runs them in a user namespace alone), or "". It is
// probed once per process.
func SandboxProblem() string {
	if err := probeSandbox(); err != nil {
		return err.Error()
	}
	return ""
}

// probeSandbox reports whether the kernel gives this user the sandbox, by
// running /bin/sh in one once, with what an agent's sandbox hides given
// the console's environment; the answer is kept.
func probeSandbox() error {
	sandboxProbe.once.Do(func() { sandboxProbe.err = runProbe() })
	return sandboxProbe.err
}

func runProbe() error {
	h := sandboxHides(os.Getuid(), os.Environ(), os.Environ(), nil)
	cfg := shimConfig{Path: "/bin/sh", Args: []string{"/bin/sh", "-c", "exit 0"}, Dir: "/", Cols: 80, Rows: 24,
		Grace: time.Second, Hide: h.dirs, HideFile: h.files, ReadOnly: h.readOnly}
	cmd, ctl, master, tty, err := startSandbox(cfg, nil)
	if err != nil {
		return err
	}
	defer master.Close()
	defer tty.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(sandboxStartTimeout):
		_ = cmd.Process.Kill()
		<-done
	}
	waitedRoot(cmd.Process.Pid)
	ws, ok := ctl.status(time.Second)
	if !ok || !ws.Exited() || ws.ExitStatus() != 0 {
		return fmt.Errorf("/bin/sh -c 'exit 0' in it ended with %s", describeWait(ws, ok, cmd.ProcessState))
	}
	return nil
}

// describeWait says how a sandboxed program ended, for an error.
func describeWait(ws syscall.WaitStatus, ok bool, ps *os.ProcessState) string {
	switch {
	case ok && ws.Exited():
		return "exit status " + strconv.Itoa(ws.ExitStatus())
	case ok && ws.Signaled():
		return "signal " + ws.Signal().String()
	case ps != nil:
		return "no status (the sandbox " + ps.String() + ")"
	}
	return "no status"
}

// spawnSandboxed starts the agent's program (path, with env) in a
// sandbox; isolation is what its running record says.
func (a *Agent) spawnSandboxed(path string, argv, env []string, isolation string) (*proc, error) {
	s := a.spec
	a.mu.Lock()
	cols, rows := a.cols, a.rows
	a.mu.Unlock()
	needs := []string{s.Dir, path, envValue(env, "TEAMLEAD_SOCKET")}
	if s.Dir == "" {
		wd, _ := os.Getwd()
		needs[0] = wd
	}
	h := sandboxHides(os.Getuid(), os.Environ(), env, needs)
	dir := s.Dir
	if dir == "" {
		dir = needs[0]
	}
	added, built := a.building()
	defer built() // once the process is the agent's (started)
	allProtect := append(append(append([]string(nil), s.Protect...), s.Others...), added...)
	protect, pins, unprotected := protectable(allProtect, dir)
	// The agent's folder and program are never a reason to leave a
	// server's folder visible or teamlead's files writable: the agent can
	// replace its own folder by a link to /tmp/tmux-UID or the state
	// folder and let itself be restarted there (the seventh red team did).
	// Only the control socket's folder may be kept (the human put the
	// state there).
	for i, need := range h.keptFor {
		if need != resolved(envValue(env, "TEAMLEAD_SOCKET")) {
			return nil, fmt.Errorf("%w: agent %q: its folder or program (%s) is inside %s, which the sandbox hides from agents; give the agent a folder of its own elsewhere", ErrSpawn, s.Name, need, strings.Fields(h.kept[i])[0])
		}
	}
	if len(unprotected) > 0 {
		return nil, fmt.Errorf("%w: agent %q: its folder is inside teamlead's own (%s), which agents may not change; give the agent a folder of its own elsewhere", ErrSpawn, s.Name, strings.Join(unprotected, ", "))
	}
	secretDirs, secretFiles := hiddenSecrets(allProtect)
	others := existingDirs(s.Hide)
	secretDirs = append(secretDirs, others...)
	// The folders above another agent's query folder are pinned too: one
	// moved away, with a new query folder made in its place, is what the
	// console watches (the parents of protected files are, pinsAbove).
	pins = append(pins, pinsAbove(others)...)
	senv := sandboxEnv(env)
	cfg := shimConfig{Path: path, Args: argv, Env: senv, Dir: dir, Cols: cols, Rows: rows,
		Grace: s.Grace, Hide: append(h.dirs, secretDirs...), HideFile: append(h.files, secretFiles...), ReadOnly: h.readOnly, Protect: protect, Pin: parentsFirst(append(pins, h.pins...)),
		KeepSockets: h.keep, Binds: append(goCacheBinds(senv), s.Binds...), Watch: watchable(allProtect), WatchHidden: secretFiles, WatchOthers: watchable(s.Others),
		WatchGuarded: guardedOf(s.Guarded, watchable(allProtect))}
	cmd, ctl, master, tty, err := startSandbox(cfg, a.guarded)
	if err != nil {
		return nil, fmt.Errorf("%w: agent %q: in its sandbox: %w", ErrSpawn, s.Name, err)
	}
	var notes []string
	if left := append(append([]string(nil), h.kept...), h.left...); len(left) > 0 {
		notes = append(notes, "not hidden: "+strings.Join(left, ", "))
	}
	if ctl.note != "" {
		notes = append(notes, ctl.note)
	}
	if len(notes) > 0 {
		isolation += "; " + strings.Join(notes, "; ")
	}
	return a.started(cmd, master, tty, ctl, isolation), nil
}

// terminate asks the process to end: SIGTERM to its session, or for a
// sandbox to its init, which passes it to every process of the namespace
// (those that left the session too), each once.
func (p *proc) terminate() {
	if p.sandbox != nil {
		_ = syscall.Kill(p.pid, syscall.SIGTERM)
		return
	}
	signalSession(p.pid, syscall.SIGTERM)
}

// --- The shim -------------------------------------------------------------

// shimMain is the shim's whole life; it returns the exit status.
func shimMain() int {
	name := []byte("tl-sandbox\x00")
	_ = unix.Prctl(unix.PR_SET_NAME, uintptr(unsafe.Pointer(&name[0])), 0, 0, 0)
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	cfgFile := os.NewFile(4, "config")
	data, err := io.ReadAll(cfgFile)
	cfgFile.Close()
	var cfg shimConfig
	if err == nil {
		err = json.Unmarshal(data, &cfg)
	}
	if err == nil && cfg.Stdio {
		return shimStdio(cfg)
	}
	ctlFile := os.NewFile(3, "sandbox")
	fc, ferr := net.FileConn(ctlFile)
	ctlFile.Close()
	if ferr != nil {
		fmt.Fprintln(os.Stderr, "teamlead sandbox: no socket to the console:", ferr)
		return 125
	}
	ctl := fc.(*net.UnixConn)
	fail := func(err error) int {
		_, _ = ctl.Write([]byte("error " + err.Error()))
		return 125
	}
	if err != nil {
		return fail(fmt.Errorf("read its configuration: %w", err))
	}
	if os.Getpid() != 1 {
		return fail(errors.New("its init is not the first process of a new PID namespace"))
	}
	if err := shimMounts(cfg); err != nil {
		return fail(err)
	}
	master, slave, err := shimPTY(cfg.Cols, cfg.Rows)
	if err != nil {
		return fail(fmt.Errorf("open a terminal in its own devpts: %w", err))
	}
	if err := unix.IoctlSetInt(slave, unix.TIOCSCTTY, 0); err != nil {
		return fail(fmt.Errorf("make its terminal the session's: %w", err))
	}
	rp, err := openRepin()
	if err != nil {
		return fail(err)
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs)
	note := landlockScope()
	uid, gid := os.Getuid(), os.Getgid()
	pid, gate, unguarded, err := startGuarded(cfg.Path, cfg.Args, &syscall.ProcAttr{
		Dir: cfg.Dir, Env: cfg.Env, Files: []uintptr{uintptr(slave), uintptr(slave), uintptr(slave)},
		Sys: &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
			Foreground:  true, Ctty: slave,
		},
	})
	if err != nil {
		return fail(fmt.Errorf("start %s in %s: %w", cfg.Path, cfg.Dir, err))
	}
	msg := "ready " + strconv.Itoa(pid)
	if note = joinNotes(note, unguardedNote(unguarded)); note != "" {
		msg += " " + note
	}
	if _, _, err := ctl.WriteMsgUnix([]byte(msg), unix.UnixRights(master, slave), nil); err != nil {
		// The console is gone: the program runs on, as it would have.
		fmt.Fprintln(os.Stderr, "teamlead sandbox: passing the terminal:", err)
	}
	unix.Close(master)
	unix.Close(slave)
	tell := func(s string) { _, _ = ctl.Write([]byte("note " + s)) }
	gate.start(envValue(cfg.Env, "TEAMLEAD_SOCKET"), tell)
	rp.begin(cfg.Watch, cfg.WatchHidden, cfg.WatchOthers, cfg.WatchGuarded, tell)
	go watchLateSockets(cfg.KeepSockets, cfg.Hide, tell)
	go shimListen(ctl, rp)
	ws := shimWait(pid, cfg.Grace, sigs, func(ws syscall.WaitStatus) {
		_, _ = ctl.Write([]byte("exit " + strconv.FormatUint(uint64(ws), 10)))
	})
	return shimExitStatus(ws)
}

// shimExitStatus is the shim's own exit status for its program's: the same
// code, 128+N for a signal N, as a shell would say.
func shimExitStatus(ws syscall.WaitStatus) int {
	switch {
	case ws.Exited():
		return ws.ExitStatus()
	case ws.Signaled():
		return 128 + int(ws.Signal())
	}
	return 125
}

// shimStdio is the shim of a program started with Isolate: no terminal of
// its own and no socket to the console; the program has the shim's
// standard streams, and the shim's exit status is the program's (125
// with a word on stderr when the sandbox could not be made).
func shimStdio(cfg shimConfig) int {
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "teamlead sandbox:", err)
		return 125
	}
	if os.Getpid() != 1 {
		return fail(errors.New("its init is not the first process of a new PID namespace"))
	}
	if err := shimMounts(cfg); err != nil {
		return fail(err)
	}
	rp, err := openRepin()
	if err != nil {
		return fail(err)
	}
	sigs := make(chan os.Signal, 64)
	signal.Notify(sigs)
	_ = landlockScope()
	uid, gid := os.Getuid(), os.Getgid()
	pid, gate, unguarded, err := startGuarded(cfg.Path, cfg.Args, &syscall.ProcAttr{
		Dir: cfg.Dir, Env: cfg.Env, Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{
			Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
			Setsid:      true,
		},
	})
	if err != nil {
		return fail(fmt.Errorf("start %s in %s: %w", cfg.Path, cfg.Dir, err))
	}
	tell := func(s string) { fmt.Fprintln(os.Stderr, "teamlead sandbox:", strings.ReplaceAll(s, "\t", " ")) }
	if unguarded != "" {
		tell(unguardedNote(unguarded))
	}
	gate.start(envValue(cfg.Env, "TEAMLEAD_SOCKET"), tell)
	rp.begin(cfg.Watch, cfg.WatchHidden, nil, nil, tell)
	go watchLateSockets(cfg.KeepSockets, cfg.Hide, tell)
	return shimExitStatus(shimWait(pid, cfg.Grace, sigs, func(syscall.WaitStatus) {}))
}

// isolateInSandbox makes cmd start its program in a sandbox of its own, as
// an agent's (Isolate), with cmd's standard streams; false, cmd
// unchanged, where it cannot.
func isolateInSandbox(cmd *exec.Cmd, protect []string) bool {
	if cmd.Err != nil || cmd.Path == "" || len(cmd.ExtraFiles) > 0 || cmd.SysProcAttr != nil || probeSandbox() != nil {
		return false
	}
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	env = dedupEnv(env)
	dir := cmd.Dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	h := sandboxHides(os.Getuid(), os.Environ(), env, []string{dir, cmd.Path})
	prot, pins, _ := protectable(protect, dir)
	secretDirs, secretFiles := hiddenSecrets(protect)
	cfg := shimConfig{Path: cmd.Path, Args: cmd.Args, Env: sandboxEnv(env), Dir: dir, Grace: time.Second,
		Hide: append(h.dirs, secretDirs...), HideFile: append(h.files, secretFiles...), ReadOnly: h.readOnly, Protect: prot, Pin: parentsFirst(append(pins, h.pins...)), Stdio: true,
		KeepSockets: h.keep, Watch: watchable(protect), WatchHidden: secretFiles}
	data, err := json.Marshal(cfg)
	if err != nil {
		return false
	}
	// The configuration goes in a memory file written before the start
	// (the shim reads it from its beginning), so that the caller's Start,
	// Run or Output needs nothing more of us, however long the lists of
	// what is hidden are (a pipe's buffer would bound them).
	fd, err := unix.MemfdCreate("teamlead-sandbox", unix.MFD_CLOEXEC)
	if err != nil {
		return false
	}
	r := os.NewFile(uintptr(fd), "config")
	_, err = r.Write(data)
	if err == nil {
		_, err = r.Seek(0, io.SeekStart)
	}
	null, nerr := os.Open(os.DevNull)
	if err != nil || nerr != nil {
		r.Close()
		if null != nil {
			null.Close()
		}
		return false
	}
	uid, gid := os.Getuid(), os.Getgid()
	cmd.Path, cmd.Args, cmd.Env, cmd.Dir = "/proc/self/exe", []string{shimArg0}, []string{"GORACE=atexit_sleep_ms=0"}, "/"
	cmd.ExtraFiles = []*os.File{null, r} // fd 3 unused here, fd 4 the configuration
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setsid:      true,
		Cloneflags:  sandboxNamespaces,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_SYS_PTRACE}, // ptrace: to look into every process (repin_linux.go)
	}
	return true
}

// sandboxNamespaces are the namespaces a sandbox's init starts in: its
// own users, mounts and processes, and its own System V IPC and POSIX
// message queues, which were the human's (red team 17b, finding 2: shared
// memory a program of yours reads).
const sandboxNamespaces = syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC

// shimMounts makes the sandbox's view of the file system.
func shimMounts(cfg shimConfig) error {
	// Nothing mounted here propagates back to the console's namespace
	// (nor would it: a namespace made in a new user namespace only
	// receives), and the host's later mounts still show here.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SLAVE, ""); err != nil {
		return fmt.Errorf("make / receive-only: %w", err)
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mount /proc for its PID namespace: %w", err)
	}
	if err := unix.Mount("devpts", "/dev/pts", "devpts", unix.MS_NOSUID|unix.MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620"); err != nil {
		return fmt.Errorf("mount a devpts of its own on /dev/pts: %w", err)
	}
	// In this order: the folders pinned above a protected path are bound
	// before it, so that its read-only bind is made in their mounts.
	for _, step := range []struct {
		paths []string
		mount func(string) error
	}{
		{cfg.Hide, func(p string) error { return mountOver(p, true) }},
		{cfg.HideFile, hideFile},
		{cfg.Pin, func(p string) error { return bindOver(p, false) }},
		{cfg.Protect, func(p string) error { return bindOver(p, true) }},
	} {
		for _, p := range step.paths {
			if err := step.mount(p); err != nil {
				return err
			}
		}
	}
	for _, r := range cfg.ReadOnly {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		if err := unix.MountSetattr(unix.AT_FDCWD, r, unix.AT_RECURSIVE, &attr); err != nil {
			return fmt.Errorf("make %s read-only: %w", r, err)
		}
	}
	if err := bindLayers(cfg.Binds); err != nil {
		return err
	}
	// Shared (and still receiving from the host): the program's namespace,
	// made in a nested user namespace, receives what is mounted here
	// later, the files pinned again (repin_linux.go).
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_SHARED, ""); err != nil {
		return fmt.Errorf("share its mounts with the program: %w", err)
	}
	return nil
}

// hideFile covers what is at path now, as the console listed it: a file
// (a socket, a secret, a terminal) with /dev/null, a folder put in its
// place with an empty tmpfs. Nothing is done where nothing is left to
// hide: it is gone (a server that ended) or a link (its target, if a
// socket, was listed itself), so that neither can keep a sandbox from
// starting.
func hideFile(path string) error {
	var st unix.Stat_t
	if err := unix.Lstat(path, &st); err == unix.ENOENT || err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return nil
	}
	return mountOver(path, st.Mode&unix.S_IFMT == unix.S_IFDIR)
}

// mountOver covers path, a folder (with an empty tmpfs) or a file (with
// /dev/null). The path is opened without following a last symbolic link
// and the mount made on the descriptor, so a link put there meanwhile
// cannot turn it elsewhere.
func mountOver(path string, dir bool) error {
	flags := unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC
	if dir {
		flags |= unix.O_DIRECTORY
	}
	fd, err := unix.Open(path, flags, 0)
	if err != nil {
		return fmt.Errorf("open %s to hide it: %w", path, err)
	}
	defer unix.Close(fd)
	target := "/proc/self/fd/" + strconv.Itoa(fd)
	if dir {
		err = unix.Mount("tmpfs", target, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0700")
	} else {
		err = unix.Mount("/dev/null", target, "", unix.MS_BIND, "")
	}
	if err != nil {
		return fmt.Errorf("hide %s: %w", path, err)
	}
	return nil
}

// bindOver binds path, a file or a folder, over itself, read-only if
// readOnly: a mount point cannot be renamed or removed, and a read-only one
// not written either. As in mountOver, the path is opened without following
// a last link and the mount made on the descriptor; the program's nested
// user namespace then locks the mount and its flags (MNT_LOCKED,
// MNT_LOCK_READONLY): it cannot unmount it or remount it writable.
func bindOver(path string, readOnly bool) error {
	// A file renamed over meanwhile (another agent writing its progress
	// file as this sandbox starts) fails the bind or leaves it on the old
	// file: the new one is protected instead.
	for try := 0; ; try++ {
		err := bindOverOnce(path, readOnly)
		if err == nil || try == 5 || !errors.Is(err, unix.ENOENT) && !errors.Is(err, unix.EINVAL) {
			return err
		}
	}
}

func bindOverOnce(path string, readOnly bool) error {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err == unix.ENOENT {
		// Gone since the console listed it (another console's state
		// folder removed meanwhile): nothing left there to protect.
		return nil
	}
	if err != nil {
		return fmt.Errorf("open %s to protect it: %w", path, err)
	}
	defer unix.Close(fd)
	target := "/proc/self/fd/" + strconv.Itoa(fd)
	if err := unix.Mount(target, target, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
		return fmt.Errorf("protect %s: %w", path, err)
	}
	if !readOnly {
		return nil
	}
	// fd is the file below the new mount; the mount is what path opens now.
	top, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s to protect it: %w", path, err)
	}
	defer unix.Close(top)
	attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(top, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr); err != nil {
		return fmt.Errorf("make %s read-only: %w", path, err)
	}
	return nil
}

// bindLayers binds each of binds over itself (or its From at it), parents first: a read-only
// one with every mount it holds, a writable one from where it was
// writable before any was bound (its source is opened first, so that it
// does not come from a read-only parent bound meanwhile). As in bindOver
// the last component of a path is not followed; one missing is skipped.
func bindLayers(binds []Bind) error {
	sorted := append([]Bind(nil), binds...)
	sort.SliceStable(sorted, func(i, j int) bool {
		return strings.Count(filepath.Clean(sorted[i].Path), "/") < strings.Count(filepath.Clean(sorted[j].Path), "/")
	})
	open := func(path string) (int, error) {
		fd, err := unix.Open(path, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return -1, err
		}
		// A folder, or a file (worktree.Tree.links); never a link, which
		// the bind would follow.
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil || (st.Mode&unix.S_IFMT != unix.S_IFDIR && st.Mode&unix.S_IFMT != unix.S_IFREG) {
			unix.Close(fd)
			return -1, fmt.Errorf("not a folder or file")
		}
		return fd, nil
	}
	sources := make([]int, len(sorted))
	for i := range sources {
		sources[i] = -1
	}
	defer func() {
		for _, fd := range sources {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	// Each source is copied (open_tree) before anything is bound, with the
	// mounts it holds then: a bind made later on top of one (a pin of the
	// repository's objects, then the agent's own objects over it) would
	// otherwise come along with a recursive bind of it, and the repository's
	// objects shown at info/main were the agent's own again. Kernels before
	// 5.2 bind the source as it is when its turn comes.
	trees := make([]bool, len(sorted))
	for i, b := range sorted {
		from := b.Path
		if b.From != "" {
			from = b.From
		}
		fd, err := open(from)
		if err == unix.ENOENT {
			continue
		}
		if err != nil {
			return fmt.Errorf("open %s to bind it: %w", from, err)
		}
		if tree, err := unix.OpenTree(fd, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_RECURSIVE|unix.AT_EMPTY_PATH); err == nil {
			unix.Close(fd)
			fd, trees[i] = tree, true
		} else if err != unix.ENOSYS {
			unix.Close(fd)
			return fmt.Errorf("copy %s to bind it: %w", from, err)
		}
		sources[i] = fd
	}
	for i, b := range sorted {
		if sources[i] < 0 {
			continue
		}
		target, err := open(b.Path)
		if err != nil {
			return fmt.Errorf("open %s to bind it: %w", b.Path, err)
		}
		if trees[i] {
			err = unix.MoveMount(sources[i], "", target, "", unix.MOVE_MOUNT_F_EMPTY_PATH|unix.MOVE_MOUNT_T_EMPTY_PATH)
		} else {
			src, dst := "/proc/self/fd/"+strconv.Itoa(sources[i]), "/proc/self/fd/"+strconv.Itoa(target)
			err = unix.Mount(src, dst, "", unix.MS_BIND|unix.MS_REC, "")
		}
		unix.Close(target)
		if err != nil {
			return fmt.Errorf("bind %s: %w", b.Path, err)
		}
		if b.Writable {
			continue
		}
		top, err := open(b.Path)
		if err != nil {
			return fmt.Errorf("open %s to make it read-only: %w", b.Path, err)
		}
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
		err = unix.MountSetattr(top, "", unix.AT_EMPTY_PATH|unix.AT_RECURSIVE, &attr)
		unix.Close(top)
		if err != nil {
			return fmt.Errorf("make %s read-only: %w", b.Path, err)
		}
	}
	return nil
}

// shimPTY opens a terminal in the devpts mounted at /dev/pts.
func shimPTY(cols, rows uint16) (master, slave int, err error) {
	master, err = unix.Open("/dev/pts/ptmx", unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, -1, err
	}
	if err := unix.IoctlSetPointerInt(master, unix.TIOCSPTLCK, 0); err != nil {
		unix.Close(master)
		return -1, -1, fmt.Errorf("unlock: %w", err)
	}
	r, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(master), unix.TIOCGPTPEER, unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC)
	if errno != 0 {
		// Before Linux 4.13: by its name.
		n, err := unix.IoctlGetInt(master, unix.TIOCGPTN)
		if err != nil {
			unix.Close(master)
			return -1, -1, err
		}
		fd, err := unix.Open("/dev/pts/"+strconv.Itoa(n), unix.O_RDWR|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
		if err != nil {
			unix.Close(master)
			return -1, -1, err
		}
		r = uintptr(fd)
	}
	slave = int(r)
	if cols == 0 || rows == 0 {
		cols, rows = defaultCols, defaultRows
	}
	if err := unix.IoctlSetWinsize(slave, unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows}); err != nil {
		unix.Close(master)
		unix.Close(slave)
		return -1, -1, fmt.Errorf("set its size: %w", err)
	}
	return master, slave, nil
}

// landlockScope keeps what this thread starts from connecting to abstract
// Unix sockets made outside (an X server's @/tmp/.X11-unix/X0, a session
// bus at an abstract address, a terminal's remote control) and from
// signalling processes outside (Linux 6.12+, Landlock ABI 6). It returns
// "" or why it could not.
func landlockScope() string {
	const why = "abstract sockets of your session stay reachable: "
	abi, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, unix.LANDLOCK_CREATE_RULESET_VERSION)
	if errno != 0 {
		return why + "no Landlock in this kernel (" + errno.Error() + ")"
	}
	if abi < 6 {
		return why + "this kernel's Landlock (ABI " + strconv.Itoa(int(abi)) + ") has no scopes (Linux 6.12+)"
	}
	attr := struct{ fs, net, scoped uint64 }{scoped: unix.LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | unix.LANDLOCK_SCOPE_SIGNAL}
	fd, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if errno != 0 {
		return why + "Landlock refused the ruleset (" + errno.Error() + ")"
	}
	defer unix.Close(int(fd))
	if _, _, errno := unix.Syscall(unix.SYS_LANDLOCK_RESTRICT_SELF, fd, 0, 0); errno != 0 {
		return why + "Landlock refused it (" + errno.Error() + ")"
	}
	return ""
}

// shimWait is the init's loop: it reaps every process that ends in the
// namespace, passes signals on, and once the agent's program (pid) has
// exited, says so (report) and ends the rest (SIGTERM, then grace). It
// returns the program's wait status.
func shimWait(pid int, grace time.Duration, sigs <-chan os.Signal, report func(syscall.WaitStatus)) syscall.WaitStatus {
	said := false
	var status syscall.WaitStatus
	exited, termed := false, false
	var deadline <-chan time.Time
	tick := time.NewTicker(time.Second) // a backstop for a coalesced SIGCHLD
	defer tick.Stop()
	// reap waits for every child that has ended; more is false once none
	// is left.
	reap := func() (more bool) {
		for {
			var ws syscall.WaitStatus
			p, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
			switch {
			case err == syscall.EINTR:
				continue
			case err != nil:
				return false
			case p == 0:
				return true
			case p == pid:
				status, exited = ws, true
			}
		}
	}
	for {
		more := reap()
		if exited && !said {
			said = true
			report(status)
		}
		if exited {
			if !more {
				return status
			}
			if deadline == nil {
				if !termed {
					_ = syscall.Kill(-1, syscall.SIGTERM)
					termed = true
				}
				deadline = time.After(grace)
			}
		}
		select {
		case s := <-sigs:
			switch s {
			case syscall.SIGTERM:
				if !termed {
					_ = syscall.Kill(-1, syscall.SIGTERM)
					termed = true
				}
			case syscall.SIGHUP:
				_ = syscall.Kill(-1, syscall.SIGHUP)
				_ = syscall.Kill(-1, syscall.SIGCONT)
			case syscall.SIGINT, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2:
				if !exited {
					_ = syscall.Kill(pid, s.(syscall.Signal))
				}
			}
		case <-tick.C:
		case <-deadline:
			return status
		}
	}
}
