package querywatch

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamlead/teamlead/internal/dirwatch"
	"github.com/teamlead/teamlead/internal/queryfiles"
)

// Event is a new or changed query file, reported by a Watcher.
type Event struct {
	// Dir is the watched queries folder (absolute).
	Dir string
	// Owner is the agent the folder belongs to, "" for a shared folder.
	Owner string
	// Path is the query file (absolute).
	Path string
	// Query is the parsed file, nil when Err is set.
	Query *queryfiles.Query
	// Err is why the file cannot be read as a query. It matches
	// queryfiles.ErrIncomplete only for a file left incomplete for a while (see NewWatcher).
	Err error
}

// debounce is how long a file must stay quiet before it is read, so that a
// file written in several system calls is read once complete.
const debounce = 50 * time.Millisecond

// staleAfter is how long an incomplete file must stay unchanged before it is
// reported: by then it is not being written any more, and the asker should
// hear that its query cannot be read.
const staleAfter = 3 * time.Second

// Watcher watches queries folders. It watches each folder (writers replace
// files by rename), or its nearest existing ancestor until the folder
// exists, and calls fn from one goroutine, never concurrently.
type Watcher struct {
	fn    func(Event)
	stale time.Duration
	trace func(path, outcome string) // tests: after each read of a file
	loop  *dirwatch.Loop[fireMsg]

	mu      sync.Mutex
	dirs    map[string]*queryDir  // by absolute path
	watches *dirwatch.Folders     // the folders watched for the queries folders
	files   map[string]*queryFile // by absolute path
	closed  bool
}

// queryDir is one watched queries folder.
type queryDir struct {
	owner    string
	watching string // the folder watched for it: itself, an ancestor, or ""
}

// queryFile is what the watcher knows of one query file.
type queryFile struct {
	timer    dirwatch.Timer // a superseded timer's fire is ignored
	sum      [32]byte       // hash of what was last reported
	reported bool
}

// fireMsg asks the loop to read path, if gen is still its latest schedule;
// final reports an incomplete file instead of waiting on.
type fireMsg struct {
	path  string
	gen   uint64
	final bool
}

// NewWatcher starts a watcher that reports to fn each query file, present
// or to come, in the folders given to Add, once its content has settled and
// whenever the content changes. Responses, the index and other files are
// ignored; a deleted file is not reported. A file that looks half-written
// is read again when it changes, and reported (with an error matching
// queryfiles.ErrIncomplete) only if it stays so for a few seconds. Call Close when
// done; fn must not call Close.
func NewWatcher(fn func(Event)) (*Watcher, error) {
	return newWatcher(fn, staleAfter, nil)
}

// newWatcher is NewWatcher with the incomplete-file delay (0: never report)
// and a trace hook for tests.
func newWatcher(fn func(Event), stale time.Duration, trace func(path, outcome string)) (*Watcher, error) {
	loop, err := dirwatch.NewLoop[fireMsg]()
	if err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	if fn == nil {
		fn = func(Event) {}
	}
	w := &Watcher{
		fn: fn, stale: stale, trace: trace, loop: loop,
		dirs: map[string]*queryDir{}, watches: dirwatch.NewFolders(loop.Notify()), files: map[string]*queryFile{},
	}
	go loop.Run(w.handle, w.rescan, w.refresh) // rescan: an overflow may have lost events
	return w, nil
}

// Add watches the queries folder dir for owner ("" for a shared folder).
// The folder and its parents may not exist yet. The query files already in
// it are reported too. Adding a folder again changes its owner and reads it
// again (unchanged files are not reported again).
func (w *Watcher) Add(dir, owner string) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return fmt.Errorf("spc: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return queryfiles.ErrClosed
	}
	d, known := w.dirs[abs]
	if !known {
		d = &queryDir{}
		w.dirs[abs] = d
	}
	d.owner = owner
	if err := w.resolve(abs, d); err != nil {
		if !known {
			delete(w.dirs, abs)
		}
		return fmt.Errorf("spc: watch %s: %w", abs, err)
	}
	if d.watching == abs {
		w.scan(abs)
	}
	return nil
}

// Close stops watching; fn is not called once Close has returned.
func (w *Watcher) Close() error {
	return w.loop.Close(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.closed = true
		for _, f := range w.files {
			f.timer.Stop()
		}
	})
}

