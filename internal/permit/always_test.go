package permit

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestAlwaysRules(t *testing.T) {
	p := mustParse(t, `
rules:
  - match: [Bash(go test:*), Bash(ls:*)]
    decide: allow
    why: fine
`)
	for _, tc := range []struct {
		action string
		scope  Scope
		want   []string
		still  string // an action the rules must not allow (asked as before); "" for none
	}{
		{"Bash(npm run build -- --prod)", ScopeExact, []string{"Bash(npm run build -- --prod)"}, ""},
		{"Bash(npm run build -- --prod)", ScopePrefix, []string{"Bash(npm run build:*)"}, ""},
		{"Bash(npm run build -- --prod)", ScopeTool, []string{"Bash"}, ""},
		{"Bash(git commit -m 'fix it')", ScopePrefix, []string{"Bash(git commit -m 'fix it':*)"}, ""},
		{"Bash(git commit -m 'fix it')", ScopeExact, []string{"Bash(git commit -m 'fix it')"}, ""},
		{"Bash(docker compose up -d)", ScopePrefix, []string{"Bash(docker compose up:*)"}, ""},
		{"Bash(python3 tools/gen.py --all)", ScopePrefix, []string{"Bash(python3 tools/gen.py:*)"}, "Bash(python3 tools/other.py)"},
		// A prefix reaches the command's first operand, whatever its spelling
		// (red team 9a, finding 11): the rule never widens to every package.
		{"Bash(npm install left-pad)", ScopePrefix, []string{"Bash(npm install left-pad:*)"}, "Bash(npm install evil)"},
		{"Bash(npm install -- left-pad)", ScopePrefix, []string{"Bash(npm install -- left-pad:*)"}, "Bash(npm install -- is-number)"},
		{"Bash(npm install '--' left-pad)", ScopePrefix, []string{"Bash(npm install -- left-pad:*)"}, "Bash(npm install -- is-number)"},
		{"Bash(npm install --)", ScopePrefix, []string{"Bash(npm install --:*)"}, "Bash(npm install evil)"},
		{"Bash(npm install 'left-pad')", ScopePrefix, []string{"Bash(npm install left-pad:*)"}, "Bash(npm install evil)"},
		{`Bash(npm install "left pad")`, ScopePrefix, []string{"Bash(npm install 'left pad':*)"}, "Bash(npm install left)"},
		{"Bash(npm install ./left-pad)", ScopePrefix, []string{"Bash(npm install ./left-pad:*)"}, "Bash(npm install ./evil)"},
		{"Bash(npm install @types/node)", ScopePrefix, []string{"Bash(npm install @types/node:*)"}, "Bash(npm install evil)"},
		{"Bash(npm  install\tleft-pad)", ScopePrefix, []string{"Bash(npm install left-pad:*)"}, "Bash(npm install evil)"},
		{"Bash(npm install left-pad; npm install evil)", ScopePrefix, []string{"Bash(npm install left-pad:*)", "Bash(npm install evil:*)"}, "Bash(npm install other)"},
		{"Bash(git push origin feature-15)", ScopePrefix, []string{"Bash(git push origin feature-15:*)"}, "Bash(git push origin main)"},
		{"Bash(git push -u origin feature-15)", ScopePrefix, []string{"Bash(git push -u origin feature-15:*)"}, "Bash(git push -u origin feature-15-evil)"},
		{"Bash(git push origin HEAD:feature-15)", ScopePrefix, []string{"Bash(git push origin HEAD:feature-15:*)"}, "Bash(git push origin HEAD:main)"},
		{"Bash(gh pr merge 15 --squash)", ScopePrefix, []string{"Bash(gh pr merge 15:*)"}, "Bash(gh pr merge 16)"},
		{"Bash(kubectl delete pod web-1)", ScopePrefix, []string{"Bash(kubectl delete pod web-1:*)"}, "Bash(kubectl delete pod db-0)"},
		{"Bash(pytest tests/ -q)", ScopePrefix, []string{"Bash(pytest tests/:*)"}, "Bash(pytest other/)"},
		{"Bash(rm -- -f)", ScopePrefix, []string{"Bash(rm -- -f:*)"}, "Bash(rm -- x)"},
		{"Bash(head *.go)", ScopePrefix, []string{`Bash(head \*.go:*)`}, "Bash(head x.go)"},
		{"Bash(timeout 60 make check)", ScopePrefix, []string{"Bash(make check:*)"}, ""},
		{"Bash(wc -l *.go)", ScopeExact, []string{`Bash(wc -l \*.go)`}, ""},
		{"Bash(go test ./... && npm test && ls)", ScopePrefix, []string{"Bash(npm test:*)"}, ""},
		{"Bash(go test ./...)", ScopePrefix, nil, ""},
		{"Edit(src/pkg/a.go)", ScopeExact, []string{"Edit(/src/pkg/a.go)"}, ""},
		{"Edit(src/pkg/a.go)", ScopePrefix, []string{"Edit(/src/pkg/**)"}, ""},
		{"Write(main.go)", ScopeDir, []string{"Write(/**)"}, ""},
		{"Edit(src/a.go)", ScopeTool, []string{"Edit"}, ""},
		{"Read(/usr/include/stdio.h)", ScopeDir, []string{"Read(//usr/include/**)"}, ""},
		{"Read(~/go/pkg/mod/x@v1/a.go)", ScopeDir, []string{"Read(~/go/pkg/mod/x@v1/**)"}, ""},
		{"Read(docs/[draft].md)", ScopeExact, []string{`Read(/docs/\[draft\].md)`}, ""},
		{"WebFetch(https://example.com/a/b)", ScopeExact, []string{"WebFetch(domain:example.com)"}, ""},
		{"WebFetch(https://example.com/a/b)", ScopeDir, []string{"WebFetch(domain:example.com)"}, ""},
		{"mcp__github__create_issue", ScopeExact, []string{"mcp__github__create_issue"}, ""},
		{"mcp__github__create_issue", ScopePrefix, []string{"mcp__github"}, ""},
		{"Task(reviewer)", ScopeExact, []string{"Task(reviewer)"}, ""},
	} {
		got, err := AlwaysRules(p, tc.action, "dev", tc.scope, testEnv)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s %s: %q %v, want %q", tc.action, tc.scope, got, err, tc.want)
			continue
		}
		// The rules parse, and once added the action is allowed.
		var text strings.Builder
		text.WriteString("rules:\n")
		for _, r := range got {
			if _, err := ParseRule(r); err != nil {
				t.Errorf("%s: %v", r, err)
			}
			text.WriteString("  - match: '" + strings.ReplaceAll(r, "'", "''") + "'\n    decide: allow\n    why: x\n")
		}
		text.WriteString("  - match: [Bash(go test:*), Bash(ls:*)]\n    decide: allow\n    why: fine\n")
		with := mustParse(t, text.String())
		if d := with.Check(tc.action, "dev", testEnv); d.Decide != Allow {
			t.Errorf("%s with %q: %s by %s: %s", tc.action, got, d.Decide, d.Rule, d.Why)
		}
		if d := with.Check(tc.still, "dev", testEnv); tc.still != "" && d.Decide == Allow {
			t.Errorf("%s %s: %q also allows %s", tc.action, tc.scope, got, tc.still)
		}
	}
}

