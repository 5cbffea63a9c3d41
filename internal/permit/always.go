package permit

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/gobwas/glob"
)

// ErrFloor is wrapped when an action on the destructive floor would be
// made an always-allow.
var ErrFloor = errors.New("on the destructive floor")

// ErrScope is wrapped when a scope does not apply to an action.
var ErrScope = errors.New("scope does not apply")

// Scope is how far an approve-always reaches.
type Scope int

const (
	// ScopeExact allows this exact action again.
	ScopeExact Scope = iota + 1
	// ScopePrefix allows the command's prefix, its subcommands through its first operand
	// (Bash(npm install left-pad:*), Bash(go test:*) of go test -v), the file's directory, or the URL's domain.
	ScopePrefix
	// ScopeDir allows the file's directory (file tools) or the URL's domain (WebFetch).
	ScopeDir
	// ScopeTool allows every use of the tool.
	ScopeTool
)

// String is the scope's name on the command line.
func (s Scope) String() string {
	switch s {
	case ScopeExact:
		return "exact"
	case ScopePrefix:
		return "prefix"
	case ScopeDir:
		return "dir"
	case ScopeTool:
		return "tool"
	}
	return "unset"
}

// ParseScope reads exact, prefix, dir or tool.
func ParseScope(s string) (Scope, error) {
	for sc := ScopeExact; sc <= ScopeTool; sc++ {
		if sc.String() == s {
			return sc, nil
		}
	}
	return 0, fmt.Errorf("%w: %q: use exact, prefix, dir or tool", ErrScope, s)
}

// AlwaysPlan is what an approve-always of an action adds to the policy.
type AlwaysPlan struct {
	// Rules are the rules to add: one for each part of a compound command
	// that is not allowed already.
	Rules []string
	// Why says, when Rules is empty, why no rule is needed: what allows
	// the action already. The action is then approved once, nothing added.
	Why string
}

// PlanAlways returns the rules that let the action run unasked from now
// on, at the scope the person chose: one for each part of a compound
// command that is not allowed already (none when all are, and Why says
// what allows them). An action on the destructive floor is an error
// wrapping ErrFloor: it is asked every time, whatever the rules say. A
// scope that does not apply, a prefix that cannot name the command's
// operand, and a part no rule can name are errors wrapping ErrScope.
func PlanAlways(p *Policy, action, agent string, scope Scope, env Env) (AlwaysPlan, error) {
	a, err := ParseAction(action)
	if err != nil {
		return AlwaysPlan{}, err
	}
	env = env.clean()
	d := p.CheckAction(a, agent, env)
	if len(d.Floor) > 0 {
		return AlwaysPlan{}, fmt.Errorf("%w: %s cannot be always allowed: %s; it will be asked every time", ErrFloor, action, d.Why)
	}
	if a.Tool != "Bash" || !a.HasArg {
		if d.Decide == Allow {
			return AlwaysPlan{Why: allowedBy([]Decision{d})}, nil
		}
		r, err := alwaysRule(a, scope, env)
		if err != nil {
			return AlwaysPlan{}, err
		}
		return AlwaysPlan{Rules: []string{r}}, nil
	}
	if scope == ScopeTool {
		return AlwaysPlan{Rules: []string{"Bash"}}, nil
	}
	if scope == ScopeDir {
		return AlwaysPlan{}, fmt.Errorf("%w: a directory applies to file tools (Read, Edit, Write...); for Bash choose exact, prefix or tool", ErrScope)
	}
	parts, ds := p.bashParts(a, agent, env)
	var out []string
	var allowed []Decision
	for i, pt := range parts {
		if ds[i].Decide == Allow {
			allowed = append(allowed, ds[i])
			continue
		}
		if pt.err != nil {
			return AlwaysPlan{}, fmt.Errorf("%w: %s cannot be always allowed: its part %s cannot be read (%v), so no rule can name it; approve it once",
				ErrScope, action, pt.cmd.Text, pt.err)
		}
		words := matchWords(pt.cmd)
		if len(words) == 0 {
			return AlwaysPlan{}, fmt.Errorf("%w: %s cannot be always allowed: its part %s runs no command a rule can name; approve it once",
				ErrScope, action, strings.TrimSpace(pt.cmd.Text))
		}
		rule := "Bash(" + escapeStars(joinCanon(words)) + ")"
		if scope == ScopePrefix {
			n, err := prefixLen(words)
			if err != nil {
				return AlwaysPlan{}, err
			}
			rule = "Bash(" + escapeStars(joinCanon(words[:n])) + ":*)"
		}
		out = appendNew(out, rule)
	}
	if len(out) == 0 {
		return AlwaysPlan{Why: allowedBy(allowed)}, nil
	}
	return AlwaysPlan{Rules: out}, nil
}

