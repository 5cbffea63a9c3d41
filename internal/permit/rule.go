package permit

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/gobwas/glob"
)

// ErrRule is wrapped by the errors of ParseRule.
var ErrRule = errors.New("invalid rule")

type specKind int

const (
	kindAny        specKind = iota // Tool: every use
	kindBashExact                  // Bash(npm run build)
	kindBashPrefix                 // Bash(go test:*) or Bash(go test *)
	kindBashGlob                   // Bash(git * main)
	kindPath                       // Edit(src/**), Read(~/.zshrc), Read(//etc/hosts)
	kindDomain                     // WebFetch(domain:docs.python.org)
	kindExact                      // Task(reviewer)
	kindGlob                       // Skill(deploy-*)
)

type anchor int

const (
	anchorWorkdir anchor = iota
	anchorHome
	anchorRoot
)

// Rule is a parsed permission rule: Tool or Tool(specifier), in Claude
// Code's syntax.
type Rule struct {
	// Text is the rule as written.
	Text string
	// Tool is the tool the rule names (Edit covers Write, MultiEdit and NotebookEdit; Read covers Glob, Grep and LS).
	Tool string
	// Spec is the specifier between the parentheses; empty for a tool-wide rule.
	Spec string

	kind   specKind
	text   string // Bash exact or prefix text, in canonical form
	anchor anchor
	glob   *glob.Pattern
}

// ParseRule reads one rule:
//
//	Bash                      every shell command
//	Bash(npm run build)       exactly this command
//	Bash(go test:*)           go test, alone or followed by arguments (also Bash(go test *))
//	Bash(git * main)          * matches any text; \* is a literal *
//	Read(**) Edit(src/**)     gitignore-style globs relative to the working directory
//	Edit(/src/**)             also relative to the working directory (Claude Code: to the settings file)
//	Read(~/.zshrc)            relative to the home directory
//	Read(//etc/hosts)         absolute
//	Edit(*.md)                no slash: a file of that name at any depth
//	WebFetch(domain:docs.*)   fetches from a matching host
//	mcp__github               every tool of an MCP server; mcp__github__create_issue one tool
//
// The error says what is wrong and wraps ErrRule.
func ParseRule(s string) (Rule, error) {
	s = strings.TrimSpace(s)
	r, err := parseRule(s)
	if err != nil {
		return Rule{}, fmt.Errorf("%w: %q: %v", ErrRule, s, err)
	}
	return r, nil
}

func parseRule(s string) (Rule, error) {
	tool, spec, has, err := splitTool(s)
	if err != nil {
		return Rule{}, err
	}
	r := Rule{Text: s, Tool: tool, Spec: spec}
	if strings.HasPrefix(tool, "mcp__") {
		return r, r.parseMCP(has)
	}
	if !knownTools[tool] {
		return Rule{}, fmt.Errorf("unknown tool %q: use one of %s, or mcp__server[__tool]", tool, knownToolList())
	}
	if !has {
		return r, nil
	}
	spec = strings.TrimSpace(spec)
	r.Spec = spec
	switch {
	case spec == "":
		return Rule{}, fmt.Errorf("empty (): write %s alone to match every use", tool)
	case spec == "*" || spec == "**" && tool == "Bash":
		r.kind = kindAny
		return r, nil
	case tool == "Bash":
		return r, r.parseBash(spec)
	case isPathTool(tool):
		return r, r.parsePath(spec)
	case tool == "WebFetch":
		return r, r.parseDomain(spec)
	case tool == "WebSearch":
		return Rule{}, errors.New("WebSearch takes no specifier: write WebSearch")
	}
	if strings.Contains(spec, "*") {
		g, err := glob.Compile(spec)
		if err != nil {
			return Rule{}, fmt.Errorf("bad pattern: %v", err)
		}
		r.kind, r.glob = kindGlob, g
		return r, nil
	}
	r.kind = kindExact
	return r, nil
}

func (r *Rule) parseMCP(hasSpec bool) error {
	if hasSpec {
		return errors.New("an MCP rule takes no (…): write mcp__server or mcp__server__tool")
	}
	rest := strings.TrimPrefix(r.Tool, "mcp__")
	if rest == "" || strings.HasPrefix(rest, "_") {
		return errors.New("missing the server name: write mcp__server or mcp__server__tool")
	}
	if strings.Contains(r.Tool, "*") {
		g, err := glob.Compile(r.Tool)
		if err != nil {
			return fmt.Errorf("bad pattern: %v", err)
		}
		r.kind, r.glob = kindGlob, g
	}
	return nil
}

