package querywatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/queryfiles"
)

// deadline bounds every wait; a healthy run takes milliseconds.
const deadline = 10 * time.Second

// traced is one read of a file by the watcher.
type traced struct{ path, outcome string }

// recorder collects what a Watcher reports and what it reads.
type recorder struct {
	mu         sync.Mutex
	events     []Event
	traces     []traced
	nextEvent  int // first event waitEvent has not looked at
	nextTrace  int // first trace waitTrace has not looked at
	wake       chan struct{}
	inside     atomic.Int32
	overlap    atomic.Bool
	closed     atomic.Bool
	afterClose atomic.Bool
}

// startWatcher starts a watcher reporting to a new recorder; it is closed,
// and checked for overlapping callbacks, when the test ends.
func startWatcher(t *testing.T, stale time.Duration) (*Watcher, *recorder) {
	t.Helper()
	r := &recorder{wake: make(chan struct{}, 1)}
	w, err := newWatcher(r.event, stale, r.trace)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		r.closed.Store(true)
		if r.overlap.Load() {
			t.Error("the callback ran concurrently")
		}
		if r.afterClose.Load() {
			t.Error("the callback ran after Close returned")
		}
	})
	return w, r
}

// event is the Watcher's callback.
func (r *recorder) event(e Event) {
	if r.inside.Add(1) != 1 {
		r.overlap.Store(true)
	}
	defer r.inside.Add(-1)
	if r.closed.Load() {
		r.afterClose.Store(true)
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	r.poke()
}

// trace is the Watcher's test hook, called after each read.
func (r *recorder) trace(path, outcome string) {
	r.mu.Lock()
	r.traces = append(r.traces, traced{path, outcome})
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) poke() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// waitEvent returns the first event not yet looked at that satisfies ok,
// failing the test after the deadline.
func (r *recorder) waitEvent(t *testing.T, what string, ok func(Event) bool) Event {
	t.Helper()
	var found Event
	r.wait(t, what, func() bool {
		for ; r.nextEvent < len(r.events); r.nextEvent++ {
			if ok(r.events[r.nextEvent]) {
				found = r.events[r.nextEvent]
				r.nextEvent++
				return true
			}
		}
		return false
	})
	return found
}

// waitTrace waits for the watcher to read path with the outcome.
func (r *recorder) waitTrace(t *testing.T, path, outcome string) {
	t.Helper()
	r.wait(t, fmt.Sprintf("%s read as %s", filepath.Base(path), outcome), func() bool {
		for ; r.nextTrace < len(r.traces); r.nextTrace++ {
			if r.traces[r.nextTrace] == (traced{path, outcome}) {
				r.nextTrace++
				return true
			}
		}
		return false
	})
}

// wait polls found (called with r.mu held) until it is true or the deadline.
func (r *recorder) wait(t *testing.T, what string, found func() bool) {
	t.Helper()
	timer := time.NewTimer(deadline)
	defer timer.Stop()
	for {
		r.mu.Lock()
		ok := found()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.wake:
		case <-timer.C:
			t.Fatalf("timed out waiting for %s; reported:\n%s", what, r.dump())
		}
	}
}

// reported returns the events reported for path so far.
func (r *recorder) reported(path string) []Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Event
	for _, e := range r.events {
		if e.Path == path {
			out = append(out, e)
		}
	}
	return out
}

// dump lists what was reported and read, for failure messages.
func (r *recorder) dump() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var b strings.Builder
	for _, e := range r.events {
		fmt.Fprintf(&b, "  event %s owner=%q query=%v err=%v\n", e.Path, e.Owner, e.Query != nil, e.Err)
	}
	for _, tr := range r.traces {
		fmt.Fprintf(&b, "  read %s: %s\n", tr.path, tr.outcome)
	}
	return b.String()
}

// queriesDir makes a .spc/queries folder in a new temporary folder.
func queriesDir(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".spc", "queries")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// query is a valid query file with the given id.
func query(id string) string {
	return fmt.Sprintf("id: %s\nfrom: developer\nto: architect\nquestion: |\n  Which one?\npriority: high\nstatus: pending\n", id)
}

