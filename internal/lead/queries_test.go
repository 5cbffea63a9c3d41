package lead

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/queryfiles"
)

func queryTeam() *Lead {
	members := []Member{{Name: "dev", Role: "developer"}, {Name: "arch", Role: "architect"}}
	cm := []consult.Member{{Name: "dev", Role: "developer"}, {Name: "arch", Role: "architect"}}
	l := New(Config{Members: members, Consults: consult.New(consult.DefaultRules(), cm)})
	for _, m := range members {
		l.AgentState(m.Name, wire.StateRunning, nil, t0)
	}
	return l
}

// A query file claiming another agent's name than the folder's owner is
// refused; the same file read twice is taken once; the asker marking it
// resolved updates the index.
func TestQueryFileIdentityAndOnce(t *testing.T) {
	l := queryTeam()
	q := &queryfiles.Query{ID: "q1", From: "architect", To: []string{"developer"}, Question: "?", Priority: queryfiles.PriorityHigh, Status: queryfiles.StatusPending}
	out := l.Query(QueryFile{Path: "/w/dev/.spc/queries/query-1.yaml", Owners: []string{"dev"}, Query: q}, t0)
	if d := deliveriesTo(out, "dev"); len(d) != 1 || !strings.Contains(d[0].Text, "in the working folder of dev") || len(l.Consultations()) != 0 {
		t.Fatalf("spoofed query taken: %+v", out.Deliveries)
	}
	q.From, q.To = "developer", []string{"architect"}
	f := QueryFile{Path: "/w/dev/.spc/queries/query-1.yaml", Owners: []string{"dev"}, Query: q}
	if out := l.Query(f, t0); len(deliveriesTo(out, "arch")) != 1 || len(out.Files) != 1 || out.Files[0].Index.Consult != "c-1" {
		t.Fatalf("%+v", out)
	}
	if out := l.Query(f, t0); len(out.Deliveries) != 0 {
		t.Fatalf("taken twice: %+v", out.Deliveries)
	}
	out = l.Block("arch", parse1(t, "[ROUTE]\nto: team-lead\ntype: answer\nconsult: c-1\ntask: -\nbody: yes\n[/ROUTE]"), t0)
	if len(out.Files) != 1 || out.Files[0].Response == nil || out.Files[0].Response.QueryID != "q1" || out.Files[0].Status != queryfiles.StatusAnswered {
		t.Fatalf("%+v", out.Files)
	}
	q.Status = queryfiles.StatusResolved
	if out := l.Query(f, t0); len(out.Files) != 1 || out.Files[0].Index.Status != queryfiles.StatusResolved {
		t.Fatalf("%+v", out.Files)
	}
}
