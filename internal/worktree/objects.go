package worktree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// Each worktree agent writes its objects to a folder of its own,
// <common>/teamlead-objects/<id>, which its sandbox shows at
// <common>/objects, with the repository's objects read-only behind it
// (the folder's info/main, its alternate). Git does not check an object's
// hash when it reads one: with the repository's objects writable, an
// agent replaced the content behind the ids teamlead merge had shown, of
// its branch and of the human's history (red team 12a, finding 2).
//
// Nothing of the human's reads that folder: the repository does not list
// it among its alternates. Listed there, it let an agent's pack stand for
// the human's own loose objects (git looks in every pack before any loose
// object), its commit-graph describe the human's commits, and merge-tree
// leave the merge's objects in it, swapped after the human said yes (red
// team 13c, findings 1 to 3). Instead, what the agent wrote is copied
// into the repository's objects, hash by hash (ImportObjects), as the
// console looks at the worktree (every few seconds) and before anything
// of it is shown or merged; the human's git sees the agent's commits once
// they are copied. The folder is outside the worktree's own git dir so
// that `git worktree prune` leaves what was not copied yet.
const objectsFolder = "teamlead-objects"

// ErrObjectsChanged: an agent's object does not hold what its id says.
var ErrObjectsChanged = errors.New("an object of the agent's does not match its id")

// privateObjects makes the agent's object folder, and returns it. The
// agent writes in that folder: anything but a folder where one is
// expected (a link to a folder of the human's) is removed first.
func privateObjects(common, id string) (string, error) {
	dir := filepath.Join(common, objectsFolder, id)
	for _, d := range []string{filepath.Join(common, objectsFolder), dir, filepath.Join(dir, "pack"), filepath.Join(dir, "info"), filepath.Join(dir, "info", "main")} {
		if err := realFolder(d); err != nil {
			return "", err
		}
	}
	// Relative to the folder: inside the sandbox, where the folder is
	// <common>/objects, info/main is the repository's objects; outside, an
	// empty folder. Written at each start: the agent may have changed it.
	if err := writeFileAtomic(filepath.Join(dir, "info", "alternates"), []byte("info/main\n")); err != nil {
		return "", err
	}
	return dir, dropAlternates(common)
}

// dropAlternates removes the agents' folders from the repository's
// alternates, where an earlier teamlead listed them.
func dropAlternates(common string) error {
	path := filepath.Join(common, "objects", "info", "alternates")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var keep []string
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), filepath.Join(common, objectsFolder)+string(filepath.Separator)) {
			keep = append(keep, l)
		}
	}
	return writeFileAtomic(path, []byte(strings.Join(keep, "")))
}

// writeFileAtomic puts a file holding b at path, in a folder that exists,
// unless a file holding b is there. It follows no link an agent may have
// put there: not at path (the rename replaces it), nor at the temporary
// file's name (fsutil's is new, made exclusively). Once, a link at a fixed
// temporary name had the console write "info/main" into a file of the
// agent's choosing, the human's ~/.bashrc, whose shell then ran the
// agent's ./info/main.
func writeFileAtomic(path string, b []byte) error {
	if st, err := os.Lstat(path); err == nil && st.Mode().IsRegular() {
		if old, err := fsutil.ReadRegular(path); err == nil && bytes.Equal(old, b) {
			return nil
		}
	}
	return fsutil.WriteFileAtomic(path, b, 0o644)
}

// realFolder makes the folder p, replacing whatever else is at its name
// (a link, a file): the console then writes into the folder itself.
func realFolder(p string) error {
	st, err := os.Lstat(p)
	switch {
	case err == nil && st.IsDir():
		return nil
	case err == nil:
		if err := os.Remove(p); err != nil {
			return err
		}
	case !errors.Is(err, os.ErrNotExist):
		return err
	}
	return os.Mkdir(p, 0o755)
}

// ImportObjects copies into the repository's objects, verified, what the
// agent of t wrote that the repository's refs, its worktree's HEAD and
// index, and their logs may name: the objects reachable from the
// teamlead/ branches, the remote-tracking refs, the worktree's HEAD,
// every id their logs hold and the blobs of the worktree's index, that
// the repository's branches and tags do not reach. git index-pack (or
// unpack-objects) names each object by the hash of what it stores, so an
// object whose content was replaced behind its id comes in under another
// id, and the one asked for is still missing from the repository: then
// nothing is shown or merged (ErrObjectsChanged). Objects already there
// are not copied again. Once copied an object is the human's: the
// repository's objects come first, and no agent can write them.
//
// Then the agent's branch is taken from its own folder of refs, and the
// other branches put in it (syncRefs).
func ImportObjects(t Tree) error {
	if err := importObjects(t); err != nil {
		return err
	}
	return syncRefs(t)
}