// AlwaysRules returns the rules PlanAlways would add; none when the
// policy allows the action already.
func AlwaysRules(p *Policy, action, agent string, scope Scope, env Env) ([]string, error) {
	plan, err := PlanAlways(p, action, agent, scope, env)
	return plan.Rules, err
}

// allowedBy says what allows an action: "the policy allows it already
// (Bash(go test:*) at permissions.yaml:40)".
func allowedBy(ds []Decision) string {
	var by []string
	for _, d := range ds {
		by = appendNew(by, d.Rule.String())
	}
	if len(by) == 0 {
		return "the policy allows it already"
	}
	return "the policy allows it already (" + strings.Join(by, "; ") + ")"
}

// alwaysRule writes the rule for a file, web or other tool action.
func alwaysRule(a Action, scope Scope, env Env) (string, error) {
	switch {
	case scope == ScopeTool:
		return a.Tool, nil
	case isPathTool(a.Tool):
		abs, ok := env.resolvePath(strings.TrimSpace(a.Arg))
		if !ok || strings.TrimSpace(a.Arg) == "" {
			return "", fmt.Errorf("%w: %s names no file; choose tool", ErrScope, a)
		}
		if scope == ScopeExact {
			return a.Tool + "(" + rulePath(abs, env) + ")", nil
		}
		dir := path.Dir(abs)
		if env.Workdir != "" && abs == env.Workdir {
			dir = abs
		}
		return a.Tool + "(" + strings.TrimSuffix(rulePath(dir, env), "/") + "/**)", nil
	case a.Tool == "WebFetch":
		host := urlHost(a.Arg)
		if host == "" {
			return "", fmt.Errorf("%w: %s has no host; choose tool", ErrScope, a)
		}
		return "WebFetch(domain:" + host + ")", nil
	case strings.HasPrefix(a.Tool, "mcp__"):
		if scope == ScopeExact {
			return a.Tool, nil
		}
		server, _, _ := strings.Cut(strings.TrimPrefix(a.Tool, "mcp__"), "__")
		return "mcp__" + server, nil
	case scope == ScopeExact:
		if a.HasArg {
			return a.Tool + "(" + strings.ReplaceAll(a.Arg, "*", `\*`) + ")", nil
		}
		return a.Tool, nil
	}
	return "", fmt.Errorf("%w: %s has no prefix or directory; choose exact or tool", ErrScope, a.Tool)
}

// rulePath writes an absolute path the way a rule anchors it: /rel under
// the workdir, ~/rel under home, //abs elsewhere; glob characters escaped.
func rulePath(abs string, env Env) string {
	q := func(s string) string { return glob.QuoteMeta(s) }
	switch {
	case env.Workdir != "" && within(abs, env.Workdir):
		return "/" + q(strings.TrimPrefix(strings.TrimPrefix(abs, env.Workdir), "/"))
	case env.Home != "" && within(abs, env.Home):
		return "~/" + q(strings.TrimPrefix(strings.TrimPrefix(abs, env.Home), "/"))
	}
	return "/" + q(abs)
}

