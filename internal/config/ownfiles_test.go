package config

import (
	"errors"
	"io/fs"
	"os"
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

// Each of teamlead's own files is read once, at the team's load, and its
// hash noted (one not there noted as missing): what the engine and the
// console use later is those bytes, not what an agent put there after the
// guard's check (red team 9a, finding 4).
func TestOwnFilesReadOnce(t *testing.T) {
	p := writeTeam(t, "agents:\n  - name: dev\n    command: [cat]\n")
	dir := filepath.Dir(p)
	answerers := filepath.Join(dir, "answerers.yaml")
	first := "routes:\n  - pattern: \"ops.*\"\n    answerer: human\n"
	if err := os.WriteFile(answerers, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	team, err := LoadTeam(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range team.OwnFiles() {
		if _, ok := team.Read[f]; !ok {
			t.Errorf("%s was not read at load (Read: %v)", f, team.Read)
		}
	}
	if h := team.Read[filepath.Join(dir, "consultations.yaml")]; h != "" {
		t.Errorf("a missing consultations.yaml noted as %q", h)
	}
	if err := os.WriteFile(answerers, []byte("routes: []\n# swapped\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "consultations.yaml"), []byte("mandatory: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := team.OwnData(answerers); err != nil || string(got) != first {
		t.Errorf("answerers as used later: %q, %v", got, err)
	}
	if _, err := team.OwnData(filepath.Join(dir, "consultations.yaml")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a consultations.yaml made after the load: %v", err)
	}
}
