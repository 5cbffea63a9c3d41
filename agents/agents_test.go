package agents

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

func TestOutputAndExitCode(t *testing.T) {
	a, rec := start(t, Spec{Command: mock("say hello world\nexit 7")})
	waitDone(t, a, rec)
	if !rec.has("hello world\r\n") {
		t.Fatalf("output not captured\n%s", rec.diag())
	}
	ev := rec.last()
	if ev.State != wire.StateExited || !ev.Final || ev.ExitCode != 7 || ev.Restarts != 0 {
		t.Fatalf("last event = %+v, want final exited with code 7\n%s", ev, rec.diag())
	}
	// All output was delivered before the exit was reported.
	rec.mu.Lock()
	atExit := string(rec.out[:rec.outAtEvent[len(rec.outAtEvent)-1]])
	rec.mu.Unlock()
	if !strings.Contains(atExit, "hello world") {
		t.Fatalf("exit reported before the output: %q", atExit)
	}
	if got := rec.count(wire.StateRunning); got != 1 {
		t.Fatalf("running events = %d, want 1", got)
	}
	inf := a.Info()
	if inf.State != wire.StateExited || inf.ExitCode != 7 || inf.Pid == 0 || inf.StartedAt.IsZero() {
		t.Fatalf("Info = %+v", inf)
	}
}

func TestExitBySignal(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"sh", "-c", "kill -KILL $$"}})
	waitDone(t, a, rec)
	ev := rec.last()
	if ev.State != wire.StateExited || ev.ExitCode != -1 || !strings.Contains(ev.Err, "killed") {
		t.Fatalf("last event = %+v, want exit by signal", ev)
	}
}

func TestDirCreatedAndEnv(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "work")
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", `echo "foo=$FOO term=$TERM pwd=$(pwd)"`},
		Dir:     dir,
		Env:     map[string]string{"FOO": "bar baz", "TERM": "xterm-test"},
	})
	waitDone(t, a, rec)
	want := "foo=bar baz term=xterm-test pwd=" + dir
	if !rec.has(want) {
		t.Fatalf("want %q in output\n%s", want, rec.diag())
	}
}

func TestRestartOnFailureWithBackoff(t *testing.T) {
	const base = 40 * time.Millisecond
	script := `n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; echo "run $n"; [ "$n" -ge 4 ] && exit 0; exit 3`
	a, rec := start(t, Spec{
		Command:    []string{"sh", "-c", script},
		Dir:        t.TempDir(),
		Restart:    RestartOnFailure,
		Backoff:    base,
		BackoffMax: time.Second,
	})
	waitDone(t, a, rec)
	for i := 1; i <= 4; i++ {
		if !rec.has(fmt.Sprintf("run %d", i)) {
			t.Fatalf("run %d missing\n%s", i, rec.diag())
		}
	}
	last := rec.last()
	if last.State != wire.StateExited || !last.Final || last.ExitCode != 0 || last.Restarts != 3 {
		t.Fatalf("last event = %+v, want final exited 0 after 3 restarts\n%s", last, rec.diag())
	}
	if a.Info().Restarts != 3 {
		t.Fatalf("Info().Restarts = %d", a.Info().Restarts)
	}
	// Each restart waited at least the doubled backoff.
	evs := rec.evs()
	var exitAt time.Time
	n := 0
	for _, ev := range evs {
		switch ev.State {
		case wire.StateExited:
			if !ev.Final && ev.ExitCode != 3 {
				t.Fatalf("non-final exit with code %d", ev.ExitCode)
			}
			exitAt = ev.Time
		case wire.StateRestarting:
			n++
			if ev.Restarts != n {
				t.Fatalf("restarting event %d has Restarts %d", n, ev.Restarts)
			}
		case wire.StateStarting:
			if n > 0 {
				want := base << (n - 1)
				if gap := ev.Time.Sub(exitAt); gap < want {
					t.Fatalf("restart %d after %v, want at least %v", n, gap, want)
				}
			}
		}
	}
	if n != 3 {
		t.Fatalf("%d restarting events, want 3\n%s", n, rec.diag())
	}
}

