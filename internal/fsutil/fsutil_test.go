package fsutil

import (
	"errors"
	"os"
	"path/filepath"
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
