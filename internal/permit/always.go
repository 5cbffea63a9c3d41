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
	// ScopePrefix allows the command's prefix (Bash(go test:*)), the file's directory, or the URL's domain.
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

// AlwaysRules returns the rules that let the action run unasked from now
// on, at the scope the person chose: one for each part of a compound
// command that is not allowed already (none when all are). An action on
// the destructive floor is an error wrapping ErrFloor: it is asked every
// time, whatever the rules say.
func AlwaysRules(p *Policy, action, agent string, scope Scope, env Env) ([]string, error) {
	a, err := ParseAction(action)
	if err != nil {
		return nil, err
	}
	env = env.clean()
	d := p.CheckAction(a, agent, env)
	if len(d.Floor) > 0 {
		return nil, fmt.Errorf("%w: %s cannot be always allowed: %s; it will be asked every time", ErrFloor, action, d.Why)
	}
	if a.Tool != "Bash" || !a.HasArg {
		if d.Decide == Allow {
			return nil, nil
		}
		r, err := alwaysRule(a, scope, env)
		if err != nil {
			return nil, err
		}
		return []string{r}, nil
	}
	if scope == ScopeTool {
		return []string{"Bash"}, nil
	}
	if scope == ScopeDir {
		return nil, fmt.Errorf("%w: a directory applies to file tools (Read, Edit, Write...); for Bash choose exact, prefix or tool", ErrScope)
	}
	parts, ds := p.bashParts(a, agent, env)
	var out []string
	for i, pt := range parts {
		if ds[i].Decide == Allow || pt.err != nil {
			continue
		}
		words := matchWords(pt.cmd)
		if len(words) == 0 {
			continue
		}
		rule := "Bash(" + escapeStars(joinCanon(words)) + ")"
		if scope == ScopePrefix {
			rule = "Bash(" + escapeStars(joinCanon(words[:prefixLen(words)])) + ":*)"
		}
		out = appendNew(out, rule)
	}
	return out, nil
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
// script an interpreter runs (python3 tools/gen.py).
func prefixLen(words []Word) int {
	n := 0
	for n < len(words) && isAssignment(words[n].Raw) {
		n++
	}
	if n == len(words) {
		return n
	}
	name := cmdName(words[n])
	n++
	if _, interp := interpreter(name); interp || shells[name] {
		if n < len(words) && !strings.HasPrefix(words[n].Value, "-") && !words[n].Dynamic {
			return n + 1
		}
		return n
	}
	for extra := 0; extra < 2 && n < len(words) && isSubcommand(words[n]); extra++ {
		n++
	}
	return n
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
