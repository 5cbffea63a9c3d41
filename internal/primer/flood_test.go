package primer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/config"
)

// The starter team shows the flood control settings, commented, with
// their defaults, and they load.
func TestStarterTeamShowsFloodControl(t *testing.T) {
	dir := t.TempDir()
	if _, err := WriteStarter(dir, StarterOptions{MockAgent: "/opt/teamlead/bin/mockagent"}); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(dir, "team.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  relay_rate: 10\n", "  relay_burst: 50\n", "# Flood control:"} {
		if !strings.Contains(string(text), want) {
			t.Errorf("the starter team lacks %q", want)
		}
	}
	team, err := config.LoadTeam(filepath.Join(dir, "team.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if team.Lead.RelayRate != 10 || team.Lead.RelayBurst != 50 {
		t.Errorf("lead %+v", team.Lead)
	}
}