func importObjects(t Tree) error {
	if t.GitDir == "" || t.Repo == "" {
		return nil
	}
	common := filepath.Dir(filepath.Dir(t.GitDir))
	private := filepath.Join(common, objectsFolder, filepath.Base(t.GitDir))
	if st, err := os.Stat(private); err != nil || !st.IsDir() {
		return nil // an agent that never ran in a sandbox: its objects are the repository's
	}
	through, err := throughFolder(t.Repo, private)
	if err != nil {
		return err
	}
	tips, err := agentTips(t, through)
	if err != nil {
		return err
	}
	// What the repository's own branches and tags reach is whole.
	out, err := runner{dir: t.Repo}.run("for-each-ref", "--format=%(objectname) %(refname)", "refs/heads/", "refs/tags/")
	if err != nil {
		return err
	}
	var have []string
	for _, l := range strings.Split(string(out), "\n") {
		if id, name, ok := strings.Cut(l, " "); ok && !strings.HasPrefix(name, "refs/heads/teamlead/") {
			have = append(have, id)
		}
	}
	_, err = copyObjects(t.Repo, private, through, tips, have,
		"agent "+filepath.Base(t.GitDir), "look at its branch "+t.Branch+", and ask it to commit its work again")
	return err
}

// throughFolder runs git in repo with the agent's object folder private
// behind the repository's: read for the walk and the copy alone.
func throughFolder(repo, private string) (runner, error) {
	own, err := ownGitDir(repo)
	if err != nil {
		return runner{}, err
	}
	return runner{dir: repo, env: append(own, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+private)}, nil
}

// oddFile names the first entry of an agent's object folder, and of its
// fan-out, pack and info folders, that is neither a regular file nor a
// folder where git keeps those ("" when none): git reading a FIFO put
// there as an object held the console's copy and every look, diff and
// merge behind it (red team 15a, finding 4). One look at the folders'
// entries, no stat of their files.
func oddFile(private string) string {
	ents, err := os.ReadDir(private)
	if err != nil {
		return ""
	}
	for _, e := range ents {
		p := filepath.Join(private, e.Name())
		if !e.IsDir() {
			if !e.Type().IsRegular() {
				return p
			}
			continue
		}
		if e.Name() == "info" {
			continue // info/main is the repository's objects, bound in the sandbox; info/alternates is rewritten at each start
		}
		sub, _ := os.ReadDir(p)
		for _, f := range sub {
			if !f.Type().IsRegular() {
				return filepath.Join(p, f.Name())
			}
		}
	}
	return ""
}

// copyObjects copies into repo's objects what tips reach that repo lacks
// and the ids of have (which repo holds with all they reach) do not,
// read through the agent's folder private. whose and what say, in an error,
// whose objects were refused and what to do.
func copyObjects(repo, private string, through runner, tips, have []string, whose, what string) (copied []string, err error) {
	if odd := oddFile(private); odd != "" {
		return nil, fmt.Errorf("%w: %s, in the folder of the objects %s wrote, is not a file git keeps there (a FIFO or a link holds git): nothing of it is copied; remove it (rm %s)", ErrObjectsChanged, odd, whose, odd)
	}
	// Those the repository holds are in with all they reach (every copy
	// takes what an object reaches, and the human's history is whole).
	tips, err = missingObjects(repo, tips)
	if err != nil || len(tips) == 0 {
		return nil, err
	}
	walk := tips
	for _, id := range have {
		walk = append(walk, "^"+id)
	}
	through.stdin = []byte(strings.Join(walk, "\n") + "\n")
	out, err := through.run("rev-list", "--objects", "--no-object-names", "--ignore-missing", "--missing=allow-any", "--stdin")
	if err != nil {
		return nil, err
	}
	missing, err := missingObjects(repo, strings.Fields(string(out)))
	if err != nil || len(missing) == 0 {
		return nil, err
	}
	through.stdin = []byte(strings.Join(missing, "\n") + "\n")
	pack, err := through.run("pack-objects", "--stdout", "-q")
	if err != nil {
		return nil, err
	}
	// Few objects go in loose, as a fetch does (fetch.unpackLimit).
	store := "unpack-objects"
	if len(missing) >= 100 {
		store = "index-pack"
	}
	// --strict: what git fsck calls broken or dangerous (a tree holding a
	// .git, duplicate entries) is not taken either (red team 13d, finding 3).
	args := []string{store, "-q", "--strict"}
	if store == "index-pack" {
		args = []string{store, "--stdin", "--strict"}
	}
	if _, err := (runner{dir: repo, stdin: pack}).run(args...); err != nil {
		return nil, fmt.Errorf("%w: git %s took none of the objects %s wrote (%v): written over, or broken; nothing of them is shown or merged: %s",
			ErrObjectsChanged, store, whose, err, what)
	}
	still, err := missingObjects(repo, missing)
	if err != nil {
		return nil, err
	}
	if len(still) > 0 {
		return nil, fmt.Errorf("%w: %d of the objects %s wrote (%s first) hold other content than their ids say: written over after they were made; nothing of them is shown or merged: %s",
			ErrObjectsChanged, len(still), whose, still[0], what)
	}
	return missing, nil
}

