package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func loadLead(t *testing.T, lead string) (*Team, error) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "team.yaml")
	if err := os.WriteFile(path, []byte("agents:\n  - name: dev\n    command: [sh]\n"+lead), 0o600); err != nil {
		t.Fatal(err)
	}
	return LoadTeam(path)
}

// Flood control defaults, values and a clear error for a bad burst.
func TestRelayRateSettings(t *testing.T) {
	team, err := loadLead(t, "")
	if err != nil || team.Lead.RelayRate != DefaultRelayRate || team.Lead.RelayBurst != DefaultRelayBurst {
		t.Fatalf("defaults: %v %+v", err, team)
	}
	team, err = loadLead(t, "lead:\n  relay_rate: 2.5\n  relay_burst: 5\n")
	if err != nil || team.Lead.RelayRate != 2.5 || team.Lead.RelayBurst != 5 {
		t.Fatalf("set: %v %+v", err, team.Lead)
	}
	if team, err = loadLead(t, "lead:\n  relay_rate: -1\n"); err != nil || team.Lead.RelayRate != -1 {
		t.Fatalf("off: %v", err)
	}
	_, err = loadLead(t, "lead:\n  relay_burst: -3\n")
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "lead.relay_burst") || !strings.Contains(err.Error(), ":5:") {
		t.Errorf("bad burst: %v", err)
	}
}