// isQuery matches the event reporting the query id at path.
func isQuery(path, id string) func(Event) bool {
	return func(e Event) bool { return e.Path == path && e.Err == nil && e.Query != nil && e.Query.ID == id }
}

func TestWatcherExistingAndNewFiles(t *testing.T) {
	dir := queriesDir(t)
	seed := filepath.Join(dir, seedQuery)
	writeFile(t, seed, string(readTestdata(t, seedQuery)))
	writeFile(t, filepath.Join(dir, seedResponse), string(readTestdata(t, seedResponse)))
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, "developer"); err != nil {
		t.Fatal(err)
	}
	e := r.waitEvent(t, "the query already there", isQuery(seed, "query-20260115-001"))
	assertEqual(t, e.Dir, dir)
	assertEqual(t, e.Owner, "developer")
	assertEqual(t, e.Query.Priority, queryfiles.PriorityBlocker)

	next := filepath.Join(dir, "query-20260115-002.yaml")
	writeFile(t, next, query("query-20260115-002"))
	r.waitEvent(t, "a new query", isQuery(next, "query-20260115-002"))

	writeFile(t, next, strings.Replace(query("query-20260115-002"), "high", "low", 1))
	e = r.waitEvent(t, "the changed query", isQuery(next, "query-20260115-002"))
	assertEqual(t, e.Query.Priority, queryfiles.PriorityLow)
}

func TestWatcherTwoParts(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "query-a.yaml")
	full := query("q-a")
	cut := strings.Index(full, "question")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(full[:cut]); err != nil {
		t.Fatal(err)
	}
	r.waitTrace(t, path, "incomplete") // read half-written and held back
	if _, err := f.WriteString(full[cut:]); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r.waitEvent(t, "the completed query", isQuery(path, "q-a"))
	if got := r.reported(path); len(got) != 1 {
		t.Errorf("reported %d times: %s", len(got), r.dump())
	}
}

func TestWatcherIncompleteReportedWhenItStays(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, 100*time.Millisecond)
	if err := w.Add(dir, "qa"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "query-b.yaml")
	writeFile(t, path, "id: q-b\nfrom: qa\n")
	e := r.waitEvent(t, "the incomplete query", func(e Event) bool { return e.Path == path })
	if !errors.Is(e.Err, queryfiles.ErrMissingField) || !errors.Is(e.Err, queryfiles.ErrIncomplete) || e.Query != nil {
		t.Fatalf("event %+v", e)
	}
	writeFile(t, path, "id: q-b\nfrom: qa\n") // same content: not again
	r.waitTrace(t, path, "unchanged")
	writeFile(t, path, query("q-b"))
	r.waitEvent(t, "the finished query", isQuery(path, "q-b"))
	if got := r.reported(path); len(got) != 2 {
		t.Errorf("reported %d times: %s", len(got), r.dump())
	}
}

func TestWatcherRename(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, "pm"); err != nil {
		t.Fatal(err)
	}
	for i, from := range []string{filepath.Join(dir, ".query-c.yaml.tmp"), filepath.Join(t.TempDir(), "elsewhere.yaml")} {
		id := fmt.Sprintf("q-c%d", i)
		path := filepath.Join(dir, "query-"+id+".yaml")
		writeFile(t, from, query(id))
		if err := os.Rename(from, path); err != nil {
			t.Fatal(err)
		}
		r.waitEvent(t, "the renamed query "+id, isQuery(path, id))
	}
	// Replacing a reported file by rename reports the new content.
	path := filepath.Join(dir, "query-q-c0.yaml")
	tmp := filepath.Join(dir, ".query-q-c0.yaml.tmp")
	writeFile(t, tmp, query("q-c0-new"))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	r.waitEvent(t, "the replaced query", isQuery(path, "q-c0-new"))
}

