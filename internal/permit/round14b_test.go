package permit

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// round14bSecretFiles are the corpus fixture's files for red team 14b: repositories
// whose messages or stash hold a token, a GOENV file with one, a lib/
// folder in the working directory and outside it (CDPATH), and the files
// hard links are made to.
func round14bSecretFiles(wd, home, out string) map[string]string {
	repo := func(dir string) map[string]string {
		return map[string]string{dir + "/.git/HEAD": "ref: refs/heads/main\n", dir + "/.git/config": "[core]\n"}
	}
	files := map[string]string{
		home + "/.config/go/env": "GOPROXY=https://ci:ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY@goproxy.corp.example\n",
		wd + "/lib/Makefile":     "test:\n\techo in\n", out + "/lib/Makefile": "test:\n\techo out\n",
		wd + "/hl/.env": "SECRET_TOKEN=sk-fake-123456\n", wd + "/hl/plain.txt": "plain\n", out + "/victim.txt": "victim\n",
		wd + "/stsh/config.go": "package x\n",
	}
	for _, d := range []string{"msg", "tagmsg", "stsh", "hl"} {
		for p, b := range repo(wd + "/" + d) {
			files[p] = b
		}
	}
	return files
}

// round14bLinks makes the hard links of finding 11: to git's
// configuration, to .env, to a file outside the folder.
func round14bLinks(t testing.TB, wd, out string) {
	t.Helper()
	for name, target := range map[string]string{wd + "/hl/gitcfg.txt": wd + "/hl/.git/config",
		wd + "/hl/env-copy.txt": wd + "/hl/.env", wd + "/hl/notes.txt": out + "/victim.txt"} {
		if err := os.Link(target, name); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHistoryScansStashAndMessages: with real git, a token in a stash's
// work-tree commit (a merge), in a commit message, a note and a tag
// message is found (red team 14b, finding 8).
func TestHistoryScansStashAndMessages(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const tok = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a",
			"GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	mk := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		git(d, "init", "-q", "-b", "main")
		os.WriteFile(filepath.Join(d, "config.go"), []byte("package x\n"), 0o644)
		git(d, "add", ".")
		git(d, "commit", "-qm", "init")
		return d
	}
	o := OSFS{}

	st := mk()
	os.WriteFile(filepath.Join(st, "config.go"), []byte("package x\nconst apiToken = \""+tok+"\"\n"), 0o644)
	git(st, "stash", "-q")
	if names, err := o.HistorySecrets(filepath.Join(st, ".git")); err != nil || len(names) != 1 || names[0] != "config.go" {
		t.Errorf("stash: HistorySecrets = %q, %v; want config.go", names, err)
	}
	if m, err := o.HistoryMessages(filepath.Join(st, ".git")); err != nil || m != "" {
		t.Errorf("stash: HistoryMessages = %q, %v; want none", m, err)
	}
	p := builtin(t)
	env := Env{Workdir: st, FS: o, Environ: []string{}}
	for _, a := range []string{"Bash(git stash list -p)", "Bash(git show stash@{0})", "Bash(git diff stash@{0}~ stash@{0})", "Bash(git log -p -g refs/stash)"} {
		if d := p.Check(a, "dev", env); d.Decide == Allow {
			t.Errorf("%s in %s: allowed", a, st)
		}
	}
	if d := p.Check("Bash(git log --oneline)", "dev", env); d.Decide != Allow {
		t.Errorf("git log --oneline: %s by %s: %s", d.Decide, d.Rule, d.Why)
	}

	for what, setup := range map[string][]string{
		"a commit message or note": {"commit", "-q", "--allow-empty", "-m", "deploy: use token " + tok},
		"a tag message":            {"tag", "-a", "v1", "-m", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"},
	} {
		d := mk()
		git(d, setup...)
		if m, err := o.HistoryMessages(filepath.Join(d, ".git")); err != nil || m != what {
			t.Errorf("%v: HistoryMessages = %q, %v; want %q", setup, m, err, what)
		}
	}
	n := mk()
	git(n, "notes", "add", "-m", "note: "+tok, "HEAD")
	if m, err := o.HistoryMessages(filepath.Join(n, ".git")); err != nil || m == "" {
		t.Errorf("note: HistoryMessages = %q, %v; want one", m, err)
	}
	if m, err := o.HistoryMessages(filepath.Join(mk(), ".git")); err != nil || m != "" {
		t.Errorf("clean: HistoryMessages = %q, %v; want none", m, err)
	}
}

// TestPatchSecretsCombined: a combined diff's added lines, in either
// column, are scanned; a +++ line inside a hunk is content.
func TestPatchSecretsCombined(t *testing.T) {
	tok := "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
	for name, patch := range map[string]string{
		"first column":  "diff --cc a.go\nindex 1,2..3\n--- a/a.go\n+++ b/a.go\n@@@ -1,0 -1,0 +1,1 @@@\n+ x := \"" + tok + "\"\n",
		"second column": "diff --cc a.go\nindex 1,2..3\n--- a/a.go\n+++ b/a.go\n@@@ -1,0 -1,0 +1,1 @@@\n +x := \"" + tok + "\"\n",
		"+++ in a hunk": "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -0,0 +1 @@\n+++ " + tok + "\n",
	} {
		if got := patchSecrets(patch); len(got) != 1 {
			t.Errorf("%s: %q, want one file", name, got)
		}
	}
	if got := patchSecrets("diff --cc a.go\n--- a/a.go\n+++ b/a.go\n@@@ -1,1 -1,1 +1,1 @@@\n- " + tok + "\n"); len(got) != 0 {
		t.Errorf("removed line: %q", got)
	}
}