func TestNeverRestarts(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"sh", "-c", "exit 1"}, Restart: RestartNever, Backoff: time.Millisecond})
	waitDone(t, a, rec)
	if rec.count(wire.StateStarting) != 1 || rec.count(wire.StateRestarting) != 0 {
		t.Fatalf("restarted with never\n%s", rec.diag())
	}
	if ev := rec.last(); ev.State != wire.StateExited || ev.ExitCode != 1 || !ev.Final {
		t.Fatalf("last event = %+v", ev)
	}
}

func TestOnFailureDoesNotRestartSuccess(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"true"}, Restart: RestartOnFailure, Backoff: time.Millisecond})
	waitDone(t, a, rec)
	if rec.count(wire.StateRestarting) != 0 {
		t.Fatalf("restarted after exit 0\n%s", rec.diag())
	}
}

func TestAlwaysRestartsUntilStop(t *testing.T) {
	a, rec := start(t, Spec{
		Command:    []string{"sh", "-c", "echo tick"},
		Restart:    RestartAlways,
		Backoff:    5 * time.Millisecond,
		BackoffMax: 20 * time.Millisecond,
	})
	eventually(t, "3 restarts", rec.diag, func() bool { return a.Info().Restarts >= 3 })
	a.Stop()
	ev := rec.last()
	if ev.State != wire.StateStopped || !ev.Final {
		t.Fatalf("last event = %+v, want final stopped", ev)
	}
	if a.Info().State != wire.StateStopped {
		t.Fatalf("state = %s", a.Info().State)
	}
	n := rec.count(wire.StateStarting)
	time.Sleep(50 * time.Millisecond) // longer than BackoffMax: a restart would show
	if rec.count(wire.StateStarting) != n {
		t.Fatalf("restarted after Stop\n%s", rec.diag())
	}
}

func TestBackoffDelays(t *testing.T) {
	b := backoff{base: 100, max: 1000, stable: 5000}
	var got []time.Duration
	for _, ran := range []time.Duration{1, 1, 1, 1, 1, 1, 5000, 1, 4999} {
		got = append(got, b.delay(ran))
	}
	want := []time.Duration{100, 200, 400, 800, 1000, 1000, 100, 200, 400}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("delays = %v, want %v", got, want)
	}
}

func TestStopGraceful(t *testing.T) {
	a, rec := start(t, Spec{Command: mock("say ready\nidle"), Grace: 20 * time.Second})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	t0 := time.Now()
	a.Stop()
	if d := time.Since(t0); d >= 20*time.Second {
		t.Fatalf("Stop waited the whole grace (%v) for a program that exits on SIGTERM", d)
	}
	ev := rec.last()
	if ev.State != wire.StateStopped || ev.ExitCode != 143 || !ev.Final {
		t.Fatalf("last event = %+v, want stopped with code 143", ev)
	}
	a.Stop() // idempotent
}

func TestStopKillsProcessIgnoringTerm(t *testing.T) {
	const grace = 300 * time.Millisecond
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", `trap "" TERM; sleep 100 & echo "child=$!"; wait`},
		Grace:   grace,
	})
	child := hostPid(t, a, pidAfter(t, rec, "child="))
	leader := a.Info().Pid
	t0 := time.Now()
	a.Stop()
	if d := time.Since(t0); d < grace {
		t.Fatalf("Stop returned after %v, before the grace period: SIGTERM was not ignored?", d)
	}
	if !gone(leader) || !gone(child) {
		t.Fatalf("left behind: leader %d gone=%v, child %d gone=%v", leader, gone(leader), child, gone(child))
	}
	ev := rec.last()
	if ev.State != wire.StateStopped || ev.ExitCode != -1 || !strings.Contains(ev.Err, "killed") {
		t.Fatalf("last event = %+v, want stopped by SIGKILL", ev)
	}
	select {
	case <-a.Done():
	default:
		t.Fatal("Done not closed after Stop")
	}
}

