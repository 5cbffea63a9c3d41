package bench

import (
	"bytes"
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
)

// ingestRun runs the PTY writer child as an agent of the agents package
// (the engine's PTY reader, 32 KiB reads) into an engineSink with the
// engine's default terminal (120x40, default scrollback), and returns what
// the sink saw. The clock runs from the first chunk's arrival to the end
// of the last one's processing.
func ingestRun(exe, logPath string, deadline time.Duration) (envelopes int, total int64, mbps float64, err error) {
	s := newEngineSink(120, 40, 0)
	defer s.close()
	a := agents.Start(agents.Spec{
		Name:    "ingest",
		Command: []string{exe},
		Env:     map[string]string{EnvChild: childPTYWriter, envLog: logPath},
		Cols:    120, Rows: 40,
		Restart: agents.RestartNever,
		Grace:   time.Second,
	}, s)
	s.agent.Store(a)
	select {
	case <-a.Done():
	case <-time.After(deadline):
		a.Stop()
		return 0, 0, 0, fmt.Errorf("ingest: the PTY writer did not finish within %s", deadline)
	}
	if inf := a.Info(); inf.State != agents.StateExited || inf.ExitCode != 0 {
		return 0, 0, 0, fmt.Errorf("ingest: the PTY writer ended %s, exit code %d", inf.State, inf.ExitCode)
	}
	envelopes, total, mbps = s.result()
	return envelopes, total, mbps, nil
}

// tmuxConf is the tmux configuration of the comparison: no status line, so
// the pane is the whole 120x40 window, and the scrollback the engine's
// terminals keep by default.
const tmuxConf = "set -g status off\nset -g history-limit 10000\n"

// tmuxPoll is the period of the polls for the done marker.
const tmuxPoll = 10 * time.Millisecond

// tmuxVersion returns `tmux -V` ("tmux 3.3a"), or "" and an error saying
// why tmux cannot be used.
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
// logPath in a 120x40 pane (`cat`, then a marker) and returns the time
// from starting tmux until the marker is on the pane's screen. The end is
// the start of the capture-pane that first shows the marker, so the figure
// leaves out that poll's own latency (at most tmuxPoll is added by the
// polling). The server is killed afterwards and waited for, so that its
// teardown does not weigh on the next measurement.
func tmuxRun(tmux, dir, logPath string, deadline time.Duration) (time.Duration, error) {
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte(tmuxConf), 0o600); err != nil {
		return 0, err
	}
	sock := filepath.Join(dir, "tmux-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	marker := "tlbench-done-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	tm := func(args ...string) *exec.Cmd {
		return exec.Command(tmux, append([]string{"-S", sock, "-f", conf}, args...)...)
	}
	script := "cat " + shellQuote(logPath) + "; printf " + marker + "; sleep 60"
	start := time.Now()
	if out, err := tm("new-session", "-d", "-x", "120", "-y", "40", script).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("tmux new-session: %w: %s", err, bytes.TrimSpace(out))
	}
	defer killTmux(tm)
	for {
		at := time.Now()
		out, err := tm("capture-pane", "-p").Output()
		if err != nil {
			return 0, fmt.Errorf("tmux capture-pane: %w", err)
		}
		if bytes.Contains(out, []byte(marker)) {
			return at.Sub(start), nil
		}
		if time.Since(start) > deadline {
			return 0, fmt.Errorf("tmux did not show the end of the log within %s", deadline)
		}
		time.Sleep(tmuxPoll - min(time.Since(at), tmuxPoll))
	}
}

// killTmux stops the private tmux server and waits (at most 5s) for its
// process to be gone.
func killTmux(tm func(args ...string) *exec.Cmd) {
	pid := 0
	if out, err := tm("display-message", "-p", "#{pid}").Output(); err == nil {
		pid, _ = strconv.Atoi(strings.TrimSpace(string(out)))
	}
	_ = tm("kill-server").Run()
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
