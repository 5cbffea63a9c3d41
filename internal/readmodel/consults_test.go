package readmodel

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
)

// qt0 is the base time of the consultation query tests.
var qt0 = time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)

// consultStore keeps the consultations a test wrote, for the slow filter.
type consultStore struct {
	st *store.Store
	cs map[string]consult.Consultation
}

func newConsultStore(t *testing.T, dir string) *consultStore {
	t.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return &consultStore{st: st, cs: map[string]consult.Consultation{}}
}

// put stores consultations in one batch, as the Team Lead does.
func (s *consultStore) put(t *testing.T, cs ...consult.Consultation) {
	t.Helper()
	b := &store.Batch{Meta: map[string]string{}}
	for _, c := range cs {
		js, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		b.Meta[lead.MetaConsult+c.ID] = string(js)
		s.cs[c.ID] = c
	}
	if err := s.st.Commit(b); err != nil {
		t.Fatal(err)
	}
}

// expect filters the written consultations the slow way.
func (s *consultStore) expect(f ConsultFilter) ([]string, ConsultStats) {
	var all []consult.Consultation
	for _, c := range s.cs {
		if f.match(&c) {
			all = append(all, c)
		}
	}
	sort.Slice(all, func(i, j int) bool {
		return all[i].Created.After(all[j].Created) || all[i].Created.Equal(all[j].Created) && all[i].ID > all[j].ID
	})
	b := newStats()
	ids := []string{}
	for _, c := range all {
		var first time.Time
		if len(c.Verdicts) > 0 {
			first = c.Verdicts[0].At
		}
		b.add(c.Status, c.Decision, c.Mandatory, c.Created, first)
		if f.Limit == 0 || len(ids) < f.Limit {
			ids = append(ids, c.ID)
		}
	}
	return ids, b.done()
}

// queryIDs runs f and returns the ids found.
func queryIDs(t *testing.T, st *store.Store, f ConsultFilter) ([]string, ConsultStats) {
	t.Helper()
	cs, stats, err := QueryConsultations(st, f)
	if err != nil {
		t.Fatalf("QueryConsultations(%+v): %v", f, err)
	}
	ids := []string{}
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids, stats
}

func consultation(id, requester, consulted, decision string, status consult.Status, created time.Time, wait time.Duration) consult.Consultation {
	c := consult.Consultation{ID: id, Requester: requester, Consulted: consulted, Decision: decision, Status: status,
		Mandatory: decision == "infrastructure", Created: created, Body: "please review " + id}
	if status != consult.Pending {
		c.Verdicts = []consult.Verdict{{By: consulted, Verdict: status, At: created.Add(wait)}}
	}
	return c
}

