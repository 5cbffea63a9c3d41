package readmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
)

// ConsultIndex is the store index over the stored consultations (meta
// c/<id>): by requester, consulted agent, decision type and status, ordered
// by creation, with what the summary statistics need kept in each entry.
func ConsultIndex() store.MetaIndex {
	return store.MetaIndex{Prefix: lead.MetaConsult, Order: "created",
		Fields:  []string{"requester", "consulted", "decision", "status"},
		Covered: []string{"mandatory", "verdicts.0.at"}}
}

// EnsureConsultIndex registers ConsultIndex with a writable store and
// builds it from the consultations already stored (once: later calls with
// the index in place return at once). The console calls it at start.
func EnsureConsultIndex(st *store.Store) error {
	if spec, ok := st.MetaIndexOf(lead.MetaConsult); ok && equalIndex(spec, ConsultIndex()) {
		return nil
	}
	return st.IndexMeta(ConsultIndex())
}

// equalIndex reports whether two index specs are the same.
func equalIndex(a, b store.MetaIndex) bool {
	return a.Prefix == b.Prefix && a.Order == b.Order && slices.Equal(a.Fields, b.Fields) && slices.Equal(a.Covered, b.Covered)
}

// ConsultFilter selects consultations; zero fields do not filter.
type ConsultFilter struct {
	// Agent matches the requester or the consulted agent.
	Agent string `json:"agent,omitempty"`
	// Decision is the decision type (infrastructure, code-complete, ...).
	Decision string `json:"decision,omitempty"`
	// Status is the consultation's current status.
	Status consult.Status `json:"status,omitempty"`
	// Since is the inclusive lower bound on the creation time.
	Since time.Time `json:"since,omitzero"`
	// Until is the exclusive upper bound on the creation time.
	Until time.Time `json:"until,omitzero"`
	// Limit caps how many consultations are returned, newest first; 0 means all.
	Limit int `json:"limit,omitempty"`
}

// match reports whether c passes every filter of f.
func (f ConsultFilter) match(c *consult.Consultation) bool {
	return (f.Agent == "" || c.Requester == f.Agent || c.Consulted == f.Agent) &&
		(f.Decision == "" || c.Decision == f.Decision) && (f.Status == "" || c.Status == f.Status) &&
		(f.Since.IsZero() || !c.Created.Before(f.Since)) && (f.Until.IsZero() || c.Created.Before(f.Until))
}

// ConsultStats summarises every consultation a filter matched (not only
// the Limit returned).
type ConsultStats struct {
	// Matched is how many consultations matched.
	Matched int `json:"matched"`
	// ByStatus counts them by current status.
	ByStatus map[consult.Status]int `json:"by_status"`
	// ByDecision counts them by decision type.
	ByDecision map[string]int `json:"by_decision"`
	// Mandatory counts the mandatory ones.
	Mandatory int `json:"mandatory"`
	// Answered counts those with at least one verdict.
	Answered int `json:"answered"`
	// MedianToVerdict is the median time from creation to the first
	// verdict, over the answered ones.
	MedianToVerdict time.Duration `json:"median_to_verdict"`
}

// statsBuilder accumulates ConsultStats.
type statsBuilder struct {
	s     ConsultStats
	waits []time.Duration
}

func newStats() *statsBuilder {
	return &statsBuilder{s: ConsultStats{ByStatus: map[consult.Status]int{}, ByDecision: map[string]int{}}}
}

// add counts one consultation; firstVerdict is zero when none was given.
func (b *statsBuilder) add(status consult.Status, decision string, mandatory bool, created, firstVerdict time.Time) {
	b.s.Matched++
	b.s.ByStatus[status]++
	b.s.ByDecision[decision]++
	if mandatory {
		b.s.Mandatory++
	}
	if !firstVerdict.IsZero() {
		b.s.Answered++
		b.waits = append(b.waits, firstVerdict.Sub(created))
	}
}

// addEntry counts one consultation from its index entry, without copies.
func (b *statsBuilder) addEntry(e *store.MetaEntry) {
	b.s.Matched++
	if s := e.FieldBytes("status"); b.s.ByStatus[consult.Status(s)] > 0 { // a lookup copies nothing
		b.s.ByStatus[consult.Status(s)]++
	} else {
		b.s.ByStatus[consult.Status(s)] = 1
	}
	if d := e.FieldBytes("decision"); b.s.ByDecision[string(d)] > 0 {
		b.s.ByDecision[string(d)]++
	} else {
		b.s.ByDecision[string(d)] = 1
	}
	if string(e.FieldBytes("mandatory")) == "true" {
		b.s.Mandatory++
	}
	if at := e.FieldBytes("verdicts.0.at"); len(at) > 0 {
		if first, err := time.Parse(time.RFC3339Nano, string(at)); err == nil {
			b.s.Answered++
			b.waits = append(b.waits, first.Sub(e.Order))
		}
	}
}