func (r *Rule) parseBash(spec string) error {
	if i := strings.Index(spec, ":*"); i >= 0 && i != len(spec)-2 {
		return errors.New(":* may only end the rule (prefix match), e.g. Bash(go test:*); use * for a wildcard elsewhere")
	}
	if strings.HasSuffix(spec, ":*") {
		base := strings.TrimSpace(strings.TrimSuffix(spec, ":*"))
		if base == "" {
			return errors.New("nothing before :*: write Bash to match every command")
		}
		if strings.Contains(strings.ReplaceAll(base, `\*`, ""), "*") {
			return errors.New("a prefix rule (:*) takes no other *")
		}
		r.kind, r.text = kindBashPrefix, canonSpec(base)
		return nil
	}
	stars := strings.Count(strings.ReplaceAll(spec, `\*`, ""), "*")
	switch {
	case stars == 0:
		r.kind, r.text = kindBashExact, canonSpec(spec)
	case stars == 1 && strings.HasSuffix(spec, " *"):
		// Claude Code: a lone trailing " *" also matches the bare command.
		r.kind, r.text = kindBashPrefix, canonSpec(strings.TrimSuffix(spec, " *"))
	default:
		g, err := glob.Compile(bashGlob(collapseSpaces(spec)))
		if err != nil {
			return fmt.Errorf("bad pattern: %v", err)
		}
		r.kind, r.glob = kindBashGlob, g
	}
	return nil
}

// bashGlob turns a Bash rule into a gobwas pattern: only * is special, \* is a literal *.
func bashGlob(spec string) string {
	var b strings.Builder
	for i := 0; i < len(spec); i++ {
		switch {
		case spec[i] == '\\' && i+1 < len(spec) && spec[i+1] == '*':
			b.WriteString(`\*`)
			i++
		case spec[i] == '*':
			b.WriteByte('*')
		default:
			b.WriteString(glob.QuoteMeta(spec[i : i+1]))
		}
	}
	return b.String()
}

func collapseSpaces(s string) string { return strings.Join(strings.Fields(s), " ") }

func (r *Rule) parsePath(spec string) error {
	rel := spec
	switch {
	case strings.HasPrefix(spec, "//"):
		r.anchor, rel = anchorRoot, strings.TrimPrefix(spec, "//")
	case spec == "~" || strings.HasPrefix(spec, "~/"):
		r.anchor, rel = anchorHome, strings.TrimPrefix(strings.TrimPrefix(spec, "~"), "/")
	case strings.HasPrefix(spec, "~"):
		return errors.New("~user is not supported: write ~/path for the home directory or //abs/path")
	case strings.HasPrefix(spec, "/"):
		rel = strings.TrimPrefix(spec, "/")
	case strings.HasPrefix(spec, "./"):
		rel = strings.TrimPrefix(spec, "./")
	case !strings.Contains(strings.TrimSuffix(spec, "/"), "/"):
		rel = "**/" + spec // gitignore: a name without a slash matches at any depth
	}
	for _, seg := range strings.Split(rel, "/") {
		if seg == ".." || seg == "." {
			return fmt.Errorf("%q segments are not allowed: write //absolute/path or ~/path", seg)
		}
	}
	if strings.HasSuffix(rel, "/") {
		rel += "**" // a directory: everything under it
	}
	if rel == "" {
		rel = "**"
	}
	c := glob.Compiler{Separators: []rune{'/'}, Globstar: true}
	g, err := c.Compile(rel)
	if err != nil {
		return fmt.Errorf("bad path pattern: %v", err)
	}
	r.kind, r.glob = kindPath, g
	return nil
}

func (r *Rule) parseDomain(spec string) error {
	host, ok := strings.CutPrefix(spec, "domain:")
	if !ok {
		return errors.New("WebFetch rules name a host: WebFetch(domain:docs.python.org)")
	}
	host = strings.ToLower(strings.TrimSpace(host))
	if host == "" {
		return errors.New("empty domain: write WebFetch(domain:example.com)")
	}
	for i := 0; i < len(host); i++ {
		c := host[i]
		if !(c == '.' || c == '-' || c == '*' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return fmt.Errorf("domain %q: a host name holds only letters, digits, '-', '.' and '*' (no scheme, port or path)", host)
		}
	}
	g, err := glob.Compile(host)
	if err != nil {
		return fmt.Errorf("bad domain pattern: %v", err)
	}
	r.kind, r.glob = kindDomain, g
	return nil
}

