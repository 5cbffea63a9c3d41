package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/doctor"
)

// doctorSetup is a project folder with a team file (text), a state folder
// path and a PATH of its own holding the given shell scripts (name →
// body); nothing of the machine's consoles, tmux or screen is seen.
func doctorSetup(t *testing.T, team string, scripts map[string]string) (dir, config, state string) {
	t.Helper()
	isolate(t)
	for _, k := range []string{"TMUX", "STY"} {
		t.Setenv(k, "")
	}
	dir = t.TempDir()
	t.Chdir(dir)
	bin := filepath.Join(dir, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	config = filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(config, []byte(team), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, config, filepath.Join(dir, "state")
}

// line is the table line of a check ("agent dev"), or "".
func line(out, check string) string {
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) > 2 && strings.HasPrefix(strings.Join(f[1:], " "), check+" ") {
			return l
		}
	}
	return ""
}

const claudeTeam = "agents:\n  - name: dev\n    role: developer\n    preset: claude-code\n    dir: ./work\n"

// An agent whose program is not installed is a problem, with the command
// that installs it, and the exit status is 1.
func TestDoctorMissingAgentCommand(t *testing.T) {
	_, config, state := doctorSetup(t, claudeTeam, nil)
	out, err := runCLI(t, "doctor", "--config", config, "--state", state)
	if err == nil || err.Error() != "1 problem (agent dev); fix it as its line says, then run teamlead doctor again" {
		t.Errorf("error: %v\n%s", err, out)
	}
	l := line(out, "agent dev")
	for _, want := range []string{"problem", "claude is not on PATH", "install it: npm install -g @anthropic-ai/claude-code"} {
		if !strings.Contains(l, want) {
			t.Errorf("agent dev line %q lacks %q\n%s", l, want, out)
		}
	}
	if l := line(out, "team file"); !strings.HasPrefix(l, "ok ") || !strings.Contains(l, "loads: 1 agent (dev)") {
		t.Errorf("team file line %q\n%s", l, out)
	}
	if strings.Contains(out, "no problems") {
		t.Errorf("says no problems:\n%s", out)
	}
}

// The exit status of the real command: 1 with a problem, and the reason
// on stderr.
func TestDoctorExitStatus(t *testing.T) {
	if args := os.Getenv("TEAMLEAD_TEST_MAIN"); args != "" {
		var list []string
		if err := json.Unmarshal([]byte(args), &list); err != nil {
			panic(err)
		}
		os.Args = append([]string{"teamlead"}, list...)
		main()
		os.Exit(0)
	}
	_, config, state := doctorSetup(t, claudeTeam, nil)
	cmd := exec.Command(os.Args[0], "-test.run=^TestDoctorExitStatus$")
	args, err := json.Marshal([]string{"doctor", "--config", config, "--state", state})
	if err != nil {
		t.Fatal(err)
	}
	cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_MAIN="+string(args))
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "teamlead: 1 problem (agent dev)") || !strings.Contains(stdout.String(), "npm install -g @anthropic-ai/claude-code") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

// A CLI on PATH is asked its version (a script printing one here), which
// is compared with the one its preset was captured from.
func TestDoctorFakeCLIVersion(t *testing.T) {
	captured := doctor.CapturedVersions()["claude-code"] // 2.1.x
	version := strings.Replace(captured, "x", "328", 1)
	team := claudeTeam + "  - name: reviewer\n    role: review\n    preset: codex\n    dir: ./work\n"
	dir, config, state := doctorSetup(t, team, map[string]string{
		"claude": `[ "$1" = --version ] || exit 2; echo "` + version + ` (Claude Code)"`,
		"codex":  `echo "codex-cli 0.1.0"`,
	})
	if err := os.Mkdir(filepath.Join(dir, "work"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "doctor", "--config", config, "--state", state)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	l := line(out, "agent dev")
	for _, want := range []string{"ok", "claude " + version + " at bin/claude", "the version the claude-code preset was captured from (" + captured + ")"} {
		if !strings.Contains(l, want) {
			t.Errorf("agent dev line %q lacks %q\n%s", l, want, out)
		}
	}
	l = line(out, "agent reviewer")
	for _, want := range []string{"warning", "codex 0.1.0 at bin/codex is older than " + doctor.CapturedVersions()["codex"], "npm install -g @openai/codex@"} {
		if !strings.Contains(l, want) {
			t.Errorf("agent reviewer line %q lacks %q\n%s", l, want, out)
		}
	}
	if l := line(out, "agent folder"); !strings.HasPrefix(l, "ok ") || !strings.Contains(l, "Claude Code's hooks (.claude/settings.local.json) and the primer in AGENTS.md") {
		t.Errorf("agent folder line %q\n%s", l, out)
	}
	if !strings.Contains(out, "\nno problems (") {
		t.Errorf("no summary:\n%s", out)
	}
}

// A state folder that cannot be written is a problem: here a file stands
// where one of its folders should be (root writes anywhere, so a folder
// without write permission only counts for other users).
func TestDoctorUnwritableState(t *testing.T) {
	dir, config, _ := doctorSetup(t, "agents:\n  - name: dev\n    command: [sh]\n", map[string]string{"sh": "exit 0"})
	file := filepath.Join(dir, "notafolder")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "doctor", "--config", config, "--state", filepath.Join(file, "state"))
	if err == nil || !strings.Contains(err.Error(), "1 problem (state folder notafolder/state)") {
		t.Errorf("error: %v\n%s", err, out)
	}
	l := line(out, "state folder")
	for _, want := range []string{"problem", "cannot be made: " + file + " is a file, not a folder", "pass --state DIR"} {
		if !strings.Contains(l, want) {
			t.Errorf("state folder line %q lacks %q\n%s", l, want, out)
		}
	}
	if os.Geteuid() == 0 {
		t.Log("running as root: a folder without write permission is writable to root")
		return
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o500); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o700) })
	out, err = runCLI(t, "doctor", "--config", config, "--state", locked)
	if l := line(out, "state folder"); err == nil || !strings.Contains(l, "problem") || !strings.Contains(l, "no write permission") || !strings.Contains(l, "chmod u+w "+locked) {
		t.Errorf("read-only folder: %v\n%s", err, out)
	}
}

