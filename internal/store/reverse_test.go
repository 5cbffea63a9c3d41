package store

import (
	"slices"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

func TestReverseExamples(t *testing.T) {
	s, _ := loaded(t)
	tests := []struct {
		name string
		q    Query
		want []uint64
	}{
		{"log, newest first", Query{Limit: 3, Reverse: true}, []uint64{121, 120, 119}},
		{"log, down to AfterSeq", Query{AfterSeq: 117, Reverse: true}, []uint64{121, 120, 119, 118}},
		{"one index", Query{Kind: "refusal", Limit: 3, Reverse: true}, []uint64{120, 117, 114}},
		{"join, newest first", Query{Agent: "a\x00b", Kind: "message", Limit: 2, Reverse: true}, []uint64{106, 100}},
		{"join down to AfterSeq", Query{Kind: "refusal", AfterSeq: 110, Reverse: true}, []uint64{120, 117, 114, 111}},
		{"time range, newest first", Query{Since: t0.Add(39 * time.Minute), Reverse: true}, []uint64{120, 80, 40}},
		{"nothing", Query{Agent: "nobody", Reverse: true}, []uint64{}},
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

// TestPostingsWithoutTime checks that postings written before they carried
// their record's time (empty values) still answer time-bounded queries.
func TestPostingsWithoutTime(t *testing.T) {
	s, recs := loaded(t)
	s.timeBudget = 1 // force the join path
	err := s.db.Update(func(txn *badger.Txn) error {
		it := postingIterator(txn, []byte("ix/"), false)
		var keys [][]byte
		for it.Rewind(); it.Valid(); it.Next() {
			if !slices.Equal(it.Item().Key()[:len(prefixTime)], prefixTime) {
				keys = append(keys, it.Item().KeyCopy(nil))
			}
		}
		it.Close()
		for i, k := range keys {
			if i%2 == 0 { // half old, half new
				if err := txn.Set(k, nil); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, reverse := range []bool{false, true} {
		q := Query{Kind: "message", Since: t0.Add(10 * time.Minute), Until: t0.Add(20 * time.Minute), Reverse: reverse}
		if got, want := seqsOf(queryT(t, s, q)), expect(recs, q); !slices.Equal(got, want) {
			t.Fatalf("Query(%+v):\n got %v\nwant %v", q, got, want)
		}
	}
}

// TestReverseLimitReadsOnlyTheNewest checks a newest-first query with a
// limit stops early: after the limit, the join reads no further posting.
func TestReverseLimitReadsOnlyTheNewest(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	b := &Batch{}
	for i := range 3000 {
		b.Records = append(b.Records, Record{Time: t0.Add(time.Duration(i) * time.Second), Kind: "message", Agent: "busy"})
	}
	commitT(t, s, b)
	var visited []uint64
	err := s.db.View(func(txn *badger.Txn) error {
		return joinPostings(txn, Query{Agent: "busy"}.postings(), 1, s.LastSeq(), true, nil, func(seq uint64, at []byte) error {
			visited = append(visited, seq)
			if len(at) != 8 {
				t.Errorf("posting of %d carries %d bytes, want its time", seq, len(at))
			}
			if len(visited) == 5 {
				return errStop
			}
			return nil
		})
	})
	if err != errStop || !slices.Equal(visited, []uint64{3000, 2999, 2998, 2997, 2996}) {
		t.Fatalf("visited %v (%v)", visited, err)
	}
	got := queryT(t, s, Query{Agent: "busy", Since: t0.Add(100 * time.Second), Until: t0.Add(200 * time.Second), Limit: 3, Reverse: true})
	if !slices.Equal(seqsOf(got), []uint64{200, 199, 198}) {
		t.Fatalf("got %v", seqsOf(got))
	}
}

// TestJoinKeepsOnlyPostingsInTheRange checks that a join passes over the
// postings whose time keep rejects, in both directions, whichever list is
// sparser.
func TestJoinKeepsOnlyPostingsInTheRange(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	b := &Batch{}
	for i := range 1000 {
		r := Record{Time: t0.Add(time.Duration(i) * time.Second), Kind: "message", Agent: "busy"}
		if i%10 == 0 {
			r.Task = "sparse"
		}
		b.Records = append(b.Records, r)
	}
	commitT(t, s, b)
	q := Query{Since: t0.Add(500 * time.Second), Until: t0.Add(540 * time.Second)}
	for _, reverse := range []bool{false, true} {
		for _, ps := range [][][]byte{
			{postingPrefix(prefixAgent, "busy"), postingPrefix(prefixTask, "sparse")},
			{postingPrefix(prefixTask, "sparse"), postingPrefix(prefixKind, "message")},
		} {
			var visited []uint64
			err := s.db.View(func(txn *badger.Txn) error {
				return joinPostings(txn, ps, 1, s.LastSeq(), reverse, q.inTime, func(seq uint64, at []byte) error {
					visited = append(visited, seq)
					if !q.inTime(at) {
						t.Errorf("visited %d out of the range", seq)
					}
					return nil
				})
			})
			want := []uint64{501, 511, 521, 531}
			if reverse {
				slices.Reverse(want)
			}
			if err != nil || !slices.Equal(visited, want) {
				t.Errorf("reverse %v: visited %v (%v), want %v", reverse, visited, err, want)
			}
		}
	}
}
