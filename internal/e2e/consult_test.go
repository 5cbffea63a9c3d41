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
	c.stop()
}
