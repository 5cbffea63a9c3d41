package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/term"
	"github.com/teamlead/teamlead/internal/worktree"
)

// Terminal is what the command sees of the terminal it runs in.
type Terminal struct {
	// Stdout says whether standard output is a terminal.
	Stdout bool
	// Cols and Rows are the terminal's size; 0 when there is no terminal
	// to measure.
	Cols, Rows int
}

// StdTerminal looks at standard output, and for the size at the first of
// standard output, input, error or /dev/tty that is a terminal.
func StdTerminal() Terminal {
	t := Terminal{Stdout: term.IsTerminal(int(os.Stdout.Fd()))}
	for _, fd := range []int{int(os.Stdout.Fd()), int(os.Stdin.Fd()), int(os.Stderr.Fd())} {
		if term.IsTerminal(fd) {
			if c, r, err := term.Size(fd); err == nil && c > 0 {
				t.Cols, t.Rows = c, r
				return t
			}
		}
	}
	if f, err := os.Open("/dev/tty"); err == nil {
		defer f.Close()
		if c, r, err := term.Size(int(f.Fd())); err == nil {
			t.Cols, t.Rows = c, r
		}
	}
	return t
}

// The console's smallest screen.
const minCols, minRows = 80, 24

// terminalChecks: is stdout a terminal, its size, its colours, and tmux or
// screen around it.
func terminalChecks(o Options) []Check {
	t := o.Terminal()
	env := func(k string) string { v, _ := o.LookupEnv(k); return v }
	out := make([]Check, 0, 4)

	c := Check{Check: "terminal"}
	if t.Stdout {
		c.Status, c.Finding = OK, "stdout is a terminal"
	} else {
		c.Status = Warning
		c.Finding = "stdout is not a terminal (this output goes to a pipe or a file); the console of teamlead run needs one"
		c.Fix = "start teamlead run from a terminal, or run teamlead run --headless without one"
	}
	out = append(out, c)

	c = Check{Check: "terminal size", Cols: t.Cols, Rows: t.Rows}
	switch {
	case t.Cols == 0:
		c.Status = Warning
		c.Finding = "no terminal to measure"
		c.Fix = fmt.Sprintf("run teamlead run in a terminal of at least %dx%d", minCols, minRows)
	case t.Cols < minCols || t.Rows < minRows:
		c.Status = Warning
		c.Finding = fmt.Sprintf("%dx%d: the console needs at least %dx%d, or its panes are cut", t.Cols, t.Rows, minCols, minRows)
		c.Fix = fmt.Sprintf("make the window (or the tmux pane) at least %dx%d", minCols, minRows)
	default:
		c.Status, c.Finding = OK, fmt.Sprintf("%dx%d", t.Cols, t.Rows)
	}
	out = append(out, c)

	termName, colorterm := env("TERM"), env("COLORTERM")
	_, noColor := o.LookupEnv("NO_COLOR")
	tmux, screen := env("TMUX") != "", env("STY") != ""
	c = Check{Check: "colours"}
	switch ct := strings.ToLower(colorterm); {
	case termName == "":
		c.Status = Warning
		c.Finding = "TERM is not set: the console cannot tell what the terminal can draw"
		c.Fix = "export TERM=xterm-256color (or whatever your terminal emulates)"
	case termName == "dumb":
		c.Status = Warning
		c.Finding = "TERM=dumb: the console cannot draw its screen on it"
		c.Fix = "use a terminal emulator (TERM=xterm-256color), or teamlead run --headless"
	case noColor:
		c.Status = OK
		c.Finding = fmt.Sprintf("NO_COLOR is set, so the console draws without colour (unset NO_COLOR for colour); TERM=%s", termName)
	case ct == "truecolor" || ct == "24bit":
		c.Status, c.Finding = OK, fmt.Sprintf("24-bit colour (TERM=%s, COLORTERM=%s)", termName, colorterm)
	case strings.Contains(termName, "256color"):
		c.Status, c.Finding = OK, fmt.Sprintf("256 colours (TERM=%s)", termName)
	default:
		c.Status = Warning
		c.Finding = fmt.Sprintf("TERM=%s: 16 colours at most, so the console's themes look flat", termName)
		switch {
		case tmux:
			c.Fix = "put set -g default-terminal tmux-256color in ~/.tmux.conf and start a new tmux session"
		case screen:
			c.Fix = "put term screen-256color in ~/.screenrc and start a new screen session"
		default:
			c.Fix = "export TERM=xterm-256color if your terminal supports it (most do)"
		}
	}
	out = append(out, c)

	c = Check{Check: "tmux/screen", Status: OK}
	switch {
	case tmux:
		c.Finding = "inside tmux (TMUX is set)"
		if ms, err := o.TmuxEscapeTime(); err == nil && ms > 50 {
			c.Status = Warning
			c.Finding = fmt.Sprintf("inside tmux, whose escape-time is %d ms: esc in the console (closing a view, leaving a filter) waits that long", ms)
			c.Fix = "put set -sg escape-time 10 in ~/.tmux.conf, then tmux source-file ~/.tmux.conf"
		}
	case screen:
		c.Finding = "inside GNU screen (STY is set)"
	default:
		c.Finding = "not inside tmux or screen"
	}
	out = append(out, c)
	return out
}

