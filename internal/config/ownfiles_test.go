package config

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestOwnFiles: teamlead's own files for a team are the team file, its
// policy and the answerers, consultations and presets files beside it.
func TestOwnFiles(t *testing.T) {
	p := writeTeam(t, `
agents:
  - name: dev
    command: [cat]
`)
	team, err := LoadTeam(p)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(p)
	got := team.OwnFiles()
	for _, want := range []string{p, filepath.Join(dir, "permissions.yaml"), filepath.Join(dir, "answerers.yaml"),
		filepath.Join(dir, "consultations.yaml"), filepath.Join(dir, "presets.yaml")} {
		if !slices.Contains(got, want) {
			t.Errorf("%s missing from %v", want, got)
		}
	}
	team.Questions.Answerers = "routing/who.yaml"
	if got := team.OwnFiles(); !slices.Contains(got, filepath.Join(dir, "routing/who.yaml")) {
		t.Errorf("a relative answerers file: %v", got)
	}
}
