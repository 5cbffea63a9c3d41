package e2e

import (
	"encoding/csv"
	"os"
	"path/filepath"
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
	if out := tm.mustCLI("consults"); !strings.Contains(out, "c-1") || !strings.Contains(out, "approved") || !strings.Contains(out, "1 consultation: 1 approved") {
		t.Errorf("consults:\n%s", out)
	}
	// Killed and restarted: the approval is still there; the same decision
	// passes without asking security again.
	c.kill()
	tm.write("restart.yaml", []agentDef{
		{name: "arch", role: "architect", flags: []string{"--raw"}, script: "route to=team-lead type=decision decision=infrastructure task=T-1 body=\"again\"\nidle\n"},
		{name: "sec", role: "security", flags: []string{"--raw"}, script: "idle\n"},
	})
	c2 := tm.start()
	waitFor(t, 20e9, "the decision after the restart", func() bool {
		return len(auditJSON(t, tm, "--kind", "decision-final")) == 2
	})
	// No new consultation: the restored approval counted. (c-1 itself may
	// be typed again: a kill within the read confirmation's 20 ms leaves
	// it in the outbox, and delivery is at least once, with the same id.)
	if strings.Contains(tm.received("sec"), "consult: c-2") {
		t.Errorf("security was asked again after the restart: %q", tm.received("sec"))
	}
	c2.stop()
	if out := tm.mustCLI("consults", "--status", "approved", "--format", "json"); strings.Count(out, "\n") != 1 {
		t.Errorf("offline consults: %s", out)
	}
}

// A rejected consultation is resubmitted with supersedes: the new one is
// asked, approved, and the decision passes; the record keeps the lineage.
func TestRejectedConsultationResubmittedWithLineage(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "arch", role: "architect", flags: []string{"--raw"}, script: `
route to=team-lead type=decision decision=infrastructure task=T-1 body="Public S3 bucket for uploads"
expect ^verdict: rejected
expect ^\[/ROUTE\]
route to=sec type=consult decision=infrastructure supersedes=c-1 task=T-1 body="Private bucket behind CloudFront, signed URLs"
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=decision decision=infrastructure task=T-1 body="Private bucket behind CloudFront"
idle
`},
		agentDef{name: "sec", role: "security", flags: []string{"--raw"}, script: `
expect ^consult: c-1
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-1 verdict=rejected task=T-1 body="No public buckets: uploads hold personal data."
expect ^consult: c-2
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-2 verdict=approved task=T-1 body="Approved. Condition: URLs expire within 15 minutes."
idle
`},
	)
	c := tm.start()
	defer c.stop()
	asked := tm.waitReceived("sec", "supersedes: c-1")
	if !strings.Contains(asked, typed("type: consult", "task: T-1", "consult: c-2", "decision: infrastructure", "mandatory: yes", "supersedes: c-1", "body: Private bucket behind CloudFront, signed URLs")) {
		t.Errorf("security was asked %q", asked)
	}
	waitFor(t, 20e9, "the final decision", func() bool {
		return len(auditJSON(t, tm, "--kind", "decision-final")) == 1
	})
	out := tm.mustCLI("consults", "--format", "json")
	for _, want := range []string{`"id":"c-2"`, `"supersedes":"c-1"`, `"status":"superseded"`, `"verdict":"rejected"`, `URLs expire within 15 minutes`} {
		if !strings.Contains(out, want) {
			t.Errorf("consults lack %s:\n%s", want, out)
		}
	}
	exportConsultationAuditTrail(t, tm)
}

// Seed 002, user story 5, scenario "Export consultation audit trail": a
// complete export of the matching consultations with every detail and
// outcome, in formats fit for compliance reporting (run on the lineage
// above: c-1 rejected, c-2 superseding it and approved).
func exportConsultationAuditTrail(t *testing.T, tm *team) {
	md := filepath.Join(tm.dir, "audit.md")
	tm.mustCLI("audit", "--export", "--format", "md", "--out", md)
	text, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"c-1", "c-2", "superseded", "rejected", "approved", "No public buckets: uploads hold personal data.",
		"Approved. Condition: URLs expire within 15 minutes.", "arch", "sec", "infrastructure"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the md export lacks %q:\n%s", want, text)
		}
	}
	js := tm.mustCLI("audit", "--export", "--format", "json", "--decision", "infrastructure")
	if !strings.Contains(js, `"supersedes":["c-1"]`) || !strings.Contains(js, `"superseded_by":"c-2"`) || !strings.Contains(js, `"incomplete": 0`) {
		t.Errorf("json export:\n%s", js)
	}
	out := tm.mustCLI("audit", "--export", "--format", "csv", "--status", "approved")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 2 || rows[1][0] != "c-2" || rows[0][0] != "id" {
		t.Errorf("csv export of the approved ones (%v):\n%s", err, out)
	}
}

// Concerns raised, addressed by the requester, approved on the second look.
func TestConcernsAddressedThenApproved(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "arch", role: "architect", flags: []string{"--raw"}, script: `
route to=team-lead type=decision decision=infrastructure task=T-7 body="Redis for sessions"
expect ^verdict: concerns-raised
expect ^\[/ROUTE\]
route to=sec type=status consult=c-1 task=T-7 body="Redis now requires AUTH and TLS."
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=decision decision=infrastructure task=T-7 body="Redis for sessions"
idle
`},
		agentDef{name: "sec", role: "security", flags: []string{"--raw"}, script: `
expect ^consult: c-1
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-1 verdict=concerns-raised task=T-7 body="Redis without AUTH is open to anyone on the network."
expect ^addressed: yes
expect ^\[/ROUTE\]
route to=team-lead type=verdict consult=c-1 verdict=approved task=T-7 body="Approved with AUTH and TLS."
idle
`},
	)
	c := tm.start()
	defer c.stop()
	waitFor(t, 20e9, "the final decision", func() bool {
		return len(auditJSON(t, tm, "--kind", "decision-final")) == 1
	})
	out := tm.mustCLI("consults", "--format", "json")
	for _, want := range []string{`"kind":"addressed"`, `Redis now requires AUTH and TLS.`, `"verdict":"concerns-raised"`, `"status":"approved"`} {
		if !strings.Contains(out, want) {
			t.Errorf("consults lack %s:\n%s", want, out)
		}
	}
}
