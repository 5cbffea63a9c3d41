package tui

import (
	"os/exec"
	"strings"
	"testing"
)

// The dashboard drives the engine through Console and reads the store
// through internal/readmodel: it does not link the engine, so another
// console (a remote one, the benchmarks') can stand behind it.
func TestDashboardLinksNoEngine(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/internal/engine") {
			t.Errorf("the dashboard links %s", dep)
		}
	}
}
