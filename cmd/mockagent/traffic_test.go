package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testwait"

	"github.com/creack/pty"
)

func newTestTraffic(t *testing.T, o trafficOptions) (*traffic, *syncBuf) {
	t.Helper()
	if o.log == "" {
		o.log = filepath.Join(t.TempDir(), "traffic.log")
	}
	if o.rate > 0 {
		o.every = time.Duration(float64(time.Second) / o.rate)
	}
	out := &syncBuf{}
	tr, err := newTraffic(o, "a1", out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.log.Close() })
	return tr, out
}

func mustLines(t *testing.T, path string) []string {
	t.Helper()
	lines, err := logLines(path)
	if err != nil {
		t.Fatal(err)
	}
	return lines
}

// TestTrafficReceiveLog feeds what the console types (raw: CR line ends;
// cooked: LF) and checks every log line.
func TestTrafficReceiveLog(t *testing.T) {
	tr, out := newTestTraffic(t, trafficOptions{rate: 1, peers: []string{"b2"}})
	typed := strings.Join([]string{
		"[ROUTE]", "from: b2", "to: a1", "type: status", "task: T-b2", "id: m-7", "body: soak b2.1.4", "[/ROUTE]",
		"[ROUTE]", "from: team-lead", "to: a1", "type: status", "task: T-a1", "body: relayed m-9 to b2, c3", "[/ROUTE]",
		"[ROUTE]", "from: team-lead", "to: a1", "type: status", "task: T-a1", "body: received m-10", "[/ROUTE]",
		"[ROUTE]", "from: team-lead", "to: a1", "type: blocker", "task: T-a1", "body: refused: spoofed sender: x", "[/ROUTE]",
		"[ROUTE]", "from: c3", "to: a1", "type: status", "task: T-c3", "id: m-11", "body: hello", "[/ROUTE]",
	}, "\r") + "\r"
	// In pieces that split lines, as reads do.
	for i := 0; i < len(typed); i += 7 {
		tr.feed([]byte(typed[i:min(len(typed), i+7)]))
	}
	// A question in the one-line form with LF line ends (cooked mode), answered at once.
	tr.feed([]byte("\x1b[200~[ROUTE] from: c3 to: a1, b2 type: question task: T-c3 id: m-12 body: soak c3.2.1 [/ROUTE]\n"))
	got := mustLines(t, tr.o.log)
	want := []string{
		"start inc=1 pid=",
		"recv m-7 from=b2 key=b2.1.4 type=status",
		"ack m-9 to=b2,c3",
		"ackl m-10",
		`notice T-a1 "refused: spoofed sender: x"`,
		`other m-11 from=c3 "hello"`,
		"recv m-12 from=c3 key=c3.2.1 type=question",
		"sent a1.1.1 to=c3 type=status",
	}
	if len(got) != len(want) {
		t.Fatalf("log has %d lines, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("log line %d = %q, want %q", i+1, got[i], want[i])
		}
	}
	wantOut := "[ROUTE]\nto: c3\ntype: status\ntask: T-a1\nbody: soak a1.1.1 re c3.2.1\n[/ROUTE]\n"
	if out.String() != wantOut {
		t.Errorf("answer printed %q, want %q", out.String(), wantOut)
	}
}

