// Package guard keeps teamlead's own files (the team file, its permission
// policy, answerers, consultations and presets) from being changed behind
// the human's back. An agent runs as the human's user and can write them;
// nothing it writes takes effect while the console runs (they are read at
// start), but the next start would trust it: a permissions.yaml that allows
// curl, an answerers.yaml whose notify runs the agent's script. So the
// console remembers the content it started with, watches the files while
// agents run, and a change seen then takes effect only once the human has
// looked at it (teamlead config diff) and accepted it (teamlead config
// accept). Changes made while no console runs are the human's own, except
// a file that appeared: that one is always looked at first.
package guard

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/aymanbagabas/go-udiff"

	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/store"
)

// maxKept bounds the content kept of each file for diffs; the hash always
// covers the whole file.
const maxKept = 256 << 10

// File is what is known of one file at one moment.
type File struct {
	Missing bool   `json:"missing,omitempty"`
	Hash    string `json:"hash,omitempty"` // sha256 of the whole content
	Content string `json:"content,omitempty"`
	Cut     bool   `json:"cut,omitempty"` // Content holds only the first maxKept bytes
	Err     string `json:"err,omitempty"` // why it could not be read
	// Unknown: nothing is known of the file's accepted content (the store
	// was rebuilt from the streams, which do not carry it): no content is
	// the same, a missing file's neither.
	Unknown bool `json:"unknown,omitempty"`
}

// Snapshot is the files by their cleaned absolute paths.
type Snapshot map[string]File

// Take reads paths now.
func Take(paths []string) Snapshot {
	s := Snapshot{}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			s[abs] = read(abs)
		}
	}
	return s
}

// read reads a regular file without waiting on a FIFO an agent put there.
func read(path string) File {
	f, err := fsutil.OpenRegular(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return File{Missing: true}
	case errors.Is(err, fsutil.ErrNotRegular):
		return File{Err: "not a regular file", Hash: "not-regular"}
	case err != nil:
		return File{Err: err.Error(), Hash: "unreadable"}
	}
	defer f.Close()
	h := sha256.New()
	var kept strings.Builder
	n, err := io.Copy(io.MultiWriter(h, &limited{&kept, maxKept}), f)
	if err != nil {
		return File{Err: err.Error(), Hash: "unreadable"}
	}
	return File{Hash: hex.EncodeToString(h.Sum(nil)), Content: kept.String(), Cut: n > maxKept}
}

// limited writes at most n bytes to w and swallows the rest.
type limited struct {
	w *strings.Builder
	n int
}

func (l *limited) Write(p []byte) (int, error) {
	if left := l.n - l.w.Len(); left > 0 {
		l.w.Write(p[:min(len(p), left)])
	}
	return len(p), nil
}

func (f File) same(o File) bool {
	return !f.Unknown && !o.Unknown && f.Missing == o.Missing && f.Hash == o.Hash
}

// State is what the store keeps between consoles.
type State struct {
	// Accepted is the content the human stands behind: what the last
	// console started with, or what the human accepted since.
	Accepted Snapshot `json:"accepted"`
	// Changed are the files seen changing while agents ran, with when.
	Changed map[string]time.Time `json:"changed,omitempty"`
	// Running is set while a console runs on the state; a console that
	// ends without clearing it (killed) leaves every difference unexplained.
	Running bool `json:"running"`
	// Shown is what `teamlead config diff` last showed the human of each
	// file (File.Key): `config accept` takes a file only as it was shown,
	// never as an agent changed it since (red team 9a, finding 14).
	Shown map[string]string `json:"shown,omitempty"`
}

// Key says which content f is: its hash, or "missing".
func (f File) Key() string {
	if f.Missing {
		return "missing"
	}
	return f.Hash
}

// Show records that the human was shown the files of now named.
func (s *State) Show(now Snapshot, paths ...string) {
	if s.Shown == nil {
		s.Shown = map[string]string{}
	}
	for _, p := range paths {
		s.Shown[p] = now[p].Key()
	}
}

// NotAsShown returns the files of paths whose content now is not what
// the human was last shown of them (or that were never shown).
func (s State) NotAsShown(now Snapshot, paths ...string) []string {
	var out []string
	for _, p := range paths {
		if k, ok := s.Shown[p]; !ok || k != now[p].Key() {
			out = append(out, p)
		}
	}
	return out
}

// metaKey is where the store keeps the State.
const metaKey = "guard/state"

