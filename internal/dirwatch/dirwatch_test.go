package dirwatch

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

func TestFollowAndForget(t *testing.T) {
	fsw, err := fsnotify.NewWatcher()
	if err != nil {
		t.Fatal(err)
	}
	defer fsw.Close()
	f := NewFolders(fsw)
	root := t.TempDir()
	dir := filepath.Join(root, "a", "b")

	var one, two string
	var left []string
	note := func(folder string) { left = append(left, folder) }
	if err := f.Follow(&one, dir, note); err != nil || one != root {
		t.Fatalf("follow a missing folder: %q, %v; want %q", one, err, root)
	}
	if err := f.Follow(&two, root, nil); err != nil || two != root {
		t.Fatalf("second holder: %q, %v", two, err)
	}
	if got := fsw.WatchList(); !slices.Equal(got, []string{root}) || f.refs[root] != 2 {
		t.Fatalf("watching %v, refs %v", got, f.refs)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Follow(&one, dir, note); err != nil || one != dir {
		t.Fatalf("follow once made: %q, %v", one, err)
	}
	if !slices.Equal(left, []string{"", root}) {
		t.Errorf("left %q", left)
	}
	got := fsw.WatchList()
	slices.Sort(got)
	if !slices.Equal(got, []string{root, dir}) {
		t.Errorf("watching %v", got)
	}
	if !f.Forget(dir) || f.Forget(dir) {
		t.Error("forget: watched once, then not")
	}
	if err := f.Follow(&two, filepath.Join(root, "gone"), nil); err != nil || two != root {
		t.Errorf("unchanged follow: %q, %v", two, err)
	}
}

func TestWithin(t *testing.T) {
	for _, c := range []struct {
		dir, path string
		want      bool
	}{
		{"/a", "/a/b", true}, {"/a/", "/a/b", true}, {"/a", "/ab", false}, {"/a", "/a", false}, {"/", "/x", true},
	} {
		if got := Within(c.dir, c.path); got != c.want {
			t.Errorf("Within(%q, %q) = %v", c.dir, c.path, got)
		}
	}
}

func TestTimerSupersedes(t *testing.T) {
	var tm Timer
	tm.Stop() // the zero Timer stops
	fired := make(chan uint64, 2)
	tm.Start(time.Hour, func(gen uint64) { fired <- gen })
	first := tm.gen
	tm.Start(0, func(gen uint64) { fired <- gen })
	select {
	case gen := <-fired:
		if !tm.Latest(gen) || tm.Latest(first) || gen == first {
			t.Errorf("fired gen %d, first %d", gen, first)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the timer did not fire")
	}
	tm.Stop()
}

func TestLoop(t *testing.T) {
	l, err := NewLoop[string]()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := l.Notify().Add(dir); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	go l.Run(func(ev fsnotify.Event) { got <- "event " + filepath.Base(ev.Name) }, func() {}, func(m string) { got <- "fire " + m })
	wait := func(want string) {
		t.Helper()
		deadline := time.After(5 * time.Second)
		for {
			select {
			case m := <-got:
				if m == want {
					return
				}
			case <-deadline:
				t.Fatalf("no %q", want)
			}
		}
	}
	l.Send("one")
	wait("fire one")
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	wait("event f")
	stopped := false
	if err := l.Close(func() { stopped = true }); err != nil || !stopped {
		t.Fatalf("close: %v, stop called %v", err, stopped)
	}
	l.Send("after") // dropped, not blocked
	if err := l.Close(func() { t.Error("stop called twice") }); err != nil {
		t.Errorf("second close: %v", err)
	}
}
