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

// Issue 12 item 7, with the real binary: qa asks a question and raises a
// blocker, then exits (code 3) for good. Answering either, or sending to qa, fails
// with a clear message and a non-zero exit (it used to succeed silently
// while nothing reached qa); the items stay pending until dropped; and
// audit --compliance does not blame the Team Lead.
func TestUndeliverableAnswersAndSendsFailAndStayPending(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "qa", role: "qa", flags: []string{"--raw"}, script: `
route to=team-lead type=question task=T-1 body="Is mobile in scope?"
expect routed to
expect ^\[/ROUTE\]
route to=team-lead type=blocker task=T-1 body="The staging database is down."
expect human's queue
expect ^\[/ROUTE\]
exit 3
`},
		agentDef{name: "dev", role: "developer", flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.start()
	waitFor(t, 20e9, "qa to exit", func() bool {
		out, _ := tm.cli("agents")
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "qa ") && strings.Contains(line, "exited") {
				return true
			}
		}
		return false
	}, func() string {
		out, _ := tm.cli("agents")
		a, _ := tm.cli("audit")
		return out + "\n" + a + "\nqa got: " + tm.received("qa")
	})
	out, err := tm.cli("answer", "q-0001", "No, desktop only.")
	if err == nil || !strings.Contains(out, "not answered: qa has exited and is not restarting, so nothing was typed; q-0001 stays pending") ||
		!strings.Contains(out, "teamlead drop q-0001") {
		t.Errorf("answer q-0001: err %v\n%s", err, out)
	}
	if out := tm.mustCLI("questions"); !strings.Contains(out, "q-0001") {
		t.Errorf("q-0001 left the pending questions:\n%s", out)
	}
	out, err = tm.cli("answer", "m-2", "Restarted it.")
	if err == nil || !strings.Contains(out, "m-2 stays pending") {
		t.Errorf("answer m-2: err %v\n%s", err, out)
	}
	out, err = tm.cli("send", "qa", "hello")
	if err == nil || !strings.Contains(out, "not sent: qa has exited and is not restarting, so nothing was typed") {
		t.Errorf("send: err %v\n%s", err, out)
	}
	if out := tm.mustCLI("inbox"); !strings.Contains(out, "m-2") {
		t.Errorf("m-2 left the inbox:\n%s", out)
	}
	// Sending to a running agent still works, and exits 0.
	tm.mustCLI("send", "dev", "still here")
	tm.waitReceived("dev", "still here")

	tm.mustCLI("drop", "q-0001", "qa", "is", "gone")
	tm.mustCLI("drop", "m-2")
	if out := tm.mustCLI("questions", "dropped"); !strings.Contains(out, "q-0001") {
		t.Errorf("dropped questions:\n%s", out)
	}
	if out := tm.mustCLI("questions"); strings.Contains(out, "q-0001") {
		t.Errorf("q-0001 still pending after the drop:\n%s", out)
	}
	if out := tm.mustCLI("inbox"); strings.Contains(out, "m-2") {
		t.Errorf("m-2 still in the inbox after the drop:\n%s", out)
	}
	if out, err := tm.cli("drop", "q-0001"); err == nil {
		t.Errorf("a second drop succeeded:\n%s", out)
	}
	if strings.Contains(tm.received("qa"), "desktop only") {
		t.Errorf("qa received the refused answer")
	}
	c.stop()
	out = tm.mustCLI("audit", "--compliance")
	if strings.Contains(out, "NOT COMPLIANT") || !strings.Contains(out, "COMPLIANT:") {
		t.Errorf("compliance:\n%s", out)
	}
}
