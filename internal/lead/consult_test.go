package lead

import (
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
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
		l.AgentState(m.Name, wire.StateRunning, nil, t0)
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
	if !strings.Contains(kinds(final), string(wire.KindDecisionFinal)) {
		t.Errorf("records %s", kinds(final))
	}
}

func envelope(t *testing.T, l *Lead, from, text string, now time.Time) Output {
	t.Helper()
	return l.Block(from, parse1(t, "[ROUTE]\n"+text+"\n[/ROUTE]"), now)
}

// Concerns addressed by the requester go to the consulted agent for a new
// verdict, and are kept in the record.
func TestConcernsAddressedThenApproved(t *testing.T) {
	l := consultTeam()
	envelope(t, l, "dev", "to: qa\ntype: handoff\ntask: T-2\nbody: done", t0)
	envelope(t, l, "rev", "to: team-lead\ntype: verdict\ntask: T-2\nconsult: c-1\nverdict: concerns-raised\nbody: no tests for reconnect", t0)
	out := envelope(t, l, "dev", "to: rev\ntype: status\ntask: T-2\nconsult: c-1\nbody: added TestReconnect", t0)
	rev := deliveriesTo(out, "rev")
	if len(rev) != 1 || !strings.Contains(rev[0].Text, "type: consult") || !strings.Contains(rev[0].Text, "addressed: yes") || !strings.Contains(rev[0].Text, "body: added TestReconnect") {
		t.Fatalf("%+v", out.Deliveries)
	}
	c, _ := l.consults.Get("c-1")
	if c.Status != consult.Pending || len(c.Events) != 1 {
		t.Errorf("%+v", c)
	}
	// The consulted agent's status about c-1 is an ordinary message.
	if out := envelope(t, l, "rev", "to: dev\ntype: status\ntask: T-2\nconsult: c-1\nbody: looking", t0); len(deliveriesTo(out, "dev")) != 1 || len(deliveriesTo(out, "rev")) != 1 {
		t.Errorf("a relay and its ack expected: %+v", out.Deliveries)
	}
}

// A consulted agent delegates by sending type: consult with the consultation's id.
func TestDelegationByEnvelope(t *testing.T) {
	members := []Member{{Name: "arch", Role: "architect"}, {Name: "sec", Role: "security"}, {Name: "sec2", Role: "security"}}
	var cm []consult.Member
	for _, m := range members {
		cm = append(cm, consult.Member{Name: m.Name, Role: m.Role})
	}
	l := New(Config{Members: members, Consults: consult.New(consult.DefaultRules(), cm)})
	for _, m := range members {
		l.AgentState(m.Name, wire.StateRunning, nil, t0)
	}
	envelope(t, l, "arch", "to: team-lead\ntype: decision\ndecision: infrastructure\ntask: T-1\nbody: Postgres", t0)
	out := envelope(t, l, "sec", "to: sec2\ntype: consult\ntask: T-1\nconsult: c-1\nbody: I am on leave", t0)
	if d := deliveriesTo(out, "sec2"); len(d) != 1 || !strings.Contains(d[0].Text, "consult: c-1") || !strings.Contains(d[0].Text, "body: Postgres") {
		t.Fatalf("sec2 not asked: %+v", out.Deliveries)
	}
	if d := deliveriesTo(out, "arch"); len(d) != 1 || !strings.Contains(d[0].Text, "c-1 was delegated by sec to sec2 (security): I am on leave") {
		t.Fatalf("requester not told: %+v", out.Deliveries)
	}
	bad := envelope(t, l, "arch", "to: sec\ntype: consult\ntask: T-1\nconsult: c-1\nbody: back to you", t0)
	if d := deliveriesTo(bad, "arch"); len(d) != 1 || !strings.Contains(d[0].Text, "not delegated: only the consulted agent") {
		t.Fatalf("%+v", bad.Deliveries)
	}
}

