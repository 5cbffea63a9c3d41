package worktree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestStatusAheadBehind(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	for i, name := range []string{"a", "b", "c"} {
		write(t, filepath.Join(tr.Path, name), name)
		commit(t, tr.Path, "agent "+name)
		if i < 2 {
			write(t, filepath.Join(repo, "main"+name), name)
			commit(t, repo, "main "+name)
		}
	}
	info, err := Status(tr)
	if err != nil {
		t.Fatal(err)
	}
	want := Info{Branch: "teamlead/alice", Head: run(t, tr.Path, "rev-parse", "HEAD"), Against: "main", Ahead: 3, Behind: 2}
	if info != want {
		t.Fatalf("Status = %+v, want %+v", info, want)
	}
	write(t, filepath.Join(tr.Path, "new file"), "x")
	if info, err = Status(tr); err != nil || !info.Dirty {
		t.Fatalf("untracked file: Dirty=%v, %v", info.Dirty, err)
	}
}

func TestRemove(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})

	write(t, filepath.Join(tr.Path, "README"), "changed\n")
	if err := Remove(tr, false); !errors.Is(err, ErrUncommitted) || !strings.Contains(err.Error(), "README") {
		t.Fatalf("modified file: %v", err)
	}
	run(t, tr.Path, "checkout", "--", "README")
	write(t, filepath.Join(tr.Path, "scratch.txt"), "new\n")
	if err := Remove(tr, false); !errors.Is(err, ErrUncommitted) || !strings.Contains(err.Error(), "scratch.txt") {
		t.Fatalf("untracked file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tr.Path, "scratch.txt")); err != nil {
		t.Fatal("a refused Remove lost the file")
	}
	if err := Remove(tr, true); err != nil {
		t.Fatalf("forced: %v", err)
	}
	if _, err := os.Stat(tr.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("folder still there: %v", err)
	}
	run(t, repo, "show-ref", "--verify", "refs/heads/teamlead/alice") // kept

	clean := ensure(t, Spec{Repo: repo, Agent: "bob"})
	if err := Remove(clean, false); err != nil {
		t.Fatalf("clean worktree: %v", err)
	}
	if _, err := Open(Spec{Repo: repo, Agent: "bob"}); !errors.Is(err, ErrNoWorktree) {
		t.Fatalf("after Remove, Open = %v", err)
	}
}

// git worktree remove re-checks cleanliness with a git status of its own:
// the filter overrides must reach it too.
func TestRemoveRunsNoFilter(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, ".gitattributes"), "*.txt filter=y\n")
	write(t, filepath.Join(repo, "a.txt"), "text\n")
	commit(t, repo, "attributes")
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "clean.sh")
	write(t, script, "#!/bin/sh\ntouch '"+marker+"'\ncat\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "config", "filter.y.clean", script)
	// Same content, new mtime: git must read the file to call it clean.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(tr.Path, "a.txt"), later, later); err != nil {
		t.Fatal(err)
	}
	if err := Remove(tr, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("Remove ran the repository's clean filter")
	}
}

// An agent can rewrite its worktree's .git file to lead git to a git dir
// it made, config included: reads keep using the real one, Remove refuses.
func TestRewrittenGitFile(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	fake := filepath.Join(t.TempDir(), "fake")
	run(t, filepath.Dir(fake), "init", "-q", "-b", "other", fake)
	write(t, filepath.Join(tr.Path, ".git"), "gitdir: "+filepath.Join(fake, ".git")+"\n")

	info, err := Status(tr)
	if err != nil || info.Branch != "teamlead/alice" {
		t.Fatalf("Status = %+v, %v; want the real branch", info, err)
	}
	if err := Remove(tr, true); !errors.Is(err, ErrForeignGitFile) {
		t.Fatalf("Remove = %v, want ErrForeignGitFile", err)
	}
}

func TestHead(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "x"), "x")
	want := commit(t, tr.Path, "x")
	if b, c, err := Head(tr.Dir); err != nil || b != "teamlead/dev" || c != want {
		t.Fatalf("Head = %q %q %v, want teamlead/dev %s", b, c, err, want)
	}
	run(t, tr.Path, "checkout", "-q", "--detach")
	if b, c, err := Head(tr.Path); err != nil || b != "" || c != want {
		t.Fatalf("detached: Head = %q %q %v", b, c, err)
	}
}

// A rebase the agent left (or planted) in its worktree is named, with the
// commands its todo would run as whoever continues it (red team 12a,
// finding 5).
func TestStatusNamesARebaseInProgress(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	info, err := Status(tr)
	if err != nil || info.InProgress != "" {
		t.Fatalf("fresh worktree: %+v, %v", info, err)
	}
	write(t, filepath.Join(tr.GitDir, "rebase-merge", "git-rebase-todo"), "pick 1234567 x\nexec touch /tmp/pwned\nx make\n# exec not this\n")
	if info, err = Status(tr); err != nil || info.InProgress != "a rebase is in progress, its todo runs 2 commands: look at it before you continue it" {
		t.Fatalf("planted rebase: %q, %v", info.InProgress, err)
	}
	if err := os.RemoveAll(filepath.Join(tr.GitDir, "rebase-merge")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.GitDir, "MERGE_HEAD"), info.Head+"\n")
	if info, err = Status(tr); err != nil || info.InProgress != "a merge is in progress" {
		t.Fatalf("merge: %q, %v", info.InProgress, err)
	}
}

// A gitlink whose .git leads outside .git/modules is named: the human's
// git status enters it and runs that folder's configuration (red team
// 13d, finding 1); one git checked out itself (in .git/modules) is not.
func TestForeignSubmodules(t *testing.T) {
	repo := newRepo(t)
	if got, err := ForeignSubmodules(repo); err != nil || got != nil {
		t.Fatalf("no submodules: %v, %v", got, err)
	}
	evil := filepath.Join(t.TempDir(), "evilgd")
	sub := filepath.Join(t.TempDir(), "sub")
	run(t, filepath.Dir(sub), "init", "-q", "-b", "main", sub)
	write(t, filepath.Join(sub, "f"), "x\n")
	id := commit(t, sub, "s")
	if err := os.Rename(filepath.Join(sub, ".git"), evil); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "sm"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "sm", ".git"), "gitdir: "+evil+"\n")
	run(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+id+",sm")
	got, err := ForeignSubmodules(filepath.Join(repo, "sub", "dir"))
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0], "sm → ") || !strings.HasSuffix(got[0], "evilgd") {
		t.Fatalf("a gitlink leading outside: %v, %v", got, err)
	}
	if err := os.MkdirAll(filepath.Join(repo, ".git", "modules"), 0o755); err != nil {
		t.Fatal(err)
	}
	inside := filepath.Join(repo, ".git", "modules", "sm")
	if err := os.Rename(evil, inside); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "sm", ".git"), "gitdir: ../.git/modules/sm\n")
	if got, err := ForeignSubmodules(repo); err != nil || got != nil {
		t.Fatalf("a submodule in .git/modules: %v, %v", got, err)
	}
}
