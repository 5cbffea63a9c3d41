package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/config"
)

// runCLI runs the teamlead command line in-process and returns its output.
func runCLI(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

// fakeCLIs puts dummy executables with the given names in a folder and
// makes it the whole PATH.
func fakeCLIs(t *testing.T, names ...string) {
	t.Helper()
	bin := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(bin, n), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
}

func TestPrimerCommand(t *testing.T) {
	out, err := runCLI(t, "primer", "architect", "--config", filepath.Join("..", "..", "configs", "team.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# teamlead primer for architect (protocol v1)", "You are **architect**, role **architect**",
		"- `dev`: role developer", "- `infrastructure`: approval from role security", "[ROUTE]\nto: team-lead\ntype: permission"} {
		if !strings.Contains(out, want) {
			t.Errorf("primer lacks %q:\n%s", want, out)
		}
	}
}

func TestPrimerCommandUnknownAgent(t *testing.T) {
	out, err := runCLI(t, "primer", "nobody", "--config", filepath.Join("..", "..", "configs", "team.yaml"))
	if err == nil || !strings.Contains(err.Error(), `unknown agent "nobody"; the team has dev, architect, security, qa`) {
		t.Errorf("err = %v, out %q", err, out)
	}
	if _, err := runCLI(t, "primer", "--config", filepath.Join("..", "..", "configs", "team.yaml")); err == nil {
		t.Error("no agent given, no error")
	}
	if _, err := runCLI(t, "primer", "dev", "--config", filepath.Join(t.TempDir(), "missing.yaml")); err == nil || !strings.Contains(err.Error(), "team file") {
		t.Errorf("missing team file: %v", err)
	}
}

// init, then primer on what init wrote: with claude and codex on PATH the
// team is a Claude Code developer and a Codex reviewer.
func TestInitCommand(t *testing.T) {
	fakeCLIs(t, "claude", "codex")
	dir := filepath.Join(t.TempDir(), "proj")
	out, err := runCLI(t, "init", dir)
	if err != nil {
		t.Fatal(err)
	}
	team := filepath.Join(dir, "team.yaml")
	for _, want := range []string{"wrote " + team + ": dev (developer, claude), reviewer (review, codex)",
		"wrote " + filepath.Join(dir, "consultations.yaml"), "wrote " + filepath.Join(dir, "answerers.yaml"),
		"note: no agent has role testing", "next: teamlead primer dev --config " + team} {
		if !strings.Contains(out, want) {
			t.Errorf("init output lacks %q:\n%s", want, out)
		}
	}
	loaded, err := config.LoadTeam(team)
	if err != nil {
		t.Fatal(err)
	}
	if len(loaded.Agents) != 2 || loaded.Agents[0].Preset != "claude-code" || loaded.Agents[1].Preset != "codex" {
		t.Errorf("agents %+v", loaded.Agents)
	}

	p, err := runCLI(t, "primer", "reviewer", "--config", team)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p, "You are **reviewer**, role **review**") || !strings.Contains(p, "- `code-complete` decisions of role developer (dev)") {
		t.Errorf("reviewer's primer:\n%s", p)
	}

	// A second init does not overwrite team.yaml; --force does.
	if err := os.WriteFile(team, []byte("agents:\n  - name: mine\n    command: [sh]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, "init", dir); err == nil || !strings.Contains(err.Error(), "already exists; pass --force") {
		t.Errorf("second init: %v", err)
	}
	if b, _ := os.ReadFile(team); !strings.Contains(string(b), "name: mine") {
		t.Error("team.yaml overwritten without --force")
	}
	out, err = runCLI(t, "init", dir, "--force")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "kept "+filepath.Join(dir, "consultations.yaml")+" (already there)") {
		t.Errorf("forced init:\n%s", out)
	}
	if _, err := config.LoadTeam(team); err != nil {
		t.Fatal(err)
	}
}

// With no agent CLI on PATH, init writes the demo team, which loads and
// whose scripts are where its agents run.
func TestInitCommandDemo(t *testing.T) {
	fakeCLIs(t)
	dir := t.TempDir()
	t.Chdir(dir)
	out, err := runCLI(t, "init")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "no agent CLI found on PATH") || !strings.Contains(out, "wrote team.yaml: dev (developer,") {
		t.Errorf("init output:\n%s", out)
	}
	team, err := config.LoadTeam("team.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range team.Agents {
		if _, err := os.Stat(filepath.Join(a.Dir, a.Name+".mock")); err != nil {
			t.Errorf("agent %s: %v", a.Name, err)
		}
	}
	if _, err := runCLI(t, "primer", "qa", "--config", "team.yaml"); err != nil {
		t.Error(err)
	}
}
