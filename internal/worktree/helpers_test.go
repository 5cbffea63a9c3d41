package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain isolates git from the machine's config and names the author.
func TestMain(m *testing.M) {
	for k, v := range map[string]string{
		"GIT_CONFIG_GLOBAL":   os.DevNull,
		"GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME":     "Test", "GIT_AUTHOR_EMAIL": "test@example.com",
		"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com",
		"GIT_CEILING_DIRECTORIES": os.TempDir(),
	} {
		os.Setenv(k, v)
	}
	os.Exit(m.Run())
}

// run runs git in dir for test setup and returns trimmed stdout.
func run(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newRepo makes a repository "repo" on branch main with one commit, in a
// fresh temporary folder whose worktree root is free.
func newRepo(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(canonical(t.TempDir()), "repo")
	run(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	write(t, filepath.Join(dir, "README"), "hello\n")
	write(t, filepath.Join(dir, "sub", "dir", "code.go"), "package dir\n")
	commit(t, dir, "first")
	return dir
}

// commit stages everything in dir and commits it.
func commit(t *testing.T, dir, msg string) string {
	t.Helper()
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", msg)
	return run(t, dir, "rev-parse", "HEAD")
}

func ensure(t *testing.T, s Spec) Tree {
	t.Helper()
	tr, err := Ensure(s)
	if err != nil {
		t.Fatalf("Ensure(%+v): %v", s, err)
	}
	return tr
}
