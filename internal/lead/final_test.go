package lead

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
)

// Issue 12 item 8: once security approved, the architect's resubmitted
// infrastructure decision was final in the audit, but the architect got
// only "received m-2". It is told the decision is final, which
// consultation satisfied it, and the conditions attached.
func TestDecisionFinalToldToTheDecider(t *testing.T) {
	members := []Member{{Name: "arch", Role: "architect"}, {Name: "sec", Role: "security"}}
	var cm []consult.Member
	for _, m := range members {
		cm = append(cm, consult.Member{Name: m.Name, Role: m.Role})
	}
	l := New(Config{Members: members, Consults: consult.New(consult.DefaultRules(), cm)})
	for _, m := range members {
		l.AgentState(m.Name, wire.StateRunning, nil, t0)
	}
	decision := "[ROUTE]\nto: team-lead\ntype: decision\ndecision: infrastructure\ntask: T-1\nbody: Move to managed Postgres\n[/ROUTE]"
	first := l.Block("arch", parse1(t, decision), t0)
	if d := deliveriesTo(first, "arch"); len(d) != 1 || strings.Contains(d[0].Text, "is final") {
		t.Fatalf("first decision told %+v", d)
	}
	l.Block("sec", parse1(t, "[ROUTE]\nto: team-lead\ntype: verdict\ntask: T-1\nconsult: c-1\nverdict: approved\nbody: Approved on condition that TLS is required.\nRecommend rotating the credentials monthly.\n[/ROUTE]"), t0)
	final := l.Block("arch", parse1(t, decision), t0)
	var told string
	for _, d := range deliveriesTo(final, "arch") {
		if strings.Contains(d.Text, "is final") {
			told = d.Text
		}
	}
	for _, want := range []string{
		"from: team-lead", "to: arch", "type: status", "task: T-1", "decision: infrastructure", "decision-status: final", "consults: c-1",
		"decision infrastructure on T-1 is final: its mandatory consultations are satisfied by c-1 (sec, security: approved). You may go on.",
		"- c-1, approved by sec: Approved on condition that TLS is required.\nRecommend rotating the credentials monthly.",
	} {
		if !strings.Contains(told, want) {
			t.Errorf("the architect was told %q, missing %q", told, want)
		}
	}
	var rec string
	for _, r := range final.Records {
		if r.Kind == wire.KindDecisionFinal {
			rec = r.Fields["consults"]
		}
	}
	if rec != "c-1" {
		t.Errorf("decision-final record names consultations %q", rec)
	}
}