// Forgotten is the State of a store rebuilt from the team's streams: the
// human's acceptance of paths did not come back with it (a stream must
// not vouch for a policy file), so every one of them waits for the human,
// whatever it holds, as one changed while agents ran (red team 14c,
// finding 2: a rebuilt console started on a permissions.yaml an agent
// had made).
func Forgotten(paths []string) State {
	s := State{Accepted: Snapshot{}}
	for _, p := range paths {
		if abs, err := filepath.Abs(p); err == nil {
			s.Accepted[abs] = File{Unknown: true}
		}
	}
	return s
}

// Meta is s as the store keeps it, for a commit of the caller's (a
// rebuild writes it with its last step, so no rebuilt store is ever
// without it).
func (s State) Meta() (map[string]string, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	return map[string]string{metaKey: string(b)}, nil
}

// Forgot reports whether path's accepted content was lost with the store.
func (s State) Forgot(path string) bool { return s.Accepted[path].Unknown }

// Load returns the State of st; found is false before any console ran.
func Load(st *store.Store) (s State, found bool, err error) {
	v, ok, err := st.Meta(metaKey)
	if err != nil || !ok {
		return State{}, false, err
	}
	if err := json.Unmarshal([]byte(v), &s); err != nil {
		return State{}, false, fmt.Errorf("the store's record of teamlead's files is damaged (%v)", err)
	}
	return s, true, nil
}

// Save writes s to st.
func Save(st *store.Store, s State) error {
	meta, err := s.Meta()
	if err != nil {
		return err
	}
	return st.Commit(&store.Batch{Meta: meta})
}