// agentTips are the ids the agent's refs, HEAD, logs and index name.
func agentTips(t Tree, r runner) ([]string, error) {
	common := filepath.Dir(filepath.Dir(t.GitDir))
	out, err := r.run("for-each-ref", "--format=%(objectname)", "refs/heads/teamlead/")
	if err != nil {
		return nil, err
	}
	tips := strings.Fields(string(out))
	// The agent writes these files: read through no link, never a FIFO
	// (it held the console's look at the worktree), and no more of a log
	// than a long one holds (a file of gigabytes costs an agent nothing).
	if b, err := fsutil.ReadHead(filepath.Join(t.GitDir, "HEAD"), 64<<10, syscall.O_NOFOLLOW); err == nil {
		if id := strings.TrimSpace(string(b)); isCommitID(id) {
			tips = append(tips, id) // detached
		}
	}
	// Its own branch, as its folder of refs has it (refs.go), and the
	// logs there.
	own := filepath.Join(common, refsFolder, filepath.Base(t.GitDir))
	if id := readRefID(filepath.Join(own, "heads", filepath.Base(t.Branch))); id != "" {
		tips = append(tips, id)
	}
	logs := []string{filepath.Join(t.GitDir, "logs", "HEAD")}
	for _, dir := range []string{filepath.Join(common, "logs", "refs", "heads", "teamlead"), filepath.Join(own, "logs")} {
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			if e.Type().IsRegular() {
				logs = append(logs, filepath.Join(dir, e.Name()))
			}
		}
	}
	for _, l := range logs {
		b, err := fsutil.ReadHead(l, 64<<20, syscall.O_NOFOLLOW)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) > 1 && isCommitID(f[1]) {
				tips = append(tips, f[1])
			}
		}
	}
	idx := runner{dir: t.Path, pre: []string{"--git-dir=" + t.GitDir, "--work-tree=" + t.Path}, env: append(r.env, "GIT_COMMON_DIR="+common)}
	if out, err := idx.run("ls-files", "-s", "-z"); err == nil {
		for _, e := range strings.Split(string(out), "\x00") {
			if f := strings.Fields(e); len(f) > 1 && isCommitID(f[1]) {
				tips = append(tips, f[1])
			}
		}
	}
	seen := map[string]bool{}
	var out2 []string
	for _, id := range tips {
		if !seen[id] {
			seen[id] = true
			out2 = append(out2, id)
		}
	}
	return out2, nil
}

// missingObjects are those of ids the repository's own objects lack.
func missingObjects(repo string, ids []string) ([]string, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	out, err := runner{dir: repo, stdin: []byte(strings.Join(ids, "\n") + "\n")}.run("cat-file", "--batch-check=%(objectname)")
	if err != nil {
		return nil, err
	}
	var miss []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if id, ok := strings.CutSuffix(sc.Text(), " missing"); ok {
			miss = append(miss, id)
		}
	}
	return miss, sc.Err()
}

// setAsideFolder holds the object folders set aside (SetAside); "@" is in
// no agent's name, so no agent's folder is this one.
const setAsideFolder = "@set-aside"

// ImportObjectsOrSetAside is ImportObjects at a console's start, where an
// object folder that cannot be copied (ErrObjectsChanged: an object
// written over, a FIFO) stops not the whole team but is set aside: note
// says where and why, for Activity (red team 16a, finding 11: a FIFO in
// one agent's objects failed every next teamlead run until removed by
// hand).
func ImportObjectsOrSetAside(t Tree) (note string, err error) {
	err = ImportObjects(t)
	if !errors.Is(err, ErrObjectsChanged) {
		return "", err
	}
	common := filepath.Dir(filepath.Dir(t.GitDir))
	return setAside(filepath.Join(common, objectsFolder, filepath.Base(t.GitDir)), err, "its branch "+t.Branch+" may name commits that are only there")
}

// ImportCheckoutOrSetAside is ImportCheckout at a console's start, with
// ImportObjectsOrSetAside's setting aside.
func ImportCheckoutOrSetAside(dir, agent string) (note string, err error) {
	err = ImportCheckout(dir, agent, nil)
	if !errors.Is(err, ErrObjectsChanged) {
		return "", err
	}
	top := checkoutTop(dir)
	return setAside(filepath.Join(top, ".git", objectsFolder, checkoutID(agent)), err, "the branches it moved in "+top+" may name commits that are only there")
}

// setAside moves the object folder private, whose copy failed with why,
// into setAsideFolder under a dated name (made anew, empty, when the
// agent starts), and says so; lost says what may point into it.
func setAside(private string, why error, lost string) (string, error) {
	dir := filepath.Join(filepath.Dir(private), setAsideFolder)
	if err := realFolder(dir); err != nil {
		return "", fmt.Errorf("%w; setting it aside: %v", why, err)
	}
	to := filepath.Join(dir, filepath.Base(private)+"-"+time.Now().UTC().Format("20060102T150405.000000000Z"))
	if err := os.Rename(private, to); err != nil {
		return "", fmt.Errorf("%w; setting it aside: %v", why, err)
	}
	return fmt.Sprintf("%v. The folder was set aside, nothing of it copied, and the team started: it is now %s (%s; to look at them: GIT_ALTERNATE_OBJECT_DIRECTORIES=%s git log --all; remove the folder once done)", why, to, lost, to), nil
}
