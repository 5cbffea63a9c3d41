package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxConsole is the real teamlead console running in a private tmux
// server, driven with send-keys and read with capture-pane, as a person
// sees it.
type tmuxConsole struct {
	t      *testing.T
	socket string
	tm     *team
}

func (tm *team) startInTmux(cols, rows int) *tmuxConsole {
	tm.t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		tm.t.Skip("tmux is not installed (.ci/run installs it)")
	}
	c := &tmuxConsole{t: tm.t, socket: fmt.Sprintf("teamlead-e2e-%d-%d", os.Getpid(), time.Now().UnixNano()), tm: tm}
	shell := fmt.Sprintf("TEAMLEAD_STATE= TEAMLEAD_CONFIG= XDG_STATE_HOME=%s %s run --config %s --state %s --grace 2s; echo console-exited-$?; sleep 600",
		filepath.Join(tm.dir, "xdg-state"), bin.teamlead, tm.config, tm.state)
	c.tmux("-f", "/dev/null", "new-session", "-d", "-s", "main", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), shell)
	tm.t.Cleanup(func() { _ = exec.Command("tmux", "-L", c.socket, "kill-server").Run() })
	c.waitScreen("the console", "Agents (")
	return c
}

func (c *tmuxConsole) tmux(args ...string) string {
	c.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", c.socket}, args...)...).CombinedOutput()
	if err != nil {
		c.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// screen is what the pane shows now.
func (c *tmuxConsole) screen() string { return c.tmux("capture-pane", "-p", "-t", "main") }

// keys sends tmux key names (Enter, Tab, PPage, C-], ...) or literal text.
func (c *tmuxConsole) keys(keys ...string) {
	c.tmux(append([]string{"send-keys", "-t", "main"}, keys...)...)
}

// decisionGuard is how long the console takes no decision key after the
// request under the cursor or in the badge changed (tui's shownGuard: a
// person cannot have read it sooner), and a little more.
const decisionGuard = 1200 * time.Millisecond

// afterGuard waits out decisionGuard from a request's arrival on screen:
// it is a time the console promises, not a race hoped over.
func (c *tmuxConsole) afterGuard() { time.Sleep(decisionGuard) }

// text types literal text.
func (c *tmuxConsole) text(s string) { c.tmux("send-keys", "-t", "main", "-l", s) }

func (c *tmuxConsole) waitScreen(what string, want ...string) string {
	c.t.Helper()
	var s string
	waitFor(c.t, 20*time.Second, what, func() bool {
		s = c.screen()
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	}, func() string { return "screen:\n" + s })
	return s
}

func TestConsoleInTmux(t *testing.T) {
	var lines strings.Builder
	for i := 1; i <= 150; i++ {
		fmt.Fprintf(&lines, "say history line %03d\n", i)
	}
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", flags: []string{"--raw"}, script: lines.String() + `say dev is ready
expect ^typed by the human
say dev got the human's line
expect ^size-please
size
idle
`},
		agentDef{name: "qa", flags: []string{"--raw"}, script: `say qa here
route to=team-lead type=question task=T-7 body="Ship the release tonight?"
expect ^answered-by:
expect ^body:
say qa got the answer
idle
`},
	)
	c := tm.startInTmux(160, 45)

	// The inbox holds qa's question, and the badge says something waits.
	c.waitScreen("qa's question in the inbox", "Inbox (1)", "q-0001 normal q from qa", "Ship the release tonight?", "1 waiting for you")

	// The selected agent's live screen, then the next agent's.
	c.waitScreen("dev's screen", "dev — developer", "dev is ready")
	c.keys("]")
	c.waitScreen("qa's screen", "qa — qa —", "qa here")
	c.keys("[")
	c.waitScreen("back to dev", "dev — developer")

	// Page back through dev's scrollback, then follow the live screen again.
	c.keys("Tab", "PPage", "PPage", "PPage")
	s := c.waitScreen("scrollback", "scrolled back")
	if !strings.Contains(s, "history line 0") {
		t.Errorf("paging back did not show early lines:\n%s", s)
	}
	c.keys("G")
	c.waitScreen("live again", "dev is ready")

	// Focus mode: keys go to dev until ctrl+].
	c.keys("Enter")
	c.waitScreen("focus mode", "typing into dev")
	c.text("typed by the human")
	c.keys("Enter")
	waitFor(t, 20*time.Second, "dev to receive the typed line", func() bool {
		return strings.Contains(tm.received("dev"), "typed by the human\r")
	}, func() string { return fmt.Sprintf("dev received %q\nscreen:\n%s", tm.received("dev"), c.screen()) })
	c.waitScreen("dev's reply on its screen", "dev got the human's line")
	c.keys("C-]")
	c.waitScreen("focus mode left", "dev — developer —")

	// Answer qa's question from the inbox.
	c.keys("2", "a")
	c.waitScreen("answer editor", "answer q-0001 (qa) — enter sends")
	c.text("Yes, after the smoke tests.")
	c.keys("Enter")
	got := tm.waitReceived("qa", "body: Yes, after the smoke tests.")
	if !strings.Contains(got, typed("[ROUTE]", "from: team-lead", "to: qa", "type: answer", "question: q-0001", "topic: general", "task: T-7", "answered-by: human/requester", "body: Yes, after the smoke tests.", "[/ROUTE]")) {
		t.Errorf("qa received %q", got)
	}
	c.waitScreen("inbox emptied", "Inbox ─", "answered q-0001")

	// Resizing the terminal resizes the agents' terminals to the screen pane.
	c.tmux("resize-window", "-t", "main", "-x", "120", "-y", "40")
	c.keys("1", "Enter")
	c.waitScreen("focus mode", "typing into dev")
	c.text("size-please")
	c.keys("Enter")
	// 120 columns less the 30-column left column and the border; 40 rows
	// less the status bar, the 8-row activity pane and the border.
	tm.waitReceived("dev", "size-please\r")
	c.waitScreen("dev's new size", "size 88x29")
	c.keys("C-]")

	// Quit asks first, then stops every agent and exits cleanly.
	c.keys("q")
	c.waitScreen("quit question", "quit and stop every agent? y/N")
	c.keys("y")
	c.waitScreen("clean exit", "console-exited-0")
	if out := tm.mustCLI("audit", "--kind", "agent"); strings.Count(out, "stopped") != 2 {
		t.Errorf("agents not recorded stopped:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(tm.state, "teamlead.sock")); err == nil {
		t.Error("control socket left behind")
	}
}