func TestStragglerKilledAfterExit(t *testing.T) {
	// The leader exits (after reading a line) leaving a child in its
	// process group that ignores SIGHUP and SIGTERM and holds the terminal
	// open, like the daemon Codex leaves behind.
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", `(trap "" HUP TERM; exec sleep 100) & echo "child=$!"; read x; exit 0`},
		Grace:   300 * time.Millisecond,
	})
	child := hostPid(t, a, pidAfter(t, rec, "child="))
	eventually(t, "the child to exec sleep", rec.diag, func() bool {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", child))
		return strings.HasPrefix(string(b), "sleep")
	})
	a.Type("go", nil)
	waitDone(t, a, rec)
	if ev := rec.last(); ev.State != wire.StateExited || ev.ExitCode != 0 {
		t.Fatalf("last event = %+v", ev)
	}
	if !gone(child) {
		t.Fatalf("straggler %d left running", child)
	}
}

func TestEscapedHolderOfTerminal(t *testing.T) {
	// A process that left the session with setsid but kept the terminal
	// open: the agent must still finish (the master is closed under the
	// reader), and the test kills the escapee itself.
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", `setsid sh -c 'echo "esc=$$"; exec sleep 100' & read x; exit 0`},
	})
	esc := hostPid(t, a, pidAfter(t, rec, "esc="))
	t.Cleanup(func() {
		if esc > 0 {
			_ = syscallKill(esc)
		}
	})
	a.Type("go", nil)
	waitDone(t, a, rec)
	if ev := rec.last(); ev.State != wire.StateExited || ev.ExitCode != 0 {
		t.Fatalf("last event = %+v", ev)
	}
}

func TestMissingCommand(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"no-such-agent-cli-xyz", "--flag"}})
	waitDone(t, a, rec)
	ev := rec.last()
	if ev.State != wire.StateFailed || !ev.Final {
		t.Fatalf("last event = %+v, want final failed", ev)
	}
	for _, want := range []string{`"no-such-agent-cli-xyz"`, "not on PATH", "install it", "full path"} {
		if !strings.Contains(ev.Err, want) {
			t.Fatalf("Err = %q, want it to mention %q", ev.Err, want)
		}
	}
	if a.Info().State != wire.StateFailed {
		t.Fatalf("state = %s", a.Info().State)
	}
	// The person reads the fix first, not the package that found it.
	if !strings.HasPrefix(ev.Err, `"no-such-agent-cli-xyz" is not on PATH: install it`) {
		t.Fatalf("Err = %q, want it to start with what is wrong and what to do", ev.Err)
	}
	if got := a.Info().Err; got != ev.Err {
		t.Fatalf("Info().Err = %q, want the failure %q", got, ev.Err)
	}
	d := newDone()
	a.Type("hello", d.fn)
	if err := d.wait(t, rec); !errors.Is(err, ErrGone) {
		t.Fatalf("Type after failure: %v, want ErrGone", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, ErrGone) {
		t.Fatalf("Write after failure: %v, want ErrGone", err)
	}
}

