package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
)

// ingestRun runs the PTY writer child as an agent of the agents package
// (the engine's PTY reader, with its 32 KiB buffer) into an engineSink with
// the engine's default terminal (120x40, default scrollback), and returns
// what the sink saw: envelopes, bytes, reads (Output calls) and
// throughput. The clock runs from the first chunk's arrival to the end of
// the last one's processing.
func ingestRun(exe, logPath string, deadline time.Duration) (envelopes int, total int64, reads int, mbps float64, err error) {
	s := newEngineSink(120, 40, 0)
	defer s.close()
	a := agents.Start(agents.Spec{
		Name:    "ingest",
		Command: []string{exe},
		Env:     map[string]string{"TERM": childTerm, EnvChild: childPTYWriter, envLog: logPath},
		Cols:    120, Rows: 40,
		Restart: agents.RestartNever,
		Grace:   time.Second,
	}, s)
	s.agent.Store(a)
	select {
	case <-a.Done():
	case <-time.After(deadline):
		a.Stop()
		return 0, 0, 0, 0, fmt.Errorf("ingest: the PTY writer did not finish within %s", deadline)
	}
	if inf := a.Info(); inf.State != wire.StateExited || inf.ExitCode != 0 {
		return 0, 0, 0, 0, fmt.Errorf("ingest: the PTY writer ended %s, exit code %d", inf.State, inf.ExitCode)
	}
	envelopes, total, reads, mbps = s.result()
	return envelopes, total, reads, mbps, nil
}

// tmuxConf is the tmux configuration of the comparison: no status line, so
// the pane is the whole 120x40 window, and the scrollback the engine's
// terminals keep by default.
const tmuxConf = "set -g status off\nset -g history-limit 10000\n"

// tmuxPoll is the period of the polls for the done marker (a sleep(1)
// argument).
const tmuxPoll = "0.005"

// tmuxVersion returns the tmux binary and `tmux -V` ("tmux 3.3a"), or an
// error saying why tmux cannot be used.
func tmuxVersion() (path, version string, err error) {
	path, err = exec.LookPath("tmux")
	if err != nil {
		return "", "", errors.New("tmux not installed")
	}
	out, err := exec.Command(path, "-V").Output()
	if err != nil {
		return "", "", fmt.Errorf("tmux -V: %w", err)
	}
	return path, strings.TrimSpace(string(out)), nil
}

// tmuxRun has a detached tmux server, on a private socket in dir, show
// logPath in a 120x40 pane and returns the time from starting tmux until
// tmux has put the whole log on the pane's screen.
//
// The pane runs `cat` on the log, prints a marker, then polls
// `tmux capture-pane -p` for the marker (every tmuxPoll) and signals a
// wait-for channel once it is on the screen; this process waits on that
// channel. The polling is done from the pane, after cat has written
// everything, so that it does not compete with tmux for the CPU while the
// log goes through. The time includes tmux's start-up, the shell's and
// cat's, the last poll and the signal (see ThroughputResult.TmuxEmpty).
// The server is killed afterwards and waited for, so that its teardown
// does not weigh on the next measurement.
func tmuxRun(tmux, dir, logPath string, deadline time.Duration) (time.Duration, error) {
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxConf), 0o600); err != nil {
		return 0, err
	}
	id := strconv.FormatInt(time.Now().UnixNano(), 36)
	sock := filepath.Join(dir, "tmux-"+id)
	marker, channel := "tlbench-done-"+id, "tlbench-"+id
	tm := func(ctx context.Context, args ...string) *exec.Cmd {
		return exec.CommandContext(ctx, tmux, append([]string{"-S", sock, "-f", conf}, args...)...)
	}
	// Inside the pane, tmux talks to this server through $TMUX.
	q := shellQuote(tmux)
	script := "cat " + shellQuote(logPath) + "; printf " + marker +
		"; until " + q + " capture-pane -p | grep -qF " + marker + "; do sleep " + tmuxPoll + "; done" +
		"; " + q + " wait-for -S " + channel + "; sleep 60"
	ctx, cancel := context.WithTimeout(context.Background(), deadline)
	defer cancel()
	start := time.Now()
	if out, err := tm(ctx, "new-session", "-d", "-x", "120", "-y", "40", script).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("tmux new-session: %w: %s", err, bytes.TrimSpace(out))
	}
	defer killTmux(tm)
	if out, err := tm(ctx, "wait-for", channel).CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return 0, fmt.Errorf("tmux did not show the end of the log within %s", deadline)
		}
		return 0, fmt.Errorf("tmux wait-for: %w: %s", err, bytes.TrimSpace(out))
	}
	return time.Since(start), nil
}

// killTmux stops the private tmux server and waits (at most 5s) for its
// process to be gone.
func killTmux(tm func(ctx context.Context, args ...string) *exec.Cmd) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pid := 0
	if out, err := tm(ctx, "display-message", "-p", "#{pid}").Output(); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	_ = tm(ctx, "kill-server").Run()
	if pid <= 0 {
		return
	}
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
		if syscall.Kill(pid, 0) != nil || zombie(pid) {
			return
		}
	}
}

// zombie reports whether process pid has exited and waits to be reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...; comm may hold anything but ends at the last ')'.
	i := bytes.LastIndexByte(b, ')')
	return i >= 0 && i+2 < len(b) && b[i+2] == 'Z'
}

// shellQuote quotes s for sh as one word.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
