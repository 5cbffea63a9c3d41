package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	// A repository made in place, its commit added as a gitlink: git status
	// enters it as well and runs its fsmonitor.
	run(t, repo, "init", "-q", "-b", "main", "own")
	write(t, filepath.Join(repo, "own", "f"), "x\n")
	own := commit(t, filepath.Join(repo, "own"), "o")
	run(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+own+",own")
	if got, err := ForeignSubmodules(repo); err != nil || len(got) != 1 || got[0] != "own → "+filepath.Join(repo, "own", ".git") {
		t.Fatalf("a git folder in place: %v, %v", got, err)
	}
	// Its .git a link to a git folder elsewhere (red team 14a, finding 3).
	moved := filepath.Join(t.TempDir(), "gd")
	if err := os.Rename(filepath.Join(repo, "own", ".git"), moved); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(moved, filepath.Join(repo, "own", ".git")); err != nil {
		t.Fatal(err)
	}
	if got, err := ForeignSubmodules(repo); err != nil || len(got) != 1 || got[0] != "own → "+moved {
		t.Fatalf("a .git that is a link: %v, %v", got, err)
	}
}

// A todo left in the checkout's .git that runs commands is named.
func TestCheckoutTodo(t *testing.T) {
	repo := newRepo(t)
	if got := CheckoutTodo(repo); got != "" {
		t.Fatalf("nothing under way: %q", got)
	}
	write(t, filepath.Join(repo, ".git", "rebase-merge", "git-rebase-todo"), "pick 1234567 x\nexec make\n")
	if got := CheckoutTodo(filepath.Join(repo, "sub")); got != "a rebase is in progress, its todo runs 1 command: look at it before you continue it" {
		t.Fatalf("planted todo: %q", got)
	}
	if err := os.RemoveAll(filepath.Join(repo, ".git", "rebase-merge")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, ".git", "MERGE_HEAD"), "1234\n")
	if got := CheckoutTodo(repo); got != "" {
		t.Fatalf("a merge runs no todo: %q", got)
	}
}

// Files git status does not look at are named: an agent that works in the
// checkout marks one it changed assume-unchanged (or skip-worktree), and
// the human's git status says the checkout is clean.
func TestHiddenChanges(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, "Makefile"), "all:\n\ttrue\n")
	write(t, filepath.Join(repo, "b.txt"), "b\n")
	commit(t, repo, "files")
	if got, err := HiddenChanges(repo); err != nil || got != nil {
		t.Fatalf("none marked: %v, %v", got, err)
	}
	write(t, filepath.Join(repo, "Makefile"), "all:\n\ttouch pwned\n")
	run(t, repo, "update-index", "--assume-unchanged", "Makefile")
	run(t, repo, "update-index", "--skip-worktree", "b.txt")
	if got := run(t, repo, "status", "--porcelain"); got != "" {
		t.Fatalf("git status shows the change after all: %q", got)
	}
	if got, err := HiddenChanges(filepath.Join(repo, "sub")); err != nil || fmt.Sprint(got) != "[Makefile b.txt]" {
		t.Fatalf("marked: %v, %v", got, err)
	}
	// In a sparse checkout skip-worktree is git's own.
	run(t, repo, "config", "core.sparseCheckout", "true")
	if got, err := HiddenChanges(repo); err != nil || fmt.Sprint(got) != "[Makefile]" {
		t.Fatalf("sparse: %v, %v", got, err)
	}
}

// What the console reads itself of the git folders agents write, every few
// seconds and outside git, waits on no FIFO an agent put there (git itself
// reads none of these files for what the console asks it): a rebase's
// todo, the worktree's reflog, a gitlink's .git file (through a link).
func TestLooksWaitOnNoFIFO(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	ownFolder(t, tr)
	fifo := func(p string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.Remove(p)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo(filepath.Join(tr.GitDir, "rebase-merge", "git-rebase-todo"))
	fifo(filepath.Join(tr.GitDir, "logs", "HEAD"))
	fifo(filepath.Join(repo, ".git", "rebase-merge", "git-rebase-todo"))
	elsewhere := filepath.Join(t.TempDir(), "fifo")
	fifo(elsewhere)
	if err := os.MkdirAll(filepath.Join(repo, "sm"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, filepath.Join(repo, "sm", ".git")); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "update-index", "--add", "--cacheinfo", "160000,"+tr.Base+",sm")
	done := make(chan string, 1)
	go func() {
		info, err := Status(tr)
		if err != nil {
			done <- err.Error()
			return
		}
		subs, _ := ForeignSubmodules(repo)
		done <- fmt.Sprint(info.InProgress, "; ", CheckoutTodo(repo), "; ", subs)
	}()
	select {
	case got := <-done:
		// A .git that is a link is named, whatever it leads to.
		if got != "a rebase is in progress; ; [sm → "+elsewhere+"]" {
			t.Errorf("got %q", got)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the console waits on a FIFO an agent put in a git folder")
	}
}

// A FIFO an agent put in place of its worktree's HEAD holds git, which
// the console kills when it runs past its time (red team 14d, finding 5:
// the console's look at every worktree, and every diff and merge, hung).
func TestGitHeldByAFIFOIsKilled(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	head := filepath.Join(tr.GitDir, "HEAD")
	if err := os.Remove(head); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(head, 0o644); err != nil {
		t.Fatal(err)
	}
	old := gitTimeout
	gitTimeout = time.Second
	defer func() { gitTimeout = old }()
	done := make(chan error, 1)
	go func() {
		_, err := git(tr.Path, "rev-parse", "HEAD")
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrGitTimeout) {
			t.Errorf("git on a FIFO HEAD: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("git on a FIFO HEAD was not killed")
	}
}

// A GNUmakefile hidden by a .gitignore that ignores itself is named (red
// team 15a, finding 3).
func TestIgnoredBuildFiles(t *testing.T) {
	repo := newRepo(t)
	if got, err := IgnoredBuildFiles(repo); err != nil || got != nil {
		t.Fatalf("none: %v, %v", got, err)
	}
	write(t, filepath.Join(repo, ".gitignore"), ".gitignore\nGNUmakefile\nnode_modules\n")
	write(t, filepath.Join(repo, "GNUmakefile"), "all:\n\ttouch pwned\n")
	write(t, filepath.Join(repo, "node_modules", "x", "a.js"), "x\n")
	if got := run(t, repo, "status", "--porcelain"); got != "" {
		t.Fatalf("git status shows them after all: %q", got)
	}
	if got, err := IgnoredBuildFiles(filepath.Join(repo, "sub")); err != nil || fmt.Sprint(got) != "[.gitignore GNUmakefile]" {
		t.Fatalf("hidden: %v, %v", got, err)
	}
}

// The branches and tags but the one checked out (and the teamlead/ ones)
// are listed, so that one an agent moves can be told (red team 15a,
// finding 5).
func TestOtherTips(t *testing.T) {
	repo := newRepo(t)
	head := run(t, repo, "rev-parse", "HEAD")
	run(t, repo, "branch", "release")
	run(t, repo, "branch", "teamlead/dev")
	got, err := OtherTips(repo)
	if err != nil || fmt.Sprint(got) != "map[refs/heads/release:"+head+"]" {
		t.Errorf("OtherTips: %v, %v", got, err)
	}
}
