package progresswatch

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/internal/progress"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/teamlead/teamlead/internal/dirwatch"
)

// ErrClosed is returned by Add after Close.
var ErrClosed = errors.New("progress: watcher closed")

// debounce is how long a file must stay quiet before it is read, so that a
// file written in several system calls is read once complete.
const debounce = 50 * time.Millisecond

// maxFileSize bounds what is read; a larger file is reported as a problem.
const maxFileSize = 8 << 20

// Watcher watches progress files. It watches each file's folder (editors
// and atomic writers replace a file by rename), or the nearest existing
// ancestor until that folder exists. It calls fn from its own goroutine,
// never concurrently, with a file's new progress.State after a change has settled.
type Watcher struct {
	fn   func(progress.State)
	loop *dirwatch.Loop[fireMsg]

	mu     sync.Mutex
	files  map[string]*entry // by absolute path
	dirs   *dirwatch.Folders // the folders watched for the files
	closed bool
}

// entry is one watched file.
type entry struct {
	state    progress.State
	data     []byte         // the bytes last read, to skip reporting unchanged files
	dir      string         // the folder watched for it ("" when none)
	timer    dirwatch.Timer // a superseded timer's fire is ignored
	notified bool           // fn has been called for it at least once
}

// fireMsg asks the loop to read path, if gen is still its latest schedule.
type fireMsg struct {
	path string
	gen  uint64
}

// NewWatcher starts a watcher that reports to fn. Call Close when done; fn
// must not call Close.
func NewWatcher(fn func(progress.State)) (*Watcher, error) {
	loop, err := dirwatch.NewLoop[fireMsg]()
	if err != nil {
		return nil, fmt.Errorf("progress: %w", err)
	}
	w := &Watcher{
		fn:    fn,
		loop:  loop,
		files: map[string]*entry{},
		dirs:  dirwatch.NewFolders(loop.Notify()),
	}
	go loop.Run(w.handle, w.recheckAll, w.refresh) // recheckAll: an overflow may have lost events
	return w, nil
}

// Add watches the progress file at path for agent ("" for an extra path).
// The file and its folders may not exist yet. Adding a path again changes
// its agent. The current state is read at once and reported through fn.
func (w *Watcher) Add(agent, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("progress: %w", err)
	}
	state, data := readState(agent, abs)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return ErrClosed
	}
	e, known := w.files[abs]
	if !known {
		e = &entry{}
	}
	if err := w.resolve(e, abs); err != nil {
		return fmt.Errorf("progress: watch %s: %w", abs, err)
	}
	if known && e.state.Agent != agent {
		e.notified = false // report the new agent even if the file is unchanged
	}
	e.state, e.data = state, data
	w.files[abs] = e
	w.schedule(e, abs, 0)
	return nil
}

// Close stops watching; fn is not called once Close has returned.
func (w *Watcher) Close() error {
	return w.loop.Close(func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.closed = true
		for _, e := range w.files {
			e.timer.Stop()
		}
	})
}

// States returns the latest state of every watched file, by agent then path.
func (w *Watcher) States() []progress.State {
	w.mu.Lock()
	out := make([]progress.State, 0, len(w.files))
	for _, e := range w.files {
		out = append(out, e.state)
	}
	w.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Agent != out[j].Agent {
			return out[i].Agent < out[j].Agent
		}
		return out[i].Path < out[j].Path
	})
	return out
}

// handle schedules a read of every file the event may concern: the file
// itself or one of its folders.
func (w *Watcher) handle(ev fsnotify.Event) {
	name := filepath.Clean(ev.Name)
	w.mu.Lock()
	defer w.mu.Unlock()
	if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
		w.forgetDir(name)
	}
	for path, e := range w.files {
		switch {
		case name == path:
			w.schedule(e, path, debounce)
		case dirwatch.Within(name, path):
			_ = w.resolve(e, path) // a failure is reported by refresh
			w.schedule(e, path, debounce)
		}
	}
}