// subject is what a rule is matched against: one action, or one part of a
// compound shell command.
type subject struct {
	tool   string
	hasArg bool
	arg    string // as written
	text   string // Bash: the part's canonical text
	abs    string // file tools: the absolute path, "" when unknown
	host   string // WebFetch: the URL's host
	env    Env
}

// matches reports whether the rule applies to the subject.
func (r Rule) matches(s subject) bool {
	if strings.HasPrefix(r.Tool, "mcp__") {
		switch {
		case r.glob != nil:
			return r.glob.Match(s.tool)
		case strings.Count(strings.TrimPrefix(r.Tool, "mcp__"), "__") == 0:
			return s.tool == r.Tool || strings.HasPrefix(s.tool, r.Tool+"__")
		}
		return s.tool == r.Tool
	}
	if !ruleCovers(r.Tool, s.tool) {
		return false
	}
	switch r.kind {
	case kindAny:
		return true
	case kindBashExact:
		return s.text == r.text
	case kindBashPrefix:
		return s.text == r.text || strings.HasPrefix(s.text, r.text+" ")
	case kindBashGlob:
		return r.glob.Match(s.text)
	case kindPath:
		return r.matchPath(s)
	case kindDomain:
		return s.host != "" && r.glob.Match(s.host)
	case kindExact:
		return s.hasArg && strings.TrimSpace(s.arg) == r.Spec
	case kindGlob:
		return s.hasArg && r.glob.Match(strings.TrimSpace(s.arg))
	}
	return false
}

func (r Rule) matchPath(s subject) bool {
	if s.abs == "" {
		return false
	}
	base := "/"
	switch r.anchor {
	case anchorWorkdir:
		base = s.env.Workdir
	case anchorHome:
		base = s.env.Home
	}
	if base == "" || !within(s.abs, base) {
		return false
	}
	rel := path.Clean("/" + strings.TrimPrefix(s.abs, base))[1:]
	// dir/** covers the directory itself too (Grep(/etc) under Read(//etc/**)).
	return r.glob.Match(rel) || r.glob.Match(rel+"/")
}

// specificity is how much literal text a rule's match holds: a rule for
// every use of a tool has -1.
func (r Rule) specificity() int {
	switch r.kind {
	case kindAny:
		if strings.HasPrefix(r.Tool, "mcp__") {
			return len(r.Tool)
		}
		if r.Spec == "" {
			return -1
		}
		return 0
	case kindBashExact, kindBashPrefix:
		return len(r.text)
	}
	n := 0
	for _, c := range r.Spec {
		if c != '*' && c != '?' && c != '[' && c != ']' {
			n++
		}
	}
	if strings.HasPrefix(r.Spec, "domain:") {
		n -= len("domain:")
	}
	return n
}

// namesAll reports a rule that covers the words whatever they are (a
// rule for every command, a * pattern) or names each of them.
func (r Rule) namesAll(words []Word) bool {
	if r.kind != kindBashExact && r.kind != kindBashPrefix {
		return true
	}
	have := map[string]bool{}
	for _, f := range canonFields(r.text) {
		have[f] = true
	}
	for _, w := range words {
		if !have[canonWord(w)] {
			return false
		}
	}
	return true
}

