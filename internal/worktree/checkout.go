package worktree

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// An agent that works in the checkout itself (no worktree) writes its
// objects to a folder of its own too, <git dir>/teamlead-objects/
// @checkout-<agent>, shown at <git dir>/objects in its sandbox with the
// human's read-only behind it, as a worktree agent's are. With the human's
// objects writable to it, such an agent waited for teamlead diff to read
// a blob another agent had made, wrote other content behind its id, and
// teamlead merge checked that out (red team 14a, finding 1). The console
// copies what it wrote, checked, every second (ImportCheckout); until
// then the human's git does not find its new commits.

// checkoutID names the object folder of the agent that works in a
// checkout; "@" is in no agent's name, so no worktree's is the same.
func checkoutID(agent string) string { return "@checkout-" + agent }

// CheckoutObjects returns the binds that give the agent working in the
// checkout dir is in its own object folder, made if missing; nil where
// dir is in no checkout with a .git folder.
func CheckoutObjects(dir, agent string) ([]Bind, error) {
	top := checkoutTop(dir)
	if top == "" {
		return nil, nil
	}
	gitDir := filepath.Join(top, ".git")
	own, err := privateObjects(gitDir, checkoutID(agent))
	if err != nil {
		return nil, err
	}
	// The folder of the agents' object folders read-only: the agent
	// writes its own through .git/objects alone.
	return append(objectBinds(gitDir, own), Bind{Path: filepath.Join(gitDir, objectsFolder)}), nil
}

// objectBinds show own at <git dir>/objects, with the repository's objects
// read-only behind it at its info/main, and own's alternates read-only:
// they name info/main, and an agent that changed them would have the
// console's copy read other folders.
func objectBinds(gitDir, own string) []Bind {
	objects := filepath.Join(gitDir, "objects")
	return []Bind{{Path: objects, From: own, Writable: true}, {Path: filepath.Join(objects, "info", "main"), From: objects},
		{Path: filepath.Join(objects, "info", "alternates"), From: filepath.Join(own, "info", "alternates")}}
}

// Looked remembers, for ImportCheckout, what an agent's object folder and
// the checkout's index and logs looked like at the last copy, so that an
// unchanged one costs a few stats; every fifth look is made anyway (a ref
// moved to an object written earlier changes none of them).
type Looked struct {
	stamp   string
	skipped int
	// Commits are the commits the last copy took in, oldest first, for
	// the audit: the human's git shows them as anyone's, under the author
	// the agent chose (red team 16a, finding 9).
	Commits []Commit
}

// Commit is a commit an agent wrote: its id and subject.
type Commit struct {
	ID, Subject string
}

// ImportCheckout copies into the repository's objects, checked as
// ImportObjects does, what the agent working in the checkout dir is in
// wrote that the repository's refs, HEAD, index, logs and the *_HEAD files
// name, when its folder changed since last (nil: always).
func ImportCheckout(dir, agent string, last *Looked) error {
	top := checkoutTop(dir)
	if top == "" {
		return nil
	}
	gitDir := filepath.Join(top, ".git")
	private := filepath.Join(gitDir, objectsFolder, checkoutID(agent))
	stamp := folderStamp(private)
	if stamp == "" {
		return nil
	}
	for _, f := range []string{"index", "HEAD", "packed-refs", "logs/HEAD", "refs/heads"} {
		if st, err := os.Stat(filepath.Join(gitDir, filepath.FromSlash(f))); err == nil {
			stamp += " " + f + "@" + st.ModTime().Format(time.RFC3339Nano)
		}
	}
	if last != nil && last.stamp == stamp && last.skipped < 4 {
		last.skipped++
		return nil
	}
	through, err := throughFolder(top, private)
	if err != nil {
		return err
	}
	tips, err := checkoutTips(top, through)
	if err != nil {
		return err
	}
	// What the repository holds is whole; what it lacks is the agent's.
	have, err := presentObjects(top, tips)
	if err != nil {
		return err
	}
	copied, err := copyObjects(top, private, through, tips, have, "agent "+agent+" (working in "+top+")",
		"look at your git log and git status there, and ask the agent to commit its work again")
	if err == nil && last != nil {
		last.stamp, last.skipped = stamp, 0
		last.Commits = commitsAmong(top, copied)
	}
	return err
}

// commitsAmong returns the commits among ids, in repo, oldest first.
func commitsAmong(repo string, ids []string) []Commit {
	if len(ids) == 0 {
		return nil
	}
	types, err := runner{dir: repo, stdin: []byte(strings.Join(ids, "\n") + "\n")}.run("cat-file", "--batch-check=%(objecttype) %(objectname)")
	if err != nil {
		return nil
	}
	var commits []string
	for _, l := range strings.Split(string(types), "\n") {
		if id, ok := strings.CutPrefix(l, "commit "); ok {
			commits = append(commits, id)
		}
	}
	if len(commits) == 0 {
		return nil
	}
	out, err := runner{dir: repo, stdin: []byte(strings.Join(commits, "\n") + "\n")}.run("log", "--no-walk", "--reverse", "--stdin", "--format=%H%x00%s")
	if err != nil {
		return nil
	}
	var found []Commit
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if id, subject, ok := strings.Cut(l, "\x00"); ok {
			found = append(found, Commit{ID: id, Subject: subject})
		}
	}
	return found
}

// folderStamp sums up an object folder by the times its folders changed
// (a new loose object changes its fan-out folder's, a new pack pack's);
// "" when it is no folder.
func folderStamp(dir string) string {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return ""
	}
	var b strings.Builder
	b.WriteString(st.ModTime().Format(time.RFC3339Nano))
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if fi, err := e.Info(); err == nil && e.IsDir() {
			b.WriteString(" " + e.Name() + "@" + fi.ModTime().Format(time.RFC3339Nano))
		}
	}
	return b.String()
}

// checkoutTips are the ids the checkout's refs (read through the agent's
// folder: git skips a ref whose object it cannot find), HEAD and the other
// *_HEAD files, logs and index name.
func checkoutTips(top string, through runner) ([]string, error) {
	gitDir := filepath.Join(top, ".git")
	out, err := through.run("for-each-ref", "--format=%(objectname)")
	if err != nil {
		return nil, err
	}
	tips := strings.Fields(string(out))
	files := []string{}
	for _, f := range []string{"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "CHERRY_PICK_HEAD", "REVERT_HEAD", "AUTO_MERGE"} {
		files = append(files, filepath.Join(gitDir, f))
	}
	_ = filepath.WalkDir(filepath.Join(gitDir, "logs"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		b, err := fsutil.ReadHead(f, 64<<20, syscall.O_NOFOLLOW)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			for i, w := range strings.Fields(l) {
				if i > 1 {
					break // a log line's old and new ids come first
				}
				if len(w) >= 40 && isCommitID(w) {
					tips = append(tips, w)
				}
			}
		}
	}
	if out, err := (runner{dir: top}).run("ls-files", "-s", "-z"); err == nil {
		for _, e := range strings.Split(string(out), "\x00") {
			if f := strings.Fields(e); len(f) > 1 && f[0] != "160000" && isCommitID(f[1]) {
				tips = append(tips, f[1])
			}
		}
	}
	return tips, nil
}

// presentObjects are those of ids the repository holds.
func presentObjects(repo string, ids []string) ([]string, error) {
	missing, err := missingObjects(repo, ids)
	if err != nil {
		return nil, err
	}
	gone := map[string]bool{}
	for _, id := range missing {
		gone[id] = true
	}
	var out []string
	for _, id := range ids {
		if !gone[id] {
			out = append(out, id)
		}
	}
	return out, nil
}
