package permit

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParsePolicy(t *testing.T) {
	p := mustParse(t, `# a comment
default: deny
rules:
  - match: Bash(go test:*)
    decide: allow
    why: tests
  - match: [Read(**), Edit(src/**)]
    decide: allow
    paths: workdir
    risk: medium
    why: files
agents:
  reviewer:
    - match: Edit
      decide: deny
      why: reviews only
  empty:
`)
	if p.Default != Deny || p.DefaultLine != 2 || len(p.Rules) != 3 || len(p.Agents["reviewer"]) != 1 {
		t.Fatalf("%+v", p)
	}
	r := p.Rules[2]
	if r.Rule.Text != "Edit(src/**)" || r.Line != 7 || r.Decide != Allow || r.Paths != PathsWorkdir || r.Risk != Medium || r.Why != "files" || r.File != "test.yaml" {
		t.Errorf("entry %+v", r)
	}
	if a := p.Agents["reviewer"][0]; a.Agent != "reviewer" || a.Line != 14 || a.Decide != Deny {
		t.Errorf("agent entry %+v", a)
	}
	if got := p.AgentNames(); len(got) != 2 || got[0] != "empty" || got[1] != "reviewer" {
		t.Errorf("agents %v", got)
	}
}

func TestParsePolicyErrors(t *testing.T) {
	for _, tc := range []struct{ text, says string }{
		{``, "test.yaml:1: (file): the file is empty"},
		{`[a, b]`, "test.yaml:1: (top level): expected a mapping"},
		{"rules: [\n", "test.yaml:"},
		{"defualt: ask", "test.yaml:1: defualt: unknown field; known fields are default, rules, agents"},
		{"default: ask\ndefault: deny", "test.yaml:2: default: given twice (first on line 1)"},
		{"default: allow", "test.yaml:1: default: allow would approve every action"},
		{"default: maybe", `test.yaml:1: default: "maybe": use allow, ask or deny`},
		{"rules: {}", "test.yaml:1: rules: expected a list of rules"},
		{"rules:\n  - Bash", "test.yaml:2: rules[0]: expected {match"},
		{"rules:\n  - match: Bash\n    decide: allow\n    why: x\n    reason: y", "test.yaml:5: rules[0].reason: unknown field; known fields are match, decide, why, risk, paths"},
		{"rules:\n  - match: Bash\n    decide: allow", "test.yaml:2: rules[0]: missing why"},
		{"rules:\n  - decide: allow\n    why: x", "test.yaml:2: rules[0]: missing match"},
		{"rules:\n  - match: Bash\n    why: x", "test.yaml:2: rules[0]: missing decide"},
		{"rules:\n  - match: Bash\n    decide: yes\n    why: x", `test.yaml:3: rules[0].decide: "yes": use allow, ask or deny`},
		{"rules:\n  - match: Bash\n    decide: allow\n    why: ''", "test.yaml:4: rules[0].why: empty"},
		{"rules:\n  - match: Bash\n    decide: allow\n    why: x\n    risk: huge", `test.yaml:5: rules[0].risk: "huge": use low`},
		{"rules:\n  - match: Bash\n    decide: allow\n    why: x\n    paths: home", `test.yaml:5: rules[0].paths: "home": use workdir`},
		{"rules:\n  - match: bash(ls)\n    decide: allow\n    why: x", `test.yaml:2: rules[0].match: "bash(ls)": unknown tool "bash"`},
		{"rules:\n  - match:\n      - Bash(ls)\n      - Bash(go:* x)\n    decide: allow\n    why: x", `test.yaml:4: rules[0].match: "Bash(go:* x)": :* may only end the rule`},
		{"rules:\n  - match: []\n    decide: allow\n    why: x", "test.yaml:2: rules[0].match: an empty list matches nothing"},
		{"rules:\n  - match: {a: b}\n    decide: allow\n    why: x", "test.yaml:2: rules[0].match: expected a rule, or a list"},
		{"rules:\n  - match: Bash\n    match: Read\n    decide: allow\n    why: x", "test.yaml:3: rules[0].match: given twice"},
		{"agents: [a]", "test.yaml:1: agents: expected a mapping of agent names"},
		{"agents:\n  Dev!: []", "test.yaml:2: agents.Dev!: an agent name is"},
		{"agents:\n  dev:\n    - match: Edit(../x)\n      decide: deny\n      why: x", `test.yaml:3: agents.dev[0].match: "Edit(../x)": ".." segments`},
	} {
		_, err := Parse("test.yaml", []byte(tc.text))
		if err == nil {
			t.Errorf("%q: no error", tc.text)
			continue
		}
		if !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%q:\n  %v\n  want %q", tc.text, err, tc.says)
		}
	}
	_, err := Parse("test.yaml", []byte("rules:\n  - match: bash(ls)\n    decide: allow\n    why: x"))
	if !errors.Is(err, ErrRule) {
		t.Errorf("a bad rule should wrap ErrRule too: %v", err)
	}
}

func TestLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	if _, err := Load(path); !errors.Is(err, ErrPolicy) || !strings.Contains(err.Error(), "--policy") {
		t.Errorf("missing file: %v", err)
	}
	if err := os.WriteFile(path, []byte("rules:\n  - match: Bash(ls:*)\n    decide: allow\n    why: x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path)
	if err != nil || p.File != path || p.Default != Ask {
		t.Fatalf("%+v %v", p, err)
	}
	d := p.Check("Bash(whoami)", "dev", testEnv)
	if d.Rule.Kind != ByDefault || d.Rule.Where() != path+":0" || d.Decide != Ask {
		t.Errorf("%+v", d)
	}
}

const ordered = `
default: ask
rules:
  - match: Bash(git push:*)
    decide: ask
    why: pushing is the human's call
  - match: Bash(git:*)
    decide: allow
    why: git is fine
  - match: Bash(git push --force:*)
    decide: deny
    why: deny beats the allow of git:*, which does not refine it
  - match: Edit(src/**)
    decide: allow
    why: source
  - match: Edit
    decide: deny
    why: nothing else
agents:
  reviewer:
    - match: Edit(src/**)
      decide: deny
      why: the reviewer does not change code
    - match: Bash(git push:*)
      decide: allow
      why: the reviewer publishes reviews
  dev:
    - match: Bash(git:*)
      decide: ask
      why: dev asks for git
`

// TestRuleDecides: deny, then ask, then allow; an allow rule wins over a
// deny or ask only where it refines it (Edit(src/**) of Edit).
func TestRuleDecides(t *testing.T) {
	p := mustParse(t, ordered)
	for _, tc := range []struct {
		agent, action string
		want          Decide
		line          int
	}{
		{"qa", "Bash(git push origin main)", Ask, 4},
		{"qa", "Bash(git status)", Allow, 7},
		{"qa", "Bash(git push --force-with-lease x)", Ask, 0}, // the floor over line 4's ask
		{"qa", "Bash(git push -v --force x)", Deny, 10},       // --force in any place
		{"qa", "Edit(src/a.go)", Allow, 13},
		{"qa", "Edit(docs/a.md)", Deny, 16},
		{"reviewer", "Edit(src/a.go)", Deny, 21},
		{"reviewer", "Edit(docs/a.md)", Deny, 16},
		{"reviewer", "Bash(git push origin main)", Allow, 24},
		{"reviewer", "Bash(git status)", Allow, 7},
		{"dev", "Bash(git status)", Ask, 28},
		{"dev", "Bash(ls)", Ask, 2}, // the default
	} {
		d := p.Check(tc.action, tc.agent, testEnv)
		if d.Decide != tc.want || d.Rule.Line != tc.line {
			t.Errorf("%s %s: %s by %s (line %d), want %s line %d", tc.agent, tc.action, d.Decide, d.Rule, d.Rule.Line, tc.want, tc.line)
		}
		if tc.agent == "reviewer" && tc.line > 20 && d.Rule.Agent != "reviewer" {
			t.Errorf("%s: rule agent %q", tc.action, d.Rule.Agent)
		}
	}
	eff := p.Effective("reviewer")
	if len(eff) != 7 || eff[0].Line != 21 || eff[2].Line != 4 {
		t.Errorf("effective: %d rules, first lines %d %d", len(eff), eff[0].Line, eff[2].Line)
	}
	if len(p.Effective("nobody")) != 5 {
		t.Error("an agent without overrides gets the defaults")
	}
}

func TestRisk(t *testing.T) {
	p := mustParse(t, `
rules:
  - match: Bash(deploy:*)
    decide: ask
    risk: critical
    why: production
  - match: Bash(ls:*)
    decide: allow
    why: x
  - match: Bash(rm:*)
    decide: deny
    why: x
`)
	for _, tc := range []struct {
		action string
		want   Risk
	}{
		{"Bash(deploy prod)", Critical},
		{"Bash(ls)", Low},
		{"Bash(rm x)", High},
		{"Bash(whoami)", Medium},
		{"Bash(ls && deploy prod)", Critical},
		{"Bash(ls; sudo ls)", Critical},
	} {
		if d := p.Check(tc.action, "", testEnv); d.Risk != tc.want {
			t.Errorf("%s: %s", tc.action, d.Risk)
		}
	}
}
