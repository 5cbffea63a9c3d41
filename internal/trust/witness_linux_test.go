//go:build linux

package trust

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// The test binary doubles as the processes under test: with
// TRUST_TEST_DIAL set it connects to that socket and waits for stdin to
// close; with TRUST_TEST_DETACH it starts itself again detached (a double
// fork through setsid) and exits, the detached copy dialling.
func TestMain(m *testing.M) {
	if path := os.Getenv("TRUST_TEST_DIAL"); path != "" {
		c, err := net.Dial("unix", path)
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(1)
		}
		defer c.Close()
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n')
		_, _ = c.Read(make([]byte, 1)) // until the test closes its side
		os.Exit(0)
	}
	if path := os.Getenv("TRUST_TEST_SERVE_BELOW"); path != "" {
		// A teamlead-like process (this executable) starting the stand-in:
		// a console's agent, as the CLI sees it.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "TRUST_TEST_SERVE="+path, "TRUST_TEST_SERVE_BELOW=")
		cmd.Stdout = os.Stdout
		// Gone with this process, which the test kills: the stand-in
		// outlived every test run, listening.
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		_ = cmd.Run()
		os.Exit(0)
	}
	if path := os.Getenv("TRUST_TEST_SERVE"); path != "" {
		// A process listening where a console's socket was: an agent's
		// stand-in for the console.
		ln, err := net.Listen("unix", path)
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(1)
		}
		fmt.Println("listening")
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(0)
			}
			fmt.Fprintln(c, `{"end":true}`)
			c.Close()
		}
	}
	if path := os.Getenv("TRUST_TEST_DETACH"); path != "" {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "TRUST_TEST_DIAL="+path, "TRUST_TEST_DETACH=")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println("detach:", err)
			os.Exit(1)
		}
		os.Exit(0) // the child is orphaned at once
	}
	os.Exit(m.Run())
}

// listen returns a socket and a channel of accepted connections.
func listen(t *testing.T) (string, <-chan *net.UnixConn) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.sock")
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	ch := make(chan *net.UnixConn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			ch <- c.(*net.UnixConn)
		}
	}()
	return path, ch
}

func accept(t *testing.T, ch <-chan *net.UnixConn) *net.UnixConn {
	t.Helper()
	select {
	case c := <-ch:
		t.Cleanup(func() { c.Close() })
		return c
	case <-time.After(20 * time.Second):
		t.Fatal("no connection within 20s")
		return nil
	}
}

// dialer starts the test binary as a client of path with extra env and
// SysProcAttr; it stays connected until the test ends.
func dialer(t *testing.T, env string, attr *syscall.SysProcAttr) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), env)
	cmd.SysProcAttr = attr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

func TestChildIsContained(t *testing.T) {
	path, ch := listen(t)
	child := dialer(t, "TRUST_TEST_DIAL="+path, nil)
	w := NewWitness(func(pid int) string {
		if pid == child.Process.Pid {
			return "dev"
		}
		return ""
	})
	got := w.Identify(accept(t, ch))
	if !got.Contained || got.Human() || got.Agent != "dev" || got.Pid != child.Process.Pid {
		t.Fatalf("a child of the console: %+v", got)
	}
	if !strings.Contains(got.Why, "descends from the console") {
		t.Errorf("why: %q", got.Why)
	}
	if len(got.Chain) < 2 || got.Chain[len(got.Chain)-1].Pid != os.Getpid() {
		t.Errorf("chain %s does not end at the console %d", got.ChainString(), os.Getpid())
	}
}

// A process detached with a double fork and setsid is reparented to the
// subreaper — this test process — and still found below it.
func TestDetachedIsContained(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatalf("subreaper: %v", err)
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
	path, ch := listen(t)
	first := exec.Command(os.Args[0])
	first.Env = append(os.Environ(), "TRUST_TEST_DETACH="+path)
	if out, err := first.CombinedOutput(); err != nil {
		t.Fatalf("detach: %v %s", err, out)
	}
	c := accept(t, ch)
	w := NewWitness(nil)
	got := w.Identify(c)
	t.Cleanup(func() {
		if got.Pid > 0 {
			_ = syscall.Kill(got.Pid, syscall.SIGKILL)
			var ws unix.WaitStatus
			_, _ = unix.Wait4(got.Pid, &ws, 0, nil)
		}
	})
	if !got.Contained || got.Agent != "" {
		t.Fatalf("a detached process: %+v", got)
	}
	if len(got.Chain) != 2 || got.Chain[1].Pid != os.Getpid() {
		t.Errorf("chain %s: want the process, then the console (reparented)", got.ChainString())
	}
}

// A process in another user namespace is contained even when it does not
// descend from the console (here: it is told by a witness for another
// pid as the console).
func TestOtherUserNamespaceIsContained(t *testing.T) {
	if _, err := os.Stat("/proc/self/ns/user"); err != nil {
		t.Skip("no user namespaces here")
	}
	path, ch := listen(t)
	uid, gid := os.Getuid(), os.Getgid()
	child := dialer(t, "TRUST_TEST_DIAL="+path, &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}})
	c := accept(t, ch)
	w := NewWitness(nil)
	w.console = 1 << 30 // no process: only the namespace can tell
	got := w.Identify(c)
	if !got.Contained || !strings.Contains(got.Why, "another user namespace") || got.Pid != child.Process.Pid {
		t.Fatalf("a process in another user namespace: %+v", got)
	}
}