func TestAlwaysRulesRefusesTheFloor(t *testing.T) {
	p := mustParse(t, permissive)
	for _, a := range []string{"Bash(rm -rf ~)", "Bash(go test ./... && git push --force)", "Edit(/etc/hosts)", "Read(.env)", "Bash(curl x | sh)"} {
		_, err := AlwaysRules(p, a, "dev", ScopeExact, testEnv)
		if !errors.Is(err, ErrFloor) || !strings.Contains(err.Error(), "asked every time") {
			t.Errorf("%s: %v", a, err)
		}
	}
}

func TestAlwaysRulesScopeErrors(t *testing.T) {
	p := mustParse(t, "default: ask")
	for _, tc := range []struct {
		action string
		scope  Scope
	}{
		{"Bash(make)", ScopeDir},
		{"Task(x)", ScopePrefix},
		{"Read", ScopeExact},
		{"WebFetch", ScopeExact},
		// The operand that makes the request specific is known only when it
		// runs: no prefix can name it (red team 9a, finding 11). (npm's
		// options are on the floor, so npm install $PKG is asked every time
		// since red team 12b, finding 9: it could be --script-shell=….)
		{"Bash(pip install $(echo left-pad))", ScopePrefix},
		{"Bash(npm install -- $PKG)", ScopePrefix},
		{"Bash(pip install `echo left-pad`)", ScopePrefix},
		{"Bash(pip $(echo install) left-pad)", ScopePrefix},
		// A part that runs no command: no rule can name it, so approving
		// always would leave it asked.
		{"Bash(npm test; > out.txt)", ScopeExact},
	} {
		_, err := AlwaysRules(p, tc.action, "", tc.scope, testEnv)
		if !errors.Is(err, ErrScope) {
			t.Errorf("%s %s: %v", tc.action, tc.scope, err)
		} else if strings.HasPrefix(tc.action, "Bash(") && tc.scope == ScopePrefix && (!strings.Contains(err.Error(), "known only when it runs") || !strings.Contains(err.Error(), "choose exact")) {
			t.Errorf("%s %s: %v does not say why, nor what to choose", tc.action, tc.scope, err)
		}
	}
	if _, err := ParseScope("forever"); !errors.Is(err, ErrScope) {
		t.Error(err)
	}
	if s, err := ParseScope("prefix"); err != nil || s != ScopePrefix {
		t.Error(s, err)
	}
}

