//go:build linux

package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// The sandbox's tests run scripted agents (sh) that try what an agent
// must not do and print "BREACH: …" for each attempt that worked, then
// "checked".

// needSandbox skips a test where the kernel refuses the sandbox, and
// fails it where the kernel gives the namespaces the sandbox is made of
// but the sandbox still does not start: a fault of teamlead's then, which
// a skip would hide (a guard step that waited on its own filter skipped
// every sandbox test, green).
func needSandbox(t *testing.T) {
	t.Helper()
	err := probeSandbox()
	if err == nil {
		return
	}
	ns := exec.Command("/bin/true")
	ns.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}}
	if nsErr := ns.Run(); nsErr != nil {
		t.Skipf("this kernel refuses the sandbox here: %v (a user namespace: %v)", err, nsErr)
	}
	t.Fatalf("the kernel gives user, mount and PID namespaces, yet the sandbox does not start: %v", err)
}

// runSandboxed runs script in a sandboxed agent working in dir with env
// added, until it exits; it returns what the agent printed, and an error
// unless it exited with status 0.
func runSandboxed(dir, script string, env ...string) (string, error) {
	rec := &recorder{}
	spec := Spec{Name: "sandboxed", Isolation: IsolationSandbox, Dir: dir, Command: []string{"/bin/sh", "-c", script}, Env: map[string]string{}}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		spec.Env[k] = v
	}
	a := Start(spec, rec)
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		a.Stop()
		return rec.output(), errors.New("timed out\n" + rec.diag())
	}
	if ev := rec.last(); ev.State != wire.StateExited || ev.ExitCode != 0 || !strings.HasPrefix(ev.Isolation, isolatedSandbox) {
		return rec.output(), errors.New("the agent did not run to its end in a sandbox\n" + rec.diag())
	}
	return rec.output(), nil
}

// checkSandboxReport fails t for every breach in out, and unless out
// holds "checked" and each of wants.
func checkSandboxReport(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "BREACH") {
			t.Errorf("%s", strings.TrimSpace(line))
		}
	}
	for _, w := range append(wants, "checked") {
		if !strings.Contains(out, w) {
			t.Errorf("missing %q in what the agent saw:\n%s", w, out)
		}
	}
}

// lockScript tries, for each of /proc, /dev/pts, /tmp/tmux-UID,
// /sys/fs/cgroup and extra, to undo the sandbox's mount there — umount,
// lazy umount, the same as root of a namespace of its own (unshare -Urm)
// — and to show what is below the mounts on /tmp and /dev with a bind of
// their parent (non-recursive, so without the mounts on top). dir is a
// folder the agent may write.
func lockScript(dir string, extra ...string) string {
	return fmt.Sprintf(`exec 2>&1
u=$(id -u)
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
unshare -Urm true && echo "nested: ok"
for p in /proc /dev/pts /tmp/tmux-$u /sys/fs/cgroup %s; do
	grep -q " $p " /proc/self/mountinfo || echo "BREACH: $p is not a mount here"
	held umount "$p"
	held umount -l "$p"
	held unshare -Urm umount "$p"
	held unshare -Urm umount -l "$p"
done
mkdir -p %[2]s/peek
held unshare -Urm mount --bind /tmp %[2]s/peek
held unshare -Urm mount --bind /dev %[2]s/peek
held unshare -Urm mount -o remount,rw /sys/fs/cgroup
held unshare -Urm mount -o remount,bind,rw /sys/fs/cgroup
held sh -c 'echo 1 > /sys/fs/cgroup/teamlead-sandbox-test'
[ -z "$(ls -A /tmp/tmux-$u)" ] || echo "BREACH: /tmp/tmux-$u shows $(ls -A /tmp/tmux-$u)"
`, strings.Join(extra, " "), dir)
}

// (a) An agent sees no process but its own and signals none outside: not
// the console, not a process of yours (a stand-in for your shell or
// another agent), whatever the signal.
func TestSandboxCannotSignalOutside(t *testing.T) {
	needSandbox(t)
	other := exec.Command("sleep", "600")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = other.Process.Kill(); _ = other.Wait() })
	console := os.Getpid()
	script := fmt.Sprintf(`exec 2>&1
for sig in 0 TERM STOP KILL; do kill -$sig %[1]d && echo "BREACH: kill -$sig %[1]d"; done
for sig in 0 TERM STOP; do kill -$sig %[2]d && echo "BREACH: kill -$sig the console"; done
[ -e /proc/%[2]d ] && echo "BREACH: the console in /proc"
[ -e /proc/%[1]d ] && echo "BREACH: another process in /proc"
echo "init=$(cat /proc/1/comm) processes=$(ls /proc | grep -c '^[0-9]')"
echo checked
`, other.Process.Pid, console)
	out, err := runSandboxed(t.TempDir(), script)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "init=tl-sandbox")
	if m := regexp.MustCompile(`processes=(\d+)`).FindStringSubmatch(out); m == nil {
		t.Errorf("no process count: %s", out)
	} else if n, _ := strconv.Atoi(m[1]); n > 6 {
		t.Errorf("the agent sees %d processes: more than its own", n)
	}
	if st := procState(other.Process.Pid); st != 'S' && st != 'R' {
		t.Errorf("the process outside is in state %q", st)
	}
}

// procState is the state letter of pid (0 when gone).
func procState(pid int) byte {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 || i+2 >= len(b) {
		return 0
	}
	return b[i+2]
}