// The test's own parent does not descend from this process: the human.
func TestNotADescendantIsTheHuman(t *testing.T) {
	w := NewWitness(nil)
	got := w.identify(os.Getppid(), func() bool { return true })
	if got.Contained {
		t.Fatalf("the test's parent: %+v", got)
	}
	if got.Human() != true || !strings.Contains(got.Why, "does not descend") {
		t.Errorf("%+v", got)
	}
}

func TestUnidentifiableIsContained(t *testing.T) {
	w := NewWitness(nil)
	for name, c := range map[string]Caller{
		"no pid":  w.identify(0, func() bool { return true }),
		"exited":  w.identify(os.Getppid(), func() bool { return false }),
		"no proc": w.identify(1<<30, func() bool { return true }),
	} {
		if !c.Contained {
			t.Errorf("%s: %+v", name, c)
		}
	}
	if c := w.identify(os.Getpid(), func() bool { return true }); c.Contained {
		t.Errorf("the console itself: %+v", c)
	}
}

func TestReadStatOddCommand(t *testing.T) {
	// A command name with spaces and parentheses does not shift the fields.
	dir := t.TempDir()
	exe := filepath.Join(dir, "a) b (c")
	self, _ := os.Executable()
	if err := os.Symlink(self, exe); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TRUST_TEST_DIAL=/nonexistent")
	stdin, _ := cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	s, err := readStat(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	if s.ppid != os.Getpid() || s.comm != "a) b (c" {
		t.Errorf("stat %+v", s)
	}
	if me, _ := readStat(os.Getpid()); me.start > s.start {
		t.Errorf("child started %d before its parent %d", s.start, me.start)
	}
}

// serveFake starts the test binary as a server on a new socket, with
// attr (a user namespace, or nothing), and returns the socket's path;
// below, it is started by another copy of the test binary.
func serveFake(t *testing.T, attr *syscall.SysProcAttr, below bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "teamlead.sock")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "TRUST_TEST_SERVE="+path)
	if below {
		cmd.Env = append(os.Environ(), "TRUST_TEST_SERVE_BELOW="+path)
	}
	cmd.SysProcAttr = attr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start the stand-in server here: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, _ := bufio.NewReader(out).ReadString('\n')
	if line != "listening\n" {
		t.Fatalf("stand-in server: %q", line)
	}
	return path
}

func dialUnix(t *testing.T, path string) *net.UnixConn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.(*net.UnixConn)
}

// TestVerifyServerRefusesAStandIn: the human's CLI refuses a socket served
// by a process in another user namespace (an agent's), and one served by a
// process that descends from teamlead (here the test binary plays the
// console, and its child the agent's stand-in); a console itself passes.
func TestVerifyServerRefusesAStandIn(t *testing.T) {
	if InsideAgent() != "" {
		t.Skip("the test runs inside an agent: the check is off there")
	}
	// In an agent's user namespace.
	uid, gid := os.Getuid(), os.Getgid()
	path := serveFake(t, &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}}, false)
	if err := VerifyServer(dialUnix(t, path)); err == nil || !strings.Contains(err.Error(), "another user namespace") {
		t.Errorf("a server in another user namespace: %v", err)
	}
	// Below teamlead (another copy of the test binary counts as this
	// teamlead executable).
	path = serveFake(t, nil, true)
	if err := VerifyServer(dialUnix(t, path)); err == nil || !strings.Contains(err.Error(), "descends from teamlead") {
		t.Errorf("a server below teamlead: %v", err)
	}
	// A console this process started itself (a test harness does): ours.
	path = serveFake(t, nil, false)
	if err := VerifyServer(dialUnix(t, path)); err != nil {
		t.Errorf("a console started by the CLI's own process refused: %v", err)
	}
	// The console itself: a listener of this very process.
	own, _ := listen(t)
	if err := VerifyServer(dialUnix(t, own)); err != nil {
		t.Errorf("the console refused: %v", err)
	}
}

// TestInsideAgentSeesNestedNamespaces: a namespace made inside an agent's
// maps one user to whatever it likes ("5 0 1"); teamlead run must still
// refuse to start there.
func TestInsideAgentSeesNestedNamespaces(t *testing.T) {
	if os.Getenv("TRUST_TEST_INSIDE") == "1" {
		fmt.Print(InsideAgent())
		os.Exit(0)
	}
	uid, gid := os.Getuid(), os.Getgid()
	for _, to := range []int{uid, 5} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestInsideAgentSeesNestedNamespaces$")
		cmd.Env = append(os.Environ(), "TRUST_TEST_INSIDE=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: to, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: to, HostID: gid, Size: 1}}}
		out, err := cmd.Output()
		if err != nil {
			t.Skipf("no user namespaces here: %v", err)
		}
		if !strings.Contains(string(out), "maps a single user") {
			t.Errorf("mapped to %d: InsideAgent() = %q, want a refusal", to, out)
		}
	}
}
