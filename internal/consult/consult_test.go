package consult

import (
	"errors"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func team() *Machine {
	return New(DefaultRules(), []Member{
		{"arch", "architect"}, {"sec", "security"}, {"des", "designer"}, {"dev", "developer"},
		{"rev", "review"}, {"tst", "testing"}, {"qa", "qa"}, {"pm", "pm"}, {"doc", "writer"},
	})
}

// Seed 002, user story 1: "Architect initiates mandatory consultation with Security Agent".
func TestArchitectInitiatesMandatoryConsultationWithSecurityAgent(t *testing.T) {
	m := team()
	checks, ok := m.Decide("arch", "infrastructure", "T-1", "Move to managed Postgres", t0)
	if ok || len(checks) != 1 || !checks[0].Created {
		t.Fatalf("%v %+v", ok, checks)
	}
	c := checks[0].Consultation
	if c.Status != Pending || c.Consulted != "sec" || !c.Mandatory || c.Task != "T-1" || c.Body != "Move to managed Postgres" {
		t.Errorf("%+v", c)
	}
}

// User story 1: "Development Agent initiates mandatory consultation with Review Agent".
func TestDevelopmentAgentInitiatesMandatoryConsultationWithReviewAgent(t *testing.T) {
	m := team()
	checks, ok := m.Decide("dev", "code-complete", "T-2", "handoff", t0)
	if ok || len(checks) != 2 || checks[0].Consultation.Consulted != "rev" || checks[1].Consultation.Consulted != "tst" {
		t.Fatalf("%v %+v", ok, checks)
	}
}

// User story 1: "Architect initiates mandatory consultation with Design Agent".
func TestArchitectInitiatesMandatoryConsultationWithDesignAgent(t *testing.T) {
	m := team()
	checks, _ := m.Decide("arch", "design-impact", "T-3", "new nav", t0)
	if len(checks) != 1 || checks[0].Consultation.Consulted != "des" {
		t.Fatalf("%+v", checks)
	}
}

// User story 2: approve, raise concerns, reject; only the consulted agent.
func TestConsultedAgentResponses(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    Status
	}{{"SecurityAgentApprovesInfrastructureDecision", Approved}, {"SecurityAgentRaisesConcerns", ConcernsRaised}, {"ReviewAgentRejects", Rejected}} {
		t.Run(tc.name, func(t *testing.T) {
			m := team()
			checks, _ := m.Decide("arch", "infrastructure", "T-1", "x", t0)
			id := checks[0].Consultation.ID
			if _, err := m.Verdict(id, "arch", Approved, "self-approval", t0); !errors.Is(err, ErrNotConsulted) {
				t.Errorf("the requester approved its own consultation: %v", err)
			}
			c, err := m.Verdict(id, "sec", tc.v, "conditions: rotate keys", t0)
			if err != nil || c.Status != tc.v || len(c.Verdicts) != 1 {
				t.Errorf("%+v %v", c, err)
			}
		})
	}
}

// User story 3: "Block code completion with pending Review Agent consultation".
func TestBlockCodeCompletionWithPendingReviewAgentConsultation(t *testing.T) {
	m := team()
	checks, ok := m.Decide("dev", "code-complete", "T-2", "done", t0)
	if ok || checks[0].Consultation.Status != Pending || checks[0].Consultation.Consulted != "rev" {
		t.Fatalf("allowed with pending consultations: %v %+v", ok, checks)
	}
}

// User story 3: "Block infrastructure decision with unresolved Security
// concerns" (until addressed and approved, or acknowledged by the human).
func TestBlockInfrastructureDecisionWithUnresolvedSecurityConcerns(t *testing.T) {
	a := team()
	ch, _ := a.Decide("arch", "infrastructure", "T-1", "x", t0)
	a.Verdict(ch[0].Consultation.ID, "sec", ConcernsRaised, "open port 22", t0)
	if _, ok := a.Decide("arch", "infrastructure", "T-1", "x", t0); ok {
		t.Fatal("allowed with concerns raised")
	}
	if _, err := a.Acknowledge(ch[0].Consultation.ID, t0); err != nil {
		t.Fatal(err)
	}
	if _, ok := a.Decide("arch", "infrastructure", "T-1", "x", t0); !ok {
		t.Fatal("not allowed after the human acknowledged the concerns")
	}
}