// --format json: one object a line, snake_case keys, the fields of each
// check; an unknown format is refused like every listing's.
func TestDoctorJSON(t *testing.T) {
	_, config, state := doctorSetup(t, claudeTeam, map[string]string{"claude": `echo "2.1.5 (Claude Code)"`})
	out, err := runCLI(t, "doctor", "--config", config, "--state", state, "--format", "json")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var dev, disk map[string]any
	for i, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, l)
		}
		checkJSON(t, "doctor", v, "")
		for _, k := range []string{"check", "status", "finding"} {
			if s, _ := v[k].(string); s == "" {
				t.Errorf("line %d has no %s: %s", i+1, k, l)
			}
		}
		switch st := v["status"]; st {
		case "ok":
		case "warning", "problem":
			if s, _ := v["fix"].(string); s == "" {
				t.Errorf("a %s without a fix: %s", st, l)
			}
		default:
			t.Errorf("status %v: %s", st, l)
		}
		switch {
		case v["check"] == "agent" && v["subject"] == "dev":
			dev = v
		case v["check"] == "disk space":
			disk = v
		}
	}
	want := map[string]any{"status": "ok", "program": "claude", "path": filepath.Join(filepath.Dir(config), "bin", "claude"),
		"version": "2.1.5", "captured_version": doctor.CapturedVersions()["claude-code"]}
	for k, w := range want {
		if dev[k] != w {
			t.Errorf("agent dev: %s = %v, want %v (%v)", k, dev[k], w, dev)
		}
	}
	if f, _ := disk["free_bytes"].(float64); f <= 0 || disk["folder"] != state {
		t.Errorf("disk space: %v", disk)
	}
	if _, err := runCLI(t, "doctor", "--format", "yaml"); err == nil || !badFormat.MatchString(err.Error()) {
		t.Errorf("--format yaml: %v", err)
	}
}

// Without a team file the known agent CLIs are checked, none of them
// required: a missing one is a warning with its install command.
func TestDoctorNoTeamFile(t *testing.T) {
	dir, _, _ := doctorSetup(t, "", map[string]string{"aider": `echo "aider 0.86.1"`})
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	if err := os.Remove(filepath.Join(dir, "team.yaml")); err != nil {
		t.Fatal(err)
	}
	out, err := runCLI(t, "doctor")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for check, want := range map[string]string{
		"team file":        "teamlead init",
		"agent CLI claude": "npm install -g @anthropic-ai/claude-code",
		"agent CLI codex":  "npm install -g @openai/codex",
		"agent CLI gemini": "npm install -g @google/gemini-cli",
	} {
		if l := line(out, check); !strings.HasPrefix(l, "warning ") || !strings.Contains(l, want) {
			t.Errorf("%s line %q lacks %q\n%s", check, l, want, out)
		}
	}
	if l := line(out, "agent CLI aider"); !strings.HasPrefix(l, "ok ") || !strings.Contains(l, "aider 0.86.1") {
		t.Errorf("aider line %q\n%s", l, out)
	}
	if l := line(out, "state folder"); !strings.Contains(l, filepath.Join("data", "teamlead")) {
		t.Errorf("state folder line %q (the default state folder)\n%s", l, out)
	}
}
