package worktree

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
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

// privateObjects makes the agent's object folder, and returns it.
func privateObjects(common, id string) (string, error) {
	dir := filepath.Join(common, objectsFolder, id)
	for _, d := range []string{filepath.Join(dir, "pack"), filepath.Join(dir, "info", "main")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
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

func writeFileAtomic(path string, b []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b) {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".teamlead-tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
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
func ImportObjects(t Tree) error {
	if t.GitDir == "" || t.Repo == "" {
		return nil
	}
	common := filepath.Dir(filepath.Dir(t.GitDir))
	private := filepath.Join(common, objectsFolder, filepath.Base(t.GitDir))
	if st, err := os.Stat(private); err != nil || !st.IsDir() {
		return nil // an agent that never ran in a sandbox: its objects are the repository's
	}
	own, err := ownGitDir(t.Repo)
	if err != nil {
		return err
	}
	// The agent's folder is read for the walk and the copy alone.
	through := runner{dir: t.Repo, env: append(own, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+private)}
	tips, err := agentTips(t, through)
	if err != nil {
		return err
	}
	// Those the repository holds are in with all they reach (every copy
	// takes what an object reaches, and the human's history is whole).
	if tips, err = missingObjects(t.Repo, tips); err != nil || len(tips) == 0 {
		return err
	}
	args := append([]string{"rev-list", "--objects", "--no-object-names", "--ignore-missing", "--missing=allow-any"}, tips...)
	out, err := through.run(append(args, "--not", "--exclude=teamlead/*", "--branches", "--tags")...)
	if err != nil {
		return err
	}
	ids := strings.Fields(string(out))
	missing, err := missingObjects(t.Repo, ids)
	if err != nil || len(missing) == 0 {
		return err
	}
	through.stdin = []byte(strings.Join(missing, "\n") + "\n")
	pack, err := through.run("pack-objects", "--stdout", "-q")
	if err != nil {
		return err
	}
	// Few objects go in loose, as a fetch does (fetch.unpackLimit).
	store := "unpack-objects"
	if len(missing) >= 100 {
		store = "index-pack"
	}
	// --strict: what git fsck calls broken or dangerous (a tree holding a
	// .git, duplicate entries) is not taken either (red team 13d, finding 3).
	args = []string{store, "-q", "--strict"}
	if store == "index-pack" {
		args = []string{store, "--stdin", "--strict"}
	}
	if _, err := (runner{dir: t.Repo, stdin: pack}).run(args...); err != nil {
		return fmt.Errorf("%w: git %s took none of the objects agent %s wrote (%v): written over, or broken; nothing of them is shown or merged: look at its branch %s, and ask it to commit its work again",
			ErrObjectsChanged, store, filepath.Base(t.GitDir), err, t.Branch)
	}
	still, err := missingObjects(t.Repo, missing)
	if err != nil {
		return err
	}
	if len(still) > 0 {
		return fmt.Errorf("%w: %d of the objects agent %s wrote (%s first) hold other content than their ids say: written over after they were made; nothing of them is shown or merged: look at its branch %s, and ask it to commit its work again",
			ErrObjectsChanged, len(still), filepath.Base(t.GitDir), still[0], t.Branch)
	}
	return nil
}

// agentTips are the ids the agent's refs, HEAD, logs and index name.
func agentTips(t Tree, r runner) ([]string, error) {
	common := filepath.Dir(filepath.Dir(t.GitDir))
	out, err := r.run("for-each-ref", "--format=%(objectname)", "refs/heads/teamlead/", "refs/remotes/")
	if err != nil {
		return nil, err
	}
	tips := strings.Fields(string(out))
	if b, err := os.ReadFile(filepath.Join(t.GitDir, "HEAD")); err == nil {
		if id := strings.TrimSpace(string(b)); isCommitID(id) {
			tips = append(tips, id) // detached
		}
	}
	logs := []string{filepath.Join(t.GitDir, "logs", "HEAD")}
	_ = filepath.WalkDir(filepath.Join(common, "logs", "refs", "heads", "teamlead"), func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			logs = append(logs, p)
		}
		return nil
	})
	for _, l := range logs {
		b, err := os.ReadFile(l)
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
