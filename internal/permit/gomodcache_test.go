package permit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestGoModCacheOf: the module cache is found as the go command finds it.
func TestGoModCacheOf(t *testing.T) {
	dir := t.TempDir()
	envFile := filepath.Join(dir, "env")
	if err := os.WriteFile(envFile, []byte("GOMODCACHE=/srv/modcache\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GOMODCACHE": "/m", "GOPATH": "/g"}, "/m"},
		{map[string]string{"GOPATH": "/g" + string(filepath.ListSeparator) + "/h"}, "/g/pkg/mod"},
		{map[string]string{"GOENV": envFile}, "/srv/modcache"},
		{map[string]string{"GOENV": filepath.Join(dir, "none")}, ""},
	} {
		if got := GoModCacheOf(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("GoModCacheOf(%v) = %q, want %q", c.env, got, c.want)
		}
	}
}