func TestCommandLookup(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho \"ran $0\"\n"
	if err := os.WriteFile(filepath.Join(bin, "fakeagent"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "noexec"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Run("relative to Dir", func(t *testing.T) {
		a, rec := start(t, Spec{Command: []string{"./bin/fakeagent"}, Dir: dir})
		waitDone(t, a, rec)
		if !rec.has("ran " + filepath.Join(bin, "fakeagent")) {
			t.Fatalf("did not run\n%s", rec.diag())
		}
	})
	t.Run("PATH from Env", func(t *testing.T) {
		a, rec := start(t, Spec{Command: []string{"fakeagent"}, Env: map[string]string{"PATH": bin + ":/usr/bin:/bin"}})
		waitDone(t, a, rec)
		if !rec.has("ran " + filepath.Join(bin, "fakeagent")) {
			t.Fatalf("did not run\n%s", rec.diag())
		}
	})
	t.Run("not executable", func(t *testing.T) {
		a, rec := start(t, Spec{Command: []string{"./noexec"}, Dir: dir})
		waitDone(t, a, rec)
		if ev := rec.last(); ev.State != wire.StateFailed || !strings.Contains(ev.Err, "not executable") {
			t.Fatalf("last event = %+v", ev)
		}
	})
	t.Run("no command", func(t *testing.T) {
		a, rec := start(t, Spec{})
		waitDone(t, a, rec)
		if ev := rec.last(); ev.State != wire.StateFailed || !strings.Contains(ev.Err, "no command") {
			t.Fatalf("last event = %+v", ev)
		}
	})
	t.Run("bad restart policy", func(t *testing.T) {
		a, rec := start(t, Spec{Command: []string{"true"}, Restart: "sometimes"})
		waitDone(t, a, rec)
		if ev := rec.last(); ev.State != wire.StateFailed || !strings.Contains(ev.Err, "on-failure") {
			t.Fatalf("last event = %+v", ev)
		}
	})
}

func TestTypeLineByLine(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\r", Submit: "\r", LineDelay: 2 * time.Millisecond, SubmitDelay: 2 * time.Millisecond},
	})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	var order []int
	var mu = make(chan struct{}, 1)
	mu <- struct{}{}
	ds := []*doneRec{newDone(), newDone(), newDone()}
	for i, text := range []string{"hello\nworld", "a\x1b[31mred\x1b[0m\r\nb\x07\x1b]0;title\x07", "third\n\n"} {
		a.Type(text, func(err error) {
			<-mu
			order = append(order, i)
			mu <- struct{}{}
			ds[i].fn(err)
		})
	}
	for i, d := range ds {
		if err := d.wait(t, rec); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	if fmt.Sprint(order) != "[0 1 2]" {
		t.Fatalf("done order %v", order)
	}
	fileIs(t, recFile, "hello\rworld\r"+"ared\rb\r"+"third\r", rec)
	if rec.has("hello") {
		t.Fatalf("raw mode echoed input\n%s", rec.diag())
	}
}

func TestTypeCookedEcho(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("expect ^one$\nexpect ^two$\nsay got both\nidle", "--record", recFile),
		Preset:  Preset{Paste: PasteAuto},
	})
	d := newDone()
	a.Type("one\ntwo", d.fn)
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	eventually(t, "got both", rec.diag, func() bool { return rec.has("got both") })
	// The terminal's line discipline turned CR into NL; the echo it would
	// have drawn is the console's, never in the program's output.
	fileIs(t, recFile, "one\ntwo\n", rec)
	if !rec.echoed("one\r\ntwo\r\n") {
		t.Fatalf("no echo drawn\n%s", rec.diag())
	}
	if rec.has("one") || rec.has("two") {
		t.Fatalf("the kernel's echo is in the program's output\n%s", rec.diag())
	}
}

func TestTypeBracketedPaste(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--bracketed-paste", "--record", recFile),
		Preset:  Preset{Paste: PasteAuto, Submit: "\r", SubmitDelay: time.Millisecond},
	})
	eventually(t, "ready and bracketed paste on", rec.diag, func() bool {
		return rec.has("ready") && a.Info().BracketedPaste
	})
	d1, d2 := newDone(), newDone()
	a.Type("line1\r\nline2\n", d1.fn)
	a.Type("single", d2.fn)
	if err := d1.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	if err := d2.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "\x1b[200~line1\nline2\x1b[201~\r"+"\x1b[200~single\x1b[201~\r", rec)
	a.Stop()
	if a.Info().BracketedPaste {
		t.Fatal("bracketed paste still reported after Stop")
	}
}

func TestBracketedPasteTrackingSplitReads(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	script := `chunk 1
write \e[?2004h
say ready
expect ^x$
chunk 3
write \e[?1049;2004l
say off
idle`
	a, rec := start(t, Spec{Command: mock(script, "--raw", "--record", recFile)})
	eventually(t, "bracketed paste on", rec.diag, func() bool { return rec.has("ready") && a.Info().BracketedPaste })
	a.Type("x", nil)
	eventually(t, "bracketed paste off", rec.diag, func() bool { return rec.has("off") && !a.Info().BracketedPaste })
	d := newDone()
	a.Type("y", d.fn)
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "\x1b[200~x\x1b[201~\r"+"y\r", rec)
}

