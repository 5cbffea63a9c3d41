package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// doc is a test value shaped like a consultation.
type doc struct {
	ID        string    `json:"id"`
	Requester string    `json:"requester"`
	Consulted string    `json:"consulted"`
	Decision  string    `json:"decision"`
	Status    string    `json:"status"`
	Mandatory bool      `json:"mandatory"`
	Created   time.Time `json:"created"`
	Verdicts  []verdict `json:"verdicts,omitempty"`
}

type verdict struct {
	By string    `json:"by"`
	At time.Time `json:"at"`
}

// docIndex is the test index over docs under "d/".
var docIndex = MetaIndex{Prefix: "d/", Order: "created", Fields: []string{"requester", "consulted", "decision", "status"},
	Covered: []string{"mandatory", "verdicts.0.at"}}

// docsT holds the docs a test wrote, for the slow filter.
type docsT map[string]doc

// put writes docs in one batch and remembers them.
func (m docsT) put(t testing.TB, s *Store, ds ...doc) {
	t.Helper()
	b := &Batch{Meta: map[string]string{}}
	for _, d := range ds {
		js, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		b.Meta["d/"+d.ID] = string(js)
		m[d.ID] = d
	}
	commitT(t, s, b)
}

// del deletes docs in one batch.
func (m docsT) del(t testing.TB, s *Store, ids ...string) {
	t.Helper()
	b := &Batch{}
	for _, id := range ids {
		b.MetaDel = append(b.MetaDel, "d/"+id)
		delete(m, id)
	}
	commitT(t, s, b)
}

// expectDocs filters m by q the slow way and returns the keys in scan order.
func (m docsT) expect(q MetaQuery) []string {
	field := func(d doc, f string) string {
		switch f {
		case "requester":
			return d.Requester
		case "consulted":
			return d.Consulted
		case "decision":
			return d.Decision
		}
		return d.Status
	}
	var ds []doc
	for _, d := range m {
		ok := (q.Since.IsZero() || !d.Created.Before(q.Since)) && (q.Until.IsZero() || d.Created.Before(q.Until))
		for _, c := range q.Where {
			any := false
			for _, f := range c.Fields {
				any = any || slices.Contains(c.Values, field(d, f))
			}
			ok = ok && any
		}
		if ok {
			ds = append(ds, d)
		}
	}
	sort.Slice(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if q.Reverse {
			a, b = b, a
		}
		return a.Created.Before(b.Created) || a.Created.Equal(b.Created) && a.ID < b.ID
	})
	keys := []string{}
	for _, d := range ds {
		if q.Limit > 0 && len(keys) == q.Limit {
			break
		}
		keys = append(keys, "d/"+d.ID)
	}
	return keys
}

