package lead

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/consult"
)

func consultTeam() *Lead {
	members := []Member{{Name: "dev", Role: "developer"}, {Name: "rev", Role: "review"}, {Name: "tst", Role: "testing"}, {Name: "qa", Role: "qa"}}
	var cm []consult.Member
	for _, m := range members {
		cm = append(cm, consult.Member{Name: m.Name, Role: m.Role})
	}
	l := New(Config{Members: members, Consults: consult.New(consult.DefaultRules(), cm)})
	for _, m := range members {
		l.AgentState(m.Name, StateRunning, nil, t0)
	}
	return l
}

// A developer's handoff is held until review and testing approve, then relayed.
func TestHandoffBlockedUntilReviewAndTestingApprove(t *testing.T) {
	l := consultTeam()
	handoff := "[ROUTE]\nto: qa\ntype: handoff\ntask: T-2\nbody: SSE endpoint done\n[/ROUTE]"
	out := l.Block("dev", parse1(t, handoff), t0)
	if len(deliveriesTo(out, "qa")) != 0 {
		t.Fatal("handoff relayed before its consultations")
	}
	dev := deliveriesTo(out, "dev")
	if len(dev) != 1 || !strings.Contains(dev[0].Text, "decision code-complete on T-2 is blocked by its mandatory consultations: c-1 (rev, review): pending, just asked; c-2 (tst, testing): pending, just asked.") {
		t.Fatalf("notice %+v", dev)
	}
	rev := deliveriesTo(out, "rev")
	if len(rev) != 1 || !strings.Contains(rev[0].Text, "type: consult\ntask: T-2\nconsult: c-1\ndecision: code-complete\nmandatory: yes\nbody: SSE endpoint done") {
		t.Fatalf("review asked %+v", rev)
	}
	// Someone else's verdict does not count.
	bad := l.Block("tst", parse1(t, "[ROUTE]\nto: team-lead\ntype: verdict\ntask: T-2\nconsult: c-1\nverdict: approved\nbody: lgtm\n[/ROUTE]"), t0)
	if d := deliveriesTo(bad, "tst"); len(d) != 1 || !strings.Contains(d[0].Text, "verdict not taken: only the consulted agent") {
		t.Fatalf("%+v", bad)
	}
	l.Block("rev", parse1(t, "[ROUTE]\nto: team-lead\ntype: verdict\ntask: T-2\nconsult: c-1\nverdict: approved\nbody: lgtm\n[/ROUTE]"), t0)
	if out := l.Block("dev", parse1(t, handoff), t0); len(deliveriesTo(out, "qa")) != 0 {
		t.Fatal("relayed with testing pending")
	}
	v := l.Block("tst", parse1(t, "[ROUTE]\nto: team-lead\ntype: verdict\ntask: T-2\nconsult: c-2\nverdict: approved\nbody: coverage 91%\n[/ROUTE]"), t0)
	if d := deliveriesTo(v, "dev"); len(d) != 1 || !strings.Contains(d[0].Text, "type: verdict") || !strings.Contains(d[0].Text, "verdict: approved") {
		t.Fatalf("verdict not relayed to the requester: %+v", v)
	}
	final := l.Block("dev", parse1(t, handoff), t0)
	if len(deliveriesTo(final, "qa")) != 1 {
		t.Fatalf("handoff not relayed after approvals: %+v", final)
	}
	if !strings.Contains(kinds(final), KindDecisionFinal) {
		t.Errorf("records %s", kinds(final))
	}
}
