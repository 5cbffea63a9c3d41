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
