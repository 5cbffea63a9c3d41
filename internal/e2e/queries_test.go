package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/queryfiles"
)

// Seed 000's query file, as the seed writes it: the developer asks the
// architect which transport to use.
const seedQuery = `# Example: Developer querying Architect
id: query-20260115-001
from: developer
to: architect
timestamp: 2026-01-15T10:30:00Z
context:
  current_task: "Implementing real-time updates for dashboard"
  reference: ".spc/docs/architecture/dashboard.md:L45-50"
question: |
  The architecture spec mentions "real-time updates" but doesn't specify
  the transport mechanism. Which approach should I implement?
options:
  - "WebSocket: Full duplex, but more complex"
  - "SSE (Server-Sent Events): Simpler, sufficient for one-way"
priority: blocker
status: pending
`

// A query file written in the developer's folder is taken as a
// consultation of the architect (the matrix allows it); the architect's
// answer reaches the developer and is written back as the seed's response
// file; the query's status and the index follow.
func TestQueryFileAnsweredWithResponseFile(t *testing.T) {
	work := t.TempDir()
	devDir := filepath.Join(work, "dev")
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", dir: devDir, flags: []string{"--raw"}, script: "expect ^type: answer\nexpect ^\\[/ROUTE\\]\nidle\n"},
		agentDef{name: "arch", role: "architect", dir: filepath.Join(work, "arch"), flags: []string{"--raw"}, script: `
expect ^consult: c-1
expect ^\[/ROUTE\]
route to=team-lead type=answer consult=c-1 recommendation=SSE task=- body="Use SSE: one-way server-to-client is what it is for."
idle
`},
	)
	c := tm.start()
	defer c.stop()
	qdir := filepath.Join(devDir, ".spc", "queries")
	if err := os.MkdirAll(qdir, 0o755); err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(qdir, ".query.tmp")
	if err := os.WriteFile(tmp, []byte(seedQuery), 0o644); err != nil {
		t.Fatal(err)
	}
	query := filepath.Join(qdir, "query-20260115-001.yaml")
	if err := os.Rename(tmp, query); err != nil {
		t.Fatal(err)
	}
	asked := tm.waitReceived("arch", "consult: c-1")
	for _, want := range []string{"from: dev", "type: consult", "priority: blocker", "query: query-20260115-001.yaml", "Which approach should I implement?", "- SSE (Server-Sent Events): Simpler"} {
		if !strings.Contains(asked, want) {
			t.Errorf("the architect was asked without %q: %q", want, asked)
		}
	}
	resp := filepath.Join(qdir, "query-20260115-001-response.yaml")
	var r *queryfiles.Response
	waitFor(t, 20e9, "the response file", func() bool {
		got, err := queryfiles.ReadResponse(resp)
		r = got
		return err == nil
	})
	if r.QueryID != "query-20260115-001" || r.From != "arch" || !strings.Contains(r.Answer, "Use SSE") || r.Recommendation != "SSE" {
		t.Errorf("response %+v", r)
	}
	waitFor(t, 10e9, "the query marked answered", func() bool {
		q, err := queryfiles.ReadQuery(query)
		return err == nil && q.Status == queryfiles.StatusAnswered
	})
	waitFor(t, 10e9, "the index", func() bool {
		idx, err := queryfiles.LoadIndex(qdir)
		return err == nil && len(idx) == 1 && idx[0].Consult == "c-1" && idx[0].Status == queryfiles.StatusAnswered && idx[0].Response == filepath.Base(resp)
	})
	if dev := tm.waitReceived("dev", "type: answer"); !strings.Contains(dev, "consult: c-1") || !strings.Contains(dev, "Use SSE") {
		t.Errorf("dev got %q", dev)
	}
	// The status change the console made is not a new query.
	if out := tm.mustCLI("consults", "--format", "json"); strings.Count(out, `"id":"c-`) != 1 {
		t.Errorf("consults:\n%s", out)
	}
}

// A query that breaks the matrix, or names no one in the team, is reported
// to its author and never crashes the watcher; half-written and bad files
// do not stop a later good one.
func TestQueryFileErrorsReported(t *testing.T) {
	work := t.TempDir()
	qaDir := filepath.Join(work, "qa")
	tm := newTeam(t,
		agentDef{name: "qa", role: "qa", dir: qaDir, flags: []string{"--raw"}, script: "expectn 3 not taken\nidle\n"},
		agentDef{name: "arch", role: "architect", dir: filepath.Join(work, "arch"), flags: []string{"--raw"}, script: "idle\n"},
		agentDef{name: "dev", role: "developer", dir: filepath.Join(work, "dev"), flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.start()
	defer c.stop()
	qdir := filepath.Join(qaDir, ".spc", "queries")
	os.MkdirAll(qdir, 0o755)
	write := func(name, text string) {
		tmp := filepath.Join(qdir, "."+name)
		os.WriteFile(tmp, []byte(text), 0o644)
		if err := os.Rename(tmp, filepath.Join(qdir, name)); err != nil {
			t.Fatal(err)
		}
	}
	write("query-1.yaml", "id: q1\nfrom: qa\nto: architect\nquestion: may I?\npriority: low\nstatus: pending\n") // QA may not consult the architect
	write("query-2.yaml", "id: q2\nfrom: qa\nto: nobody\nquestion: hello?\npriority: low\nstatus: pending\n")
	write("query-3.yaml", "id: q3\nfrom: qa\nto: [developer\nquestion: x\n") // bad YAML
	write("query-4.yaml", "id: q4\nfrom: qa\nto: developer\nquestion: Is a 500 on empty input a bug?\npriority: high\nstatus: pending\n")
	// The watcher takes the files in whatever order their events come.
	for _, want := range []string{"query-1.yaml not taken: not consulted: the consultation matrix does not allow",
		`query-2.yaml not taken: to: "nobody"`, "query-3.yaml not taken"} {
		tm.waitReceived("qa", want)
	}
	tm.waitReceived("dev", "Is a 500 on empty input a bug?")
	if errs := auditJSON(t, tm, "--kind", "query-error"); len(errs) != 3 {
		t.Errorf("query errors %v", errs)
	}
}