func TestTypeLargePaste(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteAlways},
	})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, "line %04d: the quick brown fox jumps over the lazy dog\n", i)
	}
	text := strings.TrimSuffix(b.String(), "\n")
	long := strings.Repeat("x", 9000) // one line over the 4095-byte canonical limit: raw mode takes it whole
	d1, d2 := newDone(), newDone()
	a.Type(text, d1.fn)
	a.Type(long, d2.fn)
	for _, d := range []*doneRec{d1, d2} {
		if err := d.wait(t, rec); err != nil {
			t.Fatal(err)
		}
	}
	want := "\x1b[200~" + text + "\x1b[201~\r" + "\x1b[200~" + long + "\x1b[201~\r"
	var got []byte
	eventually(t, fmt.Sprintf("%d bytes recorded", len(want)), func() string {
		return fmt.Sprintf("got %d bytes", len(got))
	}, func() bool {
		got, _ = os.ReadFile(recFile)
		return len(got) >= len(want)
	})
	if string(got) != want {
		t.Fatalf("recorded input differs from what was typed (got %d bytes, want %d)", len(got), len(want))
	}
}

func TestWriteRawBytes(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{Command: mock("say ready\nidle", "--raw", "--record", recFile)})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	keys := "\x1b[A\x03\x1b[200~q\r"
	if n, err := a.Write([]byte(keys)); err != nil || n != len(keys) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	fileIs(t, recFile, keys, rec)
}

func TestBlockedWriteOnlyBlocksWriter(t *testing.T) {
	// sleep never reads its input: the PTY fills and the paste blocks.
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", "echo ready; exec sleep 100"},
		Preset:  Preset{Paste: PasteAlways},
		Grace:   time.Second,
	})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	big := strings.Repeat(strings.Repeat("z", 99)+"\n", 10000) // 1 MB
	d1, d2 := newDone(), newDone()
	a.Type(big, d1.fn) // returns at once
	a.Type("next", d2.fn)
	_ = a.Info()
	if err := a.Resize(90, 30); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-d1.ch:
		t.Fatalf("1 MB typed into a program that does not read: %v", err)
	default:
	}
	a.Stop()
	for _, d := range []*doneRec{d1, d2} {
		if err := d.wait(t, rec); !errors.Is(err, ErrGone) {
			t.Fatalf("done = %v, want ErrGone", err)
		}
	}
}

func TestTypeWaitsForRestart(t *testing.T) {
	dir := t.TempDir()
	recFile := filepath.Join(dir, "input")
	// First run fails at once; the second runs the mock (cooked mode, so
	// input typed before it reads is handled the same way).
	script := fmt.Sprintf(`if [ -e started ]; then exec %s --record %s -e 'say second run
idle'; fi; touch started; exit 1`, mockPath, recFile)
	a, rec := start(t, Spec{
		Command: []string{"sh", "-c", script},
		Dir:     dir,
		Restart: RestartOnFailure,
		Backoff: 200 * time.Millisecond,
	})
	eventually(t, "restarting", rec.diag, func() bool { return rec.count(wire.StateRestarting) == 1 })
	d := newDone()
	a.Type("queued", d.fn)
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "queued\n", rec)
	if a.Info().Restarts != 1 {
		t.Fatalf("restarts = %d", a.Info().Restarts)
	}
}

func TestTypeAfterStop(t *testing.T) {
	a, rec := start(t, Spec{Command: mock("idle")})
	eventually(t, "running", rec.diag, func() bool { return a.Info().State == wire.StateRunning })
	a.Stop()
	d := newDone()
	a.Type("late", d.fn)
	if err := d.wait(t, rec); !errors.Is(err, ErrGone) {
		t.Fatalf("done = %v, want ErrGone", err)
	}
}

func TestResize(t *testing.T) {
	a, rec := start(t, Spec{Command: mock("size\nexpect ^resize$\nsize\nidle")})
	eventually(t, "size 120x40", rec.diag, func() bool { return rec.has("size 120x40") })
	if err := a.Resize(100, 30); err != nil {
		t.Fatal(err)
	}
	a.Type("resize", nil)
	eventually(t, "size 100x30", rec.diag, func() bool { return rec.has("size 100x30") })
	if inf := a.Info(); inf.Cols != 100 || inf.Rows != 30 {
		t.Fatalf("Info size %dx%d", inf.Cols, inf.Rows)
	}
	if err := a.Resize(0, 10); !errors.Is(err, ErrBadSize) {
		t.Fatalf("Resize(0, 10) = %v", err)
	}
}

