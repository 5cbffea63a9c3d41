// Package dirwatch is what the folder watchers (queryfiles' queries folders,
// progress files) share: fsnotify watches on folders, counted by how many
// holders watch through each and kept on the nearest existing ancestor of a
// folder until the folder appears, and debounce timers whose superseded
// fires are told apart by a generation.
package dirwatch

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
)

// Folders are the folders watched through one fsnotify watcher, each with
// the number of holders watching through it. It is not safe for concurrent
// use: its owner's lock guards it.
type Folders struct {
	fsw  *fsnotify.Watcher
	refs map[string]int // folder watched → holders watching through it
}

// NewFolders returns no folders watched yet through fsw.
func NewFolders(fsw *fsnotify.Watcher) *Folders {
	return &Folders{fsw: fsw, refs: map[string]int{}}
}

// Follow moves a holder's watch, the folder at *at ("" for none), to dir
// if it is a folder, else to its nearest ancestor that is: deeper as
// folders appear, higher as they go. left, when not nil, is called with
// each folder the watch leaves. It loops because a folder may be made
// between finding the nearest one and watching it. On an error the watch
// stays where it was.
func (f *Folders) Follow(at *string, dir string, left func(folder string)) error {
	for range 64 {
		target := nearestDir(dir)
		if target == *at {
			return nil
		}
		if err := f.watch(target); err != nil {
			return err
		}
		f.unwatch(*at)
		if left != nil {
			left(*at)
		}
		*at = target
	}
	return nil
}

// Forget drops folder, removed or renamed, so that it is watched afresh
// if it comes back. It reports whether it was watched: the holders
// watching through it must then set their watch to "".
func (f *Folders) Forget(folder string) bool {
	if f.refs[folder] == 0 {
		return false
	}
	delete(f.refs, folder)
	_ = f.fsw.Remove(folder)
	return true
}

// watch adds a reference to folder, watching it if it is new.
func (f *Folders) watch(folder string) error {
	if f.refs[folder] == 0 {
		if err := f.fsw.Add(folder); err != nil {
			return err
		}
	}
	f.refs[folder]++
	return nil
}

// unwatch drops a reference to folder, unwatching it at the last.
func (f *Folders) unwatch(folder string) {
	if folder == "" || f.refs[folder] == 0 {
		return
	}
	f.refs[folder]--
	if f.refs[folder] == 0 {
		delete(f.refs, folder)
		_ = f.fsw.Remove(folder) // already gone if the folder was removed
	}
}

// nearestDir is dir if it is a folder, else its nearest ancestor that is.
func nearestDir(dir string) string {
	for {
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return dir
		}
		dir = parent
	}
}

// Within reports whether path lies inside the folder dir.
func Within(dir, path string) bool {
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(path, dir)
}

// Timer is a debounce timer: each Start supersedes the one before, and
// the generation it hands to its fire function tells a superseded fire
// (already under way when it was superseded) from the latest. The zero
// Timer is ready. Like Folders, its owner's lock guards it.
type Timer struct {
	t   *time.Timer
	gen uint64
}

// Start (re)starts the timer: after d, fire is called on a goroutine of
// its own with this start's generation.
func (t *Timer) Start(d time.Duration, fire func(gen uint64)) {
	t.gen++
	gen := t.gen
	t.Stop()
	t.t = time.AfterFunc(d, func() { fire(gen) })
}

// Latest reports whether gen is the latest start's.
func (t *Timer) Latest(gen uint64) bool { return t.gen == gen }

// Stop stops the timer, if it was started.
func (t *Timer) Stop() {
	if t.t != nil {
		t.t.Stop()
	}
}
