package queryfiles

import (
	"slices"
	"testing"
	"time"
)

func TestPriorityOrder(t *testing.T) {
	got := []Priority{"", PriorityLow, PriorityBlocker, "urgent", PriorityMedium, PriorityHigh}
	slices.SortStableFunc(got, ComparePriority)
	assertEqual(t, got, []Priority{PriorityBlocker, PriorityHigh, PriorityMedium, PriorityLow, "", "urgent"})
	for i, p := range Priorities() {
		if !p.Valid() || p.Rank() != 4-i {
			t.Errorf("%s: rank %d", p, p.Rank())
		}
	}
	if p, ok := ParsePriority(" BLOCKER "); !ok || p != PriorityBlocker {
		t.Errorf("ParsePriority: %q %v", p, ok)
	}
	if _, ok := ParsePriority("urgent"); ok {
		t.Error("urgent accepted")
	}
	if s, ok := ParseStatus("Resolved"); !ok || s != StatusResolved {
		t.Errorf("ParseStatus: %q %v", s, ok)
	}
	if _, ok := ParseStatus("done"); ok {
		t.Error("done accepted")
	}
}

func TestSortQueries(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 1, 15, 10, m, 0, 0, time.UTC) }
	qs := []*Query{
		{ID: "low", Priority: PriorityLow, Time: at(0)},
		{ID: "high-late", Priority: PriorityHigh, Time: at(30)},
		{ID: "high-no-time", Priority: PriorityHigh},
		{ID: "high-early", Priority: PriorityHigh, Time: at(10)},
		{ID: "blocker", Priority: PriorityBlocker, Time: at(59)},
		{ID: "high-early-a", Priority: PriorityHigh, Time: at(10)},
	}
	SortQueries(qs)
	var ids []string
	for _, q := range qs {
		ids = append(ids, q.ID)
	}
	assertEqual(t, ids, []string{"blocker", "high-early", "high-early-a", "high-late", "high-no-time", "low"})
}
