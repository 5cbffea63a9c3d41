package store

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"

	"github.com/teamlead/teamlead/bus/wire"
)

// longA and longB share their first maxIndexName bytes, so their index keys collide.
var (
	longA = strings.Repeat("n", maxIndexName) + "-a"
	longB = strings.Repeat("n", maxIndexName) + "-b"
)

// fixture is a deterministic data set covering every filter.
func fixture() []Record {
	agents := []string{"dev", "qa", "lead", "a\x00b", "a", "\x01", longA, longB}
	tasks := []string{"", "T-1", "T-2", "T-1\x00"}
	types := []string{"", "task", "question", "answer"}
	kinds := []wire.Kind{"message", "delivery", "refusal"}
	var recs []Record
	for i := range 120 {
		r := Record{
			Time:  t0.Add(time.Duration(i%40) * time.Minute), // times repeat: not seq order
			Kind:  kinds[i%3],
			Type:  types[i%4],
			Task:  tasks[(i/3)%4],
			Agent: agents[i%8],
			Body:  fmt.Sprint("body ", i),
		}
		if i%5 == 0 {
			r.From = agents[(i+1)%8]
		}
		if i%7 == 0 {
			r.To = []string{agents[(i+2)%8], agents[(i+3)%8]}
		}
		recs = append(recs, r)
	}
	recs = append(recs, Record{Time: time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC), Kind: "human", Agent: "old"})
	return recs
}

// loaded opens a store holding the fixture, committed in uneven batches.
func loaded(t *testing.T) (*Store, []Record) {
	s := openT(t, t.TempDir(), Options{})
	recs := fixture()
	for i := 0; i < len(recs); {
		n := min(1+i%7, len(recs)-i)
		b := &Batch{Records: recs[i : i+n]}
		commitT(t, s, b)
		i += n
	}
	return s, recs
}

// expect filters recs (in Seq order) by q the slow way.
func expect(recs []Record, q Query) []uint64 {
	var seqs []uint64
	for i := range recs {
		if q.Reverse {
			i = len(recs) - 1 - i
		}
		if q.Match(&recs[i]) && (q.Limit == 0 || len(seqs) < q.Limit) {
			seqs = append(seqs, recs[i].Seq)
		}
	}
	return seqs
}