// scanKeys runs q and returns the keys found, checking each entry's fields.
func scanKeys(t testing.TB, s *Store, m docsT, q MetaQuery) []string {
	t.Helper()
	keys := []string{}
	err := s.MetaScan(q, func(e *MetaEntry) error {
		keys = append(keys, e.Key)
		d, ok := m[strings.TrimPrefix(e.Key, "d/")]
		if !ok {
			return fmt.Errorf("entry %s has no doc", e.Key)
		}
		if e.Field("status") != d.Status || e.Field("mandatory") != fmt.Sprint(d.Mandatory) || !e.Order.Equal(d.Created) {
			return fmt.Errorf("entry %s: status %q mandatory %q order %v; doc %+v", e.Key, e.Field("status"), e.Field("mandatory"), e.Order, d)
		}
		if len(d.Verdicts) > 0 && e.Field("verdicts.0.at") != d.Verdicts[0].At.Format(time.RFC3339Nano) {
			return fmt.Errorf("entry %s: first verdict %q", e.Key, e.Field("verdicts.0.at"))
		}
		raw, err := e.Load()
		if err != nil {
			return err
		}
		var got doc
		if err := json.Unmarshal(raw, &got); err != nil || got.Status != d.Status {
			return fmt.Errorf("entry %s loads %s (%v)", e.Key, raw, err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("MetaScan(%+v): %v", q, err)
	}
	return keys
}

// indexT registers the doc index or fails the test.
func indexT(t testing.TB, s *Store) {
	t.Helper()
	if err := s.IndexMeta(docIndex); err != nil {
		t.Fatalf("IndexMeta: %v", err)
	}
}

// countKeys counts the keys under prefix.
func countKeys(t testing.TB, s *Store, prefix string) int {
	t.Helper()
	n := 0
	if err := s.db.View(func(txn *badger.Txn) error {
		it := keyIterator(txn, []byte(prefix))
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestMetaScanExamples(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	indexT(t, s)
	m := docsT{}
	m.put(t, s,
		doc{ID: "c-1", Requester: "arch", Consulted: "sec", Decision: "infra", Status: "pending", Mandatory: true, Created: t0},
		doc{ID: "c-2", Requester: "dev", Consulted: "rev", Decision: "code", Status: "approved", Created: t0.Add(time.Hour),
			Verdicts: []verdict{{By: "rev", At: t0.Add(90 * time.Minute)}}},
		doc{ID: "c-3", Requester: "sec", Consulted: "arch", Decision: "infra", Status: "approved", Created: t0.Add(2 * time.Hour)},
		doc{ID: "c-4", Requester: "arch", Consulted: "arch", Decision: "infra", Status: "rejected", Created: t0.Add(2 * time.Hour)},
	)
	agent := func(a string) MetaCond {
		return MetaCond{Fields: []string{"requester", "consulted"}, Values: []string{a}}
	}
	is := func(f, v string) MetaCond { return MetaCond{Fields: []string{f}, Values: []string{v}} }
	tests := []struct {
		name string
		q    MetaQuery
		want []string
	}{
		{"all, oldest first", MetaQuery{}, []string{"d/c-1", "d/c-2", "d/c-3", "d/c-4"}},
		{"all, newest first, ties by key", MetaQuery{Reverse: true}, []string{"d/c-4", "d/c-3", "d/c-2", "d/c-1"}},
		{"limit", MetaQuery{Reverse: true, Limit: 2}, []string{"d/c-4", "d/c-3"}},
		{"agent either side, once each", MetaQuery{Where: []MetaCond{agent("arch")}, Reverse: true}, []string{"d/c-4", "d/c-3", "d/c-1"}},
		{"decision and status", MetaQuery{Where: []MetaCond{is("decision", "infra"), is("status", "approved")}}, []string{"d/c-3"}},
		{"agent, decision, since", MetaQuery{Where: []MetaCond{agent("arch"), is("decision", "infra")}, Since: t0.Add(time.Minute)}, []string{"d/c-3", "d/c-4"}},
		{"until is exclusive", MetaQuery{Until: t0.Add(2 * time.Hour), Reverse: true}, []string{"d/c-2", "d/c-1"}},
		{"two statuses", MetaQuery{Where: []MetaCond{{Fields: []string{"status"}, Values: []string{"pending", "rejected"}}}}, []string{"d/c-1", "d/c-4"}},
		{"none", MetaQuery{Where: []MetaCond{agent("nobody")}}, []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.q.Prefix = "d/"
			if got := scanKeys(t, s, m, tt.q); !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestMetaIndexRemovesStaleEntries(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	indexT(t, s)
	m := docsT{}
	d := doc{ID: "c-1", Requester: "arch", Consulted: "sec", Decision: "infra", Status: "pending", Created: t0}
	m.put(t, s, d)
	perDoc := 1 + len(docIndex.Fields) // the all-list entry and one per field
	if n := countKeys(t, s, "mx/"); n != perDoc {
		t.Fatalf("%d index keys after one doc, want %d", n, perDoc)
	}
	d.Status, d.Consulted, d.Created = "approved", "sec2", t0.Add(time.Minute) // a verdict, a delegation, a new order
	d.Verdicts = []verdict{{By: "sec2", At: t0.Add(2 * time.Minute)}}
	m.put(t, s, d)
	if n := countKeys(t, s, "mx/"); n != perDoc {
		t.Fatalf("%d index keys after an update, want %d", n, perDoc)
	}
	for _, c := range []MetaCond{{Fields: []string{"status"}, Values: []string{"pending"}}, {Fields: []string{"consulted"}, Values: []string{"sec"}}} {
		if got := scanKeys(t, s, m, MetaQuery{Prefix: "d/", Where: []MetaCond{c}}); len(got) != 0 {
			t.Errorf("stale entry for %v: %v", c, got)
		}
	}
	if got := scanKeys(t, s, m, MetaQuery{Prefix: "d/", Where: []MetaCond{{Fields: []string{"status"}, Values: []string{"approved"}}}}); !slices.Equal(got, []string{"d/c-1"}) {
		t.Errorf("approved: %v", got)
	}
	m.del(t, s, "c-1")
	if n := countKeys(t, s, "mx/"); n != 0 {
		t.Fatalf("%d index keys after the delete", n)
	}
	// A key written and deleted in one batch leaves nothing.
	js, _ := json.Marshal(d)
	commitT(t, s, &Batch{Meta: map[string]string{"d/c-1": string(js), "other": "x"}, MetaDel: []string{"d/c-1"}})
	if n := countKeys(t, s, "mx/"); n != 0 {
		t.Fatalf("%d index keys after a write and delete in one batch", n)
	}
	// Values that are not JSON objects are indexed with empty fields.
	commitT(t, s, &Batch{Meta: map[string]string{"d/odd": "", "d/odder": "[1]"}})
	if got := scanKeys0(t, s, MetaQuery{Prefix: "d/", Where: []MetaCond{{Fields: []string{"status"}, Values: []string{""}}}}); !slices.Equal(got, []string{"d/odd", "d/odder"}) {
		t.Fatalf("odd values: %v", got)
	}
}

// scanKeys0 runs q and returns the keys only.
func scanKeys0(t testing.TB, s *Store, q MetaQuery) []string {
	t.Helper()
	var keys []string
	if err := s.MetaScan(q, func(e *MetaEntry) error { keys = append(keys, e.Key); return nil }); err != nil {
		t.Fatal(err)
	}
	return keys
}

func TestMetaIndexBuildsFromExistingValuesAndPersists(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, Options{})
	m := docsT{}
	for i := range 25 {
		m.put(t, s, doc{ID: fmt.Sprintf("c-%02d", i), Requester: "arch", Status: []string{"pending", "approved"}[i%2], Created: t0.Add(time.Duration(i) * time.Minute)})
	}
	q := MetaQuery{Prefix: "d/", Where: []MetaCond{{Fields: []string{"status"}, Values: []string{"approved"}}}, Reverse: true, Limit: 3}
	if err := s.MetaScan(q, func(*MetaEntry) error { return nil }); !errors.Is(err, ErrNotIndexed) {
		t.Fatalf("scan before IndexMeta: %v", err)
	}
	s.chunk = 4 // several build steps
	indexT(t, s)
	want := []string{"d/c-23", "d/c-21", "d/c-19"}
	if got := scanKeys(t, s, m, q); !slices.Equal(got, want) {
		t.Fatalf("after build: %v", got)
	}
	indexT(t, s) // the same spec again: nothing to do
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := openT(t, dir, Options{ReadOnly: true})
	if spec, ok := r.MetaIndexOf("d/"); !ok || spec.Order != "created" {
		t.Fatalf("registration after reopen: %+v %v", spec, ok)
	}
	if got := scanKeys(t, r, m, q); !slices.Equal(got, want) {
		t.Fatalf("read-only after reopen: %v", got)
	}
	if err := r.IndexMeta(docIndex); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("IndexMeta read-only: %v", err)
	}
}

func TestMetaIndexSpecChangeRebuilds(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	indexT(t, s)
	m := docsT{}
	m.put(t, s, doc{ID: "c-1", Requester: "arch", Decision: "infra", Status: "pending", Created: t0})
	narrow := MetaIndex{Prefix: "d/", Order: "created", Fields: []string{"decision"}}
	if err := s.IndexMeta(narrow); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, s, "mx/"); n != 2 {
		t.Fatalf("%d index keys after narrowing the index, want 2", n)
	}
	err := s.MetaScan(MetaQuery{Prefix: "d/", Where: []MetaCond{{Fields: []string{"status"}, Values: []string{"pending"}}}}, func(*MetaEntry) error { return nil })
	if !errors.Is(err, ErrBadIndex) {
		t.Fatalf("query on a field no longer indexed: %v", err)
	}
}

func TestIndexMetaRejectsBadSpecs(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	indexT(t, s)
	for _, spec := range []MetaIndex{
		{Order: "created", Fields: []string{"a"}},
		{Prefix: "x/", Fields: []string{"a"}},
		{Prefix: "x/", Order: "created"},
		{Prefix: "x/", Order: "created", Fields: []string{"a"}, Covered: []string{"a"}},
		{Prefix: "d/x", Order: "created", Fields: []string{"a"}},
		{Prefix: "d", Order: "created", Fields: []string{"a"}},
	} {
		if err := s.IndexMeta(spec); !errors.Is(err, ErrBadIndex) {
			t.Errorf("IndexMeta(%+v) = %v", spec, err)
		}
	}
}

// TestMetaIndexMatchesSlowFilter writes, rewrites and deletes random docs
// and compares every kind of query with the slow filter (fixed seed).
func TestMetaIndexMatchesSlowFilter(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	rng := rand.New(rand.NewPCG(2, 7))
	agents := []string{"arch", "sec", "dev", "rev", "a\x00b", strings.Repeat("n", maxIndexName) + "1", strings.Repeat("n", maxIndexName) + "2"}
	decisions := []string{"infra", "code", "design", ""}
	statuses := []string{"pending", "approved", "concerns-raised", "rejected", "resolved", "superseded"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	m := docsT{}
	random := func(id string) doc {
		d := doc{ID: id, Requester: pick(agents), Consulted: pick(agents), Decision: pick(decisions), Status: pick(statuses),
			Mandatory: rng.IntN(2) == 0, Created: t0.Add(time.Duration(rng.IntN(200)) * time.Minute)}
		if d.Status != "pending" {
			d.Verdicts = []verdict{{By: d.Consulted, At: d.Created.Add(time.Duration(rng.IntN(90)) * time.Minute)}}
		}
		return d
	}
	step := func(n int) {
		for range n {
			var ds []doc
			var dels []string
			for range 1 + rng.IntN(5) {
				id := fmt.Sprintf("c-%d", rng.IntN(400))
				if _, ok := m[id]; ok && rng.IntN(5) == 0 {
					if !slices.Contains(dels, id) && !slices.ContainsFunc(ds, func(d doc) bool { return d.ID == id }) {
						dels = append(dels, id)
					}
					continue
				}
				if !slices.Contains(dels, id) {
					ds = slices.DeleteFunc(ds, func(d doc) bool { return d.ID == id })
					ds = append(ds, random(id))
				}
			}
			m.put(t, s, ds...)
			m.del(t, s, dels...)
		}
	}
	step(150) // written before the index exists: the build indexes them
	indexT(t, s)
	step(150)
	for i := range 600 {
		var q MetaQuery
		q.Prefix = "d/"
		if rng.IntN(2) == 0 {
			q.Where = append(q.Where, MetaCond{Fields: []string{"requester", "consulted"}, Values: []string{pick(agents)}})
		}
		if rng.IntN(2) == 0 {
			q.Where = append(q.Where, MetaCond{Fields: []string{"decision"}, Values: []string{pick(decisions)}})
		}
		if rng.IntN(2) == 0 {
			q.Where = append(q.Where, MetaCond{Fields: []string{"status"}, Values: []string{pick(statuses), pick(statuses)}})
		}
		if rng.IntN(2) == 0 {
			q.Since = t0.Add(time.Duration(rng.IntN(200)) * time.Minute)
		}
		if rng.IntN(2) == 0 {
			q.Until = t0.Add(time.Duration(rng.IntN(200)) * time.Minute)
		}
		q.Reverse, q.Limit = rng.IntN(2) == 0, []int{0, 0, 1, 7}[rng.IntN(4)]
		if got, want := scanKeys(t, s, m, q), m.expect(q); !slices.Equal(got, want) {
			t.Fatalf("query %d %+v:\n got %v\nwant %v", i, q, got, want)
		}
		if i%50 == 49 {
			step(10)
		}
	}
}

// TestMetaIndexBuildWhileCommitting checks that values written while the
// index is being built end up indexed exactly once, with nothing stale.
func TestMetaIndexBuildWhileCommitting(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	s.chunk = 3
	m := docsT{}
	for i := range 60 {
		m.put(t, s, doc{ID: fmt.Sprintf("c-%02d", i), Status: "pending", Created: t0.Add(time.Duration(i) * time.Second)})
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range 60 {
			d := doc{ID: fmt.Sprintf("c-%02d", (i*7)%60), Status: "approved", Created: t0.Add(time.Duration(i) * time.Second)}
			mu.Lock()
			m.put(t, s, d)
			mu.Unlock()
		}
	}()
	indexT(t, s)
	wg.Wait()
	q := MetaQuery{Prefix: "d/", Reverse: true}
	if got, want := scanKeys(t, s, m, q), m.expect(q); !slices.Equal(got, want) {
		t.Fatalf("got %v\nwant %v", got, want)
	}
	if n := countKeys(t, s, "mx/"); n != len(m)*(1+len(docIndex.Fields)) {
		t.Fatalf("%d index keys for %d docs", n, len(m))
	}
}

// FuzzTuple checks that an entry's values survive encoding, whatever bytes
// they hold, and that each field reads back alone.
func FuzzTuple(f *testing.F) {
	f.Add("approved", "", "a\x00b\x01c")
	f.Add("\x01\x02", "\x00", "\x01")
	f.Fuzz(func(t *testing.T, a, b, c string) {
		vals := []string{a, b, c}
		if got := decodeTuple(encodeTuple(vals), len(vals)); !slices.Equal(got, vals) {
			t.Fatalf("decodeTuple(encodeTuple(%q)) = %q", vals, got)
		}
		e := &MetaEntry{ix: &metaIndex{names: []string{"a", "b", "c"}}}
		e.setTuple(encodeTuple(vals))
		for i, name := range []string{"a", "b", "c"} {
			if got := e.Field(name); got != vals[i] {
				t.Fatalf("Field(%s) = %q, want %q", name, got, vals[i])
			}
		}
	})
}
