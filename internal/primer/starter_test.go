package primer

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/config"
)

// fakePath makes a PATH folder holding dummy executables with the given
// names, and sets PATH to it alone.
func fakePath(t *testing.T, programs ...string) string {
	t.Helper()
	bin := t.TempDir()
	for _, p := range programs {
		if err := os.WriteFile(filepath.Join(bin, p), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	return bin
}

func TestStarterForCLIsOnPath(t *testing.T) {
	cases := []struct {
		found []string
		want  []string // name/role/preset/command
		notes []string
	}{
		{[]string{"claude"}, []string{"dev/developer/claude-code/claude"},
			[]string{"no agent has role review", "no agent has role testing", "no agent has role qa"}},
		{[]string{"claude", "codex"}, []string{"dev/developer/claude-code/claude", "reviewer/review/codex/codex"},
			[]string{"no agent has role testing", "no agent has role qa"}},
		{[]string{"codex", "gemini", "claude", "aider"}, []string{"dev/developer/claude-code/claude", "reviewer/review/codex/codex",
			"tester/testing/gemini/gemini", "qa/qa/aider/aider --no-auto-commits"}, nil},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.found, "+"), func(t *testing.T) {
			bin := fakePath(t, append(c.found, "unrelated")...)
			dir := filepath.Join(t.TempDir(), "proj")
			res, err := WriteStarter(dir, StarterOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Demo {
				t.Fatal("demo team although CLIs were found")
			}
			team, err := config.LoadTeam(filepath.Join(dir, "team.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range team.Agents {
				got = append(got, a.Name+"/"+a.Role+"/"+a.Preset+"/"+strings.Join(a.Command, " "))
				if a.Dir != dir {
					t.Errorf("%s works in %s, want the team's folder %s", a.Name, a.Dir, dir)
				}
			}
			if strings.Join(got, ",") != strings.Join(c.want, ",") {
				t.Errorf("agents %v, want %v", got, c.want)
			}
			text, _ := os.ReadFile(filepath.Join(dir, "team.yaml"))
			for _, w := range append([]string{"Found on PATH: ", filepath.Join(bin, c.found[0]), "Add an agent:", "Change a role:",
				"The primer:", "teamlead primer NAME"}, c.notes...) {
				if !strings.Contains(string(text), w) {
					t.Errorf("team.yaml lacks %q:\n%s", w, text)
				}
			}
			if len(c.notes) == 0 && strings.Contains(string(text), "Note:") {
				t.Errorf("a complete team has notes:\n%s", text)
			}
			for _, line := range strings.Split(string(text), "\n") {
				if len(line) > 80 && !strings.Contains(line, bin) {
					t.Errorf("line longer than 80 columns: %q", line)
				}
			}
			if team.Consultations.Rules != filepath.Join(dir, "consultations.yaml") || team.Questions.Answerers != filepath.Join(dir, "answerers.yaml") {
				t.Errorf("rules %q, answerers %q: the copies beside the team file are not used", team.Consultations.Rules, team.Questions.Answerers)
			}
			// Every agent's primer can be made from the written team.
			for _, a := range team.Agents {
				if _, err := Text(team, a.Name); err != nil {
					t.Errorf("primer of %s: %v", a.Name, err)
				}
			}
		})
	}
}

func TestStarterDemoWhenNothingFound(t *testing.T) {
	fakePath(t, "vim")
	dir := t.TempDir()
	res, err := WriteStarter(dir, StarterOptions{MockAgent: "/opt/teamlead/bin/mockagent"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Demo || len(res.Agents) != 4 {
		t.Fatalf("result %+v", res)
	}
	team, err := config.LoadTeam(filepath.Join(dir, "team.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range team.Agents {
		if a.Command[0] != "/opt/teamlead/bin/mockagent" || a.Command[len(a.Command)-1] != a.Name+".mock" || a.Dir != filepath.Join(dir, "demo") {
			t.Errorf("agent %+v", a)
		}
		script, err := os.ReadFile(filepath.Join(a.Dir, a.Name+".mock"))
		if err != nil {
			t.Fatal(err)
		}
		orig, err := os.ReadFile(filepath.Join("..", "..", "configs", "demo", a.Name+".mock"))
		if err != nil {
			t.Fatal(err)
		}
		if string(script) != string(orig) {
			t.Errorf("demo/%s.mock differs from configs/demo", a.Name)
		}
	}
	text, _ := os.ReadFile(filepath.Join(dir, "team.yaml"))
	if !strings.Contains(string(text), "No agent CLI was found on PATH (looked for claude, codex, gemini, copilot, opencode, aider)") {
		t.Errorf("team.yaml:\n%s", text)
	}
	// The comment counts the agents the file holds.
	if !strings.Contains(string(text), "demo team: four scripted agents") {
		t.Errorf("the comment does not say four agents:\n%s", text)
	}
}

// The mockagent of the demo: on PATH it is named plainly.
func TestStarterDemoFindsMockAgentOnPath(t *testing.T) {
	fakePath(t, "mockagent")
	dir := t.TempDir()
	res, err := WriteStarter(dir, StarterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Demo || res.Agents[0].Command[0] != "mockagent" {
		t.Errorf("agents %+v", res.Agents)
	}
}

// An existing team.yaml is kept unless Force; consultations.yaml and
// answerers.yaml the user already has are never replaced.
func TestStarterKeepsExistingFiles(t *testing.T) {
	fakePath(t, "codex")
	dir := t.TempDir()
	mine := map[string]string{
		"team.yaml":          "agents:\n  - name: me\n    command: [sh]\n",
		"consultations.yaml": "mandatory: []\n",
		"answerers.yaml":     "version: \"1\"\nroutes: []\n",
	}
	for name, text := range mine {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := WriteStarter(dir, StarterOptions{})
	if !errors.Is(err, ErrExists) || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "team.yaml")); string(b) != mine["team.yaml"] {
		t.Fatal("team.yaml was changed without --force")
	}
	res, err := WriteStarter(dir, StarterOptions{Force: true})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.Written, ",") != "team.yaml" || strings.Join(res.Kept, ",") != "consultations.yaml,answerers.yaml" {
		t.Errorf("written %v, kept %v", res.Written, res.Kept)
	}
	for _, name := range []string{"consultations.yaml", "answerers.yaml"} {
		if b, _ := os.ReadFile(filepath.Join(dir, name)); string(b) != mine[name] {
			t.Errorf("%s was replaced", name)
		}
	}
	// The user's rules have no mandatory rule: nothing to note but QA.
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0], "role qa") {
		t.Errorf("notes %v", res.Notes)
	}
	team, err := config.LoadTeam(filepath.Join(dir, "team.yaml"))
	if err != nil || team.Agents[0].Name != "dev" || team.Agents[0].Preset != "codex" {
		t.Fatalf("team %+v, %v", team, err)
	}
}

func TestArgvQuoting(t *testing.T) {
	a := StarterAgent{Command: []string{"/opt/my tools/claude", "--name", "dev", "dev.mock", "-c", "x=1", "a:b", "#x"}}
	want := `["/opt/my tools/claude", --name, dev, dev.mock, -c, x=1, "a:b", "#x"]`
	if got := a.Argv(); got != want {
		t.Errorf("got %s, want %s", got, want)
	}
}

// In a git repository with a commit the starter team puts each agent in a
// worktree of its own; the demo's agents read their scripts from the
// team's folder (they are in no commit).
func TestStarterInARepositoryUsesWorktrees(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("commit", "-q", "--allow-empty", "-m", "first")
	bin := fakePath(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin"+string(os.PathListSeparator)+"/bin")
	res, err := WriteStarter(dir, StarterOptions{LookPath: func(string) (string, error) { return "", errors.New("none") }, MockAgent: "mockagent"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Worktrees || !res.Demo {
		t.Fatalf("Worktrees %v, Demo %v", res.Worktrees, res.Demo)
	}
	team, err := config.LoadTeam(res.Team)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range team.Agents {
		script := a.Command[len(a.Command)-1]
		if a.Branch != "teamlead/"+a.Name || !filepath.IsAbs(script) || !strings.HasPrefix(script, dir) {
			t.Errorf("%s: branch %q, script %q", a.Name, a.Branch, script)
		}
	}
}