// TestPlanAlwaysSaysWhyNothingIsAdded: an action the policy allows by
// now (a rule added since it was asked) gets no rule, and the plan says
// what allows it, so that nobody is told "always" of an empty list.
func TestPlanAlwaysSaysWhyNothingIsAdded(t *testing.T) {
	p := mustParse(t, `
rules:
  - match: [Bash(npm install left-pad:*), Edit(/src/**)]
    decide: allow
    why: added before
  - match: Bash(ls:*)
    decide: allow
    why: fine
`)
	for _, tc := range []struct {
		action string
		scope  Scope
		why    string
	}{
		{"Bash(npm install 'left-pad')", ScopePrefix, "the policy allows it already (Bash(npm install left-pad:*) at test.yaml:3)"},
		{"Bash(npm  install\tleft-pad)", ScopeExact, "the policy allows it already (Bash(npm install left-pad:*) at test.yaml:3)"},
		{"Bash(npm install left-pad && ls -l)", ScopePrefix, "the policy allows it already (Bash(npm install left-pad:*) at test.yaml:3; Bash(ls:*) at test.yaml:6)"},
		{"Edit(src/a.go)", ScopeDir, "the policy allows it already (Edit(/src/**) at test.yaml:3)"},
	} {
		plan, err := PlanAlways(p, tc.action, "dev", tc.scope, testEnv)
		if err != nil || len(plan.Rules) != 0 || plan.Why != tc.why {
			t.Errorf("%s %s: %q %q %v, want no rule because %q", tc.action, tc.scope, plan.Rules, plan.Why, err, tc.why)
		}
	}
	plan, err := PlanAlways(p, "Bash(npm install -- left-pad)", "dev", ScopePrefix, testEnv)
	if err != nil || plan.Why != "" || !reflect.DeepEqual(plan.Rules, []string{"Bash(npm install -- left-pad:*)"}) {
		t.Errorf("a rule to add: %+v %v", plan, err)
	}
}

// TestPrefixReadmeExamples: the README's examples of what prefix writes
// (What an approve-always writes), against a policy that allows none.
func TestPrefixReadmeExamples(t *testing.T) {
	p := mustParse(t, "default: ask")
	for action, want := range map[string]string{
		"Bash(npm install left-pad)":         "Bash(npm install left-pad:*)",
		"Bash(docker compose up -d)":         "Bash(docker compose up:*)",
		"Bash(python3 tools/gen.py --all)":   "Bash(python3 tools/gen.py:*)",
		"Bash(npm install -- left-pad)":      "Bash(npm install -- left-pad:*)",
		"Bash(npm install ./left-pad)":       "Bash(npm install ./left-pad:*)",
		"Bash(pytest tests/ -q)":             "Bash(pytest tests/:*)",
		"Bash(go test ./...)":                "Bash(go test ./...:*)",
		"Bash(npm  install 'left-pad')":      "Bash(npm install left-pad:*)",
		"Bash(git commit -m 'fix it')":       "Bash(git commit -m 'fix it':*)",
		"Bash(npm install -D left-pad)":      "Bash(npm install -D left-pad:*)",
		"Bash(npm install --save left-pad)":  "Bash(npm install --save left-pad:*)",
		"Bash(python3 -u tools/gen.py)":      "Bash(python3 -u tools/gen.py:*)",
		"Bash(npm install a; npm install b)": "Bash(npm install a:*), Bash(npm install b:*)",
	} {
		got, err := AlwaysRules(p, action, "dev", ScopePrefix, testEnv)
		if err != nil || strings.Join(got, ", ") != want {
			t.Errorf("%s: %q %v, want %s", action, got, err, want)
		}
	}
	for _, action := range []string{"Bash(pip install $(cat list))", "Bash(pip install $PKG)"} {
		if _, err := AlwaysRules(p, action, "dev", ScopePrefix, testEnv); !errors.Is(err, ErrScope) || !strings.Contains(err.Error(), "is known only when it runs") {
			t.Errorf("%s: %v", action, err)
		}
	}
	for _, sc := range []Scope{ScopeExact, ScopePrefix} {
		if _, err := AlwaysRules(p, "Bash(> file)", "dev", sc, testEnv); !errors.Is(err, ErrScope) {
			t.Errorf("> file %s: %v", sc, err)
		}
	}
}
