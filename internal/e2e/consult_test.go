package e2e

import (
	"strings"
	"testing"
)

// The architect's infrastructure decision is blocked until security
// approves; the security agent is asked automatically, its verdict reaches
// the architect, and the decision sent again is final.
func TestInfrastructureDecisionBlockedUntilSecurityApproves(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "arch", role: "architect", flags: []string{"--raw"}, script: `
route to=team-lead type=decision decision=infrastructure task=T-1 body="Move to managed Postgres"
expect blocked by its mandatory consultations
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=decision decision=infrastructure task=T-1 body="Move to managed Postgres"
idle
`},
		agentDef{name: "sec", role: "security", flags: []string{"--raw"}, script: `
expect ^consult: c-1
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-1 verdict=approved task=T-1 body="Approved: private subnet, TLS only."
idle
`},
	)
	c := tm.start()
	asked := tm.waitReceived("sec", "mandatory: yes")
	if !strings.Contains(asked, typed("[ROUTE]", "from: arch", "to: sec", "type: consult", "task: T-1", "consult: c-1", "decision: infrastructure", "mandatory: yes", "body: Move to managed Postgres", "[/ROUTE]")) {
		t.Errorf("security was asked %q", asked)
	}
	arch := tm.waitReceived("arch", "verdict: approved")
	if !strings.Contains(arch, "decision infrastructure on T-1 is blocked by its mandatory consultations: c-1 (sec, security): pending, just asked.") {
		t.Errorf("architect got %q", arch)
	}
	waitFor(t, 20e9, "the final decision", func() bool {
		out, _ := tm.cli("audit", "--kind", "decision-final")
		return strings.Contains(out, "arch")
	})
	blocked := auditJSON(t, tm, "--kind", "decision-blocked")
	if len(blocked) != 1 || !strings.Contains(blocked[0]["reason"].(string), "c-1 (sec, security): pending") {
		t.Errorf("blocked records %v", blocked)
	}
	if out := tm.mustCLI("consults"); !strings.Contains(out, "c-1") || !strings.Contains(out, "approved") || !strings.Contains(out, "1 consultations: 1 approved") {
		t.Errorf("consults:\n%s", out)
	}
	// Killed and restarted: the approval is still there; the same decision
	// passes without asking security again.
	c.kill()
	tm.write("restart.yaml", []agentDef{
		{name: "arch", role: "architect", flags: []string{"--raw"}, script: "route to=team-lead type=decision decision=infrastructure task=T-1 body=\"again\"\nidle\n"},
		{name: "sec", role: "security", flags: []string{"--raw"}, script: "idle\n"},
	})
	c2 := tm.start()
	waitFor(t, 20e9, "the decision after the restart", func() bool {
		return len(auditJSON(t, tm, "--kind", "decision-final")) == 2
	})
	// No new consultation: the restored approval counted. (c-1 itself may
	// be typed again: a kill within the read confirmation's 20 ms leaves
	// it in the outbox, and delivery is at least once, with the same id.)
	if strings.Contains(tm.received("sec"), "consult: c-2") {
		t.Errorf("security was asked again after the restart: %q", tm.received("sec"))
	}
	c2.stop()
	if out := tm.mustCLI("consults", "--status", "approved", "--format", "json"); strings.Count(out, "\n") != 1 {
		t.Errorf("offline consults: %s", out)
	}
}