// (b) Your servers' sockets are hidden: a tmux server you run (on the
// default folder and on $TMUX_TMPDIR's), the session bus and the rest of
// $XDG_RUNTIME_DIR, ssh-agent (its own folder, or the socket alone where
// its folder holds the agent's); the variables that name them are gone.
func TestSandboxHidesYourServers(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	work := filepath.Join(tmp, "work")
	xdg, sshDir, tmuxTmp := filepath.Join(tmp, "xdg"), filepath.Join(tmp, "ssh-abc"), filepath.Join(tmp, "tt")
	for _, d := range []string{work, xdg, sshDir, tmuxTmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, sock := range []string{filepath.Join(xdg, "bus"), filepath.Join(sshDir, "agent.1"), filepath.Join(tmp, "agent.2")} {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
	}
	// The console's own ssh-agent socket sits in a folder that holds the
	// agent's: only the socket is covered.
	t.Setenv("SSH_AUTH_SOCK", filepath.Join(tmp, "agent.2"))
	marker := filepath.Join(tmp, "marker")
	server := fmt.Sprintf("tl-test-%d", os.Getpid())
	tmux, _ := exec.LookPath("tmux")
	if tmux != "" {
		for _, dir := range []string{"", tmuxTmp} {
			startTmux(t, tmux, dir, server)
		}
	}
	script := fmt.Sprintf(`exec 2>&1
u=$(id -u)
echo "tmux=[$(ls -A /tmp/tmux-$u)] tmuxtmp=[$(ls -A $TMUX_TMPDIR/tmux-$u)] xdg=[$(ls -A $XDG_RUNTIME_DIR)] ssh=[$(ls -A %[1]s)]"
[ -S %[2]s/agent.2 ] && echo "BREACH: the console's ssh-agent socket"
[ -c %[2]s/agent.2 ] && echo "agent.2 covered"
if [ -n "%[3]s" ]; then
	tmux -L %[4]s new-window -d "touch %[5]s" && echo "BREACH: your tmux server ran a command"
	tmux -L %[4]s send-keys -t 0 "touch %[5]s" Enter && echo "BREACH: keys typed into your tmux"
	TMUX_TMPDIR=/tmp tmux -L %[4]s list-sessions && echo "BREACH: your tmux server answered"
fi
for v in TMUX TMUX_PANE STY WINDOW DBUS_SESSION_BUS_ADDRESS SSH_AUTH_SOCK SSH_AGENT_PID DISPLAY WAYLAND_DISPLAY NVIM KITTY_LISTEN_ON; do
	eval "set=\${$v+set}"
	[ -n "$set" ] && echo "BREACH: $v is set"
done
echo checked
`, sshDir, tmp, tmux, server, marker)
	out, err := runSandboxed(work, script,
		"XDG_RUNTIME_DIR="+xdg, "SSH_AUTH_SOCK="+filepath.Join(sshDir, "agent.1"), "TMUX_TMPDIR="+tmuxTmp,
		"TMUX=/tmp/tmux-0/default,1,0", "TMUX_PANE=%1", "STY=1.pts-0.host", "WINDOW=0",
		"DBUS_SESSION_BUS_ADDRESS=unix:path="+filepath.Join(xdg, "bus"), "SSH_AGENT_PID=1", "DISPLAY=:0",
		"WAYLAND_DISPLAY=wayland-0", "NVIM="+filepath.Join(xdg, "nvim.0"), "KITTY_LISTEN_ON=unix:@kitty")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "tmux=[] tmuxtmp=[] xdg=[] ssh=[]", "agent.2 covered")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a command the agent gave your tmux server ran")
	}
	if tmux == "" {
		t.Log("no tmux here: its server was not tried")
	}
}

// startTmux starts a tmux server named server (on the socket folder of
// dir, or the default one) for the test, and ends it after.
func startTmux(t *testing.T, tmux, dir, server string) {
	t.Helper()
	env := []string{}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "TMUX" && k != "TMUX_TMPDIR" && k != "TMUX_PANE" {
			env = append(env, kv)
		}
	}
	if dir != "" {
		env = append(env, "TMUX_TMPDIR="+dir)
	}
	cmd := exec.Command(tmux, "-L", server, "-f", "/dev/null", "new-session", "-d", "-s", "s", "sleep 600")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, out)
	}
	t.Cleanup(func() {
		kill := exec.Command(tmux, "-L", server, "kill-server")
		kill.Env = env
		_ = kill.Run()
	})
}

// (b) Your servers whose sockets no environment names are hidden too (red
// team 11a, finding 6): a tmux server on a $TMUX_TMPDIR the console never
// had, a listening socket of yours in a shared folder or in one of its
// own, which the agent cannot rename (the next sandbox would not find
// the socket there), or in the agent's own folder (the connect guard
// refuses a server of yours wherever it listens). The console's socket
// stays reachable.
func TestSandboxHidesSocketsElsewhere(t *testing.T) {
	needSandbox(t)
	t.Setenv("TMUX_TMPDIR", "")
	tmp := t.TempDir()
	work, state, tt, srv := filepath.Join(tmp, "work"), filepath.Join(tmp, "state"), filepath.Join(tmp, "tt"), filepath.Join(tmp, "srv")
	for _, d := range []string{work, state, tt, srv} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	heard := map[string]chan string{}
	for _, sock := range []string{filepath.Join(tmp, "x.sock"), filepath.Join(srv, "y.sock"), filepath.Join(work, "own.sock"), filepath.Join(state, "teamlead.sock")} {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		heard[sock] = make(chan string, 1)
		go func() {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			b := make([]byte, 16)
			n, _ := c.Read(b)
			heard[sock] <- string(b[:n])
		}()
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(tmp, "marker")
	server := fmt.Sprintf("tl-else-%d", os.Getpid())
	tmuxSock := filepath.Join(tt, "tmux-"+strconv.Itoa(os.Getuid()), server)
	tmux, _ := exec.LookPath("tmux")
	if tmux != "" {
		startTmux(t, tmux, tt, server)
		if out, err := exec.Command(tmux, "-S", tmuxSock, "ls").CombinedOutput(); err != nil {
			t.Fatalf("the test's tmux server does not answer outside: %v %s", err, out)
		}
	}
	script := fmt.Sprintf(`exec 2>&1
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
if [ -n "%[1]s" ]; then
	held env TMUX_TMPDIR=%[2]s tmux -L %[3]s ls
	held tmux -S %[4]s run-shell "touch %[5]s"
fi
held env AGENTS_TEST_DIAL=%[6]s/x.sock %[7]s
held env AGENTS_TEST_DIAL=%[6]s/srv/y.sock %[7]s
held mv %[6]s/srv %[6]s/srv.moved
held env AGENTS_TEST_DIAL=%[8]s/own.sock %[7]s
AGENTS_TEST_DIAL=%[9]s/teamlead.sock %[7]s && echo "dialled: console"
echo checked
`, tmux, tt, server, tmuxSock, marker, tmp, self, work, state)
	out, err := runSandboxed(work, script, "TEAMLEAD_SOCKET="+filepath.Join(state, "teamlead.sock"))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "dialled: console")
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("a command the agent gave your tmux server ran")
	}
	if n, want := strings.Count(out, "held: "), map[bool]int{true: 6, false: 4}[tmux != ""]; n != want {
		t.Errorf("%d attempts held, want %d:\n%s", n, want, out)
	}
	for _, sock := range []string{"state/teamlead.sock"} {
		select {
		case got := <-heard[filepath.Join(tmp, sock)]:
			if got != "hello\n" {
				t.Errorf("%s heard %q from the agent", sock, got)
			}
		case <-time.After(waitTimeout):
			t.Errorf("%s heard nothing from the agent", sock)
		}
	}
	for _, sock := range []string{"x.sock", "srv/y.sock", "work/own.sock"} {
		select {
		case got := <-heard[filepath.Join(tmp, sock)]:
			t.Errorf("%s, a server of yours, heard %q from it", sock, got)
		default:
		}
	}
	if tmux == "" {
		t.Log("no tmux here: its server was not tried")
	}
}

