package progresswatch

import (
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/internal/progress"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// recorder collects the states a Watcher reports.
type recorder struct {
	mu      sync.Mutex
	states  []progress.State
	next    int // first state waitFor has not looked at
	wake    chan struct{}
	inside  atomic.Int32
	overlap atomic.Bool
}

func newRecorder() *recorder { return &recorder{wake: make(chan struct{}, 1)} }

// add is the Watcher's callback.
func (r *recorder) add(s progress.State) {
	if r.inside.Add(1) != 1 {
		r.overlap.Store(true)
	}
	defer r.inside.Add(-1)
	r.mu.Lock()
	r.states = append(r.states, s)
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// waitFor returns the first state not yet looked at that satisfies ok,
// failing the test after a deadline.
func (r *recorder) waitFor(t *testing.T, what string, ok func(progress.State) bool) progress.State {
	t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	for {
		if s, found := r.scan(ok); found {
			return s
		}
		select {
		case <-r.wake:
		case <-deadline.C:
			t.Fatalf("timed out waiting for %s; reported:\n%s", what, r.dump())
		}
	}
}

// scan looks at the states reported since the last call.
func (r *recorder) scan(ok func(progress.State) bool) (progress.State, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.next < len(r.states) {
		s := r.states[r.next]
		r.next++
		if ok(s) {
			return s, true
		}
	}
	return progress.State{}, false
}

// all returns every state reported so far.
func (r *recorder) all() []progress.State {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]progress.State(nil), r.states...)
}

func (r *recorder) dump() string {
	var b strings.Builder
	for _, s := range r.all() {
		fmt.Fprintf(&b, "  %s\n", describe(s))
	}
	return b.String()
}

func describe(s progress.State) string {
	switch {
	case s.Missing:
		return "missing"
	case s.Err != nil:
		return "error: " + s.Err.Error()
	case s.Workflow != nil:
		return fmt.Sprintf("%s step %d", s.Workflow.Status, s.Workflow.CurrentStep)
	}
	return "empty state"
}

// startWatcher returns a watcher reporting to a recorder, closed at the
// end of the test (before its temporary folders are removed).
func startWatcher(t *testing.T) (*Watcher, *recorder) {
	t.Helper()
	rec := newRecorder()
	w, err := NewWatcher(rec.add)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := w.Close(); err != nil {
			t.Error(err)
		}
		if rec.overlap.Load() {
			t.Error("the callback was called concurrently")
		}
	})
	return w, rec
}

// progressFile is a valid 2.0 file at step, padded so that halves of it
// are not JSON.
func progressFile(status string, step int) string {
	return fmt.Sprintf(`{
  "version": "2.0",
  "workflow_id": "wf-1767607200-test",
  "task": {"summary": "watch me %s"},
  "status": %q,
  "current_step": %d,
  "total_steps": 9,
  "next_step": {"step": %d, "expert": "qa", "action": "check", "context": {"notes": "step %d"}}
}
`, strings.Repeat("padding ", 64), status, step, step+1, step)
}

// at reports whether a state shows the workflow at status and step.
func at(status string, step int) func(progress.State) bool {
	return func(s progress.State) bool {
		return s.Workflow != nil && s.Workflow.Status == status && s.Workflow.CurrentStep == step
	}
}

func isMissing(s progress.State) bool { return s.Missing }

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeByRename writes content next to path and renames it over path, as
// editors and atomic writers do.
func writeByRename(t *testing.T, path, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(path), ".progress.json.tmp")
	write(t, tmp, content)
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
}

