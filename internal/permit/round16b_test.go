package permit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// testGit runs git in dir with no user or system configuration, failing
// the test when git does.
func testGit(t *testing.T) func(dir string, args ...string) string {
	return func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=a",
			"GIT_AUTHOR_EMAIL=a@b", "GIT_COMMITTER_NAME=a", "GIT_COMMITTER_EMAIL=a@b")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
}

// testWrite writes a file of dir, making its folders.
func testWrite(t *testing.T) func(dir, name, body string) {
	return func(dir, name, body string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestObjectsByID: with real git, objects no ref reaches (a dangling
// blob, a dropped stash, a staged blob) are looked at when a command
// names them by id, and a commit of an index holding a token asks when
// the same request prints history (red team 16b, findings 1 and 2).
func TestObjectsByID(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const tok = "ghp_R4nd0mT0k3nV4lu3F0rT3st1ngPurp0s3sXY"
	git, write := testGit(t), testWrite(t)
	mk := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		git(d, "init", "-q", "-b", "main")
		write(d, "config.go", "package x\n")
		write(d, ".gitignore", ".env\n")
		git(d, "add", ".")
		git(d, "commit", "-qm", "init")
		return d
	}
	p := builtin(t)
	check := func(d string, want Decide, actions ...string) {
		t.Helper()
		env := Env{Workdir: d, FS: OSFS{}, Environ: []string{}}
		for _, a := range actions {
			got := p.Check(a, "dev", env)
			if (got.Decide == Allow) != (want == Allow) {
				t.Errorf("%s: %s by %s: %s; want %s", a, got.Decide, got.Rule, got.Why, want)
			}
		}
	}

	clean := mk()
	head := git(clean, "rev-parse", "HEAD")
	check(clean, Allow, "Bash(git show HEAD)", "Bash(git log -p)", "Bash(git show "+head[:7]+")", "Bash(git cat-file -p "+head+")",
		"Bash(git cat-file -p deadbeef)", "Bash(git diff "+head[:8]+" HEAD)", "Bash(git show "+head[:7]+":config.go)")
	write(clean, "a.go", "package x\n")
	git(clean, "add", "a.go")
	check(clean, Allow, "Bash(git commit -qm wip && git show HEAD)", "Bash(git commit -qm wip; git log -p -1)")

	// a .env added and reset: a dangling blob
	dang := mk()
	write(dang, ".env", "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n")
	git(dang, "add", "-f", ".env")
	blob := strings.Fields(git(dang, "ls-files", "-s", ".env"))[1]
	// staged: the index's blob, and a commit then a printer
	check(dang, Ask, "Bash(git cat-file -p "+blob[:8]+")", "Bash(git commit -qm wip && git show HEAD)",
		"Bash(git commit -qm wip; git log -p -1)", "Bash(git show "+blob[:10]+")")
	git(dang, "reset", "-q")
	check(dang, Ask, "Bash(git cat-file -p "+blob+")", "Bash(git cat-file -p "+blob[:7]+")", "Bash(git show "+blob[:10]+")",
		"Bash(git cat-file -p "+blob[:7]+"^{blob})", "Bash(git cat-file blob "+blob[:7]+")")
	check(dang, Allow, "Bash(git show HEAD)", "Bash(git log -p)", "Bash(git cat-file -t "+blob[:7]+")")

	// a dropped stash
	st := mk()
	write(st, "config.go", "package x\nconst apiToken = \""+tok+"\"\n")
	git(st, "stash", "-q")
	w := git(st, "rev-parse", "stash@{0}")
	git(st, "stash", "drop", "-q")
	check(st, Ask, "Bash(git show "+w[:9]+")", "Bash(git diff "+w[:9]+"~ "+w[:9]+")", "Bash(git show "+w[:9]+":config.go)",
		"Bash(git log -p "+w[:9]+")", "Bash(git diff HEAD.."+w[:9]+")", "Bash(git blame "+w[:9]+" -- config.go)")
	check(st, Allow, "Bash(git show HEAD)", "Bash(git log -p)", "Bash(git show --stat "+w[:9]+")")

	// an id git does not know, in a repository whose history holds a token
	hist := mk()
	write(hist, "config.go", "package x\nconst apiToken = \""+tok+"\"\n")
	git(hist, "commit", "-qam", "token")
	check(hist, Ask, "Bash(git cat-file -p deadbeef)")
}

// TestIgnoredOverwrite: git switch and checkout (and reset --keep, merge)
// of a branch that tracks a file present here and ignored overwrite it
// (red team 16b, finding 8b), so they ask; a branch that leaves the
// ignored files alone stays allowed, and so does --no-overwrite-ignore.
func TestIgnoredOverwrite(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	git, write := testGit(t), testWrite(t)
	const secret = "[db]\npassword = hunter2-super-secret\n"
	mk := func() string {
		d, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		git(d, "init", "-q", "-b", "main")
		write(d, ".gitignore", "db.ini\nbuild/\n")
		write(d, "main.go", "package main\n")
		git(d, "add", ".")
		git(d, "commit", "-qm", "init")
		git(d, "switch", "-qc", "cfg")
		write(d, "db.ini", "[db]\npassword = changeme\n")
		git(d, "add", "-f", "db.ini")
		git(d, "commit", "-qm", "cfg")
		git(d, "switch", "-qc", "other", "main")
		write(d, "notes.txt", "notes\n")
		write(d, "build/gen.txt", "x\n")
		git(d, "add", "notes.txt")
		git(d, "add", "-f", "build/gen.txt")
		git(d, "commit", "-qm", "other")
		git(d, "switch", "-q", "main")
		write(d, "db.ini", secret)
		return d
	}
	p := builtin(t)
	// discards: the floor asks; kept: not that floor, and allowed when
	// the rules allow it (git merge and reset are asked by the rules)
	check := func(d string, discards bool, actions ...string) {
		t.Helper()
		for _, a := range actions {
			got := p.Check(a, "dev", Env{Workdir: d, FS: OSFS{}, Environ: []string{}})
			ruled := strings.Contains(a, "git switch") || strings.Contains(a, "git checkout")
			switch {
			case discards && (got.Decide == Allow || !contains(got.Floor, FloorGitDiscard)):
				t.Errorf("%s: %s by %s, floor %v (%s); want the floor %s", a, got.Decide, got.Rule, got.Floor, got.Why, FloorGitDiscard)
			case !discards && (contains(got.Floor, FloorGitDiscard) || ruled && got.Decide != Allow):
				t.Errorf("%s: %s by %s, floor %v (%s); want no discard", a, got.Decide, got.Rule, got.Floor, got.Why)
			}
		}
	}

	// plain git overwrites the ignored db.ini
	d := mk()
	git(d, "switch", "-q", "cfg")
	if b, _ := os.ReadFile(filepath.Join(d, "db.ini")); string(b) == secret {
		t.Fatal("git switch kept the ignored db.ini: the finding does not hold with this git")
	}

	d = mk()
	check(d, true, "Bash(git switch cfg)", "Bash(git checkout cfg)", "Bash(git checkout -b x cfg)", "Bash(git switch -c x cfg)",
		"Bash(git switch --detach cfg)", "Bash(git reset --keep cfg)", "Bash(git merge cfg)", "Bash(git -C . switch cfg)",
		"Bash(git switch --no-overwrite-ignore --overwrite-ignore cfg)")
	check(d, false, "Bash(git switch other)", "Bash(git checkout other)", "Bash(git switch -c x)", "Bash(git checkout -b x)",
		"Bash(git switch --no-overwrite-ignore cfg)", "Bash(git checkout --no-overwrite-ignore cfg)", "Bash(git reset --keep other)",
		"Bash(git merge other)")
	// an ignored folder's file the branch tracks
	write(d, "build/gen.txt", "mine\n")
	check(d, true, "Bash(git switch other)")
	// no FS: nothing is looked at (a branch is not known to be local, and asks as before)
	if got := p.Check("Bash(git switch cfg)", "dev", Env{Workdir: d, Environ: []string{}}); contains(got.Floor, FloorGitDiscard) {
		t.Errorf("pure mode: git switch cfg: %s by %s, floor %v (%s); want no discard", got.Decide, got.Rule, got.Floor, got.Why)
	}
}
