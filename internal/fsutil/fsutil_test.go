package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.yaml")
	refused := errors.New("changed")
	for _, c := range []struct {
		name    string
		data    string
		perm    os.FileMode
		check   func() error
		want    string
		wantErr error
	}{
		{"new", "one", 0o600, nil, "one", nil},
		{"replace", "two", 0o644, func() error { return nil }, "two", nil},
		{"refused", "three", 0o644, func() error { return refused }, "two", refused},
	} {
		err := WriteFileAtomicIf(path, []byte(c.data), c.perm, c.check)
		if !errors.Is(err, c.wantErr) {
			t.Fatalf("%s: %v, want %v", c.name, err, c.wantErr)
		}
		if got, _ := os.ReadFile(path); string(got) != c.want {
			t.Errorf("%s: holds %q, want %q", c.name, got, c.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 1 {
			t.Errorf("%s: %d files left in the folder", c.name, len(ents))
		}
	}
	if got := Perm(path, 0o640); got != 0o644 {
		t.Errorf("perm %v, want the file's 0644", got)
	}
	if got := Perm(filepath.Join(dir, "none"), 0o640); got != 0o640 {
		t.Errorf("perm of a missing file %v, want the default", got)
	}
	if err := WriteFileAtomic(path, []byte("four"), 0o600); err != nil || Perm(path, 0) != 0o600 {
		t.Errorf("WriteFileAtomic: %v, perm %v", err, Perm(path, 0))
	}
	if err := WriteFileAtomic(filepath.Join(dir, "no", "f"), nil, 0o644); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("into a missing folder: %v", err)
	}
}

// Rewrite keeps the file (a sandbox's bind over it holds that inode) and
// leaves exactly the new content, longer or shorter.
func TestRewriteKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := Rewrite(path, []byte("rules:\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	before, err := os.Stat(path)
	if err != nil || before.Mode().Perm() != 0o640 {
		t.Fatalf("made: %v %v", before, err)
	}
	for _, want := range []string{"rules:\n  - Bash(go test:*)\n", "rules:\n", "", "other\n"} {
		if err := Rewrite(path, []byte(want), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Errorf("content %q, %v; want %q", got, err, want)
		}
		now, err := os.Stat(path)
		if err != nil || !os.SameFile(before, now) {
			t.Errorf("the file was replaced writing %q", want)
		}
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err == nil {
		if err := Rewrite(fifo, []byte("x"), 0o600); !errors.Is(err, ErrNotRegular) {
			t.Errorf("a FIFO: %v", err)
		}
	}
}