// An escalation to the human puts the consultation in the inbox; the
// human's verdict takes it out, reaches the requester and the consulted agent.
func TestEscalationToHumanAndHumanVerdict(t *testing.T) {
	l := consultTeam()
	envelope(t, l, "dev", "to: qa\ntype: handoff\ntask: T-2\nbody: done", t0)
	at, ok := l.NextDeadline()
	if !ok || !at.Equal(t0.Add(4*time.Hour)) {
		t.Fatalf("deadline %v %v", at, ok)
	}
	out := l.Tick(at) // the chain is role:review (nobody else), then human
	if len(l.Inbox()) != 2 || l.Inbox()[0].ID != "c-1" || l.Inbox()[0].Type != "consult" {
		t.Fatalf("inbox %+v", l.Inbox())
	}
	if d := deliveriesTo(out, "dev"); len(d) != 2 || !strings.Contains(d[0].Text, "c-1 escalated: rev did not answer within its deadline; escalated to human. The code-complete decision stays blocked") {
		t.Fatalf("%+v", out.Deliveries)
	}
	v, err := l.HumanVerdict("c-1", consult.Approved, "reviewed it myself", t0.Add(5*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if d := deliveriesTo(v, "dev"); len(d) != 1 || !strings.Contains(d[0].Text, "verdict: approved") || !strings.Contains(d[0].Text, "verdict-by: human") {
		t.Fatalf("%+v", v.Deliveries)
	}
	if d := deliveriesTo(v, "rev"); len(d) != 1 || !strings.Contains(d[0].Text, "you need not answer it") {
		t.Fatalf("%+v", v.Deliveries)
	}
	if len(l.Inbox()) != 1 || l.Inbox()[0].ID != "c-2" || !strings.Contains(kinds(v), string(wire.KindAnswered)) {
		t.Errorf("inbox %+v %s", l.Inbox(), kinds(v))
	}
}

// A circle of consultations is reported to everyone in it and to the human.
func TestCircleReported(t *testing.T) {
	members := []Member{{Name: "arch", Role: "architect"}, {Name: "des", Role: "designer"}}
	var cm []consult.Member
	for _, m := range members {
		cm = append(cm, consult.Member{Name: m.Name, Role: m.Role})
	}
	l := New(Config{Members: members, Consults: consult.New(consult.DefaultRules(), cm)})
	for _, m := range members {
		l.AgentState(m.Name, wire.StateRunning, nil, t0)
	}
	envelope(t, l, "arch", "to: des\ntype: consult\ndecision: layout\ntask: T-1\nbody: grid?", t0)
	out := envelope(t, l, "des", "to: arch\ntype: consult\ndecision: layout\ntask: T-1\nbody: which breakpoints?", t0)
	if len(l.Inbox()) != 1 || !strings.Contains(l.Inbox()[0].Body, "circular consultation: des → arch → des") {
		t.Fatalf("inbox %+v", l.Inbox())
	}
	for _, a := range []string{"arch", "des"} {
		found := false
		for _, d := range deliveriesTo(out, a) {
			found = found || strings.Contains(d.Text, "circular consultation")
		}
		if !found {
			t.Errorf("%s not told: %+v", a, deliveriesTo(out, a))
		}
	}
}

// A verdict not taken is audited with who tried what and why; one without
// a consult: header says which header is missing (issue 11 item 9).
func TestRefusedVerdictAudited(t *testing.T) {
	l := consultTeam()
	l.Block("dev", parse1(t, "[ROUTE]\nto: qa\ntype: handoff\ntask: T-2\nbody: done\n[/ROUTE]"), t0)
	self := l.Block("dev", parse1(t, "[ROUTE]\nto: team-lead\ntype: verdict\ntask: T-2\nconsult: c-1\nverdict: approved\nbody: mine is fine\n[/ROUTE]"), t0)
	var found bool
	for _, r := range self.Records {
		if r.Kind == wire.KindRefusal {
			found = true
			if !strings.Contains(r.Reason, `verdict "approved" by dev on c-1 not taken`) || r.Body != "mine is fine" || r.MsgID != "c-1" {
				t.Errorf("refusal record %+v", r)
			}
		}
	}
	if !found {
		t.Fatalf("no refusal recorded: %s", kinds(self))
	}
	none := l.Block("rev", parse1(t, "[ROUTE]\nto: team-lead\ntype: verdict\ntask: T-2\nverdict: approved\nbody: ok\n[/ROUTE]"), t0)
	if d := deliveriesTo(none, "rev"); len(d) != 1 || !strings.Contains(d[0].Text, "no `consult:` header") || strings.Contains(d[0].Text, "no such consultation: \n") {
		t.Errorf("notice %+v", d)
	}
}