// seqsOf lists the seqs of recs.
func seqsOf(recs []Record) []uint64 {
	out := make([]uint64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

func TestQueryExamples(t *testing.T) {
	s, _ := loaded(t)
	tests := []struct {
		name string
		q    Query
		want []uint64
	}{
		{"kind human", Query{Kind: "human"}, []uint64{121}},
		{"agent with NUL via To, then Agent", Query{Agent: "a\x00b", Kind: "message", Limit: 2}, []uint64{1, 4}},
		{"agent a via To, distinct from a\\x00b", Query{Agent: "a", Type: "task", Kind: "message"}, []uint64{106}},
		{"before 1970", Query{Until: t0}, []uint64{121}},
		{"after seq and limit", Query{Kind: "refusal", AfterSeq: 100, Limit: 3}, []uint64{102, 105, 108}},
		{"to matches agent", Query{Agent: "lead", Kind: "refusal", Task: "T-2"}, []uint64{57}},
		{"nothing", Query{Agent: "nobody"}, []uint64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := seqsOf(queryT(t, s, tt.q))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestQueryEveryFilterCombination(t *testing.T) {
	for _, budget := range []int{timeIndexBudget, 5 * joinBudgetDivisor} { // time index, then mostly joins and scans
		t.Run(fmt.Sprint("budget=", budget), func(t *testing.T) {
			s, recs := loaded(t)
			s.timeBudget = budget
			checkEveryCombination(t, s, recs)
		})
	}
}

// checkEveryCombination compares the store with the slow filter for many queries.
func checkEveryCombination(t *testing.T, s *Store, recs []Record) {
	var queries []Query
	for _, agent := range []string{"", "dev", "a\x00b", "\x01", longA, "nobody"} {
		for _, task := range []string{"", "T-1", "T-1\x00"} {
			for _, typ := range []string{"", "task"} {
				for _, kind := range []wire.Kind{"", "message", "refusal"} {
					queries = append(queries, Query{Agent: agent, Task: task, Type: typ, Kind: kind})
				}
			}
		}
	}
	bounds := []struct{ since, until time.Time }{
		{}, {t0.Add(10 * time.Minute), time.Time{}}, {time.Time{}, t0.Add(5 * time.Minute)},
		{t0.Add(3 * time.Minute), t0.Add(4 * time.Minute)}, {t0.Add(time.Hour), t0},
	}
	for _, base := range queries {
		for _, b := range bounds {
			for _, after := range []uint64{0, 37} {
				for _, limit := range []int{0, 1, 5} {
					for _, reverse := range []bool{false, true} {
						q := base
						q.Since, q.Until, q.AfterSeq, q.Limit, q.Reverse = b.since, b.until, after, limit, reverse
						got, want := seqsOf(queryT(t, s, q)), expect(recs, q)
						if !slices.Equal(got, want) {
							t.Fatalf("Query(%+v):\n got %v\nwant %v", q, got, want)
						}
					}
				}
			}
		}
	}
}

func TestScanStopsOnCallbackError(t *testing.T) {
	s, _ := loaded(t)
	stop := errors.New("enough")
	n := 0
	err := s.Scan(Query{}, func(Record) error {
		if n++; n == 3 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 3 {
		t.Fatalf("Scan = %v after %d records", err, n)
	}
}

// TestIndexesBoundTheWork checks the access paths read only candidates:
// the merge join visits just the seqs in every posting list, and a narrow
// time range reads only its own index keys.
func TestIndexesBoundTheWork(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	b := &Batch{}
	for i := range 2000 {
		r := Record{Time: t0.Add(time.Duration(i) * time.Second), Kind: "message", Agent: "busy"}
		if i%500 == 0 {
			r.Kind, r.Task = "refusal", "rare"
		}
		b.Records = append(b.Records, r)
	}
	commitT(t, s, b)
	err := s.db.View(func(txn *badger.Txn) error {
		var visited []uint64
		ps := Query{Agent: "busy", Task: "rare", Kind: "refusal"}.postings()
		err := joinPostings(txn, ps, 1, s.LastSeq(), false, nil, func(seq uint64, _ []byte) error {
			visited = append(visited, seq)
			return nil
		})
		if want := []uint64{1, 501, 1001, 1501}; !slices.Equal(visited, want) {
			t.Errorf("join visited %v, want %v", visited, want)
		}
		q := Query{Since: t0.Add(100 * time.Second), Until: t0.Add(110 * time.Second)}
		seqs, ok := timeCandidates(txn, q, 1, s.LastSeq(), timeIndexBudget)
		if !ok || len(seqs) != 10 || seqs[0] != 101 {
			t.Errorf("time candidates = %v, %v", seqs, ok)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestWideTimeRangeFallsBackToScan(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	const budget, n = 100, 150
	s.timeBudget = budget
	b := &Batch{}
	for i := range n {
		b.Records = append(b.Records, Record{Time: t0.Add(time.Duration(i) * time.Millisecond), Kind: "k"})
	}
	commitT(t, s, b)
	if err := s.db.View(func(txn *badger.Txn) error {
		if _, ok := timeCandidates(txn, Query{Since: t0}, 1, s.LastSeq(), budget); ok {
			t.Error("time index used for a range wider than its budget")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []Query{{Since: t0.Add(10 * time.Millisecond)}, {Since: t0.Add(10 * time.Millisecond), Kind: "k"}} {
		got := queryT(t, s, q)
		if len(got) != n-10 || got[0].Seq != 11 {
			t.Fatalf("wide range query %+v: %d records", q, len(got))
		}
	}
}
