package store

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// t0 is the fixed base time of the test data.
var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// openT opens a store in dir and closes it when the test ends.
func openT(t testing.TB, dir string, opts Options) *Store {
	t.Helper()
	s, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open(%s): %v", dir, err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// commitT commits b or fails the test.
func commitT(t testing.TB, s *Store, b *Batch) {
	t.Helper()
	if err := s.Commit(b); err != nil {
		t.Fatalf("Commit: %v", err)
	}
}

// queryT runs q or fails the test.
func queryT(t testing.TB, s *Store, q Query) []Record {
	t.Helper()
	recs, err := s.Query(q)
	if err != nil {
		t.Fatalf("Query(%+v): %v", q, err)
	}
	return recs
}

// outboxT reads the outbox or fails the test.
func outboxT(t testing.TB, s *Store) []Delivery {
	t.Helper()
	out, err := s.Outbox()
	if err != nil {
		t.Fatalf("Outbox: %v", err)
	}
	return out
}

func TestCommitQueryRoundTrip(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	in := []Record{
		{Time: t0, Kind: "message", Subject: "route.dev", Agent: "dev", From: "lead", To: []string{"dev", "qa"},
			Type: "task", Task: "T-1", MsgID: "m1", Body: "do it", Reason: "r", Fields: map[string]string{"pid": "42"}},
		{Time: t0.Add(time.Second), Kind: "refusal", Agent: "qa", Reason: "no envelope"},
	}
	b := &Batch{Records: in}
	commitT(t, s, b)
	if b.Records[0].Seq != 1 || b.Records[1].Seq != 2 {
		t.Fatalf("seqs = %d, %d; want 1, 2", b.Records[0].Seq, b.Records[1].Seq)
	}
	got := queryT(t, s, Query{})
	if !reflect.DeepEqual(got, b.Records) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, b.Records)
	}
	if s.LastSeq() != 2 {
		t.Fatalf("LastSeq = %d, want 2", s.LastSeq())
	}
}

func TestCommitFillsZeroTime(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	before := time.Now()
	b := &Batch{Records: []Record{{Kind: "agent"}}, Enqueue: []Delivery{{Agent: "a", Kind: "relay", Text: "x"}}}
	commitT(t, s, b)
	if b.Records[0].Time.Before(before) || b.Enqueue[0].Time.Before(before) {
		t.Fatalf("zero times not filled: %v %v", b.Records[0].Time, b.Enqueue[0].Time)
	}
}