// tmuxEscapeTime asks the tmux server this runs in for its escape-time.
func tmuxEscapeTime() (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	// The system's tmux, not the first on PATH: a folder of PATH an agent
	// can write would have its tmux run as you (red team 13a, finding 1).
	tmux := worktree.SystemProgram("tmux")
	if tmux == "" {
		return 0, errors.New("no tmux where the system installs programs")
	}
	cmd := exec.CommandContext(ctx, tmux, "show-options", "-sv", "escape-time")
	cmd.WaitDelay = time.Second
	b, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// sandboxCheck says whether agents get their sandbox here (isolation:
// auto): without it they run in a user namespace alone, which keeps them
// from acting as you through the console but not from your other
// servers, the console's process or other terminals.
func sandboxCheck(o Options) Check {
	c := Check{Check: "machine trust", Subject: "sandbox"}
	problem := o.SandboxProblem()
	if problem == "" {
		c.Status, c.Finding = OK, "agents run in a sandbox of their own (user, PID and mount namespaces): your tmux, ssh-agent, session bus, the console's process and other terminals are out of their reach"
		return c
	}
	c.Status = Warning
	c.Finding = "the kernel refuses agents' sandbox here (" + problem + "): agents run in a user namespace alone, from which they can still reach your tmux, ssh-agent and session bus, signal the console and write into other terminals"
	c.Fix = "allow unprivileged user namespaces with their capabilities (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 kernel.apparmor_restrict_unprivileged_userns=0, or an AppArmor profile for teamlead), or run the agents as another user or in a container"
	return c
}

// trustChecks turns each of the kernel's trust warnings (what this machine
// lets an agent's processes do that the console cannot stop) into a line
// saying what it means and how to close it.
func trustChecks(o Options) []Check {
	ws := o.MachineWarnings()
	if len(ws) == 0 {
		return []Check{{Check: "machine trust", Status: OK,
			Finding: "the kernel keeps agents' processes from tracing yours and from typing into your terminal"}}
	}
	out := make([]Check, 0, len(ws))
	for _, w := range ws {
		what, fix := w, ""
		if i := strings.LastIndex(w, "; "); i > 0 {
			what, fix = w[:i], w[i+2:]
		}
		c := Check{Check: "machine trust", Status: Warning}
		var means string
		switch {
		case strings.Contains(w, "ptrace"):
			c.Subject = "ptrace"
			means = "through your shell it could approve its own requests as you, and the console would not see it"
			fix = "sudo sysctl -w kernel.yama.ptrace_scope=1 (put kernel.yama.ptrace_scope = 1 in /etc/sysctl.d/10-ptrace.conf to keep it), or run the agents as another user"
		case strings.Contains(w, "TIOCSTI"):
			c.Subject = "TIOCSTI"
			means = "the keys it pushes act as if you typed them, approvals included"
			fix = "sudo sysctl -w dev.tty.legacy_tiocsti=0, keep isolation: auto (the default) in the team file, and do not run teamlead as root"
		case strings.Contains(w, "outside Linux"):
			c.Subject = "platform"
			means = "a process an agent detaches from its session looks like yours to the console, and could approve what the agent asks for"
			fix = "run teamlead on Linux, where the kernel tells an agent's processes from yours (docs/architecture.md, Trust)"
		}
		c.Finding = what
		if means != "" {
			c.Finding += "; that means " + means
		}
		if fix == "" {
			fix = "see docs/architecture.md, Trust"
		}
		c.Fix = fix
		out = append(out, c)
	}
	return out
}
