// Package golden compares a view with its golden file under testdata/,
// rewriting the file instead when the tests run with -update.
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files with the current output")

// Assert fails t when got differs from testdata/<name>.golden.
func Assert(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the tests with -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from %s (rerun with -update if the change is intended)\n--- got:\n%s\n--- want:\n%s", name, path, got, want)
	}
}
