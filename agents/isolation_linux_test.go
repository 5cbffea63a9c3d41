//go:build linux

package agents

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
)

// An agent runs in a user namespace of its own by default (inside its
// sandbox), or alone with isolation: userns: its process's namespace is
// not the console's, and its running event says how it runs.
func TestAgentRunsInItsOwnUserNamespace(t *testing.T) {
	if probeUserNS() != nil {
		t.Skip("this kernel gives no user namespace here")
	}
	own, _ := os.Readlink("/proc/self/ns/user")
	for _, c := range []struct {
		mode Isolation
		want string
	}{{IsolationAuto, isolatedSandbox}, {IsolationUserNS, isolatedUserNS}} {
		t.Run(string(c.mode), func(t *testing.T) {
			if c.mode == IsolationAuto {
				needSandbox(t)
			}
			a, rec := start(t, Spec{Isolation: c.mode, Command: []string{"/bin/sh", "-c", "readlink /proc/self/ns/user; sleep 600"}})
			eventually(t, "the namespace printed", rec.diag, func() bool { return strings.Contains(rec.output(), "user:[") })
			if strings.Contains(rec.output(), own) {
				t.Errorf("the agent shares the console's user namespace %s", own)
			}
			if iso := a.Info().Isolation; !strings.HasPrefix(iso, c.want) {
				t.Errorf("isolation %q, want %q", iso, c.want)
			}
		})
	}
}

// A start that fails inside the sandbox or the user namespace is not
// retried with less: an agent could otherwise make its own folder
// unenterable from the namespace and come back, after a restart, less
// contained.
func TestNoFallbackWhenAStartFailsInTheNamespace(t *testing.T) {
	if os.Getuid() != 0 || probeUserNS() != nil {
		t.Skip("needs root (to own a folder as another user) and user namespaces")
	}
	for _, mode := range []Isolation{IsolationAuto, IsolationUserNS} {
		t.Run(string(mode), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "closed")
			if err := os.Mkdir(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.Chown(dir, 1500, 1500); err != nil {
				t.Fatal(err)
			}
			// Root outside the namespace may enter it; root inside may not.
			a, rec := start(t, Spec{Isolation: mode, Command: []string{"/bin/sh", "-c", "echo started; sleep 600"}, Dir: dir})
			eventually(t, "the agent to fail", rec.diag, func() bool {
				select {
				case <-a.Done():
					return true
				default:
					return false
				}
			})
			for _, ev := range rec.evs() {
				if ev.State == wire.StateRunning {
					t.Fatalf("started after all (isolation %q): %s", ev.Isolation, rec.diag())
				}
			}
		})
	}
}

// Where the kernel refuses the sandbox, isolation: auto runs the agent in
// a user namespace alone and its running record says why; isolation:
// sandbox fails to start and says why.
func TestAutoFallsBackWhenTheSandboxIsRefused(t *testing.T) {
	if probeUserNS() != nil {
		t.Skip("this kernel gives no user namespace here")
	}
	_ = probeSandbox()
	saved := sandboxProbe.err
	sandboxProbe.err = errors.New("mount /proc for its PID namespace: operation not permitted")
	t.Cleanup(func() { sandboxProbe.err = saved })

	a, rec := start(t, Spec{Command: []string{"/bin/sh", "-c", "readlink /proc/self/ns/pid; sleep 600"}})
	eventually(t, "the agent running", rec.diag, func() bool { return strings.Contains(rec.output(), "pid:[") })
	iso := a.Info().Isolation
	if !strings.HasPrefix(iso, isolatedUserNS+": the kernel refused the sandbox (mount /proc") {
		t.Errorf("isolation %q", iso)
	}
	if own, _ := os.Readlink("/proc/self/ns/pid"); !strings.Contains(rec.output(), own) {
		t.Errorf("the fallback has a PID namespace of its own: %q (the console's is %s)", rec.output(), own)
	}

	b, brec := start(t, Spec{Name: "strict", Isolation: IsolationSandbox, Command: []string{"/bin/sh", "-c", "echo started; sleep 600"}})
	waitDone(t, b, brec)
	ev := brec.last()
	if ev.State != wire.StateFailed || !strings.Contains(ev.Err, "isolation: sandbox: the kernel refuses it here") || brec.has("started") {
		t.Errorf("isolation: sandbox where it is refused: %+v\n%s", ev, brec.diag())
	}
}

// An unprivileged user gets a user namespace too (the console once made
// itself undumpable, which left its children's uid_map owned by root, and
// every agent of a non-root user ran without one), and the sandbox: its
// init keeps CAP_SYS_ADMIN in its own namespace across exec (an ambient
// capability) to mount, the agent keeps none, and the mounts hold.
func TestUserNamespaceForAnUnprivilegedUser(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("switching to another user needs root")
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "agents-userns")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "agents.test")
	src, _ := os.Open(self)
	dst, err := os.OpenFile(exe, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(dst, src)
	src.Close()
	dst.Close()
	for p := filepath.Dir(dir); p != "/"; p = filepath.Dir(p) {
		if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o001 == 0 {
			t.Skipf("%s is not searchable by another user", p)
		}
	}
	// A folder of nobody's own for its agent, and tmux's folder, which
	// the console makes for an agent's sandbox, removed after.
	scratch := filepath.Join(dir, "scratch")
	if err := os.Mkdir(scratch, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(scratch, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat("/tmp/tmux-65534"); err != nil {
		t.Cleanup(func() { _ = os.Remove("/tmp/tmux-65534") })
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "AGENTS_TEST_PROBE_USERNS=1", "TMPDIR="+scratch)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "probe: ok") {
		t.Fatalf("as nobody: %v %s", err, out)
	}
	if !strings.Contains(string(out), "sandbox: ok") {
		t.Fatalf("no sandbox as nobody:\n%s", out)
	}
	checkSandboxReport(t, string(out), "CapEff:\t0000000000000000")
}

// probeAsAnotherUser is the test binary's part in
// TestUserNamespaceForAnUnprivilegedUser, run as that user: the probes,
// then an agent in its sandbox trying to undo it.
func probeAsAnotherUser() int {
	if err := probeUserNS(); err != nil {
		fmt.Println("probe:", err)
		return 1
	}
	fmt.Println("probe: ok")
	if err := probeSandbox(); err != nil {
		fmt.Println("sandbox:", err)
		return 1
	}
	fmt.Println("sandbox: ok")
	out, err := runSandboxed(os.TempDir(), lockScript(os.TempDir())+"grep CapEff /proc/self/status\necho checked\n")
	fmt.Println(out)
	if err != nil {
		fmt.Println("sandboxed agent:", err)
		return 1
	}
	return 0
}