func TestEmptyBatchIsNoOp(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	if err := s.Commit(&Batch{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Commit(nil); err != nil {
		t.Fatal(err)
	}
	if s.LastSeq() != 0 {
		t.Fatalf("LastSeq = %d", s.LastSeq())
	}
}

func TestSeqIncreasesAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	var last uint64
	for round := range 3 {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if s.LastSeq() != last {
			t.Fatalf("round %d: LastSeq after reopen = %d, want %d", round, s.LastSeq(), last)
		}
		for i := range 5 {
			b := &Batch{Records: []Record{{Time: t0, Kind: "k", Body: fmt.Sprint(round, i)}}}
			commitT(t, s, b)
			if b.Records[0].Seq <= last {
				t.Fatalf("seq %d not above %d", b.Records[0].Seq, last)
			}
			last = b.Records[0].Seq
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s := openT(t, dir, Options{})
	if n := len(queryT(t, s, Query{})); n != 15 {
		t.Fatalf("records = %d, want 15", n)
	}
}

func TestOutboxAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b := &Batch{Enqueue: []Delivery{
		{Agent: "dev", Kind: "relay", Text: "one", Time: t0},
		{Agent: "qa", Kind: "ack", Text: "two", Time: t0},
		{Agent: "dev", Kind: "notice", Text: "three", Time: t0},
	}}
	commitT(t, s, b)
	ids := []uint64{b.Enqueue[0].ID, b.Enqueue[1].ID, b.Enqueue[2].ID}
	if ids[0] == 0 || ids[0] >= ids[1] || ids[1] >= ids[2] {
		t.Fatalf("ids not increasing: %v", ids)
	}
	commitT(t, s, &Batch{Dequeue: []uint64{ids[1]}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = openT(t, dir, Options{})
	want := []Delivery{b.Enqueue[0], b.Enqueue[2]}
	if got := outboxT(t, s); !reflect.DeepEqual(got, want) {
		t.Fatalf("outbox after reopen:\n got %+v\nwant %+v", got, want)
	}
	commitT(t, s, &Batch{Dequeue: []uint64{ids[0], ids[2]}})
	if got := outboxT(t, s); len(got) != 0 {
		t.Fatalf("outbox not empty: %+v", got)
	}
	next := &Batch{Enqueue: []Delivery{{Agent: "dev", Kind: "relay", Text: "four"}}}
	commitT(t, s, next)
	if next.Enqueue[0].ID <= ids[2] {
		t.Fatalf("delivery ID reused: %d <= %d", next.Enqueue[0].ID, ids[2])
	}
}

func TestDeliveryIDNotReusedAfterEmptyOutboxReopen(t *testing.T) {
	dir := t.TempDir()
	var last uint64
	for range 3 {
		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b := &Batch{Enqueue: []Delivery{{Agent: "a", Kind: "relay", Text: "x"}}}
		commitT(t, s, b)
		if b.Enqueue[0].ID <= last {
			t.Fatalf("ID %d not above %d", b.Enqueue[0].ID, last)
		}
		last = b.Enqueue[0].ID
		commitT(t, s, &Batch{Dequeue: []uint64{last}})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if last != 3 {
		t.Fatalf("IDs should stay dense across clean restarts: last = %d", last)
	}
}

func TestCallerChosenDeliveryID(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	b := &Batch{Enqueue: []Delivery{{ID: 5000, Agent: "a", Kind: "relay", Text: "x"}, {Agent: "a", Kind: "relay", Text: "y"}}}
	commitT(t, s, b)
	if b.Enqueue[0].ID != 5000 || b.Enqueue[1].ID != 5001 {
		t.Fatalf("ids = %d, %d; want 5000, 5001", b.Enqueue[0].ID, b.Enqueue[1].ID)
	}
	if got := outboxT(t, s); len(got) != 2 || got[1].Text != "y" {
		t.Fatalf("outbox = %+v", got)
	}
}

func TestEnqueueAndDequeueInOneBatch(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	commitT(t, s, &Batch{Enqueue: []Delivery{{ID: 7, Agent: "a", Kind: "relay", Text: "x"}}, Dequeue: []uint64{7}})
	if got := outboxT(t, s); len(got) != 0 {
		t.Fatalf("outbox = %+v", got)
	}
}

func TestMeta(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := s.Meta("next-msg"); ok || err != nil {
		t.Fatalf("missing key: ok=%v err=%v", ok, err)
	}
	commitT(t, s, &Batch{Meta: map[string]string{"next-msg": "1", "consumer/ui": "10"}})
	commitT(t, s, &Batch{Meta: map[string]string{"next-msg": "2", "empty": ""}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir, Options{})
	for k, want := range map[string]string{"next-msg": "2", "consumer/ui": "10", "empty": ""} {
		v, ok, err := s.Meta(k)
		if err != nil || !ok || v != want {
			t.Fatalf("Meta(%q) = %q, %v, %v; want %q", k, v, ok, err, want)
		}
	}
}

func TestConcurrentCommits(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	const workers, per = 8, 500
	seqs := make([][]uint64, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := range per {
				b := &Batch{
					Records: []Record{{Time: t0, Kind: "message", Agent: fmt.Sprintf("w%d", w), Body: fmt.Sprintf("%d/%d", w, i)}},
					Enqueue: []Delivery{{Agent: fmt.Sprintf("w%d", w), Kind: "relay", Text: "x"}},
				}
				if err := s.Commit(b); err != nil {
					errs <- err
					return
				}
				seqs[w] = append(seqs[w], b.Records[0].Seq)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for w := range workers {
		for i, seq := range seqs[w] {
			if seen[seq] {
				t.Fatalf("duplicate seq %d", seq)
			}
			seen[seq] = true
			if i > 0 && seq <= seqs[w][i-1] {
				t.Fatalf("worker %d: seq %d after %d", w, seq, seqs[w][i-1])
			}
		}
	}
	all := queryT(t, s, Query{})
	if len(all) != workers*per || s.LastSeq() != workers*per {
		t.Fatalf("records = %d, LastSeq = %d; want %d", len(all), s.LastSeq(), workers*per)
	}
	for w := range workers {
		got := queryT(t, s, Query{Agent: fmt.Sprintf("w%d", w)})
		if len(got) != per {
			t.Fatalf("worker %d: %d records, want %d", w, len(got), per)
		}
		for i, r := range got {
			if r.Seq != seqs[w][i] || r.Body != fmt.Sprintf("%d/%d", w, i) {
				t.Fatalf("worker %d record %d = seq %d %q", w, i, r.Seq, r.Body)
			}
		}
	}
	if n := len(outboxT(t, s)); n != workers*per {
		t.Fatalf("outbox = %d, want %d", n, workers*per)
	}
}

func TestVisibilityWaitsForEarlierCommits(t *testing.T) {
	a := &allocator{nextSeq: 1, nextID: 1, lease: 1 << 20}
	_, t1, _ := a.allocate(nil, 2, nil, false)
	_, t2, _ := a.allocate(nil, 3, []Delivery{{}}, false)
	a.finish(t2)
	if seq, id := a.visible(); seq != 0 || id != 0 {
		t.Fatalf("visible before earlier commit finished: %d, %d", seq, id)
	}
	a.finish(t1)
	if seq, id := a.visible(); seq != 5 || id != 1 {
		t.Fatalf("visible = %d, %d; want 5, 1", seq, id)
	}
}

func TestLargeBatchIsSplitInOrder(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	body := strings.Repeat("x", 2000)
	b := &Batch{}
	for i := range 3000 { // ~6 MB: several Badger transactions
		b.Records = append(b.Records, Record{Time: t0, Kind: "message", Task: "big", Body: fmt.Sprint(i, body)})
	}
	commitT(t, s, b)
	got := queryT(t, s, Query{Task: "big"})
	if len(got) != 3000 {
		t.Fatalf("records = %d", len(got))
	}
	for i, r := range got {
		if r.Seq != uint64(i+1) || !strings.HasPrefix(r.Body, fmt.Sprint(i, "x")) {
			t.Fatalf("record %d: seq %d body %.10q", i, r.Seq, r.Body)
		}
	}
}

func TestRecordTooLargeForOneTransaction(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	r := Record{Time: t0, Kind: "message"}
	for i := range 20000 { // each recipient adds an index key: more than one Badger txn holds
		r.To = append(r.To, fmt.Sprintf("%060d", i))
	}
	err := s.Commit(&Batch{Records: []Record{r}})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Commit = %v, want ErrTooLarge", err)
	}
	commitT(t, s, &Batch{Records: []Record{{Time: t0, Kind: "after"}}})
	if got := queryT(t, s, Query{}); len(got) != 1 || got[0].Kind != "after" || s.LastSeq() != 2 {
		t.Fatalf("after a refused record: %+v, LastSeq %d", got, s.LastSeq())
	}
}

func TestLargeValueGoesToValueLog(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("y", 3<<20)
	commitT(t, s, &Batch{Records: []Record{{Time: t0, Kind: "message", Body: body}}})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openT(t, dir, Options{})
	if got := queryT(t, s, Query{}); len(got) != 1 || got[0].Body != body {
		t.Fatalf("large record lost")
	}
}

func TestLockedAndReadOnly(t *testing.T) {
	dir := t.TempDir()
	if _, err := Open(dir+"/missing", Options{ReadOnly: true}); !errors.Is(err, ErrNoStore) {
		t.Fatalf("read-only open of a missing store: %v, want ErrNoStore", err)
	}
	w, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	commitT(t, w, &Batch{Records: []Record{{Time: t0, Kind: "k", Agent: "a"}}})
	for _, ro := range []bool{true, false} {
		_, err := Open(dir, Options{ReadOnly: ro})
		if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "console is already running") {
			t.Fatalf("Open(ReadOnly=%v) while owned: %v, want ErrLocked", ro, err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	r1 := openT(t, dir, Options{ReadOnly: true})
	r2 := openT(t, dir, Options{ReadOnly: true}) // readers share the lock
	if got := queryT(t, r2, Query{Agent: "a"}); len(got) != 1 || r1.LastSeq() != 1 {
		t.Fatalf("read-only query = %+v, LastSeq %d", got, r1.LastSeq())
	}
	if err := r1.Commit(&Batch{Records: []Record{{Kind: "k"}}}); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("read-only commit: %v", err)
	}
	if _, err := Open(dir, Options{}); !errors.Is(err, ErrLocked) {
		t.Fatalf("writer while readers hold the dir: %v, want ErrLocked", err)
	}
}

func TestClosed(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if err := s.Commit(&Batch{Records: []Record{{Kind: "k"}}}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Commit after Close: %v", err)
	}
	if _, err := s.Query(Query{}); !errors.Is(err, ErrClosed) {
		t.Fatalf("Query after Close: %v", err)
	}
}

func TestDiskFullGuard(t *testing.T) {
	s := openT(t, t.TempDir(), Options{})
	var mu sync.Mutex
	free := uint64(1 << 20)
	s.space.free = func(string) (uint64, error) {
		mu.Lock()
		defer mu.Unlock()
		return free, nil
	}
	s.space.checked = time.Time{} // force a check on the next commit
	err := s.Commit(&Batch{Records: []Record{{Kind: "k"}}})
	if !errors.Is(err, ErrDiskFull) || !strings.Contains(err.Error(), "free space") {
		t.Fatalf("Commit on a full disk: %v, want ErrDiskFull", err)
	}
	if s.LastSeq() != 0 {
		t.Fatalf("a refused commit allocated seqs: LastSeq %d", s.LastSeq())
	}
	mu.Lock()
	free = 1 << 40
	mu.Unlock()
	commitT(t, s, &Batch{Records: []Record{{Kind: "k"}}}) // recovers as soon as space is back
}

func TestNoSpaceClassification(t *testing.T) {
	for _, err := range []error{
		syscall.ENOSPC,
		fmt.Errorf("wrapped: %w", syscall.ENOSPC),
		fmt.Errorf("While writing to vlog err: %+v", syscall.ENOSPC), // Badger's y.Wrap flattens to text
	} {
		if !isNoSpace(err) {
			t.Errorf("isNoSpace(%v) = false", err)
		}
		if got := (&Store{dir: "/state"}).writeError(err); !errors.Is(got, ErrDiskFull) {
			t.Errorf("writeError(%v) = %v, want ErrDiskFull", err, got)
		}
	}
	if isNoSpace(errors.New("permission denied")) {
		t.Error("isNoSpace(permission denied) = true")
	}
}

func FuzzEscapeName(f *testing.F) {
	for _, s := range []string{"", "a", "a\x00b", "\x01\x02", "\x00"} {
		f.Add(s, s+"x")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ea, eb := escapeName(a), escapeName(b)
		if strings.IndexByte(string(ea), 0) >= 0 {
			t.Fatalf("escape(%q) contains NUL", a)
		}
		if len(a) <= maxIndexName && len(b) <= maxIndexName && a != b && string(ea) == string(eb) {
			t.Fatalf("escape(%q) == escape(%q)", a, b)
		}
	})
}

func TestMetaDeleteAndPrefix(t *testing.T) {
	st, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Commit(&Batch{Meta: map[string]string{"q/a": "1", "q/b": "2", "qs/pending/a": "", "r/x": "9"}}); err != nil {
		t.Fatal(err)
	}
	if err := st.Commit(&Batch{Meta: map[string]string{"q/c": "3"}, MetaDel: []string{"q/b"}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	if err := st.MetaPrefix("q/", func(k, v string) error { got = append(got, k+"="+v); return nil }); err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "q/a=1,q/c=3" {
		t.Errorf("prefix q/: %v", got)
	}
	if _, ok, _ := st.Meta("q/b"); ok {
		t.Error("deleted key still there")
	}
}

func TestMetaMany(t *testing.T) {
	st, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.Commit(&Batch{Meta: map[string]string{"a": "1", "b": "2"}}); err != nil {
		t.Fatal(err)
	}
	got, err := st.MetaMany([]string{"a", "missing", "b"})
	if err != nil || len(got) != 2 || got["a"] != "1" || got["b"] != "2" {
		t.Errorf("%v %v", got, err)
	}
}

// TestOpensAfterAKillLeftAnEmptyMemtable: a writer SIGKILLed between
// creating its next memtable file and sizing it leaves the file empty, and
// Badger's next open fails with "Create a new file" (dgraph-io/badger#2207;
// a soak's console restart failed on it). Both a console's open and the
// CLI's read-only one get the store back, with every record.
func TestOpensAfterAKillLeftAnEmptyMemtable(t *testing.T) {
	for _, readOnly := range []bool{false, true} {
		dir := t.TempDir()
		s := openT(t, dir, Options{})
		commitT(t, s, &Batch{Records: []Record{{Time: t0, Kind: "k", Body: "kept"}}})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "00099.mem"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := Open(dir, Options{ReadOnly: readOnly})
		if err != nil {
			t.Fatalf("read-only %v: %v", readOnly, err)
		}
		if recs := queryT(t, s, Query{}); len(recs) != 1 || recs[0].Body != "kept" {
			t.Fatalf("read-only %v: records %+v", readOnly, recs)
		}
		s.Close()
	}
}

// TestOpenWaitsForTheLockOfADeadConsole: the lock of a console SIGKILLed
// a moment ago can still be held by a child it was forking (a copy of the
// descriptor until its exec); a soak's restart failed on it. While the pid
// in the lock file is no process, Open waits for the lock; while it is a
// live process (another console), it refuses at once.
func TestOpenWaitsForTheLockOfADeadConsole(t *testing.T) {
	dir := t.TempDir()
	s := openT(t, dir, Options{})
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		owner int
		wait  bool
	}{{dead.Process.Pid, true}, {os.Getpid(), false}} {
		// The straggler: the directory flocked through another open file
		// description, released a little later.
		f, err := os.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "LOCK"), []byte(fmt.Sprintf("%d\n", c.owner)), 0o644); err != nil {
			t.Fatal(err)
		}
		released := make(chan struct{})
		time.AfterFunc(300*time.Millisecond, func() { f.Close(); close(released) })
		s, err := Open(dir, Options{})
		<-released
		if c.wait {
			if err != nil {
				t.Fatalf("owner gone: %v", err)
			}
			s.Close()
		} else if !errors.Is(err, ErrLocked) {
			t.Fatalf("owner alive: want ErrLocked at once, got %v", err)
		}
	}
}