// User story 3: "Allow completion after all mandatory consultations resolved".
func TestAllowCompletionAfterAllMandatoryConsultationsResolved(t *testing.T) {
	m := team()
	checks, _ := m.Decide("dev", "code-complete", "T-2", "done", t0)
	m.Verdict(checks[0].Consultation.ID, "rev", Approved, "", t0)
	if _, ok := m.Decide("dev", "code-complete", "T-2", "done", t0); ok {
		t.Fatal("allowed with testing still pending")
	}
	m.Verdict(checks[1].Consultation.ID, "tst", Approved, "coverage 91%", t0)
	checks2, ok := m.Decide("dev", "code-complete", "T-2", "done", t0)
	if !ok || checks2[0].Created || checks2[1].Created {
		t.Fatalf("not allowed after approvals, or consultations opened again: %v %+v", ok, checks2)
	}
}

// User story 2: "Testing Agent verifies coverage requirements": its
// response carries the coverage status and the areas lacking coverage.
func TestTestingAgentVerifiesCoverageRequirements(t *testing.T) {
	m := team()
	checks, _ := m.Decide("dev", "code-complete", "T-2", "done", t0)
	tst := checks[1].Consultation
	c, err := m.Verdict(tst.ID, "tst", ConcernsRaised, "coverage 72% (target 80%): api/retry.go and api/backoff.go have no tests", t0)
	if err != nil || c.Status != ConcernsRaised || c.Verdicts[0].Body != "coverage 72% (target 80%): api/retry.go and api/backoff.go have no tests" {
		t.Fatalf("%+v %v", c, err)
	}
	if _, ok := m.Decide("dev", "code-complete", "T-2", "done", t0); ok {
		t.Error("allowed with coverage gaps")
	}
}

// User story 4: "Document rejected consultation and subsequent actions":
// the new consultation references the rejected one, the lineage is kept.
func TestDocumentRejectedConsultationAndSubsequentActions(t *testing.T) {
	m := team()
	ch, _ := m.Decide("arch", "infrastructure", "T-1", "v1", t0)
	first := ch[0].Consultation.ID
	m.Verdict(first, "sec", Rejected, "no", t0)
	c2, err := m.Consult("arch", "sec", "infrastructure", "T-1", "v2 with a bastion", first, false, t0.Add(time.Minute))
	if err != nil || !c2.Mandatory {
		t.Fatalf("%+v %v", c2, err)
	}
	if _, ok := m.Decide("arch", "infrastructure", "T-1", "v2", t0); ok {
		t.Fatal("the resubmission is pending: still blocked")
	}
	m.Verdict(c2.ID, "sec", Approved, "ok with the bastion", t0)
	if _, ok := m.Decide("arch", "infrastructure", "T-1", "v2", t0); !ok {
		t.Fatal("approved resubmission does not count")
	}
	lin := m.Lineage(c2.ID)
	if len(lin) != 2 || lin[1].ID != first || lin[1].Status != Superseded {
		t.Errorf("lineage %+v", lin)
	}
}

func TestMatrixAndMissingRoles(t *testing.T) {
	m := team()
	if _, err := m.Consult("dev", "sec", "x", "T", "?", "", false, t0); !errors.Is(err, ErrNotAllowed) {
		t.Errorf("developer may not consult security optionally: %v", err)
	}
	if _, err := m.Consult("doc", "sec", "x", "T", "?", "", false, t0); err != nil {
		t.Errorf("a writer may consult anyone: %v", err)
	}
	small := New(DefaultRules(), []Member{{"arch", "architect"}, {"dev", "developer"}})
	if p := small.Problems(); len(p) != 4 {
		t.Errorf("problems %v", p)
	}
	checks, ok := small.Decide("arch", "infrastructure", "T", "x", t0)
	if ok || checks[0].Consultation != nil {
		t.Errorf("a rule with no agent must block: %v %+v", ok, checks)
	}
}