// workDir returns an agent working folder with its progress file path,
// the state folder made when mkdir is true.
func workDir(t *testing.T, mkdir bool) (dir, path string) {
	dir = t.TempDir()
	path = filepath.Join(dir, progress.DefaultPath)
	if mkdir {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, path
}

func TestWatcherFileAndFolderCreatedLater(t *testing.T) {
	dir, path := workDir(t, false)
	w, rec := startWatcher(t)
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	first := rec.waitFor(t, "the initial missing state", func(progress.State) bool { return true })
	if !first.Missing || first.Agent != "dev" || first.Path != path || first.Err != nil {
		t.Fatalf("initial state %+v, want missing for dev at %s", first, path)
	}
	if err := os.Mkdir(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, ".claude", "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, path, progressFile("in_progress", 1))
	s := rec.waitFor(t, "the new file", at("in_progress", 1))
	if s.ModTime.IsZero() || s.Err != nil || s.Agent != "dev" {
		t.Errorf("state %+v", s)
	}
	write(t, path, progressFile("in_progress", 2))
	rec.waitFor(t, "a change in the new folder", at("in_progress", 2))
}

func TestWatcherWorkDirCreatedLater(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "agents", "qa", progress.DefaultPath)
	w, rec := startWatcher(t)
	if err := w.Add("qa", path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the initial missing state", isMissing)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	writeByRename(t, path, progressFile("initialized", 0))
	rec.waitFor(t, "the file made with its folders at once", at("initialized", 0))
}

func TestWatcherRewrittenInPlace(t *testing.T) {
	_, path := workDir(t, true)
	write(t, path, progressFile("in_progress", 1))
	w, rec := startWatcher(t)
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the existing file", at("in_progress", 1))
	for step := 2; step <= 4; step++ {
		write(t, path, progressFile("in_progress", step))
		rec.waitFor(t, fmt.Sprintf("step %d", step), at("in_progress", step))
	}
	write(t, path, progressFile("completed", 5))
	rec.waitFor(t, "completion", at("completed", 5))
}

func TestWatcherReplacedByRename(t *testing.T) {
	_, path := workDir(t, true)
	write(t, path, progressFile("in_progress", 1))
	w, rec := startWatcher(t)
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the existing file", at("in_progress", 1))
	for step := 2; step <= 4; step++ {
		writeByRename(t, path, progressFile("in_progress", step))
		rec.waitFor(t, fmt.Sprintf("step %d written by rename", step), at("in_progress", step))
	}
	// Saving as some editors do: the old file moved aside, a new one written.
	if err := os.Rename(path, path+"~"); err != nil {
		t.Fatal(err)
	}
	write(t, path, progressFile("in_progress", 5))
	rec.waitFor(t, "step 5 after a backup rename", at("in_progress", 5))
}

func TestWatcherWrittenInTwoHalves(t *testing.T) {
	_, path := workDir(t, true)
	w, rec := startWatcher(t)
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the initial missing state", isMissing)
	content := progressFile("in_progress", 3)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(content[:len(content)/2]); err != nil {
		t.Fatal(err)
	}
	// The pause: the watcher reads the half file before the rest comes.
	half := rec.waitFor(t, "the half file read", func(s progress.State) bool { return s.Err != nil })
	if !errors.Is(half.Err, progress.ErrNotJSON) || half.Workflow != nil || half.Missing {
		t.Fatalf("half file gave %+v, want progress.ErrNotJSON and no workflow", half)
	}
	if _, err := f.WriteString(content[len(content)/2:]); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the complete file", at("in_progress", 3))
	for _, s := range rec.all() {
		if !s.Missing && !errors.Is(s.Err, progress.ErrNotJSON) && !at("in_progress", 3)(s) {
			t.Errorf("unexpected intermediate state: %s", describe(s))
		}
	}
}

func TestWatcherRemoved(t *testing.T) {
	dir, path := workDir(t, true)
	write(t, path, progressFile("in_progress", 1))
	w, rec := startWatcher(t)
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the existing file", at("in_progress", 1))
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	s := rec.waitFor(t, "the removal", isMissing)
	if s.Workflow != nil || s.Err != nil {
		t.Errorf("missing state %+v", s)
	}
	write(t, path, progressFile("in_progress", 2))
	rec.waitFor(t, "the file back", at("in_progress", 2))

	// The whole state folder removed, then made again.
	if err := os.RemoveAll(filepath.Join(dir, ".claude")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the folder's removal", isMissing)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, path, progressFile("in_progress", 3))
	rec.waitFor(t, "the file in the new folder", at("in_progress", 3))
}

func TestWatcherGarbage(t *testing.T) {
	_, path := workDir(t, true)
	w, rec := startWatcher(t)
	if err := w.Add("", path); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the initial missing state", isMissing)
	steps := []struct {
		content string
		want    error
	}{
		{"\x7fELF\x02\x01\x01\x00\x00\x00", progress.ErrNotJSON},
		{`{"version":"3.0","steps":[]}`, progress.ErrUnknownVersion},
		{`[1, 2, 3]`, progress.ErrSchema},
		{`{"version":"2.0","current_step":"two"}`, progress.ErrSchema},
	}
	for _, step := range steps {
		writeByRename(t, path, step.content)
		s := rec.waitFor(t, step.want.Error(), func(s progress.State) bool { return errors.Is(s.Err, step.want) })
		if s.Workflow != nil || s.Missing || s.ModTime.IsZero() {
			t.Errorf("error state %+v", s)
		}
	}
	write(t, path, progressFile("in_progress", 1))
	rec.waitFor(t, "a good file again", at("in_progress", 1))
	if got := w.States(); len(got) != 1 || got[0].Err != nil || got[0].Agent != "" {
		t.Errorf("States() = %+v", got)
	}
}

func TestWatcherStates(t *testing.T) {
	devDir, devPath := workDir(t, true)
	_, qaPath := workDir(t, false)
	extra := filepath.Join(t.TempDir(), "shared-progress.json")
	write(t, devPath, progressFile("in_progress", 2))
	write(t, extra, progressFile("completed", 9))
	w, rec := startWatcher(t)
	for _, a := range []struct{ agent, path string }{{"qa", qaPath}, {"dev", devPath}, {"", extra}} {
		if err := w.Add(a.agent, a.path); err != nil {
			t.Fatal(err)
		}
	}
	// Add reads at once: States is right before any callback.
	got := w.States()
	if len(got) != 3 || got[0].Agent != "" || got[1].Agent != "dev" || got[2].Agent != "qa" {
		t.Fatalf("States() = %+v, want extra, dev, qa", got)
	}
	if !at("completed", 9)(got[0]) || !at("in_progress", 2)(got[1]) || !got[2].Missing {
		t.Errorf("States() = %s, %s, %s", describe(got[0]), describe(got[1]), describe(got[2]))
	}
	// Re-adding changes the agent.
	if err := w.Add("dev2", filepath.Join(devDir, ".claude", "state", "..", "state", "progress.json")); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the re-added file", func(s progress.State) bool { return s.Agent == "dev2" })
	if got := w.States(); len(got) != 3 || got[1].Agent != "dev2" {
		t.Errorf("after re-adding: %+v", got)
	}
}

func TestWatcherClose(t *testing.T) {
	_, path := workDir(t, true)
	rec := newRecorder()
	w, err := NewWatcher(rec.add)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := w.Add("qa", path); !errors.Is(err, ErrClosed) {
		t.Errorf("Add after Close: %v, want ErrClosed", err)
	}
	if got := w.States(); len(got) != 1 {
		t.Errorf("States() after Close = %+v", got)
	}
}

func TestWatcherStalled(t *testing.T) {
	_, path := workDir(t, true)
	write(t, path, progressFile("in_progress", 1))
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(path, old, old); err != nil {
		t.Fatal(err)
	}
	w, rec := startWatcher(t)
	if err := w.Add("dev", path); err != nil {
		t.Fatal(err)
	}
	s := rec.waitFor(t, "the file", at("in_progress", 1))
	if !progress.Stalled(s, time.Now(), 30*time.Minute) {
		t.Errorf("an hour-old in_progress file is not stalled: %+v", s)
	}
	write(t, path, progressFile("in_progress", 2))
	s = rec.waitFor(t, "the next step", at("in_progress", 2))
	if progress.Stalled(s, time.Now(), 30*time.Minute) {
		t.Errorf("a file just written is stalled: %+v", s)
	}
}

// TestPathsInASharedFolder: agents in a folder of their own keep the
// seed's progress.json; agents sharing a folder get a file each, so one
// agent's workflow is never shown as another's.
func TestPathsInASharedFolder(t *testing.T) {
	got := progress.Paths(map[string]string{"dev": "/p", "qa": "/p/", "arch": "/p", "solo": "/q"})
	want := map[string]string{
		"dev": "/p/.claude/state/progress-dev.json", "qa": "/p/.claude/state/progress-qa.json",
		"arch": "/p/.claude/state/progress-arch.json", "solo": "/q/.claude/state/progress.json",
	}
	for agent, w := range want {
		if got[agent] != w {
			t.Errorf("%s: %q, want %q", agent, got[agent], w)
		}
	}
}

// A FIFO an agent put at its progress file holds neither the watcher nor
// the console's start (Add reads the file at once): it is not a file.
func TestWatcherWaitsOnNoFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".claude", "state", "progress.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan progress.State, 1)
	go func() { done <- Read("dev", path) }()
	select {
	case s := <-done:
		if s.Err == nil || s.Workflow != nil {
			t.Errorf("a FIFO read as %+v", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("reading the progress file waits on the FIFO an agent put there")
	}
}

// A progress file, or its folder, made a link is not read: the console
// would read what the agent's sandbox hides, and a parse error shows what
// the file starts with (red team 14d, finding 8).
func TestProgressFileReadThroughNoLink(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "hidden.screen")
	if err := os.WriteFile(secret, []byte("root password is ..."), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "work", ".claude", "state")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(state, "progress.json")); err != nil {
		t.Fatal(err)
	}
	if s := Read("dev", filepath.Join(state, "progress.json")); s.Err == nil || strings.Contains(s.Err.Error(), "'r'") {
		t.Errorf("a link to a file: %v", s.Err)
	}
	other := filepath.Join(dir, "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "progress.json"), []byte("root"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, state); err != nil {
		t.Fatal(err)
	}
	if s := Read("dev", filepath.Join(state, "progress.json")); s.Err == nil || !strings.Contains(s.Err.Error(), "is a link") {
		t.Errorf("a link to a folder: %v", s.Err)
	}
}