// Unaccepted returns the files of now that need the human's word before a
// console uses them: each seen changing while agents ran and not back to
// its accepted content, and, after a console that did not end (killed),
// every file that differs from what it started with.
//
// With strict (another team's console has run on this machine: its agents
// can write this team's files, which its sandboxes may not know to
// protect), every file that differs from its accepted content needs the
// human's word, whenever it changed.
func (s State) Unaccepted(now Snapshot, strict bool) []string {
	var out []string
	for p, f := range now {
		acc, known := s.Accepted[p]
		if !known || f.same(acc) {
			continue // a file no console watched (another --config) is the human's choice
		}
		if strict {
			out = append(out, p)
			continue
		}
		// A file of teamlead's that was not there is never taken silently,
		// whenever it appeared: a sandbox protects only files that exist,
		// so an agent (of another console, or a program doctor probed)
		// could have made it while no console of this team ran.
		if _, seen := s.Changed[p]; seen || s.Running || acc.Unknown || acc.Missing && !f.Missing {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Accept makes paths' content in now the accepted one (every file of now
// when paths is empty) and forgets that they changed.
func (s *State) Accept(now Snapshot, paths ...string) {
	if s.Accepted == nil {
		s.Accepted = Snapshot{}
	}
	for p, f := range now {
		if len(paths) == 0 || slices.Contains(paths, p) {
			s.Accepted[p] = f
			delete(s.Changed, p)
			delete(s.Shown, p)
		}
	}
}

// Diff is a unified diff from the accepted content of path to f.
func (s State) Diff(path string, f File) string {
	acc := s.Accepted[path]
	if f.Err != "" {
		return fmt.Sprintf("%s: cannot be read now: %s\n", path, f.Err)
	}
	label := func(x File, what string) string {
		if x.Unknown {
			return "/dev/null (" + what + ": nothing on record, the store was rebuilt)"
		}
		if x.Missing {
			return "/dev/null (" + what + ": no file)"
		}
		return path + " (" + what + ")"
	}
	d := udiff.Unified(label(acc, "accepted"), label(f, "now"), acc.Content, f.Content)
	if acc.Cut || f.Cut {
		d += fmt.Sprintf("(only the first %d KiB of the file are compared here)\n", maxKept>>10)
	}
	return d
}

// Guard watches the files of a running console.
type Guard struct {
	mu    sync.Mutex
	st    *store.Store
	state State
	base  Snapshot // what the console started with, and what it wrote since
}

// Open checks paths against what st remembers before a console starts on
// it. With files that need the human's word first, it returns them and no
// Guard; otherwise their content is now the accepted one, and the Guard
// watches them until Close.
func Open(st *store.Store, paths []string, strict bool) (*Guard, []string, error) {
	state, found, err := Load(st)
	if err != nil {
		return nil, nil, err
	}
	now := Take(paths)
	if found {
		if bad := state.Unaccepted(now, strict); len(bad) > 0 {
			return nil, bad, nil
		}
	}
	state.Accept(now)
	state.Changed = nil
	state.Running = true
	if err := Save(st, state); err != nil {
		return nil, nil, err
	}
	return &Guard{st: st, state: state, base: now}, nil, nil
}

// Run looks at the files every interval until ctx ends, and calls changed
// (on Run's goroutine) the first time each one differs from what the
// console started with, recording it in the store: it will need the
// human's word before the next console uses it. Polling is enough for a
// handful of small files, and sees a file replaced by rename, created
// later, or in a folder made later, with no watches to keep.
func (g *Guard) Run(ctx context.Context, every time.Duration, changed func(path string)) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, p := range g.look() {
			changed(p)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// look returns the files newly seen changed, recorded.
func (g *Guard) look() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var fresh []string
	for p, f := range Take(slices.Collect(maps.Keys(g.base))) {
		if _, seen := g.state.Changed[p]; seen || f.same(g.base[p]) {
			continue
		}
		g.changed(p)
		fresh = append(fresh, p)
	}
	if len(fresh) > 0 {
		_ = Save(g.st, g.state) // a failed write shows at the next start as a console that did not end
	}
	sort.Strings(fresh)
	return fresh
}

// changed records that p changed while the console ran.
func (g *Guard) changed(p string) {
	if g.state.Changed == nil {
		g.state.Changed = map[string]time.Time{}
	}
	g.state.Changed[p] = time.Now()
}

// ErrChanged: the file was changed by someone else while the console ran;
// the console will not build on it before the human has looked.
var ErrChanged = errors.New("changed while the agents ran, not by this console: look at it (teamlead config diff) before anything is added to it")

// Write makes the console's own change of path on the human's word (an
// approve-always rule added to the policy): change gets the content the
// guard accepted (nil for a file that is not there) and returns the new
// content, which is written in place (fsutil.Rewrite: a sandbox's
// read-only bind holds the file) and taken as accepted, and returned for
// the console to use; no look at the files falls between. The new content
// is built from what was accepted, never from what is there: a file
// someone else changed is not written (ErrChanged), and one changed
// while it was being written (an agent holding it open) is not accepted
// (ErrChanged, and recorded as changed) — the console would otherwise
// load their changes with its own (red team 10a, finding 8).
func (g *Guard) Write(path string, change func(current []byte) ([]byte, error)) ([]byte, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	current, err := fsutil.ReadRegular(abs)
	if errors.Is(err, fs.ErrNotExist) {
		current, err = nil, nil
	}
	if err != nil {
		return nil, err
	}
	base, watched := g.base[abs]
	if watched {
		_, seen := g.state.Changed[abs]
		if !seen && !contentOf(current).same(base) {
			g.changed(abs)
			_ = Save(g.st, g.state)
			seen = true
		}
		if seen {
			return nil, fmt.Errorf("%w: %s", ErrChanged, path)
		}
	}
	out, err := change(current)
	if err != nil {
		return nil, err
	}
	if err := writeOver(abs, current == nil, out); err != nil {
		return nil, err
	}
	if !watched {
		return out, nil
	}
	now := Take([]string{abs})
	if !now[abs].same(contentOf(out)) {
		g.changed(abs)
		_ = Save(g.st, g.state)
		return nil, fmt.Errorf("%w: %s (while the console wrote it)", ErrChanged, path)
	}
	g.base[abs] = now[abs]
	g.state.Accept(now, abs)
	return out, Save(g.st, g.state)
}

// writeOver writes data to path: in place over the file there, or as a new
// file when there was none (failing if one appeared meanwhile).
func writeOver(path string, missing bool, data []byte) error {
	if !missing {
		return fsutil.Rewrite(path, data, fsutil.Perm(path, 0o644))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// contentOf is what is known of a file holding data (nil: none).
func contentOf(data []byte) File {
	if data == nil {
		return File{Missing: true}
	}
	sum := sha256.Sum256(data)
	return File{Hash: hex.EncodeToString(sum[:])}
}

// Close takes a last look and records that the console ended.
func (g *Guard) Close() ([]string, error) {
	fresh := g.look()
	g.mu.Lock()
	defer g.mu.Unlock()
	g.state.Running = false
	return fresh, Save(g.st, g.state)
}

// Differs returns the files whose content a loader parsed (read: sha256
// hex by path, "" for a file that was not there) that is not what the
// guard accepted: the file changed between the two looks, and what was
// loaded is not what the human stands behind.
func (g *Guard) Differs(read map[string]string) []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for p, h := range read {
		abs, err := filepath.Abs(p)
		if err != nil {
			out = append(out, p)
			continue
		}
		f, ok := g.base[abs]
		if !ok {
			continue // not one of the files watched
		}
		if f.Missing != (h == "") || !f.Missing && f.Hash != h {
			out = append(out, abs)
		}
	}
	sort.Strings(out)
	return out
}