// handle schedules a read of the query file an event names, and moves the
// watch of a queries folder when one of its ancestors (or itself) appears
// or goes.
func (w *Watcher) handle(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.forgetWatch(name)
	}
	parent := filepath.Dir(name)
	if d, ok := w.dirs[parent]; ok && d.watching == parent && queryfiles.IsQueryFile(name) {
		w.schedule(name, debounce, false)
	}
	for path, d := range w.dirs {
		if path == name || dirwatch.Within(name, path) {
			was := d.watching
			_ = w.resolve(path, d) // a failure leaves the ancestor watched; retried at its next event
			if d.watching == path && was != path {
				w.scan(path)
			}
		}
	}
}

// rescan re-resolves every folder and reads every query file again.
func (w *Watcher) rescan() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for path, d := range w.dirs {
		_ = w.resolve(path, d)
		if d.watching == path {
			w.scan(path)
		}
	}
}

// scan schedules a read of every query file in dir; w.mu is held.
func (w *Watcher) scan(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return // gone again; its removal moves the watch
	}
	for _, e := range entries {
		if !e.IsDir() && queryfiles.IsQueryFile(e.Name()) {
			w.schedule(filepath.Join(dir, e.Name()), debounce, false)
		}
	}
}

// schedule (re)starts path's timer; w.mu is held.
func (w *Watcher) schedule(path string, after time.Duration, final bool) {
	f := w.files[path]
	if f == nil {
		f = &queryFile{}
		w.files[path] = f
	}
	f.timer.Start(after, func(gen uint64) { w.loop.Send(fireMsg{path: path, gen: gen, final: final}) })
}

// refresh reads a settled file and reports it if its content is new.
func (w *Watcher) refresh(m fireMsg) {
	w.mu.Lock()
	f, ok := w.files[m.path]
	d := w.dirs[filepath.Dir(m.path)]
	if !ok || !f.timer.Latest(m.gen) || d == nil {
		w.mu.Unlock()
		return
	}
	ev := Event{Dir: filepath.Dir(m.path), Owner: d.owner, Path: m.path}
	w.mu.Unlock()

	data, _, err := queryfiles.ReadFile(m.path)
	gone := errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) || errors.Is(err, queryfiles.ErrNotRegular)
	var sum [32]byte
	if err == nil {
		sum = sha256.Sum256(data)
		ev.Query, ev.Err = queryfiles.ParseQuery(m.path, data)
	} else {
		sum = sha256.Sum256([]byte("error: " + err.Error()))
		ev.Err = fmt.Errorf("spc: %w", err)
	}

	w.mu.Lock()
	if w.closed || w.files[m.path] != f || !f.timer.Latest(m.gen) { // a newer change reads it again
		w.mu.Unlock()
		return
	}
	outcome := "reported"
	switch {
	case gone:
		f.timer.Stop()
		delete(w.files, m.path)
		outcome = "gone"
	case f.reported && f.sum == sum:
		outcome = "unchanged"
	case errors.Is(ev.Err, queryfiles.ErrIncomplete) && !m.final:
		if w.stale > 0 {
			w.schedule(m.path, w.stale, true)
		}
		outcome = "incomplete"
	default:
		f.sum, f.reported = sum, true
	}
	w.mu.Unlock()
	if outcome == "reported" {
		w.fn(ev)
	}
	if w.trace != nil {
		w.trace(m.path, outcome)
	}
}

// resolve moves d's watch to the nearest existing folder of path, deeper
// as folders appear, forgetting the files of path when the watch leaves
// it; w.mu is held.
func (w *Watcher) resolve(path string, d *queryDir) error {
	return w.watches.Follow(&d.watching, path, func(left string) {
		if left == path {
			w.forgetFiles(path)
		}
	})
}

// forgetWatch drops a watched folder that was removed or renamed, so that
// it is watched afresh if it comes back; w.mu is held.
func (w *Watcher) forgetWatch(folder string) {
	if !w.watches.Forget(folder) {
		return
	}
	for path, d := range w.dirs {
		if d.watching == folder {
			if path == folder {
				w.forgetFiles(path)
			}
			d.watching = ""
		}
	}
}

// forgetFiles drops what is known of the files in dir, which went away;
// w.mu is held.
func (w *Watcher) forgetFiles(dir string) {
	for path, f := range w.files {
		if filepath.Dir(path) == dir {
			f.timer.Stop()
			delete(w.files, path)
		}
	}
}
