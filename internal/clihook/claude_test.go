package clihook

import (
	"os"
	"path/filepath"
	"testing"
)

// The hooks go into the agent's own .claude folder only: an agent can make
// .claude a link to any folder (the sixth red team had the console write
// settings.local.json into a folder of its choosing).
func TestInstallClaudeNotThroughALinkOut(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(dir, ".claude")); err != nil {
		t.Fatal(err)
	}
	if err := InstallClaude(dir, "/usr/bin/teamlead"); err == nil {
		t.Error("installed through a link out of the folder")
	}
	if _, err := os.Stat(filepath.Join(elsewhere, "settings.local.json")); err == nil {
		t.Error("settings.local.json written outside the agent's folder")
	}
	real := t.TempDir()
	if err := InstallClaude(real, "/usr/bin/teamlead"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(real, ".claude", "settings.local.json")); err != nil {
		t.Error(err)
	}
}
