package e2e

import (
	"strings"
	"testing"
	"time"
)

// The person at the console sees a destructive permission request in the
// status bar's badge and the inbox, approves it with y, and the agent gets
// its verdict; the audit says the human decided. The agent's next request
// (a force push) is denied with N and a message, which reaches the agent.
func TestConsolePermissionApproveAndDeny(t *testing.T) {
	work := t.TempDir()
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", dir: work, flags: []string{"--raw"}, script: `
route to=team-lead type=permission task=T-1 body="Bash(rm -rf /srv/data)"
timeout 2m
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=permission task=T-1 body="Bash(git push --force origin main)"
expect ^verdict: denied
expect ^\[/ROUTE\]
idle
`},
	)
	c := tm.startInTmux(160, 45)
	s := c.waitScreen("the badge and the inbox item",
		"⚠ permission: dev wants Bash(rm -rf /srv/data) — y/n",
		"p-1 permission from dev · T-1", "Bash(rm -rf /srv/data)", "risk critical · floor delete-recurs")
	t.Log("\n" + s)

	// Critical: the first y only asks for the second.
	c.afterGuard()
	c.keys("y")
	c.waitScreen("the confirmation", "p-1 is critical: y again approves, other keys cancel (floor delete-recursive-outside)")
	if strings.Contains(tm.received("dev"), "verdict: approved") {
		t.Fatal("one key approved a critical request")
	}
	c.keys("y")
	got := tm.waitReceived("dev", "verdict: approved")
	if !strings.Contains(got, typed("task: T-1", "permission: p-1", "verdict: approved")) {
		t.Errorf("dev received %q", got)
	}
	c.waitScreen("the approval said", "approved p-1 once: dev may Bash(rm -rf /srv/data)")
	waitFor(t, 20*time.Second, "the audit to say the human approved p-1", func() bool {
		return decidedBy(t, tm, "p-1", "approved") == "human"
	}, func() string { out, _ := tm.cli("audit", "--kind", "permission"); return "audit:\n" + out })
	if out := tm.mustCLI("audit", "--kind", "permission"); !strings.Contains(out, "by the human") {
		t.Errorf("teamlead audit --kind permission does not name the human:\n%s", out)
	}

	// The next request: deny it with a message.
	c.waitScreen("the second request", "⚠ permission: dev wants Bash(git push --force origin main) — y/n")
	c.afterGuard()
	c.keys("N")
	// Within a second of a decision the first press only shows the next
	// request; the second decides it.
	waitFor(t, 20*time.Second, "the message prompt, or the next request shown", func() bool {
		s = c.screen()
		return strings.Contains(s, "p-2 is next") || strings.Contains(s, "just changed: look again") || strings.Contains(s, "message to dev:")
	}, func() string { return "screen:\n" + s })
	if !strings.Contains(s, "message to dev:") {
		c.afterGuard()
		c.keys("N")
	}
	c.waitScreen("the message prompt", "deny p-2 (dev wants Bash(git push --force origin main)) — message to dev:")
	c.text("force pushes need a review")
	c.keys("Enter")
	got = tm.waitReceived("dev", "verdict: denied")
	if !strings.Contains(got, typed("task: T-1", "permission: p-2", "verdict: denied", "body: Bash(git push --force origin main) denied by human: force pushes need a review")) {
		t.Errorf("dev received %q", got)
	}
	c.waitScreen("the inbox emptied", "Inbox ─", "denied p-2 with your message to dev")
	waitFor(t, 20*time.Second, "the audit to say the human denied p-2", func() bool {
		return decidedBy(t, tm, "p-2", "denied") == "human"
	})

	// The permissions board lists both, decided by the human.
	c.keys("8")
	c.waitScreen("the permissions board", "Permissions — 0 pending of 2", "p-2 denied    human  critical dev", "p-1 approved  human  critical dev")
	c.keys("Enter")
	c.waitScreen("p-2's detail", "Permission p-2", "force pushes need a review", "git-force-push")
	t.Log("\n" + c.screen())
}

// decidedBy is who decided request id with status, per the audit ("" if
// it was not).
func decidedBy(t *testing.T, tm *team, id, status string) string {
	for _, r := range auditJSON(t, tm, "--kind", "permission") {
		f, _ := r["fields"].(map[string]any)
		if r["msg_id"] == id && f["status"] == status {
			by, _ := f["decided_by"].(string)
			return by
		}
	}
	return ""
}

// A CLI's own permission dialog, in the console: Claude Code's dialog for
// a destructive command (imitated by mockagent as its captured screen shows
// it) waits for the person, who sees it in the badge and approves it with
// y; the console then presses the dialog's own key, 1.
func TestConsoleApprovesACLIDialog(t *testing.T) {
	work := t.TempDir()
	tm := newTeam(t,
		agentDef{name: "claude", role: "developer", preset: "claude-code", dir: work, flags: []string{"--raw"}, script: `
dialog claude-code rm -rf /srv/data
timeout 2m
expectkey 1
write \e[2J\e[H
say removed the data
idle
`},
	)
	c := tm.startInTmux(160, 45)
	c.waitScreen("the dialog's request", "⚠ permission: claude wants Bash(rm -rf /srv/data) — y/n", "p-1 permission from claude")
	if strings.Contains(tm.received("claude"), "1") {
		t.Fatal("a key was pressed in the dialog before the person decided")
	}
	c.afterGuard()
	c.keys("y")
	c.waitScreen("the confirmation", "p-1 is critical")
	c.keys("y")
	waitFor(t, 20*time.Second, "the dialog's approve key", func() bool { return strings.Contains(tm.received("claude"), "1") })
	c.waitScreen("the agent going on", "removed the data")
	waitFor(t, 20*time.Second, "the audit to say the human approved p-1", func() bool {
		return decidedBy(t, tm, "p-1", "approved") == "human"
	})
}
