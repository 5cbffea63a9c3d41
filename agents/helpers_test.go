package agents

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// mockPath is the mockagent binary built for the tests.
var mockPath string

func TestMain(m *testing.M) {
	if os.Getenv("AGENTS_TEST_PROBE_USERNS") != "" {
		// Run as another user by TestUserNamespaceForAnUnprivilegedUser.
		os.Exit(probeAsAnotherUser())
	}
	guardTestModes() // a mode of the connect guard's tests (Linux)
	if path := os.Getenv("AGENTS_TEST_DIAL"); path != "" {
		// Run by an agent of TestSandboxProtectsTeamleadsFiles: reach
		// the control socket (or, as tcp:HOST:PORT, a TCP server).
		network := "unix"
		if addr, ok := strings.CutPrefix(path, "tcp:"); ok {
			network, path = "tcp", addr
		}
		// From a thread other than the process's first, as a Go
		// program's goroutines dial: the connect guard is told the
		// thread's id.
		runtime.LockOSThread()
		done := make(chan error)
		go func() {
			c, err := net.Dial(network, path)
			if err == nil {
				_, err = c.Write([]byte("hello\n"))
				c.Close()
			}
			done <- err
		}()
		err := <-done
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if path := os.Getenv("AGENTS_TEST_LISTEN"); path != "" {
		// Run by an agent of TestSandboxHidesSocketsThatAppearLater: a
		// server of the agent's own, outside its folder.
		ln, err := net.Listen("unix", path)
		if err != nil {
			fmt.Println("listen:", err)
			os.Exit(1)
		}
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(1)
			}
			fmt.Println("accepted")
			_, _ = c.Read(make([]byte, 16))
			c.Close()
		}
	}
	if path := os.Getenv("AGENTS_TEST_PARK"); path != "" {
		os.Exit(parkWriter(path))
	}
	dir, err := os.MkdirTemp("", "agents-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mockPath = filepath.Join(dir, "mockagent")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(goTool, "build", "-o", mockPath, "github.com/teamlead/teamlead/cmd/mockagent")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "building mockagent: %v\n%s", err, out)
		os.Exit(1)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// waitTimeout bounds every wait in these tests; generous for a loaded
// machine running with -race.
const waitTimeout = 30 * time.Second

// eventually waits until cond holds, failing the test at the deadline with
// what and the diagnostics diag returns.
func eventually(t *testing.T, what string, diag func() string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			msg := ""
			if diag != nil {
				msg = diag()
			}
			t.Fatalf("timed out after %v waiting for %s\n%s", waitTimeout, what, msg)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitDone waits for the agent to be done.
func waitDone(t *testing.T, a *Agent, rec *recorder) {
	t.Helper()
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("agent %s not done after %v\n%s", a.Name(), waitTimeout, rec.diag())
	}
}

// recorder is a Sink keeping everything.
type recorder struct {
	mu     sync.Mutex
	out    []byte
	echo   []byte // what the console drew as the terminal's echo (EchoSink)
	events []StateEvent
	// outAtEvent is len(out) when each event arrived.
	outAtEvent []int
	guarded    []string // what the sandbox said it did (GuardSink)
}

func (r *recorder) Guarded(agent, what, path, detail string) {
	r.mu.Lock()
	r.guarded = append(r.guarded, what+" "+path+": "+detail)
	r.mu.Unlock()
}

// guards is what the sandbox said it did to keep teamlead's files read-only.
func (r *recorder) guards() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.guarded, "\n")
}

func (r *recorder) Output(agent string, data []byte) {
	r.mu.Lock()
	r.out = append(r.out, data...)
	r.mu.Unlock()
}

func (r *recorder) Echo(agent string, data []byte) {
	r.mu.Lock()
	r.echo = append(r.echo, data...)
	r.mu.Unlock()
}

// echoed reports whether the echo the console drew contains s.
func (r *recorder) echoed(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Contains(r.echo, []byte(s))
}

func (r *recorder) State(ev StateEvent) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.outAtEvent = append(r.outAtEvent, len(r.out))
	r.mu.Unlock()
}

func (r *recorder) output() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return string(r.out)
}

func (r *recorder) evs() []StateEvent {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]StateEvent(nil), r.events...)
}

// has reports whether the output contains s.
func (r *recorder) has(s string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return bytes.Contains(r.out, []byte(s))
}

// count counts the events in state s.
func (r *recorder) count(s State) int {
	n := 0
	for _, ev := range r.evs() {
		if ev.State == s {
			n++
		}
	}
	return n
}

