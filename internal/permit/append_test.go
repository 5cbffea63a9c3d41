package permit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/configs"
)

const commented = `# Team policy: keep this comment.
default: ask # and this one

rules:
  # Reading is fine.
  - match: Read(**)
    decide: allow
    why: reading

  # Installs are the human's call.
  - match: Bash(npm install:*)
    decide: ask
    why: installs
  - match: Bash(npm:*)
    decide: allow
    why: npm scripts
`

func writePolicy(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "permissions.yaml")
	if err := os.WriteFile(path, []byte(text), 0o640); err != nil {
		t.Fatal(err)
	}
	return path
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAddRuleKeepsComments(t *testing.T) {
	path := writePolicy(t, commented)
	err := AddRule(path, Addition{Match: "Bash(make test:*)", Why: "tests", Comment: "approved always by the human on 2025-01-02"}, testEnv)
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	for _, keep := range []string{"# Team policy: keep this comment.", "# and this one", "# Reading is fine.", "# Installs are the human's call.",
		"# approved always by the human on 2025-01-02\n  - match: Bash(make test:*)", "\n\n  # Installs"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q:\n%s", keep, got)
		}
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if last := p.Rules[len(p.Rules)-1]; last.Rule.Text != "Bash(make test:*)" || last.Decide != Allow || last.Why != "tests" {
		t.Errorf("appended %+v", last)
	}
	if d := p.Check("Bash(make test -j4)", "dev", testEnv); d.Decide != Allow {
		t.Errorf("%+v", d)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v", fi.Mode())
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("left behind: %v", ents)
	}
}

// TestAddRulePlacesItWhereItDecides: approving npm install always adds a
// rule that decides it; rule order does not matter (the most specific rule
// decides), so it goes at the end.
func TestAddRulePlacesItWhereItDecides(t *testing.T) {
	path := writePolicy(t, commented)
	add := Addition{Match: "Bash(npm install lodash)", Why: "approved always", Action: "Bash(npm install lodash)"}
	if err := AddRule(path, add, testEnv); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if last := p.Rules[len(p.Rules)-1]; last.Rule.Text != "Bash(npm install lodash)" {
		t.Errorf("appended: %s", last.Rule.Text)
	}
	if d := p.Check("Bash(npm install lodash)", "dev", testEnv); d.Decide != Allow || d.Rule.Text != "Bash(npm install lodash)" {
		t.Errorf("%+v", d)
	}
	if d := p.Check("Bash(npm install left-pad)", "dev", testEnv); d.Decide != Ask {
		t.Errorf("other installs still ask: %+v", d)
	}
	// Nothing to move past: appended at the end.
	if err := AddRule(path, Addition{Match: "Bash(cargo test:*)", Why: "x", Action: "Bash(cargo test)"}, testEnv); err != nil {
		t.Fatal(err)
	}
	p, _ = Load(path)
	if p.Rules[len(p.Rules)-1].Rule.Text != "Bash(cargo test:*)" {
		t.Errorf("not last: %+v", p.Rules)
	}
}

func TestAddRuleForAnAgent(t *testing.T) {
	path := writePolicy(t, string(configs.Permissions))
	add := Addition{Agent: "qa", Match: "Bash(docker ps:*)", Why: "qa inspects containers", Action: "Bash(docker ps -a)", Paths: PathsWorkdir}
	if err := AddRule(path, add, testEnv); err != nil {
		t.Fatal(err)
	}
	got := read(t, path)
	for _, keep := range []string{"# Rules for one agent, checked before the rules above.", "# --- Web ---", "paths: workdir\n    why: reads, lists"} {
		if !strings.Contains(got, keep) {
			t.Errorf("lost %q", keep)
		}
	}
	p, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Agents["qa"]) != 1 || p.Agents["qa"][0].Paths != PathsWorkdir {
		t.Fatalf("agents: %+v", p.Agents)
	}
	if d := p.Check("Bash(docker ps -a)", "qa", testEnv); d.Decide != Allow || d.Rule.Agent != "qa" {
		t.Errorf("qa: %+v", d)
	}
	if d := p.Check("Bash(docker ps -a)", "dev", testEnv); d.Decide != Ask {
		t.Errorf("dev: %+v", d)
	}
	before, _ := Builtin()
	if len(p.Rules) != len(before.Rules) {
		t.Errorf("rules %d, were %d", len(p.Rules), len(before.Rules))
	}
}

func TestAddRuleShadowed(t *testing.T) {
	path := writePolicy(t, `
rules:
  - match: Bash(ls:*)
    decide: allow
    why: x
agents:
  dev:
    - match: Bash(git:*)
      decide: ask
      why: dev asks for git
`)
	before := read(t, path)
	err := AddRule(path, Addition{Match: "Bash(git status)", Why: "x", Action: "Bash(git status)", ActionAgent: "dev"}, testEnv)
	if !errors.Is(err, ErrShadowed) || !strings.Contains(err.Error(), "Bash(git:*)") {
		t.Fatalf("%v", err)
	}
	// Added for the agent instead, it goes before the agent's ask.
	if err := AddRule(path, Addition{Agent: "dev", Match: "Bash(git status)", Why: "x", Action: "Bash(git status)"}, Env{Workdir: "/w"}); err != nil {
		t.Fatal(err)
	}
	p, _ := Load(path)
	if d := p.Check("Bash(git status)", "dev", Env{Workdir: "/w"}); d.Decide != Allow {
		t.Errorf("%+v", d)
	}
	if read(t, path) == before {
		t.Error("file unchanged")
	}
	// The floor cannot be shadowed away.
	err = AddRule(path, Addition{Match: "Bash(rm -rf /)", Why: "x", Action: "Bash(rm -rf /)"}, testEnv)
	if !errors.Is(err, ErrShadowed) {
		t.Errorf("floor: %v", err)
	}
}

func TestAddRuleErrors(t *testing.T) {
	path := writePolicy(t, commented)
	for _, tc := range []struct {
		add  Addition
		want error
	}{
		{Addition{Match: "bash(x)", Why: "x"}, ErrRule},
		{Addition{Match: "Bash(x)"}, ErrPolicy},
		{Addition{Match: "Bash(x)", Why: "x", Agent: "Bad Name"}, ErrPolicy},
	} {
		if err := AddRule(path, tc.add, testEnv); !errors.Is(err, tc.want) {
			t.Errorf("%+v: %v", tc.add, err)
		}
	}
	if read(t, path) != commented {
		t.Error("a failed add changed the file")
	}
	if err := AddRule(filepath.Join(t.TempDir(), "none.yaml"), Addition{Match: "Bash", Why: "x"}, testEnv); !errors.Is(err, ErrPolicy) {
		t.Error(err)
	}
	bad := writePolicy(t, "rules: {}")
	if err := AddRule(bad, Addition{Match: "Bash", Why: "x"}, testEnv); !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "must be valid") {
		t.Error(err)
	}
}

func TestAddRuleToEmptyLists(t *testing.T) {
	for _, text := range []string{"default: ask\n", "default: ask\nrules: []\nagents: {}\n", "rules:\nagents:\n"} {
		path := writePolicy(t, text)
		if err := AddRule(path, Addition{Match: "Bash(ls:*)", Why: "x"}, testEnv); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		if err := AddRule(path, Addition{Agent: "qa", Match: "Read", Why: "y"}, testEnv); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		p, err := Load(path)
		if err != nil || len(p.Rules) != 1 || len(p.Agents["qa"]) != 1 {
			t.Errorf("%q: %+v %v\n%s", text, p, err, read(t, path))
		}
	}
}
