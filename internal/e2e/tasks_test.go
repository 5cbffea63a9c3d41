package e2e

import (
	"strings"
	"testing"
)

// Seed 001's lifecycle end to end: the developer's handoff is blocked until
// review and testing approve, then assigned to QA; QA's first review breaks
// the contract and is sent back listing what it lacks; the second is a
// complete PASS that reaches the developer and closes the task.
func TestHandoffThroughConsultationsToQAAndPass(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", flags: []string{"--raw"}, script: `
route to=team-lead type=handoff task=T-2 body="SSE endpoint done"
expect blocked by its mandatory consultations
expectn 2 ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=handoff task=T-2 body="SSE endpoint done"
expect ^task-state: passed
idle
`},
		agentDef{name: "rev", role: "review", flags: []string{"--raw"}, script: `
expect ^consult: c-1
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-1 verdict=approved task=T-2 body="Code reads well."
idle
`},
		agentDef{name: "tst", role: "testing", flags: []string{"--raw"}, script: `
expect ^consult: c-2
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-2 verdict=approved task=T-2 body="Coverage 91%."
idle
`},
		agentDef{name: "qa", role: "qa", flags: []string{"--raw"}, script: `
expect ^assigned-by: team-lead
expect ^\[/ROUTE\]
route to=dev type=review task=T-2 body="commands:\n- go test ./... → FAIL\ndecision: FAIL"
expect ^body: review incomplete
expect ^\[/ROUTE\]
route to=dev type=review task=T-2 body="commands:\n- ` + "`go test ./...`" + ` → PASS\nsteps:\n1. curl -N localhost:8080/events\nevidence:\n- an event every 30 s\ndecision: PASS"
idle
`},
	)
	c := tm.start()
	defer c.stop()
	qa := tm.waitReceived("qa", "body: review incomplete")
	for _, want := range []string{"type: handoff", "from: dev", "task: T-2", "body: SSE endpoint done", "steps", "evidence", "regression or env_blocker"} {
		if !strings.Contains(qa, want) {
			t.Errorf("qa lacks %q in %q", want, qa)
		}
	}
	dev := tm.waitReceived("dev", "task-state: passed")
	if !strings.Contains(dev, "assigned to qa for review") || !strings.Contains(dev, "decision: PASS") {
		t.Errorf("dev got %q", dev)
	}
	if strings.Count(dev, "type: review") != 1 {
		t.Errorf("the incomplete review reached the developer: %q", dev)
	}
	states := []string{}
	for _, r := range auditJSON(t, tm, "--kind", "task") {
		states = append(states, r["fields"].(map[string]any)["state"].(string))
	}
	if got := strings.Join(states, ","); got != "in-progress,in-review,in-review,passed" {
		t.Errorf("task states %s", got)
	}
	if out := tm.mustCLI("tasks"); !strings.Contains(out, "T-2") || !strings.Contains(out, "passed") || !strings.Contains(out, "1 task: 1 passed") {
		t.Errorf("tasks:\n%s", out)
	}
	if out := tm.mustCLI("tasks", "T-2"); !strings.Contains(out, "in-review → passed  by qa  review PASS") || !strings.Contains(out, "handoff; assigned to qa") {
		t.Errorf("task history:\n%s", out)
	}
	if len(auditJSON(t, tm, "--kind", "review-incomplete")) != 1 || len(auditJSON(t, tm, "--kind", "decision-final")) != 1 {
		t.Error("audit lacks the incomplete review or the final decision")
	}
}
