package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The progress folder teamlead makes in a checkout does not show in git
// status, so that what an agent adds to .claude/ beside it does (red team
// 16a, finding 8: ?? .claude/ hid a .claude/settings.json with hooks).
func TestProgressFolderShowsWhatAnAgentAdds(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	status := func() string {
		t.Helper()
		out, err := exec.Command("git", "-C", repo, "status", "--porcelain", "--untracked-files=all").CombinedOutput()
		if err != nil {
			t.Fatalf("git status: %v\n%s", err, out)
		}
		return strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	state := filepath.Join(repo, ".claude", "state")
	if err := makeProgressFolder(state); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "progress.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got := status(); got != "" {
		t.Errorf("git status shows teamlead's folder: %q", got)
	}
	if err := os.WriteFile(filepath.Join(repo, ".claude", "settings.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := status(); got != "?? .claude/settings.json" {
		t.Errorf("git status after an agent's settings.json: %q", got)
	}
	// A folder that was there is left as it is.
	mine := filepath.Join(repo, "mine")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := makeProgressFolder(mine); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(mine, ".gitignore")); err == nil {
		t.Error("a .gitignore written into an existing folder")
	}
}
