package e2e

import (
	"strings"
	"testing"
)

// Issue 12 item 8, with the real binary: after security approved on a
// condition, the architect's resubmitted infrastructure decision is final,
// and the architect is told so, by which consultation, and on what terms
// (it used to get only "received m-2").
func TestDecisionFinalNoticeCarriesTheConditions(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "arch", role: "architect", flags: []string{"--raw"}, script: `
route to=team-lead type=decision decision=infrastructure task=T-1 body="Move to managed Postgres"
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=decision decision=infrastructure task=T-1 body="Move to managed Postgres"
idle
`},
		agentDef{name: "sec", role: "security", flags: []string{"--raw"}, script: `
expect ^consult: c-1
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-1 verdict=approved task=T-1 body="Approved on condition that TLS is required."
idle
`},
	)
	c := tm.start()
	got := tm.waitReceived("arch", "decision-status: final")
	tm.waitReceived("arch", "on condition that TLS is required.\r[/ROUTE]")
	got = tm.received("arch")
	for _, want := range []string{
		typed("[ROUTE]", "from: team-lead", "to: arch", "type: status", "task: T-1", "decision: infrastructure", "decision-status: final", "consults: c-1"),
		"body: decision infrastructure on T-1 is final: its mandatory consultations are satisfied by c-1 (sec, security: approved). You may go on.",
		"- c-1, approved by sec: Approved on condition that TLS is required.",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the architect received %q\nmissing %q", got, want)
		}
	}
	if n := strings.Count(got, "decision-status: final"); n != 1 {
		t.Errorf("told %d times that the decision is final", n)
	}
	c.stop()
}