// last returns the last event.
func (r *recorder) last() StateEvent {
	evs := r.evs()
	if len(evs) == 0 {
		return StateEvent{}
	}
	return evs[len(evs)-1]
}

func (r *recorder) diag() string {
	var b strings.Builder
	for _, ev := range r.evs() {
		fmt.Fprintf(&b, "event: %s pid=%d exit=%d restarts=%d final=%v err=%q\n", ev.State, ev.Pid, ev.ExitCode, ev.Restarts, ev.Final, ev.Err)
	}
	fmt.Fprintf(&b, "output: %q\n", r.output())
	return b.String()
}

// start starts an agent stopped at the end of the test.
func start(t *testing.T, spec Spec) (*Agent, *recorder) {
	t.Helper()
	if spec.Name == "" {
		spec.Name = "test"
	}
	rec := &recorder{}
	a := Start(spec, rec)
	t.Cleanup(a.Stop)
	return a, rec
}

// mock returns the argv running mockagent with flags and script.
func mock(script string, flags ...string) []string {
	return append(append([]string{mockPath}, flags...), "-e", script)
}

// fileIs waits until the file at path holds exactly want.
func fileIs(t *testing.T, path, want string, rec *recorder) {
	t.Helper()
	var got []byte
	eventually(t, fmt.Sprintf("%s to hold %q", filepath.Base(path), want),
		func() string { return fmt.Sprintf("file: %q\n%s", got, rec.diag()) },
		func() bool {
			got, _ = os.ReadFile(path)
			return string(got) == want
		})
}

// pidAfter extracts the number after prefix in the output.
func pidAfter(t *testing.T, rec *recorder, prefix string) int {
	t.Helper()
	var pid int
	eventually(t, "a pid after "+prefix, rec.diag, func() bool {
		out := rec.output()
		i := strings.Index(out, prefix)
		if i < 0 {
			return false
		}
		j := i + len(prefix)
		k := j
		for k < len(out) && out[k] >= '0' && out[k] <= '9' {
			k++
		}
		if k == j || k == len(out) {
			return false
		}
		pid, _ = strconv.Atoi(out[j:k])
		return true
	})
	return pid
}

// hostPid turns a pid an agent printed (its own view: in a sandbox, a pid
// of its PID namespace) into the console's view. The process must run.
func hostPid(t *testing.T, a *Agent, pid int) int {
	t.Helper()
	if !strings.HasPrefix(a.Info().Isolation, isolatedSandbox) {
		return pid
	}
	ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/pid", a.Info().Pid))
	if err != nil {
		t.Fatalf("the sandbox's PID namespace: %v", err)
	}
	d, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range d {
		host, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if other, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err != nil || other != ns {
			continue
		}
		b, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" && f[len(f)-1] == strconv.Itoa(pid) {
				return host
			}
		}
	}
	t.Fatalf("no process %d in the sandbox of %s", pid, a.Name())
	return 0
}

// gone reports whether pid no longer runs (a zombie nobody reaped counts
// as gone).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && (b[i+2] == 'Z' || b[i+2] == 'X')
}

// done is a Type callback recording its error.
type doneRec struct {
	ch chan error
}

func newDone() *doneRec { return &doneRec{ch: make(chan error, 1)} }

func (d *doneRec) fn(err error) { d.ch <- err }

func (d *doneRec) wait(t *testing.T, rec *recorder) error {
	t.Helper()
	select {
	case err := <-d.ch:
		return err
	case <-time.After(waitTimeout):
		t.Fatalf("Type's done not called after %v\n%s", waitTimeout, rec.diag())
		return nil
	}
}

// syscallKill kills pid.
func syscallKill(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

// parkWriter, run by an agent of TestSandboxStopsAParkedWriter, opens path
// for writing, sends the descriptor into a socket of its own, closes it,
// and waits: no process then shows the file open, and the descriptor can
// be taken out to write it at any time.
func parkWriter(path string) int {
	pair, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		fmt.Println("socketpair:", err)
		return 1
	}
	fd, err := syscall.Open(path, syscall.O_WRONLY, 0)
	if err != nil {
		fmt.Println("open:", err)
		return 1
	}
	if err := syscall.Sendmsg(pair[0], []byte{1}, syscall.UnixRights(fd), nil, 0); err != nil {
		fmt.Println("send:", err)
		return 1
	}
	syscall.Close(fd)
	fmt.Println("parked")
	time.Sleep(10 * time.Minute)
	return 0
}