func TestInitialSizeAndStty(t *testing.T) {
	a, rec := start(t, Spec{Command: []string{"stty", "size"}, Cols: 77, Rows: 22})
	waitDone(t, a, rec)
	if !rec.has("22 77") {
		t.Fatalf("stty size\n%s", rec.diag())
	}
}

// While held, nothing is typed; released, the held messages are typed in
// order. (The window in which a broken hold would show is 150 ms: a typed
// message is read by mockagent within a few.)
func TestHoldKeepsMessagesUntilReleased(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{Command: mock("say ready\nidle", "--raw", "--record", recFile), Preset: Preset{Paste: PasteNever, Newline: "\r", Submit: "\r"}})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	a.Hold(true)
	var released atomic.Bool
	typedEarly := make(chan string, 2)
	ds := []*doneRec{newDone(), newDone()}
	for i, text := range []string{"first", "second"} {
		a.Type(text, func(err error) {
			if !released.Load() {
				typedEarly <- text
			}
			ds[i].fn(err)
		})
	}
	select {
	case text := <-typedEarly:
		t.Fatalf("%q typed while held", text)
	case <-time.After(150 * time.Millisecond):
	}
	released.Store(true)
	a.Hold(false)
	for i, d := range ds {
		if err := d.wait(t, rec); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	// Read by the kernel is not yet recorded by the mock: wait for it.
	var data []byte
	eventually(t, "both typed, in order", func() string { return fmt.Sprintf("typed %q\n%s", data, rec.diag()) }, func() bool {
		data, _ = os.ReadFile(recFile)
		return strings.Contains(string(data), "first\rsecond\r")
	})
}

// TestNoticesWaitingTogetherAreTypedAsOne: notices side by side in the
// queue go in as one paste, at most MaxMergedNotices of them; other
// messages are never merged and keep their place; every done is called,
// in queue order.
func TestNoticesWaitingTogetherAreTypedAsOne(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--bracketed-paste", "--record", recFile),
		Preset:  Preset{Paste: PasteAuto, Submit: "\r", SubmitDelay: time.Millisecond},
	})
	eventually(t, "ready and bracketed paste on", rec.diag, func() bool {
		return rec.has("ready") && a.Info().BracketedPaste
	})
	a.Hold(true)
	var mu sync.Mutex
	var order []string
	var dones []*doneRec
	queue := func(notice bool, text string) {
		d := newDone()
		dones = append(dones, d)
		fn := func(err error) {
			mu.Lock()
			order = append(order, text)
			mu.Unlock()
			d.fn(err)
		}
		if notice {
			a.Notice(text, fn)
		} else {
			a.Type(text, fn)
		}
	}
	var want []string
	queue(false, "first")
	for i := range 3 {
		queue(true, fmt.Sprintf("n%d", i))
	}
	queue(false, "relay")
	for i := range MaxMergedNotices + 4 {
		queue(true, fmt.Sprintf("m%d", i))
	}
	a.Hold(false)
	for i, d := range dones {
		if err := d.wait(t, rec); err != nil {
			t.Fatalf("message %d: %v", i, err)
		}
	}
	paste := func(parts ...string) string { return "\x1b[200~" + strings.Join(parts, "\n\n") + "\x1b[201~\r" }
	var ms []string
	for i := range MaxMergedNotices + 4 {
		ms = append(ms, fmt.Sprintf("m%d", i))
	}
	want = append(want, paste("first"), paste("n0", "n1", "n2"), paste("relay"), paste(ms[:MaxMergedNotices]...), paste(ms[MaxMergedNotices:]...))
	fileIs(t, recFile, strings.Join(want, ""), rec)
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(order, " "); got != "first n0 n1 n2 relay "+strings.Join(ms, " ") {
		t.Fatalf("done order: %s", got)
	}
}