// prefixLen is how many words make a command's prefix: the command, then
// its subcommands (go test, npm run build, docker compose up), or the
// script an interpreter runs (python3 tools/gen.py), at most two words
// after the command's name. Options before the first operand are kept
// with it and do not count (npm install --save left-pad is Bash(npm
// install --save left-pad:*), not every package: the tenth red team had
// an option end the prefix early), and nothing ends it before the
// command's first operand, which is what makes a request specific: an operand that
// does not look like a subcommand (./left-pad, tests/, 'left pad') is the
// prefix's last word, as written, and "--" is kept with the operand after
// it (npm install -- left-pad). An operand known only when the command
// runs ($(…), $X) cannot be written into a rule: the error wraps ErrScope.
func prefixLen(words []Word) (int, error) {
	n := 0
	for n < len(words) && isAssignment(words[n].Raw) {
		n++
	}
	if n == len(words) {
		return n, nil
	}
	name := cmdName(words[n])
	n++
	if goals, _ := makeGoalsFirst(words[n:]); isMake(name) && len(goals) >= 2 {
		// a make rule covers only the goals it names (eachGoal decides
		// the others on their own): make a b gets Bash(make a b:*), not
		// Bash(make a:*) that would leave b asked (found by FuzzAlwaysPrefix)
		for i := n; i < len(words); i++ {
			if words[i].Dynamic {
				return 0, dynamicOperand(words, i)
			}
		}
		return len(words), nil
	}
	limit := 2
	if _, interp := interpreter(name); interp || shells[name] {
		limit = 1 // the script, not the script's arguments
	} else if deeperPrefix(name, words[n:]) {
		limit = 3
	}
	for extra := 0; extra < limit && n < len(words); extra++ {
		w := words[n]
		switch {
		case w.Dynamic:
			return 0, dynamicOperand(words, n)
		case w.Value == "--":
			if n+1 < len(words) && words[n+1].Dynamic {
				return 0, dynamicOperand(words, n+1)
			}
			return min(n+2, len(words)), nil
		case strings.HasPrefix(w.Value, "-") && w.Value != "-":
			extra-- // kept, and the operand after it still ends the prefix
		case limit == 1 || !isSubcommand(w):
			return n + 1, nil
		}
		n++
	}
	return n, nil
}

// deeperPrefix reports a command whose first operand comes a word later
// than two: gh and kubectl name a group and a verb (gh pr merge 15,
// kubectl delete pod web), and git push, pull and fetch a remote before
// the refspec. Two words stopped short of the operand: approving "git
// push origin feature-15" for always wrote Bash(git push origin:*), which
// pushes anything, main included (red team 10a, finding 6).
func deeperPrefix(name string, rest []Word) bool {
	switch name {
	case "gh", "kubectl":
		return true
	case "git":
		for _, w := range rest {
			if !strings.HasPrefix(w.Value, "-") {
				return w.Value == "push" || w.Value == "pull" || w.Value == "fetch"
			}
		}
	}
	return false
}

// dynamicOperand is the error for a prefix that would end at words[i], an
// operand whose value is known only when the command runs.
func dynamicOperand(words []Word, i int) error {
	return fmt.Errorf("%w: no prefix of %s: its operand %s is known only when it runs, so the rule would allow any value; choose exact",
		ErrScope, joinCanon(words), words[i].Raw)
}

// isSubcommand reports a word that names a subcommand rather than an option or a path.
func isSubcommand(w Word) bool {
	if w.Dynamic || w.Glob || w.Tilde || w.Value == "" {
		return false
	}
	for i := 0; i < len(w.Value); i++ {
		c := w.Value[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' && i > 0 || c == '_' || c == ':') {
			return false
		}
	}
	return true
}

// escapeStars makes the * of a command literal in a Bash rule.
func escapeStars(s string) string { return strings.ReplaceAll(s, "*", `\*`) }

func joinCanon(ws []Word) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = canonWord(w)
	}
	return strings.Join(out, " ")
}