// (c) An agent writes into no other terminal: not another agent's (one
// without a sandbox, on the machine's /dev/pts), not the console's (a
// terminal of the test's own stands for it); it finds no terminal but
// its own under /dev/pts.
func TestSandboxHidesOtherTerminals(t *testing.T) {
	needSandbox(t)
	consoleMaster, consoleTTY, err := openPTY(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	defer consoleMaster.Close()
	defer consoleTTY.Close()
	victim, vrec := start(t, Spec{Name: "victim", Isolation: IsolationNone, Command: []string{"/bin/sh", "-c", "echo tty=$(tty); exec cat"}})
	var victimTTY string
	eventually(t, "the victim's terminal", vrec.diag, func() bool {
		m := regexp.MustCompile(`tty=(/dev/pts/\d+)`).FindStringSubmatch(vrec.output())
		if m != nil {
			victimTTY = m[1]
		}
		return m != nil
	})
	script := fmt.Sprintf(`exec 2>&1
echo "pts=[$(ls /dev/pts | tr '\n' ' ')]"
for f in %[1]s %[2]s /dev/pts/[0-9]*; do
	[ "$f" = "$(tty)" ] && continue
	echo INJECTED-FROM-SANDBOX > "$f" && echo "BREACH: wrote to $f"
	printf '\033[2J\033[HFAKE-SCREEN' > "$f" && echo "BREACH: painted $f"
done
for fd in /proc/[0-9]*/fd/0; do
	l=$(readlink $fd) || continue
	[ "$l" = "$(tty)" ] || [ "$l" = /dev/null ] || echo "BREACH: $fd is $l"
done
echo checked
`, victimTTY, consoleTTY.Name())
	out, err := runSandboxed(t.TempDir(), script)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "pts=[0 ptmx ]")
	time.Sleep(100 * time.Millisecond)
	if strings.Contains(vrec.output(), "INJECTED") || strings.Contains(vrec.output(), "FAKE-SCREEN") {
		t.Errorf("the other agent's terminal got the sandboxed agent's text: %q", vrec.output())
	}
	_ = consoleMaster.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, _ := consoleMaster.Read(make([]byte, 256)); n > 0 {
		t.Errorf("the console's terminal got %d bytes from the sandboxed agent", n)
	}
	victim.Stop()
}

// (d) The sandbox's mounts hold against the agent, root of its namespace
// or not: no umount, lazy or not, from its namespace or one it makes; no
// bind of a parent that would show what is below; no write to
// /sys/fs/cgroup.
func TestSandboxMountsAreLocked(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare here")
	}
	tmp := t.TempDir()
	xdg := filepath.Join(tmp, "xdg")
	if err := os.Mkdir(xdg, 0o700); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(tmp, "work")
	out, err := runSandboxed(work, lockScript(work, xdg)+"echo checked\n", "XDG_RUNTIME_DIR="+xdg)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "nested: ok")
	if n := strings.Count(out, "held: "); n != 5*4+5 {
		t.Errorf("%d attempts held, want %d:\n%s", n, 5*4+5, out)
	}
}

// (e) The agent's own terminal works as without a sandbox: it is
// /dev/pts/0 of its own devpts, /dev/tty opens it, the program is the
// terminal's foreground process group, new terminals open (script(1),
// terminal emulators inside the agent), an interactive shell's job
// control works (Ctrl-Z, bg, fg, Ctrl-C to the foreground job), and
// Ctrl-C typed into a cooked program kills it with SIGINT, reported as
// such. (Every other test of
// this package runs its agents in the sandbox too: typed messages,
// bracketed paste, resize, exit status, exit by signal, stop.)
func TestSandboxOwnTerminal(t *testing.T) {
	needSandbox(t)
	script := `exec 2>&1
echo "tty=$(tty)"
echo via-dev-tty > /dev/tty || echo "BREACH: /dev/tty"
set -- $(cat /proc/$$/stat)
[ "$5" = "$8" ] && echo foreground || echo "BREACH: process group $5, the terminal's $8"
if command -v script >/dev/null; then script -qc 'echo inner=$(tty)' /dev/null; else echo "inner=/dev/pts/1"; fi
echo checked
`
	out, err := runSandboxed(t.TempDir(), script)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "tty=/dev/pts/0", "via-dev-tty", "foreground", "inner=/dev/pts/1")

	if bash, err := exec.LookPath("bash"); err == nil {
		sh, rec := start(t, Spec{Name: "shell", Isolation: IsolationSandbox, Command: []string{bash, "--norc", "--noprofile", "-i"},
			Env: map[string]string{"PS1": "$ "}})
		// A key for the foreground job is pressed again until it shows:
		// the shell gives the job the terminal a moment after it echoes.
		steps := []struct {
			keys, want string
			again      bool
		}{
			{"", "$ ", false},
			{"sleep 600\r", "sleep 600", false},
			{"\x1a", "Stopped", true},
			{"bg\r", "sleep 600 &", false},
			{"fg\r", "sleep 600\r\n", false},
			{"\x03", "$ ", true},
			{"echo status=$?\r", "status=130", false},
			{"exit\r", "exit", false},
		}
		for _, st := range steps {
			from, last := len(rec.output()), time.Time{}
			eventually(t, fmt.Sprintf("%q after %q", st.want, st.keys), rec.diag, func() bool {
				if st.keys != "" && (last.IsZero() || st.again && time.Since(last) > 300*time.Millisecond) {
					if _, err := sh.Write([]byte(st.keys)); err != nil {
						t.Fatal(err)
					}
					last = time.Now()
				}
				return strings.Contains(rec.output()[from:], st.want)
			})
		}
		waitDone(t, sh, rec)
	}

	a, rec := start(t, Spec{Isolation: IsolationSandbox, Command: []string{"/bin/sh", "-c", "echo ready; exec sleep 600"}})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	if _, err := a.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	waitDone(t, a, rec)
	if ev := rec.last(); ev.State != wire.StateExited || ev.ExitCode != -1 || ev.Err != "killed by signal: interrupt" {
		t.Fatalf("after Ctrl-C: %+v", ev)
	}
}

