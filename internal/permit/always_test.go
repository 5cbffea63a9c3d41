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
	}{
		{"Bash(npm run build -- --prod)", ScopeExact, []string{"Bash(npm run build -- --prod)"}},
		{"Bash(npm run build -- --prod)", ScopePrefix, []string{"Bash(npm run build:*)"}},
		{"Bash(npm run build -- --prod)", ScopeTool, []string{"Bash"}},
		{"Bash(git commit -m 'fix it')", ScopePrefix, []string{"Bash(git commit:*)"}},
		{"Bash(git commit -m 'fix it')", ScopeExact, []string{"Bash(git commit -m 'fix it')"}},
		{"Bash(docker compose up -d)", ScopePrefix, []string{"Bash(docker compose up:*)"}},
		{"Bash(python3 tools/gen.py --all)", ScopePrefix, []string{"Bash(python3 tools/gen.py:*)"}},
		{"Bash(pytest tests/ -q)", ScopePrefix, []string{"Bash(pytest:*)"}},
		{"Bash(timeout 60 make check)", ScopePrefix, []string{"Bash(make check:*)"}},
		{"Bash(wc -l *.go)", ScopeExact, []string{`Bash(wc -l \*.go)`}},
		{"Bash(go test ./... && npm test && ls)", ScopePrefix, []string{"Bash(npm test:*)"}},
		{"Bash(go test ./...)", ScopePrefix, nil},
		{"Edit(src/pkg/a.go)", ScopeExact, []string{"Edit(/src/pkg/a.go)"}},
		{"Edit(src/pkg/a.go)", ScopePrefix, []string{"Edit(/src/pkg/**)"}},
		{"Write(main.go)", ScopeDir, []string{"Write(/**)"}},
		{"Edit(src/a.go)", ScopeTool, []string{"Edit"}},
		{"Read(/usr/include/stdio.h)", ScopeDir, []string{"Read(//usr/include/**)"}},
		{"Read(~/go/pkg/mod/x@v1/a.go)", ScopeDir, []string{"Read(~/go/pkg/mod/x@v1/**)"}},
		{"Read(docs/[draft].md)", ScopeExact, []string{`Read(/docs/\[draft\].md)`}},
		{"WebFetch(https://example.com/a/b)", ScopeExact, []string{"WebFetch(domain:example.com)"}},
		{"WebFetch(https://example.com/a/b)", ScopeDir, []string{"WebFetch(domain:example.com)"}},
		{"mcp__github__create_issue", ScopeExact, []string{"mcp__github__create_issue"}},
		{"mcp__github__create_issue", ScopePrefix, []string{"mcp__github"}},
		{"Task(reviewer)", ScopeExact, []string{"Task(reviewer)"}},
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
		if d := mustParse(t, text.String()).Check(tc.action, "dev", testEnv); d.Decide != Allow {
			t.Errorf("%s with %q: %s by %s: %s", tc.action, got, d.Decide, d.Rule, d.Why)
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
	} {
		if _, err := AlwaysRules(p, tc.action, "", tc.scope, testEnv); !errors.Is(err, ErrScope) {
			t.Errorf("%s %s: %v", tc.action, tc.scope, err)
		}
	}
	if _, err := ParseScope("forever"); !errors.Is(err, ErrScope) {
		t.Error(err)
	}
	if s, err := ParseScope("prefix"); err != nil || s != ScopePrefix {
		t.Error(s, err)
	}
}
