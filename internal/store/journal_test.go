package store

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
)

// The journal is off until started, then holds a snapshot and one entry
// per commit that changes more than records and local keys; replayed with
// the records into an empty store it gives the same meta and outbox.
func TestJournalReplaysIntoTheSameStore(t *testing.T) {
	dir := t.TempDir()
	a := openT(t, filepath.Join(dir, "a"), Options{})
	commitB := func(b *Batch) {
		t.Helper()
		if err := a.Commit(b); err != nil {
			t.Fatal(err)
		}
	}
	commitB(&Batch{Records: []Record{{Kind: "message", Body: "before"}}, Enqueue: []Delivery{{Agent: "qa", Text: "one"}}, Meta: map[string]string{"k/1": "a", "guard/x": "local"}})
	if a.JournalLast() != 0 || a.Journaling() {
		t.Fatal("a journal before StartJournal")
	}
	if err := a.StartJournal([]string{"guard/"}, 10); err != nil {
		t.Fatal(err)
	}
	commitB(&Batch{Records: []Record{{Kind: "message", Body: "only records"}}})
	commitB(&Batch{Meta: map[string]string{"guard/x": "local again"}})
	if a.JournalLast() != 11 {
		t.Fatalf("journal up to %d after the snapshot alone, want 11 (numbered after the floor)", a.JournalLast())
	}
	out, _ := a.Outbox()
	commitB(&Batch{Records: []Record{{Kind: "delivered"}}, Dequeue: []uint64{out[0].ID}, Enqueue: []Delivery{{Agent: "dev", Text: "two"}}, Meta: map[string]string{"k/2": "b"}, MetaDel: []string{"k/1"}})
	chs, err := a.Journal(0, 0)
	if err != nil || len(chs) != 2 || chs[0].Base != 11 || !chs[0].Last || chs[0].Meta["k/1"] != "a" || chs[0].Meta["guard/x"] != "" || chs[1].After != 3+0 {
		t.Fatalf("journal %+v, %v", chs, err)
	}

	b := openT(t, filepath.Join(dir, "b"), Options{})
	recs, _ := a.Query(Query{})
	for _, c := range chs {
		var upto []Record
		for len(recs) > 0 && recs[0].Seq <= c.After {
			upto, recs = append(upto, recs[0]), recs[1:]
		}
		if err := b.Restore(upto, &c); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Restore(recs, nil); err != nil {
		t.Fatal(err)
	}
	ra, _ := a.Query(Query{})
	rb, _ := b.Query(Query{})
	oa, _ := a.Outbox()
	ob, _ := b.Outbox()
	if !reflect.DeepEqual(fmt.Sprint(ra), fmt.Sprint(rb)) || !reflect.DeepEqual(oa, ob) || b.LastSeq() != a.LastSeq() {
		t.Fatalf("records %v / %v, outbox %v / %v", ra, rb, oa, ob)
	}
	if v, _, _ := b.Meta("k/2"); v != "b" {
		t.Fatalf("k/2 = %q", v)
	}
	if _, ok, _ := b.Meta("k/1"); ok {
		t.Fatal("k/1 deleted in a, not in b")
	}
	if b.Journaling() || b.JournalLast() != 0 {
		t.Fatal("Restore wrote a journal")
	}
	if err := b.Restore([]Record{{Seq: 1}}, nil); err == nil {
		t.Fatal("a record restored out of order")
	}

	// Trimmed, the last entry stays and numbering goes on after it.
	if err := a.TrimJournal(a.JournalLast() + 5); err != nil {
		t.Fatal(err)
	}
	if chs, _ := a.Journal(0, 0); len(chs) != 1 {
		t.Fatalf("%d entries left after trimming", len(chs))
	}
	a.Close()
	a = openT(t, filepath.Join(dir, "a"), Options{})
	if !a.Journaling() {
		t.Fatal("the journal is off after a reopen")
	}
	commitB(&Batch{Meta: map[string]string{"k/3": "c"}})
	if a.JournalLast() != 13 {
		t.Fatalf("journal entry %d after a trim and a reopen, want 13", a.JournalLast())
	}
	if err := a.StopJournal(); err != nil {
		t.Fatal(err)
	}
	commitB(&Batch{Meta: map[string]string{"k/4": "d"}})
	if chs, _ := a.Journal(0, 0); len(chs) != 0 || a.Journaling() {
		t.Fatalf("journal after StopJournal: %+v", chs)
	}

	// Clear empties a store.
	if err := b.Clear(); err != nil {
		t.Fatal(err)
	}
	if ok, err := b.Empty(nil); !ok || err != nil || b.LastSeq() != 0 {
		t.Fatalf("after Clear: empty %v, %v, last %d", ok, err, b.LastSeq())
	}
}
