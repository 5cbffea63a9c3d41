package consult

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// Seed 002, user story 3: "Handle consultation timeout". The chain of the
// infrastructure rule is role:security then human: the second security
// agent is asked first, then the human; the decision stays blocked all along
// and nothing re-fires once the human holds it.
func TestHandleConsultationTimeout(t *testing.T) {
	rules := DefaultRules()
	rules.Mandatory[0].Timeout = time.Hour
	rules.Mandatory[0].EscalateTo = []string{"role:security", "human"}
	m := New(rules, []Member{{"arch", "architect"}, {"sec", "security"}, {"sec2", "security"}})
	checks, _ := m.Decide("arch", "infrastructure", "T-1", "managed Postgres", t0)
	c := checks[0].Consultation
	if at, ok := m.NextDeadline(); !ok || !at.Equal(t0.Add(time.Hour)) {
		t.Fatalf("deadline %v %v", at, ok)
	}
	if got := m.Tick(t0.Add(59 * time.Minute)); len(got) != 0 {
		t.Fatalf("escalated early: %+v", got)
	}
	got := m.Tick(t0.Add(time.Hour))
	if len(got) != 1 || got[0].To != "sec2" || c.Consulted != "sec2" || c.Status != Escalated || c.Escalations != 1 {
		t.Fatalf("first escalation %+v %+v", got, c)
	}
	if _, ok := m.Decide("arch", "infrastructure", "T-1", "x", t0.Add(time.Hour)); ok {
		t.Fatal("the blocking must remain in effect while escalated")
	}
	if _, err := m.Verdict(c.ID, "sec", Approved, "late", t0); !errors.Is(err, ErrNotConsulted) {
		t.Errorf("the agent it was taken from still decides: %v", err)
	}
	got = m.Tick(t0.Add(2 * time.Hour))
	if len(got) != 1 || got[0].To != Human || !c.Deadline.IsZero() {
		t.Fatalf("second escalation %+v %+v", got, c)
	}
	if _, ok := m.NextDeadline(); ok {
		t.Error("a consultation held by the human must not re-fire")
	}
	if len(m.Tick(t0.Add(100*time.Hour))) != 0 {
		t.Error("re-fired")
	}
	if _, err := m.Verdict(c.ID, Human, Approved, "approved on escalation", t0.Add(3*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, ok := m.Decide("arch", "infrastructure", "T-1", "x", t0.Add(3*time.Hour)); !ok {
		t.Error("the human's approval must let the decision pass")
	}
	if len(c.Events) != 2 || c.Events[0].Kind != EventEscalated || c.Events[1].To != Human || c.ResolvedAt.IsZero() {
		t.Errorf("record %+v", c)
	}
}

func TestEscalationSkipsStepsNobodyFits(t *testing.T) {
	rules := DefaultRules()
	rules.Mandatory[0].Timeout = time.Minute
	rules.Mandatory[0].EscalateTo = []string{"role:security", "agent:nobody"}
	m := New(rules, []Member{{"arch", "architect"}, {"sec", "security"}})
	m.Decide("arch", "infrastructure", "T-1", "x", t0)
	got := m.Tick(t0.Add(time.Minute))
	if len(got) != 1 || got[0].To != "" || !strings.Contains(got[0].Why, "no escalation left") {
		t.Fatalf("%+v", got)
	}
	if _, ok := m.NextDeadline(); ok {
		t.Error("an exhausted chain must not re-fire")
	}
}

func TestEscalateNowAndClosed(t *testing.T) {
	m := team()
	ch, _ := m.Decide("arch", "infrastructure", "T-1", "x", t0)
	id := ch[0].Consultation.ID
	e, err := m.EscalateNow(id, t0)
	if err != nil || e.To != Human {
		t.Fatalf("%+v %v", e, err)
	}
	m.Verdict(id, "sec", Approved, "", t0)
	if _, err := m.EscalateNow(id, t0); !errors.Is(err, ErrClosed) {
		t.Errorf("escalating an approved consultation: %v", err)
	}
	if _, err := m.EscalateNow("c-99", t0); !errors.Is(err, ErrNoConsultation) {
		t.Error(err)
	}
}

// Seed 002 edge case: a consulted agent delegates to another of its role.
func TestDelegationToSameRole(t *testing.T) {
	m := New(DefaultRules(), []Member{{"arch", "architect"}, {"sec", "security"}, {"sec2", "security"}, {"des", "designer"}})
	ch, _ := m.Decide("arch", "infrastructure", "T-1", "x", t0)
	c := ch[0].Consultation
	for _, tc := range []struct{ by, to string }{{"arch", "sec2"}, {"sec", "des"}, {"sec", "arch"}, {"sec", "sec"}} {
		if _, err := m.Delegate(c.ID, tc.by, tc.to, "", t0); err == nil {
			t.Errorf("%s delegated to %s", tc.by, tc.to)
		}
	}
	if _, err := m.Delegate(c.ID, "sec", "sec2", "on leave", t0); err != nil || c.Consulted != "sec2" {
		t.Fatalf("%+v %v", c, err)
	}
	if _, err := m.Verdict(c.ID, "sec", Approved, "", t0); !errors.Is(err, ErrNotConsulted) {
		t.Error("the delegating agent still decides")
	}
	if _, err := m.Verdict(c.ID, "sec2", Approved, "", t0); err != nil {
		t.Error(err)
	}
}

// Seed 002, user story 4: "Document consultation with addressed concerns".
func TestDocumentConsultationWithAddressedConcerns(t *testing.T) {
	m := team()
	ch, _ := m.Decide("arch", "infrastructure", "T-1", "public bucket for assets", t0)
	c := ch[0].Consultation
	m.Verdict(c.ID, "sec", ConcernsRaised, "the bucket must not be public", t0.Add(time.Minute))
	if _, err := m.Address(c.ID, "sec", "x", t0); !errors.Is(err, ErrNotRequester) {
		t.Errorf("only the requester addresses concerns: %v", err)
	}
	if _, err := m.Address(c.ID, "arch", "assets behind a CDN with signed URLs", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if c.Status != Pending || c.Deadline.IsZero() {
		t.Fatalf("after addressing: %+v", c)
	}
	m.Verdict(c.ID, "sec", Approved, "condition: rotate the signing key monthly", t0.Add(3*time.Minute))
	if _, ok := m.Decide("arch", "infrastructure", "T-1", "x", t0); !ok {
		t.Fatal("blocked after approval")
	}
	// The record: original concerns, how they were addressed, final approval.
	if len(c.Verdicts) != 2 || c.Verdicts[0].Verdict != ConcernsRaised || c.Verdicts[1].Verdict != Approved ||
		len(c.Events) != 1 || c.Events[0].Kind != EventAddressed || c.Events[0].Body != "assets behind a CDN with signed URLs" ||
		!c.ResolvedAt.Equal(t0.Add(3*time.Minute)) {
		t.Errorf("record %+v", c)
	}
}

// Seed 002, user story 4: "Document approved consultation outcome".
func TestDocumentApprovedConsultationOutcome(t *testing.T) {
	m := team()
	ch, _ := m.Decide("arch", "infrastructure", "T-1", "managed Postgres in eu-west-1", t0)
	c := ch[0].Consultation
	m.Verdict(c.ID, "sec", Approved, "conditions: TLS only; recommendations: enable audit logging", t0.Add(time.Hour))
	if c.Requester != "arch" || c.Consulted != "sec" || c.Body != "managed Postgres in eu-west-1" || c.Verdicts[0].Body == "" ||
		!c.ResolvedAt.Equal(t0.Add(time.Hour)) || !c.Deadline.IsZero() {
		t.Errorf("record %+v", c)
	}
}

// Acknowledgement by the human works on concerns raised, and after they were
// addressed while the consulted agent has not answered again.
func TestAcknowledgeAfterAddressing(t *testing.T) {
	m := team()
	ch, _ := m.Decide("arch", "infrastructure", "T-1", "x", t0)
	c := ch[0].Consultation
	if _, err := m.Acknowledge(c.ID, t0); err == nil {
		t.Error("acknowledged a pending consultation with no concerns")
	}
	m.Verdict(c.ID, "sec", ConcernsRaised, "y", t0)
	m.Address(c.ID, "arch", "z", t0)
	if _, err := m.Acknowledge(c.ID, t0); err != nil || c.Status != Resolved {
		t.Errorf("%+v %v", c, err)
	}
}

// Seed 002 edge case: circular consultation requirements are reported.
func TestCircularConsultationIsReported(t *testing.T) {
	m := team()
	c1, _ := m.Consult("arch", "des", "layout", "T-1", "?", "", false, t0)
	if m.Cycle(c1, t0) != nil {
		t.Fatal("no circle yet")
	}
	c2, _ := m.Consult("des", "arch", "layout", "T-1", "?", "", false, t0)
	got := m.Cycle(c2, t0)
	if strings.Join(got, ",") != "des,arch,des" || len(c2.Events) != 1 || c2.Events[0].Kind != EventCycle {
		t.Fatalf("circle %v %+v", got, c2.Events)
	}
	m.Verdict(c1.ID, "des", Approved, "", t0)
	c3, _ := m.Consult("des", "arch", "layout", "T-2", "?", "", false, t0)
	if m.Cycle(c3, t0) != nil {
		t.Error("a circle reported after it was broken")
	}
}

func TestRuleCirclesAreProblems(t *testing.T) {
	rules := DefaultRules()
	rules.Mandatory = append(rules.Mandatory, Rule{Requester: "security", Consulted: "architect", Decision: "policy"})
	m := New(rules, []Member{{"arch", "architect"}, {"sec", "security"}, {"des", "designer"}, {"rev", "review"}, {"tst", "testing"}})
	var found bool
	for _, p := range m.Problems() {
		found = found || strings.Contains(p, "architect → security → architect")
	}
	if !found {
		t.Errorf("%v", m.Problems())
	}
}