// TestTrafficSendsUntilStopped runs the sender fast and checks that every
// printed envelope was logged as sent first, that every kind of message
// is in the mix, that keys are unique and that the stop file stops it.
func TestTrafficSendsUntilStopped(t *testing.T) {
	dir := t.TempDir()
	stop := filepath.Join(dir, "stop")
	tr, out := newTestTraffic(t, trafficOptions{rate: 1000, peers: []string{"b2", "c3", "d4"}, roles: []string{"qa"}, seed: 7, stop: stop})
	done := make(chan struct{})
	go func() { tr.run(); close(done) }()
	testwait.Until(t, 20*time.Second, func() bool { return strings.Count(out.String(), "[/ROUTE]") >= 300 },
		func() string {
			return fmt.Sprintf("only %d envelopes printed in 20s", strings.Count(out.String(), "[/ROUTE]"))
		})
	if err := os.WriteFile(stop, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the sender did not stop within 10s of the stop file")
	}
	lines := mustLines(t, tr.o.log)
	if last := lines[len(lines)-1]; last != "stopped" {
		t.Errorf("last log line %q, want stopped", last)
	}
	sentRE := regexp.MustCompile(`^sent (a1\.1\.\d+) to=(\S+) type=(status|question)$`)
	keys := map[string]bool{}
	for _, l := range lines[1 : len(lines)-1] {
		m := sentRE.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("bad sent line %q", l)
		}
		if keys[m[1]] {
			t.Errorf("key %s sent twice", m[1])
		}
		keys[m[1]] = true
	}
	text := out.String()
	if n := strings.Count(text, "[/ROUTE]"); n != len(keys) {
		t.Errorf("%d envelopes printed, %d logged as sent", n, len(keys))
	}
	for _, want := range []string{"to: role:qa\n", "to: team-lead\n", "type: question\n", "[ROUTE] to: ", ", "} {
		if !strings.Contains(text, want) {
			t.Errorf("the mix lacks %q", want)
		}
	}
	// A second process on the same log is the next incarnation, with keys of its own.
	tr2, _ := newTestTraffic(t, trafficOptions{log: tr.o.log})
	if tr2.inc != 2 || tr2.nextKey() != "a1.2.1" {
		t.Errorf("second start: inc %d", tr2.inc)
	}
}

func TestTrafficFlagsNeedLog(t *testing.T) {
	if code := realMain([]string{"--traffic-rate", "2", "-e", "idle"}); code != exitUsage {
		t.Errorf("--traffic-rate without --traffic-log: exit %d, want %d", code, exitUsage)
	}
}

func FuzzEnvelopeReader(f *testing.F) {
	f.Add([]byte("[ROUTE]\rfrom: a\rid: m-1\rbody: soak a.1.1\r[/ROUTE]\r"))
	f.Add([]byte("[ROUTE] from: team-lead to: a type: status task: x body: relayed m-3 to b, c [/ROUTE]\n"))
	f.Add([]byte("[ROUTE]\nbody: x\nmore: y\n[/ROUTE]\n\x1b[31m[ROUTE][/ROUTE]"))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r envelopeReader
		r.feed(b, func(e map[string]string) {
			for k := range e {
				if k != strings.ToLower(k) {
					t.Fatalf("key %q not lower-cased", k)
				}
			}
		})
		if len(r.partial) > maxTypedLine {
			t.Fatalf("pending line grew to %d bytes", len(r.partial))
		}
	})
}

// TestMain lets the test binary run as mockagent itself (childEnv set), so
// a test can start it on a real PTY.
func TestMain(m *testing.M) {
	if args := os.Getenv(childEnv); args != "" {
		os.Exit(realMain(strings.Split(args, "\x1f")))
	}
	os.Exit(m.Run())
}

const childEnv = "MOCKAGENT_TEST_ARGS"

// TestTrafficSelfKill starts the mock in traffic mode on a real PTY,
// types a message into it, and kills it with SIGUSR1: it dies by SIGKILL,
// and what it read before is in its log.
func TestTrafficSelfKill(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "a1.log")
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join([]string{"--name", "a1", "--traffic-log", log, "-e", "say ready"}, "\x1f"))
	ptmx, err := pty.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	go func() { _, _ = io.Copy(io.Discard, ptmx) }()
	waitLog := func(want string) {
		t.Helper()
		var b []byte
		testwait.Until(t, 20*time.Second, func() bool { b, _ = os.ReadFile(log); return strings.Contains(string(b), want) },
			func() string { return fmt.Sprintf("log lacks %q after 20s:\n%s", want, b) })
	}
	waitLog("start inc=1 pid=")
	if _, err := ptmx.WriteString("[ROUTE]\rfrom: b2\rto: a1\rtype: status\rtask: T-b2\rid: m-3\rbody: soak b2.1.1\r[/ROUTE]\r"); err != nil {
		t.Fatal(err)
	}
	waitLog("recv m-3 from=b2 key=b2.1.1 type=status\n")
	if err := cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("the mock did not die within 20s of SIGUSR1")
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the mock ended with %v, want killed by SIGKILL", cmd.ProcessState)
	}
}