// recheckAll re-resolves and re-reads every file.
func (w *Watcher) recheckAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for path, e := range w.files {
		_ = w.resolve(e, path) // a failure is reported by refresh
		w.schedule(e, path, debounce)
	}
}

// refresh reads a settled file and reports it if it changed.
func (w *Watcher) refresh(f fireMsg) {
	w.mu.Lock()
	e, ok := w.files[f.path]
	if !ok || !e.timer.Latest(f.gen) {
		w.mu.Unlock()
		return
	}
	werr := w.resolve(e, f.path)
	agent := e.state.Agent
	w.mu.Unlock()

	state, data := readState(agent, f.path)
	if werr != nil && state.Err == nil {
		state.Err = fmt.Errorf("cannot watch for changes: %w", werr)
	}

	w.mu.Lock()
	if w.closed || !e.timer.Latest(f.gen) { // a newer change or Add reads it again
		w.mu.Unlock()
		return
	}
	report := !e.notified || !sameState(e.state, e.data, state, data)
	e.state, e.data, e.notified = state, data, true
	w.mu.Unlock()
	if report && w.fn != nil {
		w.fn(state)
	}
}

// schedule (re)starts e's debounce timer; w.mu is held.
func (w *Watcher) schedule(e *entry, path string, after time.Duration) {
	e.timer.Start(after, func(gen uint64) { w.loop.Send(fireMsg{path: path, gen: gen}) })
}

// resolve moves e's watch to the nearest existing folder of path's
// folder, deeper as folders appear; w.mu is held.
func (w *Watcher) resolve(e *entry, path string) error {
	return w.dirs.Follow(&e.dir, filepath.Dir(path), nil)
}

// forgetDir drops a watched folder that was removed or renamed, so that it
// is watched afresh if it comes back; w.mu is held.
func (w *Watcher) forgetDir(dir string) {
	if !w.dirs.Forget(dir) {
		return
	}
	for _, e := range w.files {
		if e.dir == dir {
			e.dir = ""
		}
	}
}

// Read is what the progress file at path says now, for agent ("" for an
// extra path): as the watcher reads it (an empty file is no workflow yet).
func Read(agent, path string) progress.State {
	s, _ := readState(agent, path)
	return s
}

// readState reads and parses the file at path.
func readState(agent, path string) (progress.State, []byte) {
	s := progress.State{Agent: agent, Path: path}
	data, mod, err := readFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		s.Missing = true
	case err != nil:
		s.Err, s.ModTime = err, mod
	case len(data) == 0:
		// Empty: no workflow yet (the console makes the files of agents
		// that share a folder, so that only their owner writes them).
		s.Missing = true
	default:
		s.ModTime = mod
		s.Workflow, s.Err = progress.Parse(data)
	}
	return s, data
}

// readFile reads a regular file of at most maxFileSize bytes, with its
// modification time. Opened without waiting: a FIFO an agent put at its
// progress file held the watcher, and the console's next start.
//
// Nor through a link, at the file or its two folders (.claude/state): the
// console reads what the agent's sandbox hides from it, and a file that
// does not parse as a workflow says in its error what it starts with (red
// team 14d, finding 8: a link to another agent's hidden screen).
func readFile(path string) ([]byte, time.Time, error) {
	for d, n := filepath.Dir(path), 0; n < 2; d, n = filepath.Dir(d), n+1 {
		if st, err := os.Lstat(d); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return nil, time.Time{}, fmt.Errorf("%s is a link: the progress file is read in the agent's own folder only", d)
		}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, time.Time{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi.ModTime(), fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFileSize+1))
	if err == nil && len(data) > maxFileSize {
		err = fmt.Errorf("%s is larger than %d MiB", path, maxFileSize>>20)
	}
	return data, fi.ModTime(), err
}

// sameState reports whether a new read shows nothing new.
func sameState(a progress.State, adata []byte, b progress.State, bdata []byte) bool {
	return a.Missing == b.Missing && a.ModTime.Equal(b.ModTime) &&
		errText(a.Err) == errText(b.Err) && bytes.Equal(adata, bdata)
}

// errText is err's message, "" for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