func TestQueryConsultationsExamples(t *testing.T) {
	s := newConsultStore(t, t.TempDir())
	if err := EnsureConsultIndex(s.st); err != nil {
		t.Fatal(err)
	}
	s.put(t,
		consultation("c-1", "arch", "sec", "infrastructure", consult.Approved, qt0, 10*time.Minute),
		consultation("c-2", "arch", "design", "design-impact", consult.ConcernsRaised, qt0.Add(time.Hour), 30*time.Minute),
		consultation("c-3", "dev", "review", "code-complete", consult.Pending, qt0.Add(2*time.Hour), 0),
		consultation("c-4", "dev", "arch", "feasibility", consult.Approved, qt0.Add(3*time.Hour), 20*time.Minute),
	)
	tests := []struct {
		name  string
		f     ConsultFilter
		ids   []string
		stats ConsultStats
	}{
		{"all, newest first", ConsultFilter{}, []string{"c-4", "c-3", "c-2", "c-1"}, ConsultStats{Matched: 4,
			ByStatus:   map[consult.Status]int{consult.Approved: 2, consult.ConcernsRaised: 1, consult.Pending: 1},
			ByDecision: map[string]int{"infrastructure": 1, "design-impact": 1, "code-complete": 1, "feasibility": 1},
			Mandatory:  1, Answered: 3, MedianToVerdict: 20 * time.Minute}},
		{"agent as requester or consulted", ConsultFilter{Agent: "arch"}, []string{"c-4", "c-2", "c-1"}, ConsultStats{Matched: 3,
			ByStatus:   map[consult.Status]int{consult.Approved: 2, consult.ConcernsRaised: 1},
			ByDecision: map[string]int{"infrastructure": 1, "design-impact": 1, "feasibility": 1},
			Mandatory:  1, Answered: 3, MedianToVerdict: 20 * time.Minute}},
		{"limit keeps the statistics of all", ConsultFilter{Agent: "arch", Limit: 1}, []string{"c-4"}, ConsultStats{Matched: 3,
			ByStatus:   map[consult.Status]int{consult.Approved: 2, consult.ConcernsRaised: 1},
			ByDecision: map[string]int{"infrastructure": 1, "design-impact": 1, "feasibility": 1},
			Mandatory:  1, Answered: 3, MedianToVerdict: 20 * time.Minute}},
		{"decision and status", ConsultFilter{Decision: "infrastructure", Status: consult.Approved}, []string{"c-1"}, ConsultStats{Matched: 1,
			ByStatus: map[consult.Status]int{consult.Approved: 1}, ByDecision: map[string]int{"infrastructure": 1},
			Mandatory: 1, Answered: 1, MedianToVerdict: 10 * time.Minute}},
		{"period", ConsultFilter{Since: qt0.Add(time.Hour), Until: qt0.Add(3 * time.Hour)}, []string{"c-3", "c-2"}, ConsultStats{Matched: 2,
			ByStatus:   map[consult.Status]int{consult.Pending: 1, consult.ConcernsRaised: 1},
			ByDecision: map[string]int{"design-impact": 1, "code-complete": 1}, Answered: 1, MedianToVerdict: 30 * time.Minute}},
		{"none", ConsultFilter{Agent: "nobody"}, []string{}, ConsultStats{ByStatus: map[consult.Status]int{}, ByDecision: map[string]int{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ids, stats := queryIDs(t, s.st, tt.f)
			if !slices.Equal(ids, tt.ids) || !reflect.DeepEqual(stats, tt.stats) {
				t.Fatalf("got %v %+v\nwant %v %+v", ids, stats, tt.ids, tt.stats)
			}
		})
	}
	// A verdict changes the status: the consultation leaves the old status.
	c3 := s.cs["c-3"]
	c3.Status, c3.Verdicts = consult.Rejected, []consult.Verdict{{By: "review", Verdict: consult.Rejected, At: qt0.Add(150 * time.Minute)}}
	s.put(t, c3)
	if ids, _ := queryIDs(t, s.st, ConsultFilter{Status: consult.Pending}); len(ids) != 0 {
		t.Fatalf("pending after the verdict: %v", ids)
	}
	if ids, _ := queryIDs(t, s.st, ConsultFilter{Status: consult.Rejected}); !slices.Equal(ids, []string{"c-3"}) {
		t.Fatalf("rejected after the verdict: %v", ids)
	}
}

// TestQueryConsultationsMatchesSlowFilter compares the indexed query, the
// first query of a writable store without the index (which builds it),
// and a read-only store without it (read in full) with the slow filter on
// random consultations (fixed seed).
func TestQueryConsultationsMatchesSlowFilter(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	agents := []string{"arch", "sec", "dev", "review", "testing", "design"}
	decisions := []string{"infrastructure", "code-complete", "design-impact", "feasibility"}
	statuses := []consult.Status{consult.Pending, consult.Approved, consult.ConcernsRaised, consult.Rejected, consult.Resolved, consult.Superseded}
	random := func(id string) consult.Consultation {
		return consultation(id, agents[rng.IntN(len(agents))], agents[rng.IntN(len(agents))], decisions[rng.IntN(len(decisions))],
			statuses[rng.IntN(len(statuses))], qt0.Add(time.Duration(rng.IntN(30*24))*time.Hour), time.Duration(1+rng.IntN(600))*time.Minute)
	}
	filters := func(n int) []ConsultFilter {
		var fs []ConsultFilter
		for range n {
			var f ConsultFilter
			if rng.IntN(2) == 0 {
				f.Agent = agents[rng.IntN(len(agents))]
			}
			if rng.IntN(2) == 0 {
				f.Decision = decisions[rng.IntN(len(decisions))]
			}
			if rng.IntN(2) == 0 {
				f.Status = statuses[rng.IntN(len(statuses))]
			}
			if rng.IntN(2) == 0 {
				f.Since = qt0.Add(time.Duration(rng.IntN(30*24)) * time.Hour)
			}
			if rng.IntN(3) == 0 {
				f.Until = qt0.Add(time.Duration(rng.IntN(30*24)) * time.Hour)
			}
			f.Limit = []int{0, 1, 10, 100}[rng.IntN(4)]
			fs = append(fs, f)
		}
		return fs
	}
	dir := t.TempDir()
	s := newConsultStore(t, dir)
	for i := range 300 {
		s.put(t, random(fmt.Sprintf("c-%d", i+1)))
	}
	check := func(st *store.Store, what string) {
		t.Helper()
		for _, f := range filters(150) {
			ids, stats := queryIDs(t, st, f)
			wantIDs, wantStats := s.expect(f)
			if !slices.Equal(ids, wantIDs) || !reflect.DeepEqual(stats, wantStats) {
				t.Fatalf("%s: %+v:\n got %v %+v\nwant %v %+v", what, f, ids, stats, wantIDs, wantStats)
			}
		}
	}
	if err := s.st.Close(); err != nil {
		t.Fatal(err)
	}
	ro, err := store.Open(dir, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	check(ro, "read-only store without the index")
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	rw, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rw.Close() })
	s.st = rw
	check(s.st, "writable store, index built by the first query")
	if _, ok := s.st.MetaIndexOf(lead.MetaConsult); !ok {
		t.Fatal("the first query did not build the index")
	}
	for range 200 { // verdicts, delegations and new consultations
		id := fmt.Sprintf("c-%d", 1+rng.IntN(400))
		c, ok := s.cs[id]
		if !ok {
			c = random(id)
		}
		c.Status = statuses[rng.IntN(len(statuses))]
		c.Consulted = agents[rng.IntN(len(agents))]
		s.put(t, c)
	}
	check(s.st, "indexed, after updates")
}
