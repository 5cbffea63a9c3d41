package queryfiles

import (
	"cmp"
	"slices"
	"strings"
)

// Priority is a query's urgency (seed 000 "Priority Levels").
type Priority string

// The four priorities, most urgent first.
const (
	// PriorityBlocker: the asker cannot proceed without an answer.
	PriorityBlocker Priority = "blocker"
	// PriorityHigh: significantly impacts progress.
	PriorityHigh Priority = "high"
	// PriorityMedium: would improve quality; the default when none is given.
	PriorityMedium Priority = "medium"
	// PriorityLow: nice to have.
	PriorityLow Priority = "low"
)

// Priorities lists the priorities, most urgent first.
func Priorities() []Priority {
	return []Priority{PriorityBlocker, PriorityHigh, PriorityMedium, PriorityLow}
}

// ParsePriority reads a priority, ignoring case and surrounding spaces.
func ParsePriority(s string) (Priority, bool) {
	p := Priority(strings.ToLower(strings.TrimSpace(s)))
	return p, p.Valid()
}

// Valid reports whether p is one of the four priorities.
func (p Priority) Valid() bool { return p.Rank() > 0 }

// Rank is 4 for blocker down to 1 for low, 0 for anything else: higher is
// more urgent.
func (p Priority) Rank() int {
	switch p {
	case PriorityBlocker:
		return 4
	case PriorityHigh:
		return 3
	case PriorityMedium:
		return 2
	case PriorityLow:
		return 1
	}
	return 0
}

// ComparePriority orders a before b when a is more urgent (negative), for
// slices.SortFunc; unknown priorities come last.
func ComparePriority(a, b Priority) int { return cmp.Compare(b.Rank(), a.Rank()) }

// SortQueries orders queries most urgent first, then oldest first (by Time,
// an unreadable time last), then by ID; the sort is stable.
func SortQueries(qs []*Query) {
	slices.SortStableFunc(qs, func(a, b *Query) int {
		if c := ComparePriority(a.Priority, b.Priority); c != 0 {
			return c
		}
		switch az, bz := a.Time.IsZero(), b.Time.IsZero(); {
		case az != bz:
			if az {
				return 1
			}
			return -1
		case !a.Time.Equal(b.Time):
			return a.Time.Compare(b.Time)
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// Status is where a query stands.
type Status string

// The three statuses of seed 000.
const (
	// StatusPending: asked, not answered yet; the default when none is given.
	StatusPending Status = "pending"
	// StatusAnswered: a response file has been written.
	StatusAnswered Status = "answered"
	// StatusResolved: the asker has taken the answer.
	StatusResolved Status = "resolved"
)

// ParseStatus reads a status, ignoring case and surrounding spaces.
func ParseStatus(s string) (Status, bool) {
	st := Status(strings.ToLower(strings.TrimSpace(s)))
	return st, st.Valid()
}

// Valid reports whether s is one of the three statuses.
func (s Status) Valid() bool {
	return s == StatusPending || s == StatusAnswered || s == StatusResolved
}
