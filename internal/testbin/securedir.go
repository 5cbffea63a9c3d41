package testbin

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/teamlead/teamlead/internal/clihook"
)

// SecureDir is a new folder, removed when the test ends, that no one but
// the user can write to along its whole path, as Gemini CLI wants of a
// settings file's folder: under the user's cache folder, since the system's
// temporary folder is writable by everyone.
func SecureDir(t testing.TB) string {
	t.Helper()
	base, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no cache folder for a secure test folder: %v", err)
	}
	base = filepath.Join(base, "teamlead-test")
	if err := os.MkdirAll(base, 0o700); err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(base, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := clihook.GeminiReads(dir); err != nil {
		t.Fatalf("%v: the test needs a folder only its user can write to, up to /", err)
	}
	return dir
}
