package e2e

import (
	"strings"
	"testing"
	"time"
)

// TestAgentThatCannotStartSaysWhy: an agent whose CLI is not installed
// shows why, and what to do, where a person looks first — its screen pane,
// the status line and Activity — though it failed before the console
// opened.
func TestAgentThatCannotStartSaysWhy(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", command: []string{"no-such-agent-cli-xyz", "--resume"}},
		agentDef{name: "qa", role: "qa", script: "say qa is up\nsleep 600s\n"},
	)
	c := tm.startInTmux(160, 45)
	c.waitScreen("dev's failure on its screen", "dev could not start", `"no-such-agent-cli-xyz" is not on PATH: install it`)
	// Activity keeps the line, though the failure was recorded before the
	// console subscribed to the records; and what the team's files ask
	// that this team cannot do is there too, not printed behind the
	// console's screen. (Filtered: the machine's warnings fill the pane.)
	c.keys("3", "/")
	c.text("dev failed")
	c.keys("Enter")
	c.waitScreen("dev's failure in Activity", "agent          dev failed: ")
	c.keys("/", "C-u")
	c.text("consultations")
	c.keys("Enter")
	c.waitScreen("the consultation warning in Activity", "warning        consultations: rule")
	c.keys("/", "C-u", "Enter")
	// At 80x24 the fix still shows, wrapped, not cut off the line.
	c.tmux("resize-window", "-t", "main", "-x", "80", "-y", "24")
	s := c.waitScreen("the fix at 80 columns", "dev could not start", "full path")
	if !strings.Contains(strings.Join(strings.Fields(strings.ReplaceAll(s, "│", " ")), " "), "install it, or set the agent's command") {
		t.Fatalf("the fix is cut at 80 columns:\n%s", s)
	}
}

// TestAgentsListSaysWhyAnAgentFailed: teamlead agents prints the failure
// and its fix below the table, with the console running and after it.
func TestAgentsListSaysWhyAnAgentFailed(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", command: []string{"no-such-agent-cli-xyz"}},
		agentDef{name: "qa", role: "qa", script: "idle\n"},
	)
	c := tm.start()
	want := `dev: "no-such-agent-cli-xyz" is not on PATH: install it`
	waitFor(t, 20*time.Second, "the failure in teamlead agents", func() bool {
		out, _ := tm.cli("agents")
		return strings.Contains(out, want)
	})
	if out := tm.mustCLI("agents", "--format", "json"); !strings.Contains(out, `"error":"\"no-such-agent-cli-xyz\" is not on PATH`) {
		t.Errorf("agents --format json has no error:\n%s", out)
	}
	c.stop()
	if out := tm.mustCLI("agents"); !strings.Contains(out, want) {
		t.Errorf("with the console stopped, teamlead agents does not say why dev failed:\n%s", out)
	}
}