// What the sandbox hides is found in shared places (/tmp): a link left
// there by another agent is not followed, and nothing the agent needs is
// hidden, its ssh-agent socket then covered alone.
func TestSandboxHidesNoLinkedFolder(t *testing.T) {
	tmp := t.TempDir()
	decoy := filepath.Join(tmp, "decoy")
	work := filepath.Join(tmp, "work")
	for _, d := range []string{decoy, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	xdg := filepath.Join(tmp, "xdg")
	if err := os.Symlink(decoy, xdg); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(tmp, "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	h := sandboxHides(os.Getuid(), nil, []string{"XDG_RUNTIME_DIR=" + xdg, "TMUX_TMPDIR=" + tmp, "SSH_AUTH_SOCK=" + sock}, []string{work})
	for _, d := range h.dirs {
		if d == decoy || d == xdg || d == tmp {
			t.Errorf("hides %s", d)
		}
	}
	want := filepath.Join(tmp, "tmux-"+strconv.Itoa(os.Getuid()))
	if !slices.Contains(h.dirs, want) {
		t.Errorf("tmux's folder in $TMUX_TMPDIR not hidden: %v", h.dirs)
	}
	if !slices.Contains(h.files, sock) {
		t.Errorf("the ssh-agent socket in the agent's parent folder not covered: %v", h.files)
	}
}

// A listening socket of yours that appears after the agent started is
// hidden by its sandbox's init too (a server you start later, another
// console's socket); the agent's own servers, wherever it listens, and the
// console's socket stay.
func TestSandboxHidesSocketsThatAppearLater(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	work, state := filepath.Join(tmp, "work"), filepath.Join(tmp, "state")
	for _, d := range []string{work, state} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	started, goOn := filepath.Join(tmp, "started"), filepath.Join(tmp, "go")
	late, console := filepath.Join(tmp, "late.sock"), filepath.Join(state, "teamlead.sock")
	script := fmt.Sprintf(`exec 2>&1
AGENTS_TEST_LISTEN=%[1]s/mine.sock %[2]s &
n=0; while [ ! -S %[1]s/mine.sock ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
touch %[3]s
n=0; while [ ! -e %[4]s ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done
n=0; while [ -S %[5]s ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
if AGENTS_TEST_DIAL=%[5]s %[2]s >/dev/null 2>&1; then echo "BREACH: dialled the late socket"; else echo "held: late"; fi
sleep 1.5
AGENTS_TEST_DIAL=%[1]s/mine.sock %[2]s && echo "dialled: mine"
AGENTS_TEST_DIAL=%[6]s %[2]s && echo "dialled: console"
echo checked
`, tmp, self, started, goOn, late, console)
	type result struct {
		out string
		err error
	}
	done := make(chan result, 1)
	go func() {
		out, err := runSandboxed(work, script, "TEAMLEAD_SOCKET="+console)
		done <- result{out, err}
	}()
	deadline := time.Now().Add(waitTimeout)
	for _, err := os.Stat(started); err != nil; _, err = os.Stat(started) {
		if time.Now().After(deadline) {
			t.Fatal("the agent did not start")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Both appear after the agent started: the console's socket stays
	// reachable, the other is covered.
	heard := make(chan string, 2)
	for _, sock := range []string{late, console} {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ln.Close() })
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				heard <- sock
				_, _ = c.Read(make([]byte, 16))
				c.Close()
			}
		}()
	}
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	r := <-done
	if r.err != nil {
		t.Fatalf("%v\n%s", r.err, r.out)
	}
	checkSandboxReport(t, r.out, "held: late", "dialled: mine", "dialled: console")
	for len(heard) > 0 {
		if sock := <-heard; sock == late {
			t.Errorf("the late socket heard the agent")
		}
	}
}

