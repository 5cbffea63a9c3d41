package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/guard"
)

// A missing start-up file is told when it appears; an agent CLI's own
// file when its content changes (red team 16a, finding 8); each once.
func TestHomeLookTellsAppearedAndChanged(t *testing.T) {
	dir := t.TempDir()
	profile, claude, same := filepath.Join(dir, ".bash_profile"), filepath.Join(dir, ".claude.json"), filepath.Join(dir, ".codex-config.toml")
	for _, f := range []string{claude, same} {
		if err := os.WriteFile(f, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h := newHomeLook([]string{profile}, []guard.Told{{Path: claude, Check: "its mcpServers"}, {Path: same, Check: "x"}})
	if got := h.look(); len(got) != 0 {
		t.Fatalf("nothing changed yet: %v", got)
	}
	if err := os.WriteFile(profile, []byte("evil\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(claude, []byte(`{"mcpServers":{"x":{"command":"sh"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	got := h.look()
	if len(got) != 2 || !strings.HasPrefix(got[0], profile+" appeared while agents ran") ||
		!strings.HasPrefix(got[1], claude+" changed while agents ran") || !strings.Contains(got[1], "its mcpServers") {
		t.Fatalf("told: %q", got)
	}
	if err := os.WriteFile(claude, []byte(`{}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := h.look(); len(got) != 0 {
		t.Fatalf("told twice: %v", got)
	}
}
