package worktree

import (
	"bytes"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/textsafe"
)

// An agent that works in the checkout writes its index: it staged a
// changed Makefile, then wrote the index entry back to the old blob's id
// with the new file's size and times, and the human's git status and git
// diff said the checkout was clean (git trusts a file whose stat matches
// its entry) while make ran the change; git update-index --really-refresh
// and git checkout kept it (red team 14d, finding 2). The console cannot
// keep git from trusting the index, so it looks: a tracked file changed
// since the console started (its ctime, which no process can set back)
// whose content is not what its index entry names, while git does not
// list it as changed, is told.

// Forged looks for such files in one checkout; its zero value is ready.
type Forged struct {
	since  time.Time
	hashed map[string]hashed // path → the content's id at a ctime
}

type hashed struct {
	ctime time.Time
	size  int64
	id    string
}

// maxHashed bounds the files hashed in one look.
const maxHashed = 2000

// Look returns the tracked files of the checkout dir is in whose content
// differs from their index entry while git status shows them unchanged,
// among those changed since the first look.
func (f *Forged) Look(dir string) ([]string, error) {
	top := checkoutTop(dir)
	if top == "" {
		return nil, nil
	}
	if f.since.IsZero() {
		// A file's ctime comes from the kernel's coarse clock, a tick
		// behind time.Now: a little before, so no change after is missed.
		f.since, f.hashed = time.Now().Add(-2*time.Second), map[string]hashed{}
		return nil, nil
	}
	if out, err := git(top, "config", "core.autocrlf"); err == nil && line(out) != "false" {
		return nil, nil // the working files are converted: their ids are not the entries'
	}
	out, err := git(top, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	entry := map[string]string{}
	var toHash []string
	for _, e := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		w := strings.Fields(meta) // mode, id, stage
		if !ok || len(w) != 3 || w[2] != "0" || (w[0] != "100644" && w[0] != "100755") {
			continue
		}
		entry[path] = w[1]
	}
	for path := range entry {
		var st syscall.Stat_t
		if syscall.Lstat(filepath.Join(top, filepath.FromSlash(path)), &st) != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
			continue
		}
		ctime := changeTime(&st)
		if ctime.Before(f.since) {
			continue
		}
		if h, ok := f.hashed[path]; ok && h.ctime.Equal(ctime) && h.size == st.Size {
			continue
		}
		f.hashed[path] = hashed{ctime: ctime, size: st.Size}
		if len(toHash) < maxHashed {
			toHash = append(toHash, path)
		}
	}
	if len(toHash) > 0 {
		ids, err := (runner{dir: top, stdin: []byte(strings.Join(toHash, "\n") + "\n")}).run("hash-object", "--no-filters", "--stdin-paths")
		if err != nil {
			return nil, err
		}
		for i, id := range strings.Fields(string(ids)) {
			if i < len(toHash) {
				h := f.hashed[toHash[i]]
				h.id = id
				f.hashed[toHash[i]] = h
			}
		}
	}
	var differ []string
	for path, h := range f.hashed {
		if id, ok := entry[path]; ok && h.id != "" && h.id != id {
			differ = append(differ, path)
		}
	}
	if len(differ) == 0 {
		return nil, nil
	}
	// Those git lists as changed are not hidden; nor those whose
	// attributes convert them (a filter, an eol or an encoding).
	args := append([]string{"diff-files", "--name-only", "-z", "--"}, differ...)
	listed, err := git(top, args...)
	if err != nil {
		return nil, err
	}
	shown := map[string]bool{}
	for _, p := range strings.Split(string(listed), "\x00") {
		shown[p] = true
	}
	attrs, err := git(top, append([]string{"check-attr", "-z", "filter", "text", "eol", "working-tree-encoding", "ident", "--"}, differ...)...)
	if err != nil {
		return nil, err
	}
	converted := map[string]bool{}
	parts := bytes.Split(attrs, []byte{0})
	for i := 0; i+2 < len(parts); i += 3 {
		if v := string(parts[i+2]); v != "unspecified" && v != "unset" {
			converted[string(parts[i])] = true
		}
	}
	var out2 []string
	for _, p := range differ {
		if !shown[p] && !converted[p] {
			out2 = append(out2, textsafe.Line(p))
		}
	}
	return out2, nil
}