func TestWatcherDirectoryCreatedLater(t *testing.T) {
	root := t.TempDir()
	stepwise := filepath.Join(root, "one", ".spc", "queries")
	atOnce := filepath.Join(root, "two", ".spc", "queries")
	w, r := startWatcher(t, time.Minute)
	for _, dir := range []string{stepwise, atOnce} {
		if err := w.Add(dir, filepath.Base(filepath.Dir(filepath.Dir(dir)))); err != nil {
			t.Fatal(err)
		}
	}
	// One folder at a time.
	for _, d := range []string{filepath.Join(root, "one"), filepath.Join(root, "one", ".spc"), stepwise} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(stepwise, "query-d.yaml")
	writeFile(t, path, query("q-d"))
	e := r.waitEvent(t, "the query in the folder made step by step", isQuery(path, "q-d"))
	assertEqual(t, e.Owner, "one")

	// All at once, the file written at once too: found by the scan made
	// when the watch reaches the folder.
	if err := os.MkdirAll(atOnce, 0o755); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(atOnce, "query-e.yaml")
	writeFile(t, path, query("q-e"))
	e = r.waitEvent(t, "the query in the folder made at once", isQuery(path, "q-e"))
	assertEqual(t, e.Owner, "two")
}

func TestWatcherFolderRemovedAndMadeAgain(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, "pm"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "query-f.yaml")
	writeFile(t, path, query("q-f"))
	r.waitEvent(t, "the query", isQuery(path, "q-f"))
	if err := os.RemoveAll(filepath.Dir(dir)); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, query("q-f"))
	r.waitEvent(t, "the query in the folder made again", isQuery(path, "q-f"))

	// Moved away and back.
	away := filepath.Join(t.TempDir(), "away")
	if err := os.Rename(dir, away); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(away, "query-g.yaml"), query("q-g")) // not watched any more
	if err := os.Rename(away, dir); err != nil {
		t.Fatal(err)
	}
	r.waitEvent(t, "the query in the folder moved back", isQuery(filepath.Join(dir, "query-g.yaml"), "q-g"))
	for _, e := range r.reported(filepath.Join(dir, "query-g.yaml")) {
		assertEqual(t, e.Dir, dir)
	}
}

func TestWatcherBadYAMLReportedOnce(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, "designer"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "query-g.yaml")
	const bad = "id: q-g\nfrom: designer\nto: pm\nquestion: Which: A or B?\n"
	writeFile(t, path, bad)
	e := r.waitEvent(t, "the bad query", func(e Event) bool { return e.Path == path })
	if !errors.Is(e.Err, queryfiles.ErrBadYAML) || errors.Is(e.Err, queryfiles.ErrIncomplete) || e.Query != nil {
		t.Fatalf("event %+v", e)
	}
	if !strings.Contains(e.Err.Error(), "query-g.yaml:4:") {
		t.Errorf("error does not name the file and line: %v", e.Err)
	}
	writeFile(t, path, bad)
	r.waitTrace(t, path, "unchanged")
	if err := os.Chtimes(path, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	r.waitTrace(t, path, "unchanged")
	if got := r.reported(path); len(got) != 1 {
		t.Errorf("reported %d times: %s", len(got), r.dump())
	}
	writeFile(t, path, bad+"priority: urgent\n")
	e = r.waitEvent(t, "the other bad query", func(e Event) bool { return e.Path == path })
	if !errors.Is(e.Err, queryfiles.ErrBadYAML) {
		t.Errorf("event %+v", e)
	}
}

