package engine

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/permit"
)

// A hook's request is judged in the folder the CLI's shell is in: Claude
// Code keeps the cd of one Bash call for the next, and after cd
// .git/hooks a relative write is a git hook (red team 19a, finding 7).
func TestHookRequestIsJudgedWhereTheShellIs(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := startEngineIn(t, dir, "permissions:\n  hook_wait: 100ms\n", testAgent{name: "dev", script: "sleep 60\n"})
	r.waitState("dev", "running")
	check := r.e.checker()
	const write = "Bash(echo x > pre-commit)"
	if d := check(write, "dev", ""); d.Decide != permit.Allow {
		t.Fatalf("in the working folder: %+v", d)
	}
	hooks := filepath.Join(dir, ".git", "hooks")
	if d := check(write, "dev", hooks); d.Decide == permit.Allow {
		t.Fatalf("after cd .git/hooks: %+v", d)
	}
	if d := check("Bash(cat notes.txt)", "dev", filepath.Dir(dir)); d.Decide == permit.Allow {
		t.Fatalf("in a folder outside the working one: %+v", d)
	}
	// The request keeps the folder it was judged in.
	req, _ := r.e.HookPermission("dev", write, hooks)
	if req.Cwd != hooks || req.Status == approvals.Approved {
		t.Fatalf("the hook's request: %+v", req)
	}
}