// A socket of yours in the agent's folder is its own, left visible, but
// not when that folder is named through a link: an agent that replaced its
// folder by a link to one of your servers' keeps nothing of it at its next
// start. One that is not listening (a stale file) is none of the sandbox's.
func TestSandboxKeepsSocketsOfTheAgentsOwnFolder(t *testing.T) {
	tmp := t.TempDir()
	work, yours := filepath.Join(tmp, "work"), filepath.Join(tmp, "yours")
	for _, d := range []string{work, yours} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	own, theirs := filepath.Join(work, "own.sock"), filepath.Join(yours, "server.sock")
	for _, sock := range []string{own, theirs} {
		ln, err := net.Listen("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
	}
	stale := filepath.Join(work, "stale.sock")
	ln, err := net.Listen("unix", stale)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	h := sandboxHides(os.Getuid(), nil, nil, []string{work})
	if !slices.Contains(h.files, theirs) || slices.Contains(h.files, own) || slices.Contains(h.files, stale) {
		t.Errorf("covers %v; want %s, not %s or %s", h.files, theirs, own, stale)
	}
	link := filepath.Join(tmp, "link")
	if err := os.Symlink(yours, link); err != nil {
		t.Fatal(err)
	}
	if h := sandboxHides(os.Getuid(), nil, nil, []string{link}); !slices.Contains(h.files, theirs) {
		t.Errorf("the agent's folder is a link to yours: %s not covered (%v)", theirs, h.files)
	}
}

// The console learns at once that the program exited, not when its init
// has ended the stragglers: a write fails from then on, and the exit is
// the program's (status 3), after its straggler got the grace period.
func TestSandboxProgramExitSeenAtOnce(t *testing.T) {
	needSandbox(t)
	const grace = 2 * time.Second
	a, rec := start(t, Spec{Isolation: IsolationSandbox, Grace: grace,
		// The program exits only once its straggler ignores SIGTERM (else,
		// under load, the init's SIGTERM could come first and end it).
		Command: []string{"/bin/sh", "-c", `f=$(mktemp -u); (trap "" TERM HUP; touch $f; exec sleep 600) & ` +
			`while [ ! -e $f ]; do sleep 0.01; done; rm -f $f; echo bye; exit 3`}})
	eventually(t, "bye", rec.diag, func() bool { return rec.has("bye") })
	t0 := time.Now()
	eventually(t, "writes to fail", rec.diag, func() bool {
		_, err := a.Write([]byte("x"))
		return err != nil
	})
	if d := time.Since(t0); d > grace/2 {
		t.Errorf("writes went on for %v after the program exited", d)
	}
	waitDone(t, a, rec)
	if ev := rec.last(); ev.State != wire.StateExited || ev.ExitCode != 3 {
		t.Errorf("last event %+v", ev)
	}
	if d := time.Since(t0); d < grace/2 {
		t.Errorf("done after %v: the straggler did not get its grace period", d)
	}
}

// (g) What Spec.Protect names — teamlead's state folder, with the
// control socket in it, and its own files in the agent's project — the
// agent reads but cannot write, rename, remove or make writable again,
// nor move a folder above them away (to put its own in their place);
// the socket still connects. A protected file reached through a link is
// protected; a path that holds the agent's folder is left writable, and
// the running record says so.
func TestSandboxProtectsTeamleadsFiles(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare here")
	}
	tmp := t.TempDir()
	state, work := filepath.Join(tmp, "state"), filepath.Join(tmp, "work")
	for _, d := range []string{state, work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(state, "teamlead.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	heard := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		b := make([]byte, 16)
		n, _ := c.Read(b)
		heard <- string(b[:n])
	}()
	team := filepath.Join(work, "team.yaml")
	for _, d := range []string{SecretsDir, StoreDir} {
		if err := os.Mkdir(filepath.Join(state, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{team, filepath.Join(state, "guard"), filepath.Join(state, SecretsDir, "token"),
		filepath.Join(state, StoreDir, "MANIFEST"), filepath.Join(state, StoreDir, "00001.vlog")} {
		if err := os.WriteFile(f, []byte("kept\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(team, filepath.Join(tmp, "team-link")); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`exec 2>&1
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
held sh -c 'echo forged > team.yaml'
held sh -c 'echo forged >> team.yaml'
held mv team.yaml elsewhere
held rm -f team.yaml
held ln -sf /etc/passwd team.yaml
held sh -c 'echo forged > %[1]s/guard'
held mv %[1]s/teamlead.sock %[1]s/old.sock
held rm -f %[1]s/teamlead.sock
held touch %[1]s/new
held rm -rf %[1]s
held mv %[1]s %[2]s/state-moved
held umount %[1]s
held umount -l team.yaml
held unshare -Urm umount %[1]s
held unshare -Urm mount -o remount,bind,rw %[1]s
held unshare -Urm sh -c 'mount -o remount,bind,rw team.yaml && echo forged > team.yaml'
held mv %[2]s %[2]s.moved
held mv %[4]s %[4]s.moved
held sh -c 'cd %[2]s/.. && mv %[5]s elsewhere'
held cat %[1]s/secrets/token
held sh -c 'echo forged > %[1]s/secrets/token'
held sh -c 'ls -a %[1]s/secrets | grep -q token'
held cat %[1]s/store/00001.vlog
held sh -c 'ls -a %[1]s/store | grep -q MANIFEST'
grep -q kept team.yaml && echo "read: team.yaml"
grep -q kept %[1]s/guard && echo "read: guard"
echo own > mine && echo "wrote: own folder"
AGENTS_TEST_DIAL=%[1]s/teamlead.sock %[3]s && echo "dialled"
echo checked
`, state, tmp, self, filepath.Dir(tmp), filepath.Base(tmp))
	rec := &recorder{}
	a := Start(Spec{Name: "protected", Isolation: IsolationSandbox, Dir: work, Command: []string{"/bin/sh", "-c", script},
		Env: map[string]string{"TEAMLEAD_SOCKET": sock}, Protect: []string{state, filepath.Join(tmp, "team-link"), filepath.Join(tmp, "missing.yaml")}}, rec)
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		a.Stop()
		t.Fatalf("timed out\n%s", rec.diag())
	}
	out := rec.output()
	checkSandboxReport(t, out, "read: team.yaml", "read: guard", "wrote: own folder", "dialled")
	if n := strings.Count(out, "held: "); n != 24 {
		t.Errorf("%d attempts held, want 24:\n%s", n, out)
	}
	select {
	case got := <-heard:
		if got != "hello\n" {
			t.Errorf("the socket heard %q", got)
		}
	case <-time.After(waitTimeout):
		t.Error("the socket heard nothing")
	}
	for _, f := range []string{team, filepath.Join(state, "guard"), filepath.Join(state, SecretsDir, "token")} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "kept\n" {
			t.Errorf("%s: %q, %v", f, b, err)
		}
	}
	if _, err := os.Stat(sock); err != nil {
		t.Errorf("the socket: %v", err)
	}

	// An agent whose folder is inside teamlead's state (the human's
	// setting, or a link the agent put in its folder's place) is not
	// started: it would have the state writable.
	rec2 := &recorder{}
	b := Start(Spec{Name: "inside", Isolation: IsolationSandbox, Dir: filepath.Join(state, "agent"),
		Command: []string{"/bin/sh", "-c", "echo x > mine && echo wrote; sleep 600"}, Protect: []string{state}}, rec2)
	defer b.Stop()
	eventually(t, "the agent refused", rec2.diag, func() bool { return rec2.count(wire.StateFailed) > 0 })
	if ev := rec2.last(); !strings.Contains(ev.Err, "inside teamlead's own") || rec2.has("wrote") {
		t.Errorf("the agent inside the state folder: %+v\n%s", ev, rec2.output())
	}
}

// An agent whose folder leads into a folder the sandbox hides (its folder
// replaced by a link to $XDG_RUNTIME_DIR or /tmp/tmux-UID, restarted there)
// is not started: the folder would have stayed visible, with the human's
// servers in it (the seventh red team reached tmux so).
func TestSandboxRefusesAFolderInsideAHiddenOne(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	xdg := filepath.Join(tmp, "xdg")
	if err := os.Mkdir(xdg, 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", filepath.Join(xdg, "bus"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	work := filepath.Join(tmp, "work")
	if err := os.Symlink(xdg, work); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	a := Start(Spec{Name: "linked", Isolation: IsolationSandbox, Dir: work, Env: map[string]string{"XDG_RUNTIME_DIR": xdg},
		Command: []string{"/bin/sh", "-c", "ls -A; sleep 600"}}, rec)
	defer a.Stop()
	eventually(t, "the agent refused", rec.diag, func() bool { return rec.count(wire.StateFailed) > 0 })
	if ev := rec.last(); !strings.Contains(ev.Err, "hides from agents") || rec.has("bus") {
		t.Errorf("the agent in a hidden folder: %+v\n%s", ev, rec.output())
	}
}

// A protected file replaced by rename (as the console's own writes, sed -i,
// editors and upgrades replace a file) is read-only again in a running
// sandbox, and so is one made after the sandbox started; a process of the
// agent that got hold of the new file through a writable mount before the
// pin (and could reopen it for writing through /proc) is killed and the
// console told (red team 9a, finding 10).
func TestSandboxPinsAReplacedFile(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare here")
	}
	tmp := t.TempDir()
	work, conf := filepath.Join(tmp, "work"), filepath.Join(tmp, "conf")
	for _, d := range []string{work, conf} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	policy, later, next := filepath.Join(conf, "policy.yaml"), filepath.Join(conf, "later.yaml"), filepath.Join(conf, "next.tmp")
	for _, f := range []string{policy, next} {
		if err := os.WriteFile(f, []byte("kept\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	script := fmt.Sprintf(`exec 2>&1
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
held sh -c 'echo forged >> %[1]s'
sh -c 'exec 3< %[3]s; echo holding; exec sleep 600' &
holder=$!
unshare -Urm sh -c 'echo nested; exec sleep 600' &
nested=$!
until [ -e go ]; do sleep 0.05; done
n=0
while { [ -w %[1]s ] || [ -w %[2]s ]; } && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
held sh -c 'echo forged >> %[1]s'
held sh -c 'echo forged >> %[2]s'
held sh -c 'echo forged >> /proc/'$holder'/fd/3'
n=0
while kill -0 $holder 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
kill -0 $holder 2>/dev/null && echo "BREACH: the holder lives"
n=0
while kill -0 $nested 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
kill -0 $nested 2>/dev/null && echo "BREACH: the namespace where it is writable lives"
echo checked
`, policy, later, next)
	rec := &recorder{}
	a := Start(Spec{Name: "pinned", Isolation: IsolationSandbox, Dir: work, Command: []string{"/bin/sh", "-c", script},
		Protect: []string{policy, later}}, rec)
	defer a.Stop()
	eventually(t, "the holder holds the next policy", rec.diag, func() bool { return rec.has("holding") && rec.has("nested") })
	if err := os.Rename(next, policy); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(later, []byte("kept\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("timed out\n%s", rec.diag())
	}
	out := rec.output()
	checkSandboxReport(t, out)
	if n := strings.Count(out, "held: "); n != 4 {
		t.Errorf("%d attempts held, want 4:\n%s", n, out)
	}
	for _, f := range []string{policy, later} {
		if b, err := os.ReadFile(f); err != nil || string(b) != "kept\n" {
			t.Errorf("%s: %q, %v", f, b, err)
		}
	}
	if g := rec.guards(); !strings.Contains(g, "killed "+policy) || !strings.Contains(g, "held it open") || !strings.Contains(g, "mount namespace of its own") {
		t.Errorf("the console was told %q", g)
	}
}

// A protected file replaced while an agent holds it for writing through a
// descriptor no process shows (parked in a socket) stops the sandbox: the
// agent could write the file with it at any time (red team 10a, findings
// 3, 7 and 8 took the new teamlead executable, .git/config and the policy
// so, in the moment between the rename and the pin).
func TestSandboxStopsAParkedWriter(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	work, conf := filepath.Join(tmp, "work"), filepath.Join(tmp, "conf")
	for _, d := range []string{work, conf} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	policy, next := filepath.Join(conf, "policy.yaml"), filepath.Join(conf, "next.tmp")
	for _, f := range []string{policy, next} {
		if err := os.WriteFile(f, []byte("kept\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	a := Start(Spec{Name: "parker", Isolation: IsolationSandbox, Dir: work, Command: []string{self},
		Env: map[string]string{"AGENTS_TEST_PARK": next}, Protect: []string{policy}}, rec)
	defer a.Stop()
	eventually(t, "the agent parks a descriptor of the next policy", rec.diag, func() bool { return rec.has("parked") })
	if err := os.Rename(next, policy); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("the sandbox still runs\n%s", rec.diag())
	}
	if g := rec.guards(); !strings.Contains(g, "stopped "+policy) || !strings.Contains(g, "still open for writing") {
		t.Errorf("the console was told %q", g)
	}
	if unseenWriter(policy, time.Second) {
		t.Error("the parked descriptor outlived the sandbox")
	}
}

// A second name given to a protected file whose console's guard checks it
// (Spec.Guarded: another console's missing permissions.yaml linked into
// place, red team 11a, finding 8) is read-only under its protected name
// and told to the console once, naming the file and how to find the other
// name, and the agent runs on; one given to any other protected file (the
// teamlead executable) stops the sandbox as before.
func TestSandboxSparesAGuardedFileWithTwoNames(t *testing.T) {
	needSandbox(t)
	for _, later := range []bool{false, true} {
		t.Run(map[bool]string{false: "protected_at_start", true: "protected_later_by_ProtectMore"}[later], func(t *testing.T) {
			sparesAGuardedFileWithTwoNames(t, later)
		})
	}
}

// sparesAGuardedFileWithTwoNames is TestSandboxSparesAGuardedFileWithTwoNames
// with the guarded file in Spec.Protect, or added by ProtectMore (later),
// as a console started after this one asks.
func sparesAGuardedFileWithTwoNames(t *testing.T, later bool) {
	tmp := t.TempDir()
	work, conf := filepath.Join(tmp, "work"), filepath.Join(tmp, "conf")
	for _, d := range []string{work, conf} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	foreign, critical := filepath.Join(conf, "permissions.yaml"), filepath.Join(conf, "teamlead")
	spare := filepath.Join(conf, ".pol.tmp") // beside it, as the red team made it: the agent's folder is a mount of its own
	script := fmt.Sprintf(`exec 2>&1
unpinned() { n=0; while [ -w %[1]s ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done; [ -w %[1]s ] && echo "BREACH: %[1]s writable"; }
echo forged > %[3]s
echo ready
until [ -e go ]; do sleep 0.05; done
ln %[3]s %[1]s || echo "BREACH: no link"
unpinned
echo pinned
until [ -e again ]; do sleep 0.05; done
echo alive
until [ -e last ]; do sleep 0.05; done
ln %[3]s %[2]s
sleep 600
`, foreign, critical, spare)
	rec := &recorder{}
	protect := []string{critical, foreign}
	if later {
		protect = protect[:1]
	}
	a := Start(Spec{Name: "linker", Isolation: IsolationSandbox, Dir: work, Command: []string{"/bin/sh", "-c", script},
		Protect: protect, Guarded: func(p string) bool { return p == foreign }}, rec)
	defer a.Stop()
	eventually(t, "the agent is ready", rec.diag, func() bool { return rec.has("ready") })
	if later {
		if err := a.ProtectMore([]string{foreign}, nil); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(name string) {
		if err := os.WriteFile(filepath.Join(work, name), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	touch("go")
	eventually(t, "the console is told of the second name", rec.diag, func() bool { return strings.Contains(rec.guards(), "linked "+foreign) })
	eventually(t, "the linked file is read-only", rec.diag, func() bool { return rec.has("pinned") })
	touch("again")
	eventually(t, "the agent runs on", rec.diag, func() bool { return rec.has("alive") })
	touch("last")
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("the sandbox still runs after the critical file got a second name\n%s", rec.diag())
	}
	out, g := rec.output(), rec.guards()
	if strings.Contains(out, "BREACH") {
		t.Errorf("the agent says:\n%s", out)
	}
	if n := strings.Count(g, "linked "+foreign); n != 1 || !strings.Contains(g, "has 2 names") || !strings.Contains(g, "-samefile "+foreign) {
		t.Errorf("told %d times of %s, want once (at the link), with how to find the other name:\n%s", n, foreign, g)
	}
	if strings.Contains(g, "stopped "+foreign) || !strings.Contains(g, "stopped "+critical) {
		t.Errorf("the console was told %q", g)
	}
}

// What KeepSecret names is not shown in a sandbox at all: a file reads
// empty, a folder is empty (red team 9a, finding 9: the console's NATS
// credentials were readable by every agent).
func TestSandboxHidesKeptSecrets(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	creds, keys := filepath.Join(tmp, "team.creds"), filepath.Join(tmp, "keys")
	if err := os.Mkdir(keys, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{creds, filepath.Join(keys, "client.key")} {
		if err := os.WriteFile(f, []byte("SECRET\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	KeepSecret(creds, keys)
	out, err := runSandboxed(tmp, fmt.Sprintf(`exec 2>&1
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
held grep -rq SECRET %[1]s %[2]s
held sh -c 'echo forged > %[1]s && grep -q forged %[1]s'
ls -a %[2]s | grep -q client.key && echo "BREACH: the folder shows"
echo checked
`, creds, keys))
	if err != nil {
		t.Fatal(err, out)
	}
	checkSandboxReport(t, out)
	if n := strings.Count(out, "held: "); n != 2 {
		t.Errorf("%d held, want 2:\n%s", n, out)
	}
	if b, _ := os.ReadFile(creds); string(b) != "SECRET\n" {
		t.Errorf("the file: %q", b)
	}
}

// A secret file (KeepSecret) replaced by rename while an agent runs (a
// credentials file rotated) is hidden again at once (red team 10a,
// finding 18: the new one was readable by every running agent).
func TestSandboxHidesARotatedSecret(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	work, creds := filepath.Join(dir, "work"), filepath.Join(dir, "rotated.creds")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, []byte("OLD-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	KeepSecret(creds)
	script := fmt.Sprintf(`exec 2>&1
echo started
until [ -e go ]; do sleep 0.05; done
n=0; while grep -q NEW-SECRET %[1]s 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
if grep -q SECRET %[1]s; then echo "BREACH: read it"; else echo "held: read it"; fi
echo checked
`, creds)
	rec := &recorder{}
	a := Start(Spec{Name: "rotated", Isolation: IsolationSandbox, Dir: work, Command: []string{"/bin/sh", "-c", script}}, rec)
	defer a.Stop()
	eventually(t, "the agent", rec.diag, func() bool { return rec.has("started") })
	next := creds + ".new"
	if err := os.WriteFile(next, []byte("NEW-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, creds); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("timed out\n%s", rec.diag())
	}
	checkSandboxReport(t, rec.output(), "held: read it")
}

// A program Isolate starts is sandboxed however many sockets of yours the
// sandbox covers: its configuration, past what a pipe's buffer holds
// (64 KiB), would otherwise have it run in a user namespace alone, where
// your tmux is reachable.
func TestIsolateWithLongHideLists(t *testing.T) {
	needSandbox(t)
	tmp, err := os.MkdirTemp("", "tl") // a short name: a socket's path has at most 107 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	// Each socket five folders deep, each folder pinned: the test's
	// sockets pass 64 KiB with well under maxSockets of them, the rest of
	// the cover being whatever else of yours the machine has (a busy
	// machine's datagram servers took 30 places).
	seg := strings.Repeat("d", 15)
	for i := range maxSockets {
		d := filepath.Join(tmp, fmt.Sprintf("%s%03d", seg, i), seg, seg, seg, seg)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		ln, err := net.Listen("unix", filepath.Join(d, "s.sock"))
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
	}
	work := t.TempDir()
	h := sandboxHides(os.Getuid(), nil, nil, []string{work})
	data, _ := json.Marshal(shimConfig{HideFile: h.files, Pin: h.pins})
	if len(data) < 64<<10 {
		t.Fatalf("the configuration holds only %d bytes", len(data))
	}
	t.Logf("the configuration holds %d bytes", len(data))
	cmd := exec.Command("/bin/cat", "/proc/1/comm")
	cmd.Dir = work
	if !Isolate(cmd) {
		t.Fatal("not isolated")
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v %s", err, out)
	}
	// The shim is PID 1 of the sandbox's PID namespace.
	if got := strings.TrimSpace(string(out)); got != "tl-sandbox" {
		t.Errorf("PID 1 is %s: not in a sandbox", got)
	}
}

// A file hidden by ProtectMore and asked again (a sandbox started while
// a console or node asked it, and then asked by it too) stays hidden, and
// the agent runs on: the /dev/null over it read as the file reached in
// the sandbox, and every process was killed.
func TestSandboxHidesAFileAskedTwice(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	secret := filepath.Join(tmp, "start.lock")
	if err := os.WriteFile(secret, []byte("SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `echo ready; until [ -e go ]; do sleep 0.05; done; echo "read:$(cat ` + secret + `)"; sleep 600`
	rec := &recorder{}
	a := Start(Spec{Name: "twice", Isolation: IsolationSandbox, Dir: tmp, Command: []string{"/bin/sh", "-c", script}}, rec)
	defer a.Stop()
	eventually(t, "the agent is ready", rec.diag, func() bool { return rec.has("ready") })
	for i := 0; i < 2; i++ {
		if err := a.ProtectMore(nil, []string{secret}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the agent reads", rec.diag, func() bool { return rec.has("read:") })
	if out := rec.output(); strings.Contains(out, "SECRET") {
		t.Errorf("the agent read the hidden file:\n%s", out)
	}
	if info := a.Info(); info.State != wire.StateRunning {
		t.Errorf("the agent is %s (%s), want it running", info.State, info.Err)
	}
}

// A $TMUX_TMPDIR that does not exist when the agent starts is made, with
// its tmux-UID folder, and hidden: a tmux server started there later was
// open to the agent for the second before its socket was covered (red
// team 15a, finding 1).
func TestSandboxHidesATmuxFolderStillToBeMade(t *testing.T) {
	base := filepath.Join(t.TempDir(), "not", "yet")
	h := sandboxHides(os.Getuid(), []string{"TMUX_TMPDIR=" + base}, nil, nil)
	want := filepath.Join(base, "tmux-"+strconv.Itoa(os.Getuid()))
	if !slices.Contains(h.dirs, want) {
		t.Errorf("%s not among the hidden folders %v", want, h.dirs)
	}
}

// Another agent's query folder (Spec.Hide) shows empty: its responses,
// the human's answers among them, cannot be read, and a query written
// there "from" that agent never reaches the folder the console watches
// (red team 19b, findings 1 and 2).
func TestSandboxHidesAnotherAgentsQueries(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	mine, theirs := filepath.Join(tmp, "a"), filepath.Join(tmp, "b", ".spc", "queries")
	for _, d := range []string{mine, theirs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	answer := filepath.Join(theirs, "query-1-response.yaml")
	if err := os.WriteFile(answer, []byte("from: human\nanswer: HUMAN-WORDS-FOR-B\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := fmt.Sprintf(`exec 2>&1
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
held grep -rq HUMAN-WORDS %[1]s
printf 'id: query-9\nfrom: b\nto: a\nquestion: forged\n' > %[1]s/query-9.yaml 2>/dev/null
mv %[2]s %[2]s.away 2>/dev/null && mkdir -p %[1]s && printf 'from: b\n' > %[1]s/query-8.yaml 2>/dev/null
mv %[3]s %[3]s.away 2>/dev/null && mkdir -p %[1]s && printf 'from: b\n' > %[1]s/query-7.yaml 2>/dev/null
echo checked
`, theirs, filepath.Dir(theirs), filepath.Dir(filepath.Dir(theirs)))
	rec := &recorder{}
	a := Start(Spec{Name: "a", Isolation: IsolationSandbox, Dir: mine, Command: []string{"/bin/sh", "-c", script}, Hide: []string{theirs}}, rec)
	defer a.Stop()
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("timed out\n%s", rec.diag())
	}
	out := rec.output()
	checkSandboxReport(t, out)
	if !strings.Contains(out, "held: ") {
		t.Errorf("nothing held:\n%s", out)
	}
	for _, q := range []string{"query-9.yaml", "query-8.yaml", "query-7.yaml"} {
		if _, err := os.Stat(filepath.Join(theirs, q)); err == nil {
			t.Errorf("the forged %s reached the other agent's folder", q)
		}
	}
	if b, _ := os.ReadFile(answer); !strings.Contains(string(b), "HUMAN-WORDS") {
		t.Errorf("the response: %q", b)
	}
}