// done returns the statistics, with the median.
func (b *statsBuilder) done() ConsultStats {
	if n := len(b.waits); n > 0 {
		slices.Sort(b.waits)
		b.s.MedianToVerdict = b.waits[n/2]
		if n%2 == 0 {
			b.s.MedianToVerdict = (b.waits[n/2-1] + b.waits[n/2]) / 2
		}
	}
	return b.s
}

// ScanConsultations calls fn with the stored JSON of each consultation
// matching f, newest first (by creation, then id), at most f.Limit of
// them, and returns statistics over every match. It reads the consultation
// index: only the consultations passed to fn are loaded, the statistics
// come from the index entries. A writable store without the index gets it
// built first; a read-only one without it (a console that has not built it
// yet) is read in full instead, with the same result. An error from fn
// stops the scan and is returned.
func ScanConsultations(st *store.Store, f ConsultFilter, fn func(doc []byte) error) (ConsultStats, error) {
	stats := newStats()
	err := scanIndexed(st, f, stats, fn)
	if errors.Is(err, store.ErrNotIndexed) {
		if ierr := EnsureConsultIndex(st); ierr == nil {
			stats = newStats()
			err = scanIndexed(st, f, stats, fn)
		} else if errors.Is(ierr, store.ErrReadOnly) {
			stats = newStats()
			err = scanAll(st, f, stats, fn)
		} else {
			err = ierr
		}
	}
	if err != nil {
		return ConsultStats{}, fmt.Errorf("consultations: %w", err)
	}
	return stats.done(), nil
}

// QueryConsultations is ScanConsultations returning the consultations decoded.
func QueryConsultations(st *store.Store, f ConsultFilter) ([]consult.Consultation, ConsultStats, error) {
	var out []consult.Consultation
	stats, err := ScanConsultations(st, f, func(doc []byte) error {
		var c consult.Consultation
		if err := json.Unmarshal(doc, &c); err != nil {
			return fmt.Errorf("a stored consultation is unreadable: %w", err)
		}
		out = append(out, c)
		return nil
	})
	return out, stats, err
}

// scanIndexed answers f from the consultation index.
func scanIndexed(st *store.Store, f ConsultFilter, stats *statsBuilder, fn func([]byte) error) error {
	q := store.MetaQuery{Prefix: lead.MetaConsult, Since: f.Since, Until: f.Until, Reverse: true}
	if f.Agent != "" {
		q.Where = append(q.Where, store.MetaCond{Fields: []string{"requester", "consulted"}, Values: []string{f.Agent}})
	}
	if f.Decision != "" {
		q.Where = append(q.Where, store.MetaCond{Fields: []string{"decision"}, Values: []string{f.Decision}})
	}
	if f.Status != "" {
		q.Where = append(q.Where, store.MetaCond{Fields: []string{"status"}, Values: []string{string(f.Status)}})
	}
	sent := 0
	return st.MetaScan(q, func(e *store.MetaEntry) error {
		stats.addEntry(e)
		if f.Limit > 0 && sent >= f.Limit {
			return nil
		}
		sent++
		doc, err := e.Load()
		if err != nil {
			return err
		}
		return fn(doc)
	})
}

// scanAll answers f by reading every consultation (a store without the index).
func scanAll(st *store.Store, f ConsultFilter, stats *statsBuilder, fn func([]byte) error) error {
	type match struct {
		c   consult.Consultation
		doc []byte
	}
	var ms []match
	err := st.MetaPrefix(lead.MetaConsult, func(_, v string) error {
		var c consult.Consultation
		if err := json.Unmarshal([]byte(v), &c); err != nil {
			return fmt.Errorf("a stored consultation is unreadable: %w", err)
		}
		if f.match(&c) {
			ms = append(ms, match{c, []byte(v)})
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortFunc(ms, func(a, b match) int {
		if c := b.c.Created.Compare(a.c.Created); c != 0 {
			return c
		}
		return strings.Compare(b.c.ID, a.c.ID)
	})
	for i, m := range ms {
		var first time.Time
		if len(m.c.Verdicts) > 0 {
			first = m.c.Verdicts[0].At
		}
		stats.add(m.c.Status, m.c.Decision, m.c.Mandatory, m.c.Created, first)
		if f.Limit == 0 || i < f.Limit {
			if err := fn(m.doc); err != nil {
				return err
			}
		}
	}
	return nil
}