func TestWatcherIgnoresOtherFiles(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, ""); err != nil {
		t.Fatal(err)
	}
	queryPath := filepath.Join(dir, "query-h.yaml")
	writeFile(t, queryPath, query("q-h"))
	r.waitEvent(t, "the query", isQuery(queryPath, "q-h"))

	if _, err := queryfiles.WriteResponse(queryPath, queryfiles.Response{QueryID: "q-h", From: "architect", Answer: "SSE"}); err != nil {
		t.Fatal(err)
	}
	if _, err := queryfiles.UpsertIndex(dir, queryfiles.IndexEntry{ID: "q-h", File: "query-h.yaml"}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "notes.txt"), "x")
	writeFile(t, filepath.Join(dir, "query-x-response.yml"), "x")
	if err := os.Mkdir(filepath.Join(dir, "query-dir.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	// The status update is a change to the query: reported, as answered.
	if err := queryfiles.SetStatus(queryPath, queryfiles.StatusAnswered); err != nil {
		t.Fatal(err)
	}
	e := r.waitEvent(t, "the answered query", isQuery(queryPath, "q-h"))
	assertEqual(t, e.Query.Status, queryfiles.StatusAnswered)

	r.mu.Lock()
	defer r.mu.Unlock()
	for _, tr := range r.traces {
		isDir := tr.path == filepath.Join(dir, "query-dir.yaml") && tr.outcome == "gone"
		if tr.path != queryPath && !isDir {
			t.Errorf("read %s: %s", tr.path, tr.outcome)
		}
	}
}

func TestWatcherSeveralFolders(t *testing.T) {
	shared := queriesDir(t)
	mine := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(shared, ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(mine, "writer"); err != nil {
		t.Fatal(err)
	}
	const n = 20
	for i := range n {
		for _, dir := range []string{shared, mine} {
			writeFile(t, filepath.Join(dir, fmt.Sprintf("query-%02d.yaml", i)), query(fmt.Sprintf("q-%02d", i)))
		}
	}
	for i := range n {
		for _, dir := range []string{shared, mine} {
			path := filepath.Join(dir, fmt.Sprintf("query-%02d.yaml", i))
			r.wait(t, path, func() bool {
				for _, e := range r.events {
					if e.Path == path && e.Query != nil {
						return true
					}
				}
				return false
			})
		}
	}
	for _, e := range r.reported(filepath.Join(mine, "query-00.yaml")) {
		assertEqual(t, e.Owner, "writer")
	}
	for _, e := range r.reported(filepath.Join(shared, "query-00.yaml")) {
		assertEqual(t, e.Owner, "")
	}
	// Adding a folder again changes its owner; unchanged files are not reported again.
	if err := w.Add(shared, "pm"); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(shared, "query-new.yaml")
	writeFile(t, path, query("q-new"))
	e := r.waitEvent(t, "a query in the re-added folder", isQuery(path, "q-new"))
	assertEqual(t, e.Owner, "pm")
	if got := r.reported(filepath.Join(shared, "query-00.yaml")); len(got) != 1 {
		t.Errorf("reported %d times", len(got))
	}
}

func TestWatcherClose(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, time.Minute)
	if err := w.Add(dir, ""); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		writeFile(t, filepath.Join(dir, fmt.Sprintf("query-%d.yaml", i)), query(fmt.Sprint(i)))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r.closed.Store(true)
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Add(dir, ""); !errors.Is(err, queryfiles.ErrClosed) {
		t.Errorf("Add after Close: %v", err)
	}
	writeFile(t, filepath.Join(dir, "query-late.yaml"), query("late"))
	// The cleanup checks that no callback ran after Close returned.
}

func TestWatcherGarbage(t *testing.T) {
	dir := queriesDir(t)
	w, r := startWatcher(t, 100*time.Millisecond)
	if err := w.Add(dir, ""); err != nil {
		t.Fatal(err)
	}
	garbage := [][]byte{
		{0xff, 0xfe, 0x00, 0x01},
		[]byte("a: &x [*x]\nid: *x\n"),
		[]byte(strings.Repeat("- ", 5000)),
		[]byte("id: q\nfrom: a\nto: b\nquestion: x\n" + strings.Repeat("x", 1<<20)), // queryfiles reads at most 1 MiB,
	}
	for i, data := range garbage {
		path := filepath.Join(dir, fmt.Sprintf("query-garbage-%d.yaml", i))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		e := r.waitEvent(t, path, func(e Event) bool { return e.Path == path })
		if e.Err == nil || e.Query != nil {
			t.Errorf("garbage %d: %+v", i, e)
		}
		t.Logf("garbage %d: %.200v", i, e.Err)
	}
}

// seedQuery and seedResponse are files of queryfiles' test data.
const (
	seedQuery    = "query-20260115-001.yaml"
	seedResponse = "query-20260115-001-response.yaml"
)

// readTestdata returns a file from queryfiles' testdata.
func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("..", "queryfiles", "testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

// writeFile writes a file, failing the test on error.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func assertEqual[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}
