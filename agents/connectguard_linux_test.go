//go:build linux

package agents

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guardTestModes runs, and exits, the test binary in a mode the connect
// guard's tests start it in.
func guardTestModes() {
	if rel := os.Getenv("AGENTS_TEST_DGRAM_SERVE"); rel != "" {
		os.Exit(serveDatagrams(rel))
	}
	if args := os.Getenv("AGENTS_TEST_SENDS"); args != "" {
		os.Exit(trySends(args))
	}
	if args := os.Getenv("AGENTS_TEST_HANDOVER"); args != "" {
		typ, name, _ := strings.Cut(args, " ")
		os.Exit(handOver(typ, name))
	}
	if args := os.Getenv("AGENTS_TEST_IPC"); args != "" {
		os.Exit(tryIPC(args))
	}
	if os.Getenv("AGENTS_TEST_BLOCKED") != "" {
		os.Exit(blockedConnect())
	}
	if os.Getenv("AGENTS_TEST_ESCAPES") != "" {
		// Run by an agent of TestConnectGuardRefusesWhatGetsRoundIt.
		os.Exit(tryGuardEscapes())
	}
}

// listenOutside starts a server of the test's (the human's) on a Unix
// socket, bound by the relative name rel in dir as a program started
// there binds it (/proc/net/unix then shows no folder), and returns the
// socket's path and a channel that hears each connection.
func listenOutside(t *testing.T, dir, rel string) (string, <-chan struct{}) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	heard := make(chan struct{}, 64)
	cmd := exec.Command(self)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AGENTS_TEST_LISTEN="+rel)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		b := make([]byte, 64)
		for {
			n, err := out.Read(b)
			for i := 0; i < strings.Count(string(b[:n]), "accepted"); i++ {
				heard <- struct{}{}
			}
			if err != nil {
				return
			}
		}
	}()
	p := filepath.Join(dir, rel)
	deadline := time.Now().Add(waitTimeout)
	for st, err := os.Stat(p); err != nil || st.Mode()&os.ModeSocket == 0; st, err = os.Stat(p) {
		if time.Now().After(deadline) {
			t.Fatalf("the test's server did not listen on %s", p)
		}
		time.Sleep(10 * time.Millisecond)
	}
	return p, heard
}

// An agent reaches no server of yours by a Unix socket, wherever and
// however it was bound: one bound by a relative name (never hidden by
// its path), one that starts while the agent runs (dialled at once, in a
// loop, before any cover could come: red team 16a, findings 1 and 2), nor
// through a link to it; it reaches its own servers, by any name, the
// console's socket and TCP. Each refusal is told to the console.
func TestConnectGuardRefusesYourServers(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	work, state, rel := filepath.Join(tmp, "work"), filepath.Join(tmp, "state"), filepath.Join(tmp, "rel")
	for _, d := range []string{work, state, rel} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	before, heardBefore := listenOutside(t, rel, "before.sock")
	if err := os.Symlink(before, filepath.Join(work, "link.sock")); err != nil {
		t.Fatal(err)
	}
	console := filepath.Join(state, "teamlead.sock")
	cl, err := net.Listen("unix", console)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	go func() {
		for {
			c, err := cl.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 16))
			c.Close()
		}
	}()
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	go func() {
		for {
			c, err := tcp.Accept()
			if err != nil {
				return
			}
			_, _ = c.Read(make([]byte, 16))
			c.Close()
		}
	}()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	late := filepath.Join(rel, "late.sock")
	started := filepath.Join(tmp, "started")
	script := fmt.Sprintf(`exec 2>&1
dial() { AGENTS_TEST_DIAL="$1" %[1]s >/dev/null 2>&1; }
held() { if dial "$1"; then echo "BREACH: dialled $1"; else echo "held: $1"; fi; }
held %[2]s
held link.sock
(cd %[3]s && held before.sock)
AGENTS_TEST_LISTEN=mine.sock %[1]s &
n=0; while [ ! -S mine.sock ] && [ $n -lt 400 ]; do sleep 0.02; n=$((n+1)); done
dial mine.sock && echo "dialled: mine"
ln -s mine.sock mylink.sock && dial mylink.sock && echo "dialled: mine by a link"
dial %[4]s && echo "dialled: console"
dial tcp:%[5]s && echo "dialled: tcp"
touch %[6]s
n=0; while [ ! -S %[7]s ] && [ $n -lt 2000 ]; do n=$((n+1)); done
n=0; while [ $n -lt 50 ]; do dial %[7]s && echo "BREACH: dialled the late socket"; n=$((n+1)); done
echo "held: late"
echo checked
`, self, before, rel, console, tcp.Addr(), started, late)
	rec := &recorder{}
	a := Start(Spec{Name: "guarded", Isolation: IsolationSandbox, Dir: work, Command: []string{"/bin/sh", "-c", script},
		Env: map[string]string{"TEAMLEAD_SOCKET": console}}, rec)
	defer a.Stop()
	eventually(t, "the agent reaches the late socket's turn", rec.diag, func() bool { _, err := os.Stat(started); return err == nil })
	_, heardLate := listenOutside(t, rel, "late.sock")
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("the agent did not end\n%s", rec.diag())
	}
	checkSandboxReport(t, rec.output(), "held: "+before, "held: link.sock", "held: before.sock", "dialled: mine", "dialled: mine by a link",
		"dialled: console", "dialled: tcp", "held: late")
	if len(heardBefore) > 0 || len(heardLate) > 0 {
		t.Errorf("your servers heard the agent: %d and %d connections", len(heardBefore), len(heardLate))
	}
	if g := rec.guards(); !strings.Contains(g, "connect "+before+": a server of yours outside the sandbox") || !strings.Contains(g, "connect "+late) {
		t.Errorf("the refusals were not told to the console:\n%s", g)
	}
}

// tryGuardEscapes is an agent's process trying to get round the connect
// guard: a seccomp listener of its own (whose notifications would come
// before the guard's), io_uring (whose connect is no syscall); it prints
// what each got and exits 0 when every one was refused.
func tryGuardEscapes() int {
	status := 0
	prog := []unix.SockFilter{{Code: bpfRetK, K: seccompRetAllow}}
	fprog := unix.SockFprog{Len: 1, Filter: &prog[0]}
	_ = unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
	if fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, uintptr(unsafe.Pointer(&fprog))); errno == 0 {
		fmt.Println("BREACH: a seccomp listener of its own:", fd)
		status = 1
	} else {
		fmt.Println("held: listener:", errno)
	}
	var params [120]byte
	if fd, _, errno := unix.Syscall(ioUringSetup, 4, uintptr(unsafe.Pointer(&params[0])), 0); errno == 0 {
		fmt.Println("BREACH: io_uring:", fd)
		status = 1
	} else {
		fmt.Println("held: io_uring:", errno)
	}
	// A filter without a listener is still the agent's to add.
	if _, _, errno := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, 0, uintptr(unsafe.Pointer(&fprog))); errno != 0 {
		fmt.Println("a plain filter refused:", errno)
		status = 1
	}
	return status
}

// What would get round the guard is refused: a seccomp listener of the
// agent's own, io_uring; a plain filter of its own is not.
func TestConnectGuardRefusesWhatGetsRoundIt(t *testing.T) {
	needSandbox(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runSandboxed(t.TempDir(), "AGENTS_TEST_ESCAPES=1 "+self+" && echo checked")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "held: listener: operation not permitted", "held: io_uring: function not implemented")
}
