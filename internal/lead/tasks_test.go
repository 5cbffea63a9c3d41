package lead

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/tasks"
)

func taskTeam(t *testing.T) *Lead {
	t.Helper()
	members := []Member{{Name: "dev", Role: "developer"}, {Name: "rev", Role: "review"}, {Name: "tst", Role: "testing"}, {Name: "qa", Role: "qa"}, {Name: "qa2", Role: "qa"}}
	var cm []consult.Member
	for _, m := range members {
		cm = append(cm, consult.Member{Name: m.Name, Role: m.Role})
	}
	l := New(Config{Members: members, Consults: consult.New(consult.DefaultRules(), cm), Tasks: tasks.New()})
	for _, m := range members {
		l.AgentState(m.Name, wire.StateRunning, nil, t0)
	}
	return l
}

// Seed 001's lifecycle: a developer's handoff passes its consultations, is
// assigned to a QA agent, a review missing parts of the contract goes back
// listing them, and a complete PASS closes the task and reaches the developer.
func TestHandoffToQAReviewContract(t *testing.T) {
	l := taskTeam(t)
	envelope(t, l, "dev", "to: team-lead\ntype: status\ntask: T-2\nbody: starting", t0)
	if ts := l.Tasks(); len(ts) != 1 || ts[0].State != tasks.StateInProgress || ts[0].Developer != "dev" {
		t.Fatalf("task not created: %+v", ts)
	}
	handoff := "to: team-lead\ntype: handoff\ntask: T-2\nbody: SSE endpoint done"
	if out := envelope(t, l, "dev", handoff, t0); len(deliveriesTo(out, "qa"))+len(deliveriesTo(out, "qa2")) != 0 {
		t.Fatal("assigned before its consultations")
	}
	envelope(t, l, "rev", "to: team-lead\ntype: verdict\ntask: T-2\nconsult: c-1\nverdict: approved\nbody: lgtm", t0)
	envelope(t, l, "tst", "to: team-lead\ntype: verdict\ntask: T-2\nconsult: c-2\nverdict: approved\nbody: 91%", t0)
	out := envelope(t, l, "dev", handoff, t0)
	qa := deliveriesTo(out, "qa")
	if len(qa) != 1 || !strings.Contains(qa[0].Text, "type: handoff") || !strings.Contains(qa[0].Text, "assigned-by: team-lead") || !strings.Contains(qa[0].Text, "body: SSE endpoint done") {
		t.Fatalf("qa not assigned: %+v", out.Deliveries)
	}
	// dev is told the decision code-complete is final (issue 12 item 8), then of the assignment.
	if d := deliveriesTo(out, "dev"); len(d) != 2 || !strings.Contains(d[0].Text, "decision code-complete on T-2 is final") || !strings.Contains(d[1].Text, "assigned to qa for review") {
		t.Fatalf("dev not told: %+v", d)
	}
	if ts := l.Tasks(); ts[0].State != tasks.StateInReview || ts[0].QA != "qa" {
		t.Fatalf("%+v", ts)
	}
	// Only the assigned QA agent reviews.
	if out := envelope(t, l, "qa2", "to: dev\ntype: review\ntask: T-2\nbody: decision: PASS", t0); !strings.Contains(deliveriesTo(out, "qa2")[0].Text, "review not taken") {
		t.Fatalf("%+v", out.Deliveries)
	}
	// No steps, no evidence, an unclassified failure: sent back.
	out = envelope(t, l, "qa", "to: dev\ntype: review\ntask: T-2\nbody: commands:\n- go test ./... → FAIL\ndecision: FAIL", t0)
	if len(deliveriesTo(out, "dev")) != 0 {
		t.Fatal("an incomplete review reached the developer")
	}
	back := deliveriesTo(out, "qa")
	if len(back) != 1 || !strings.Contains(back[0].Text, "review incomplete") || !strings.Contains(back[0].Text, "steps") || !strings.Contains(back[0].Text, "evidence") || !strings.Contains(back[0].Text, "regression or env_blocker") {
		t.Fatalf("not sent back: %+v", back)
	}
	if !strings.Contains(kinds(out), string(wire.KindReviewIncomplete)) {
		t.Errorf("records %s", kinds(out))
	}
	out = envelope(t, l, "qa", "to: dev\ntype: review\ntask: T-2\nbody: commands:\n- `go test ./...` → PASS\nsteps:\n1. curl -N localhost:8080/events\nevidence:\n- events arrive every 30s\ndecision: PASS", t0)
	dev := deliveriesTo(out, "dev")
	if len(dev) != 1 || !strings.Contains(dev[0].Text, "type: review") || !strings.Contains(dev[0].Text, "task-state: passed") {
		t.Fatalf("developer not told: %+v", out.Deliveries)
	}
	if ts := l.Tasks(); ts[0].State != tasks.StatePassed || ts[0].Reviews != 2 {
		t.Errorf("%+v", ts[0])
	}
}

// With no running QA agent the handoff waits in the human's queue.
func TestHandoffWithoutQAGoesToTheHuman(t *testing.T) {
	members := []Member{{Name: "dev", Role: "developer"}, {Name: "qa", Role: "qa"}}
	l := New(Config{Members: members, Tasks: tasks.New()})
	l.AgentState("dev", wire.StateRunning, nil, t0)
	l.AgentState("qa", wire.StateExited, nil, t0)
	out := envelope(t, l, "dev", "to: team-lead\ntype: handoff\ntask: T-3\nbody: done", t0)
	if len(l.Inbox()) != 1 || l.Inbox()[0].Type != "handoff" || !strings.Contains(deliveriesTo(out, "dev")[0].Text, "no running agent has role qa") {
		t.Fatalf("%+v %+v", l.Inbox(), out.Deliveries)
	}
}
