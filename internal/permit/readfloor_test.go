package permit

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTreeCredentials: a walk finds a credential file in a subfolder,
// hidden ones only when asked to, skips .git and package folders, and
// follows a link to the credential it names.
func TestTreeCredentials(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write := func(p, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, p), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a/src/main.go", "package main\n")
	write("a/node_modules/pkg/.env", "KEY=x\n")
	write("a/.git/.env", "KEY=x\n")
	write("b/deep/er/.env", "KEY=x\n")
	write("c/id_rsa", "KEY\n")
	write("secret/.env", "KEY=x\n")
	if err := os.MkdirAll(filepath.Join(root, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "secret/.env"), filepath.Join(root, "d/link")); err != nil {
		t.Fatal(err)
	}
	env := Env{Workdir: root, FS: OSFS{}}
	for _, tc := range []struct {
		dir    string
		hidden bool
		want   bool
	}{
		{"a", true, false}, {"b", true, true}, {"b", false, false}, {"c", false, true}, {"d", true, true}, {"d", false, true},
	} {
		if f, got := treeCredentials(env, filepath.Join(root, tc.dir), tc.hidden); got != tc.want {
			t.Errorf("%s hidden=%v: %v (%s), want %v", tc.dir, tc.hidden, got, f, tc.want)
		}
	}
	if _, got := treeCredentials(Env{Workdir: root}, root, true); got {
		t.Error("without an FS nothing is looked up")
	}
}

// TestRealPath: links are followed segment by segment, .. after a link is
// the folder above its target, and a loop ends.
func TestRealPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"w/src", "out/in"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{"w/l": filepath.Join(root, "out/in"), "w/rel": "src", "w/loop1": "loop2", "w/loop2": "loop1"}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	env := Env{FS: OSFS{}}
	for in, want := range map[string]string{
		root + "/w/l/x":         root + "/out/in/x",
		root + "/w/l/../secret": root + "/out/secret",
		root + "/w/rel/a.go":    root + "/w/src/a.go",
		root + "/w/./src//b":    root + "/w/src/b",
		root + "/w/new/../src":  root + "/w/src",
	} {
		if got := env.realPath(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	if got := env.realPath(root + "/w/loop1/x"); got == "" {
		t.Error("a loop must end")
	}
}

// TestFifoDoesNotHoldThePolicy: an agent's FIFO named like a credential or
// a configuration is never read (the read would wait for a writer, and
// every permission request behind it with it); the decisions still come.
func TestFifoDoesNotHoldThePolicy(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{".env", "app.json"} {
		if err := syscall.Mkfifo(filepath.Join(root, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	env := Env{Workdir: root, FS: OSFS{}}
	done := make(chan string)
	go func() {
		var out []string
		for _, a := range []string{"Bash(grep -r KEY .)", "Read(app.json)", "Bash(cat a*)"} {
			out = append(out, a+" "+p.Check(a, "dev", env).Decide.String())
		}
		done <- strings.Join(out, "; ")
	}()
	select {
	case got := <-done:
		if !strings.Contains(got, "grep -r KEY .) ask") {
			t.Errorf("a search of a tree holding .env (a FIFO) must still ask: %s", got)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the policy is still reading a FIFO after 20 s")
	}
	if _, err := (OSFS{}).ReadFile(filepath.Join(root, ".env")); err == nil {
		t.Error("ReadFile of a FIFO gave no error")
	}
}

// TestGlobMatchesAreFollowed: a glob's matches are followed to where they
// lead before the workdir rule: cat ./* reads the file a link among them
// names, outside the folder too, as cat link would (which asks).
func TestGlobMatchesAreFollowed(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	for p, body := range map[string]string{root + "/main.go": "package main\n", out + "/notes.txt": "not a secret\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := builtin(t)
	check := func(action string) Decision {
		return p.Check(action, "dev", Env{Workdir: root, FS: OSFS{}})
	}
	for _, a := range []string{"Bash(cat ./*)", "Bash(grep x *)", "Bash(cat *.go)"} {
		if d := check(a); d.Decide != Allow {
			t.Errorf("%s with no link: %s by %s: %s", a, d.Decide, d.Rule, d.Why)
		}
	}
	if err := os.Symlink(out+"/notes.txt", root+"/plink"); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"Bash(cat plink)", "Bash(cat ./*)", "Bash(grep x *)", "Bash(head -n 5 p*)"} {
		if d := check(a); d.Decide == Allow {
			t.Errorf("%s with plink -> %s/notes.txt: allowed by %s", a, out, d.Rule)
		}
	}
	if d := check("Bash(cat *.go)"); d.Decide != Allow {
		t.Errorf("cat *.go (the link not among its matches): %s by %s: %s", d.Decide, d.Rule, d.Why)
	}
}

// TestFollowingWalkStaysInside: grep -R and find -L follow a link under
// the folder to where it leads: one that leads out of the working
// directory makes the walk one outside it; grep -r, which does not
// follow, stays allowed.
func TestFollowingWalkStaysInside(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	for _, d := range []string{root + "/src", out + "/docs"} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, body := range map[string]string{root + "/src/main.go": "package main\n", out + "/docs/notes.txt": "not a secret\n"} {
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := builtin(t)
	check := func(action string) Decision {
		return p.Check(action, "dev", Env{Workdir: root, FS: OSFS{}})
	}
	if err := os.Symlink(root+"/src", root+"/srclink"); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"Bash(grep -R x .)", "Bash(grep -r x .)", "Bash(grep -R x src)"} {
		if d := check(a); d.Decide != Allow {
			t.Errorf("%s with links inside only: %s by %s: %s", a, d.Decide, d.Rule, d.Why)
		}
	}
	if err := os.Symlink(out+"/docs", root+"/src/outlink"); err != nil {
		t.Fatal(err)
	}
	for _, a := range []string{"Bash(grep -R x .)", "Bash(grep -R x src)", "Bash(grep -R x srclink)"} {
		if d := check(a); d.Decide == Allow {
			t.Errorf("%s with src/outlink -> %s/docs: allowed by %s", a, out, d.Rule)
		}
	}
	if d := check("Bash(grep -r x .)"); d.Decide != Allow {
		t.Errorf("grep -r x . (it does not follow the link): %s by %s: %s", d.Decide, d.Rule, d.Why)
	}
}
