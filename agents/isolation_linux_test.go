//go:build linux

package agents

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// An agent runs in a user namespace of its own by default: its process's
// namespace is not the console's, and its running event says so.
func TestAgentRunsInItsOwnUserNamespace(t *testing.T) {
	if probeUserNS() != nil {
		t.Skip("this kernel gives no user namespace here")
	}
	own, _ := os.Readlink("/proc/self/ns/user")
	a, rec := start(t, Spec{Command: []string{"/bin/sh", "-c", "readlink /proc/self/ns/user; sleep 600"}})
	eventually(t, "the namespace printed", rec.diag, func() bool { return strings.Contains(rec.output(), "user:[") })
	if strings.Contains(rec.output(), own) {
		t.Errorf("the agent shares the console's user namespace %s", own)
	}
	if iso := a.Info().Isolation; iso != isolatedUserNS {
		t.Errorf("isolation %q", iso)
	}
}

// A start that fails inside the user namespace is not retried outside it:
// an agent could otherwise make its own folder unenterable from the
// namespace and come back, after a restart, without one.
func TestNoFallbackWhenAStartFailsInTheNamespace(t *testing.T) {
	if os.Getuid() != 0 || probeUserNS() != nil {
		t.Skip("needs root (to own a folder as another user) and user namespaces")
	}
	dir := filepath.Join(t.TempDir(), "closed")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 1500, 1500); err != nil {
		t.Fatal(err)
	}
	// Root outside the namespace may enter it; root inside may not.
	a, rec := start(t, Spec{Command: []string{"/bin/sh", "-c", "echo started; sleep 600"}, Dir: dir})
	eventually(t, "the agent to fail", rec.diag, func() bool {
		select {
		case <-a.Done():
			return true
		default:
			return false
		}
	})
	for _, ev := range rec.evs() {
		if ev.State == StateRunning {
			t.Fatalf("started after all (isolation %q): %s", ev.Isolation, rec.diag())
		}
	}
}

// An unprivileged user gets a user namespace too (the console once made
// itself undumpable, which left its children's uid_map owned by root, and
// every agent of a non-root user ran without one).
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
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "AGENTS_TEST_PROBE_USERNS=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "probe: ok") {
		t.Fatalf("as nobody: %v %s", err, out)
	}
}
