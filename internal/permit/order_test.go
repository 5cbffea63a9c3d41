package permit

import (
	"strings"
	"testing"
)

// TestRuleOrderOpensNoHole: the decision does not depend on the order of
// the rules; an allow rule cannot shadow an ask or deny rule for the same
// command, whatever the order of its options.
func TestRuleOrderOpensNoHole(t *testing.T) {
	rules := []string{
		"  - match: Bash(git branch:*)\n    decide: allow\n    why: a\n",
		"  - match: Bash(git branch -D:*)\n    decide: ask\n    why: b\n",
		"  - match: Bash(git checkout:*)\n    decide: ask\n    why: c\n",
		"  - match: Bash(git checkout -b:*)\n    decide: allow\n    why: d\n",
		"  - match: Bash(git push:*)\n    decide: deny\n    why: e\n",
		"  - match: Bash(git:*)\n    decide: allow\n    why: f\n",
		"  - match: Edit(**)\n    decide: allow\n    why: g\n",
		"  - match: Edit(secret/**)\n    decide: deny\n    why: h\n",
		"  - match: Bash\n    decide: ask\n    why: i\n",
		"  - match: Bash(git branch --verbose:*)\n    decide: allow\n    why: j\n",
	}
	cases := map[string]Decide{
		"Bash(git branch -v)":             Allow,
		"Bash(git branch -v -D feat)":     Ask,
		"Bash(git branch -vD feat)":       Ask,
		"Bash(git branch feat -D)":        Ask,
		"Bash(git checkout -b x)":         Allow,
		"Bash(git checkout main)":         Ask,
		"Bash(git push origin main)":      Deny,
		"Bash(git status)":                Allow,
		"Bash(ls)":                        Ask,
		"Edit(src/a.go)":                  Allow,
		"Edit(secret/a.txt)":              Deny,
		"Bash(echo x > secret/a.txt)":     Deny,
		"Bash(git status > secret/x.txt)": Deny,
		"Bash(git branch --verbose -D x)": Ask, // a longer allow that does not refine the ask
	}
	for _, order := range [][]int{{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, {9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, {5, 0, 3, 9, 2, 1, 6, 8, 4, 7}} {
		var b strings.Builder
		b.WriteString("default: ask\nrules:\n")
		for _, i := range order {
			b.WriteString(rules[i])
		}
		p := mustParse(t, b.String())
		for action, want := range cases {
			if d := p.Check(action, "dev", testEnv); d.Decide != want {
				t.Errorf("order %v: %s: %s by %s, want %s", order, action, d.Decide, d.Rule, want)
			}
		}
	}
}
