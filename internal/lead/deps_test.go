package lead

import (
	"os/exec"
	"strings"
	"testing"
)

// TestPureMachinesLinkNoIO: the machines that decide (lead and what it
// uses to route, consult and track tasks) link neither the store, the file
// watchers, the terminal emulator nor the configuration loader, so that
// they can run behind any bus (issue 14) and stay quick to test.
func TestPureMachinesLinkNoIO(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".", "../questions", "../consult", "../tasks").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, banned := range []string{"github.com/dgraph-io/badger", "github.com/fsnotify/fsnotify",
			"/internal/store", "/internal/vt", "/internal/detect", "/internal/engine", "/internal/dirwatch",
			"/internal/progresswatch", "/internal/querywatch"} {
			if strings.Contains(dep, banned) {
				t.Errorf("a pure machine links %s", dep)
			}
		}
		if strings.HasSuffix(dep, "/internal/config") {
			t.Errorf("a pure machine links %s (the loader, with the presets and the emulator)", dep)
		}
	}
}