// matchesLoose matches a Bash prefix rule with its options in any order
// and place: the rule's other words start the command's other words, and
// each option of the rule is among the command's (a one-letter option also
// inside a cluster: -D in -vD).
func (r Rule) matchesLoose(s subject) bool {
	if r.kind != kindBashPrefix || !ruleCovers(r.Tool, s.tool) {
		return false
	}
	rw, cw := canonFields(r.text), canonFields(s.text)
	var rOpts, rWords, cOpts, cWords []string
	for _, w := range rw {
		if len(w) > 1 && w[0] == '-' {
			rOpts = append(rOpts, w)
		} else {
			rWords = append(rWords, w)
		}
	}
	if len(rOpts) == 0 {
		return false // the strict match decides
	}
	for _, w := range cw {
		if len(w) > 1 && w[0] == '-' {
			cOpts = append(cOpts, w)
		} else {
			cWords = append(cWords, w)
		}
	}
	if len(cWords) < len(rWords) {
		return false
	}
	for i, w := range rWords {
		if cWords[i] != w {
			return false
		}
	}
	syn := optionSynonyms[strings.Join(rWords, " ")]
	for _, o := range rOpts {
		found := false
		for _, c := range cOpts {
			if c == o || syn[c] == o || len(o) == 2 && o[1] != '-' && len(c) > 1 && c[1] != '-' && strings.ContainsRune(c[1:], rune(o[1])) {
				found = true // git branch --delete is -d
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

// optionSynonyms are the long options of commands whose ask rules name
// the short one: Bash(git branch -d:*) also holds git branch -v --delete x
// (red team 14b, finding 13). Abbreviations are written out before
// (longOptions), so --del is --delete here.
var optionSynonyms = map[string]map[string]string{
	"git branch": {"--delete": "-d", "--move": "-m", "--copy": "-c", "--force": "-f", "--list": "-l", "--all": "-a",
		"--remotes": "-r", "--verbose": "-v", "--quiet": "-q", "--track": "-t", "--set-upstream-to": "-u"},
	"git tag":      {"--delete": "-d", "--force": "-f", "--list": "-l", "--annotate": "-a", "--sign": "-s", "--message": "-m"},
	"git stash":    {"--keep-index": "-k", "--include-untracked": "-u", "--all": "-a", "--patch": "-p"},
	"git clean":    {"--force": "-f", "--dry-run": "-n", "--interactive": "-i", "--quiet": "-q"},
	"git checkout": {"--force": "-f", "--merge": "-m", "--patch": "-p", "--track": "-t"},
	"git switch":   {"--force-create": "-C", "--create": "-c", "--discard-changes": "-f", "--force": "-f", "--merge": "-m"},
	"git reset":    {"--patch": "-p", "--quiet": "-q"},
	"git commit":   {"--all": "-a", "--patch": "-p", "--message": "-m", "--file": "-F", "--reuse-message": "-C", "--reedit-message": "-c"},
	"git push":     {"--force": "-f", "--delete": "-d"},
	"git rm":       {"--force": "-f", "--recursive": "-r"},
	"rm":           {"--force": "-f", "--recursive": "-r", "--interactive": "-i"},
}

// canonFields splits a canonical text into its words ('...' kept whole).
func canonFields(s string) []string {
	var out []string
	var b strings.Builder
	quoted := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			quoted = !quoted
			b.WriteByte(c)
		case c == ' ' && !quoted:
			if b.Len() > 0 {
				out = append(out, b.String())
				b.Reset()
			}
		default:
			b.WriteByte(c)
		}
	}
	if b.Len() > 0 {
		out = append(out, b.String())
	}
	return out
}

// refines reports whether r names a narrower case of o, so that an allow
// rule r is an exception carved out of an ask rule o: o is a rule for every
// use of the tool, or r's literal text extends o's (Bash(npm install
// lodash) of Bash(npm install:*), Edit(.git/info/exclude) of Edit(.git/**)).
func (r Rule) refines(o Rule) bool {
	if !ruleCovers(o.Tool, r.Tool) && !(r.Tool == o.Tool) {
		return false
	}
	if o.Spec == "" || o.kind == kindAny && !strings.HasPrefix(o.Tool, "mcp__") {
		return r.Spec != "" && r.kind != kindAny
	}
	switch {
	case o.kind == kindBashPrefix && (r.kind == kindBashPrefix || r.kind == kindBashExact):
		return r.text == o.text && r.kind == kindBashExact || strings.HasPrefix(r.text, o.text+" ")
	case o.kind == kindBashExact:
		return r.kind == kindBashExact && r.text == o.text
	}
	ol, rl := literalPrefix(o.Spec), literalPrefix(r.Spec)
	return len(rl) > len(ol) && strings.HasPrefix(rl, ol)
}

// literalPrefix is a specifier up to its first wildcard.
func literalPrefix(s string) string {
	if i := strings.IndexAny(s, "*?[{"); i >= 0 {
		return s[:i]
	}
	return s
}
