package readmodel

import (
	"slices"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
)

// Seed 002, user story 5 ("Viewing Consultation Audit Trail"): the queries
// behind teamlead consults, over consultations spread across several days.
func auditTrailStore(t *testing.T) *consultStore {
	t.Helper()
	s := newConsultStore(t, t.TempDir())
	if err := EnsureConsultIndex(s.st); err != nil {
		t.Fatal(err)
	}
	day := 24 * time.Hour
	s.put(t,
		consultation("c-1", "arch", "sec", "infrastructure", consult.Approved, qt0, time.Hour),
		consultation("c-2", "dev", "arch", "feasibility", consult.Approved, qt0.Add(day), 20*time.Minute),
		consultation("c-3", "arch", "des", "design-impact", consult.Rejected, qt0.Add(2*day), 2*time.Hour),
		consultation("c-4", "dev", "rev", "code-complete", consult.Pending, qt0.Add(3*day), 0),
		consultation("c-5", "arch", "sec", "infrastructure", consult.ConcernsRaised, qt0.Add(4*day), 3*time.Hour),
		consultation("c-6", "pm", "des", "feasibility", consult.Approved, qt0.Add(5*day), time.Hour),
	)
	return s
}

// Scenario: View all consultations for a specific agent — where it was the
// requester and where it was consulted, each with status, participants and outcome.
func TestViewAllConsultationsForASpecificAgent(t *testing.T) {
	s := auditTrailStore(t)
	cs, stats, err := QueryConsultations(s.st, ConsultFilter{Agent: "arch"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		ids = append(ids, c.ID)
		if c.Requester == "" || c.Consulted == "" || c.Status == "" {
			t.Errorf("%s lacks participants or outcome: %+v", c.ID, c)
		}
	}
	if !slices.Equal(ids, []string{"c-5", "c-3", "c-2", "c-1"}) || stats.Matched != 4 {
		t.Errorf("arch's consultations %v (%d)", ids, stats.Matched)
	}
}

// Scenario: View consultations by time period — those in the range, most
// recent first, with summary statistics for the period.
func TestViewConsultationsByTimePeriod(t *testing.T) {
	s := auditTrailStore(t)
	day := 24 * time.Hour
	ids, stats := queryIDs(t, s.st, ConsultFilter{Since: qt0.Add(day), Until: qt0.Add(4 * day)})
	if !slices.Equal(ids, []string{"c-4", "c-3", "c-2"}) {
		t.Errorf("period %v", ids)
	}
	if stats.Matched != 3 || stats.ByStatus[consult.Approved] != 1 || stats.ByStatus[consult.Rejected] != 1 || stats.ByStatus[consult.Pending] != 1 || stats.Answered != 2 {
		t.Errorf("statistics %+v", stats)
	}
}

// Scenario: View consultations by decision type — only that decision, how
// many matched, and further filtered by status.
func TestViewConsultationsByDecisionType(t *testing.T) {
	s := auditTrailStore(t)
	ids, stats := queryIDs(t, s.st, ConsultFilter{Decision: "infrastructure"})
	if !slices.Equal(ids, []string{"c-5", "c-1"}) || stats.Matched != 2 {
		t.Errorf("infrastructure %v (%d)", ids, stats.Matched)
	}
	ids, stats = queryIDs(t, s.st, ConsultFilter{Decision: "infrastructure", Status: consult.Approved})
	if !slices.Equal(ids, []string{"c-1"}) || stats.Matched != 1 {
		t.Errorf("infrastructure, approved %v", ids)
	}
}
