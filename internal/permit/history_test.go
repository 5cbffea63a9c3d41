package permit

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHistoryOnARealRepository: on a repository where .env.production
// was committed and then removed, the commands that print old content ask
// and the everyday ones stay allowed; staging a folder asks while git
// status lists an unignored .env in it (git itself, as OSFS runs it).
func TestHistoryOnARealRepository(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	git := func(dir string, args ...string) { t.Helper(); gitIn(t, dir, args...) }
	write := func(p, body string) {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dirty, clean := filepath.Join(root, "dirty"), filepath.Join(root, "clean")
	for _, d := range []string{dirty, clean} {
		git(root, "init", "-q", d)
		write(d+"/main.go", "package main\n")
		write(d+"/.gitignore", ".env\n")
		git(d, "add", ".")
		git(d, "commit", "-qm", "one")
	}
	write(dirty+"/.env.production", "PROD_TOKEN=x\n")
	git(dirty, "add", ".env.production")
	git(dirty, "commit", "-qm", "two")
	git(dirty, "rm", "-q", ".env.production")
	git(dirty, "commit", "-qm", "three")
	write(clean+"/.env", "TOKEN=x\n")
	write(dirty+"/.env", "TOKEN=x\n")
	write(dirty+"/.gitignore", "")

	p := builtin(t)
	check := func(dir, action string, want Decide) {
		t.Helper()
		d := p.Check(action, "dev", Env{Workdir: dir, FS: OSFS{}})
		if (d.Decide == Allow) != (want == Allow) {
			t.Errorf("%s in %s: %s by %s: %s", action, filepath.Base(dir), d.Decide, d.Rule, d.Why)
		}
	}
	for _, a := range []string{"Bash(git log -p)", "Bash(git show HEAD~1)", "Bash(git diff HEAD~2 HEAD~1)", "Bash(git reflog -p)", "Bash(git add .)", "Bash(git add -A)"} {
		check(dirty, a, Ask)
	}
	for _, a := range []string{"Bash(git log -p)", "Bash(git show HEAD~1)", "Bash(git add .)", "Bash(git add -A)", "Bash(git commit -am x)"} {
		check(clean, a, Allow)
	}
	for _, a := range []string{"Bash(git log --oneline)", "Bash(git show --stat HEAD~1)", "Bash(git diff)"} {
		check(dirty, a, Allow)
	}
}

// The policy's own git never runs a program the repository names: an agent
// can write .git/config and .gitattributes, and a clean filter runs
// whenever git hashes a changed file (git status did, for the staging
// check), in the console's process tree and outside every sandbox.
func TestPolicyGitRunsNoFilter(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	pwned := filepath.Join(dir, "PWNED")
	git := func(args ...string) { t.Helper(); gitIn(t, dir, args...) }
	git("init", "-q", ".")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("add", "a.txt")
	git("commit", "-qm", "one")
	if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt filter=evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git("config", "filter.evil.clean", "touch "+pwned+"; cat")
	// Changed since it was added: git must hash it to know.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// And it starts as the console says (agents.Isolate, in the console):
	// whatever git still runs is an agent's.
	isolated := 0
	fsys := OSFS{Isolate: func(*exec.Cmd) { isolated++ }}
	for _, tracked := range []bool{false, true} {
		if _, err := fsys.Pending(dir, tracked, []string{"."}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := fsys.HistoryNames(filepath.Join(dir, ".git")); err != nil {
		t.Fatal(err)
	}
	if isolated != 3 {
		t.Errorf("%d of 3 git runs went through Isolate", isolated)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the policy's git ran the repository's clean filter")
	}
}

// gitIn runs git in dir for a test, with an identity and no signing.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// The policy sums the repository's refs to know when its history changed,
// in the console and with no time limit: a FIFO an agent put among them
// (or for a reflog) held every permission request behind it, and a link
// to /dev/zero would fill the console's memory. git itself is bounded
// (historyTimeout).
func TestHistoryFingerprintWaitsOnNoFIFO(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "init", "-q", ".")
	gitIn(t, dir, "commit", "-q", "--allow-empty", "-m", "one")
	gitDir := filepath.Join(dir, ".git")
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(fifo, filepath.Join(gitDir, "refs", "heads", "linked")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(gitDir, "refs", "tags", "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(gitDir, "logs", "HEAD")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(gitDir, "logs", "HEAD"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan [32]byte, 1)
	go func() { done <- refsFingerprint(gitDir) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("the policy waits on a FIFO an agent put among the refs")
	}
}