// With AcksWithNext an acknowledgement is not typed as a prompt of its own
// (a CLI would spend a model turn on it): it waits, and goes in with the
// next message, in one submit; a notice that needs reading is typed at
// once and takes the waiting acknowledgements along.
func TestAcksWaitForTheNextMessage(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\n", AcksWithNext: true},
	})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	ack1, ack2, msg, notice, ack3 := newDone(), newDone(), newDone(), newDone(), newDone()
	a.Ack("relayed m-1 to qa", ack1.fn)
	a.Ack("relayed m-2 to qa", ack2.fn)
	eventually(t, "the writer waiting with the acknowledgements", rec.diag, a.ackWait.Load)
	if b, _ := os.ReadFile(recFile); len(b) > 0 {
		t.Fatalf("acknowledgements typed on their own: %q", b)
	}
	a.Type("a message", msg.fn)
	for _, d := range []*doneRec{ack1, ack2, msg} {
		if err := d.wait(t, rec); err != nil {
			t.Fatal(err)
		}
	}
	fileIs(t, recFile, "relayed m-1 to qa\n\nrelayed m-2 to qa\n\na message\r", rec)
	a.Ack("relayed m-3 to qa", ack3.fn)
	eventually(t, "the writer waiting with the acknowledgement", rec.diag, a.ackWait.Load)
	a.Notice("reformat: …", notice.fn)
	for _, d := range []*doneRec{ack3, notice} {
		if err := d.wait(t, rec); err != nil {
			t.Fatal(err)
		}
	}
	fileIs(t, recFile, "relayed m-1 to qa\n\nrelayed m-2 to qa\n\na message\r"+"relayed m-3 to qa\n\nreformat: …\r", rec)
}

// Without AcksWithNext (plain programs) an acknowledgement is typed at once.
func TestAcksTypedAtOnceByDefault(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\n"},
	})
	d := newDone()
	a.Ack("relayed m-1 to qa", d.fn)
	if err := d.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "relayed m-1 to qa\r", rec)
}

// During the program's turn (its CLI's hook said busy) messages wait, and
// go in once the turn ends; an urgent one (the human's words, a blocker)
// goes in at once, ahead of them.
func TestMessagesWaitForTheEndOfTheTurn(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\n"},
	})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	a.Busy(true)
	first, urgent := newDone(), newDone()
	a.Type("a relayed message", first.fn)
	eventually(t, "the writer waiting for the turn to end", rec.diag, a.turnWait.Load)
	if b, _ := os.ReadFile(recFile); len(b) > 0 {
		t.Fatalf("typed during the turn: %q", b)
	}
	a.TypeUrgent("the human's words", urgent.fn)
	if err := urgent.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "the human's words\r", rec)
	a.Busy(false)
	if err := first.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "the human's words\ra relayed message\r", rec)
}

// Messages that waited for the end of the program's turn go in as one
// prompt (one model turn for all of them), each one's done called.
func TestMessagesAfterTheTurnGoInAsOnePrompt(t *testing.T) {
	recFile := filepath.Join(t.TempDir(), "input")
	a, rec := start(t, Spec{
		Command: mock("say ready\nidle", "--raw", "--record", recFile),
		Preset:  Preset{Paste: PasteNever, Newline: "\n"},
	})
	eventually(t, "ready", rec.diag, func() bool { return rec.has("ready") })
	a.Busy(true)
	one, two, notice := newDone(), newDone(), newDone()
	a.Type("from architect: use JSON", one.fn)
	a.Notice("relayed m-4 to qa", notice.fn)
	a.Type("from qa: tests pass", two.fn)
	eventually(t, "the writer waiting for the turn to end", rec.diag, a.turnWait.Load)
	a.Busy(false)
	for _, d := range []*doneRec{one, notice, two} {
		if err := d.wait(t, rec); err != nil {
			t.Fatal(err)
		}
	}
	fileIs(t, recFile, "from architect: use JSON\n\nrelayed m-4 to qa\n\nfrom qa: tests pass\r", rec)
	// Outside a turn, messages go one by one again.
	three, four := newDone(), newDone()
	a.Type("three", three.fn)
	if err := three.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	a.Type("four", four.fn)
	if err := four.wait(t, rec); err != nil {
		t.Fatal(err)
	}
	fileIs(t, recFile, "from architect: use JSON\n\nrelayed m-4 to qa\n\nfrom qa: tests pass\rthree\rfour\r", rec)
}
