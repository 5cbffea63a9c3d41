package questions

// This file reads answerers.yaml (seed 004's format, unchanged) and routes a
// question's topic to its answerer.
//
// Topic patterns are globs compiled by github.com/gobwas/glob (v1, whose
// Compile returns a *glob.Pattern) with '.' as the only separator:
//
//   - `*` matches exactly one level: `api.*` matches `api.auth`, not `api`
//     nor `api.auth.refresh`; `*` alone matches every single-level topic.
//   - `**` matches one or more whole levels: `architecture.**` matches
//     `architecture.db` and `architecture.auth.refresh` but NOT
//     `architecture` itself; `a.**.b` matches `a.x.b` and `a.x.y.b` but not
//     `a.b`; `**` alone matches every topic. To route a level and everything
//     under it, write `{api,api.**}` (glob alternatives) or two routes.
//   - Inside a level, glob syntax applies as in the library: `api.sem*`,
//     `?`, `[a-z]`, `{auth,users}`, `\*` for a literal star.
//   - Topics and patterns are compared case-insensitively (both are
//     lower-cased) after trimming surrounding spaces.
//   - A topic with an empty level (empty, `.api`, `api.`, `api..auth`) is
//     malformed: no pattern matches it, not even `**`; it goes to default.
//     A pattern with an empty level is rejected when the file is loaded,
//     since it could never match.
//
// Precedence is file order: the first route whose pattern matches wins, so
// list specific patterns before general ones; when none matches, the
// default: route answers.

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/gobwas/glob"
	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/internal/config/fielderr"
	"github.com/teamlead/teamlead/internal/yamlstrict"
)

// AnswererKind is the part of an answerer before the slash: agent, team,
// human or tool.
type AnswererKind string

// The answerer kinds of seed 004.
const (
	// KindAgent is an LLM agent of the team; it answers automatically.
	KindAgent AnswererKind = "agent"
	// KindTeam is a group of humans (a channel); they answer with /answer.
	KindTeam AnswererKind = "team"
	// KindHuman is one person; human/requester is whoever started the work.
	KindHuman AnswererKind = "human"
	// KindTool is a configured command that answers automatically.
	KindTool AnswererKind = "tool"
)

// Answerer is who answers a question, written "kind/name", e.g.
// agent/architect or human/requester.
type Answerer struct {
	// Kind is agent, team, human or tool.
	Kind AnswererKind
	// Name is the agent, team, person or tool name.
	Name string
}

// rtNameRE is what an answerer name may look like: the agent-name rule of
// team.yaml, plus '@' for people.
var rtNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9_.@-]*$`)

// ParseAnswerer parses "kind/name", e.g. "agent/architect". The kind is one
// of agent, team, human, tool; the name uses lower-case letters, digits,
// '-', '_', '.' or '@'. Surrounding spaces are ignored.
func ParseAnswerer(s string) (Answerer, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return Answerer{}, errors.New("empty; write kind/name, e.g. agent/architect or human/requester")
	}
	kind, name, ok := strings.Cut(s, "/")
	if !ok {
		return Answerer{}, fmt.Errorf("%q has no kind; write kind/name with kind agent, team, human or tool, e.g. agent/%s", s, s)
	}
	switch k := AnswererKind(kind); k {
	case KindAgent, KindTeam, KindHuman, KindTool:
	default:
		return Answerer{}, fmt.Errorf("%q: unknown answerer kind %q; use agent, team, human or tool", s, kind)
	}
	if name == "" {
		return Answerer{}, fmt.Errorf("%q has no name after the slash, e.g. %s/architect", s, kind)
	}
	if !rtNameRE.MatchString(name) {
		return Answerer{}, fmt.Errorf("%q: name %q is not usable; use lower-case letters, digits, '-', '_', '.' or '@'", s, name)
	}
	return Answerer{Kind: AnswererKind(kind), Name: name}, nil
}

// String returns "kind/name".
func (a Answerer) String() string { return string(a.Kind) + "/" + a.Name }

// Route is one entry of answerers.yaml: who answers the topics matching
// Pattern, and what happens when they take too long.
type Route struct {
	// Pattern is the topic glob as written; "" for the default route.
	Pattern string
	// Answerer receives the question.
	Answerer Answerer
	// Capability is the model capability an agent answerer uses (planning,
	// reviewing, ...); agent answerers only.
	Capability string
	// SLA is how long the answerer has before escalation; 0 = no SLA, the
	// question never escalates nor times out.
	SLA time.Duration
	// EscalateTo is the next answerer when the SLA expires; nil = none, the
	// question times out.
	EscalateTo *Answerer
	// Notify lists notification URLs (slack://, webhook://, exec://,
	// bell://, http://, https://); the file gives one string or a list.
	Notify []string
	// Line is the route's line in the file, for messages; 0 when built in.
	Line int
}

// Routes is a loaded answerers.yaml. Treat it as read-only: Match and
// ForAnswerer use indexes built when it was loaded, and are safe for
// concurrent use.
type Routes struct {
	// Version is the file's format version; "1" is the only one.
	Version string
	// Routes are the routes in file order, which is their precedence.
	Routes []Route
	// Default answers the topics no route matches: human/requester with a
	// 24h SLA when the file has no default.
	Default Route
	// File is the file the routes came from; "" for DefaultRoutes.
	File string

	m *rtMatcher
}

// rtVersion is the only answerers.yaml version this code reads.
const rtVersion = "1"

// rtBuiltinDefault is the default route when the file has none.
func rtBuiltinDefault() Route {
	return Route{Answerer: Answerer{Kind: KindHuman, Name: "requester"}, SLA: 24 * time.Hour}
}

// DefaultRoutes returns the routing used when there is no answerers.yaml:
// every topic goes to human/requester with a 24h SLA and no escalation.
func DefaultRoutes() *Routes {
	r := &Routes{Version: rtVersion, Default: rtBuiltinDefault()}
	r.m, _ = rtCompile(r.Routes)
	return r
}

// LoadRoutes reads and validates an answerers.yaml file. It reports every
// problem at once: the error is an errors.Join of *fielderr.FieldError (each
// naming file, line and field, and wrapping fielderr.ErrInvalid). A file that
// cannot be read gives the os error (errors.Is(err, fs.ErrNotExist) when
// missing: use DefaultRoutes then).
func LoadRoutes(path string) (*Routes, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("answerers: %w", err)
	}
	return ParseRoutes(path, data)
}

// RoutesFrom returns the routes of the answerers file at path, its content
// given by read (the team's OwnData: the bytes the console checked), or
// DefaultRoutes when path is "".
func RoutesFrom(path string, read func(string) ([]byte, error)) (*Routes, error) {
	if path == "" {
		return DefaultRoutes(), nil
	}
	data, err := read(path)
	if err != nil {
		return nil, fmt.Errorf("answerers: %w", err)
	}
	return ParseRoutes(path, data)
}

// ParseRoutes parses and validates the answerers.yaml content data; file
// names it in errors. Unknown keys, bad patterns, answerers, SLAs, escalation
// targets and notify URLs, duplicate patterns and routes that can never match
// are all errors, reported together (see LoadRoutes).
func ParseRoutes(file string, data []byte) (*Routes, error) {
	p := &rtParser{file: file}
	r := p.parse(data)
	if len(p.errs) > 0 {
		slices.SortStableFunc(p.errs, func(a, b *fielderr.FieldError) int { return a.Line - b.Line })
		errs := make([]error, len(p.errs))
		for i, e := range p.errs {
			errs[i] = e
		}
		return nil, errors.Join(errs...)
	}
	return r, nil
}

// Match returns the route for topic: the first route in file order whose
// pattern matches it, else Default. See the top of routes.go for the
// pattern semantics; a malformed topic (an empty level) gets Default.
func (r *Routes) Match(topic string) Route {
	if r == nil {
		return rtBuiltinDefault()
	}
	m := r.m
	if m == nil { // built by hand rather than loaded: compile now (slow)
		var err error
		if m, err = rtCompile(r.Routes); err != nil {
			return r.Default
		}
	}
	if i := m.match(topic); i >= 0 && i < len(r.Routes) {
		return r.Routes[i]
	}
	return r.Default
}

// ForAnswerer returns the route that applies once a question is assigned to
// a, e.g. after escalating to it: the first route in file order whose
// Answerer is a, else Default if Default's answerer is a (ok=true in both
// cases). When a has no route of its own it returns Default and ok=false;
// the caller decides what SLA, if any, then applies.
func (r *Routes) ForAnswerer(a Answerer) (Route, bool) {
	if r == nil {
		d := rtBuiltinDefault()
		return d, d.Answerer == a
	}
	if r.m != nil {
		if i, ok := r.m.byAnswerer[a]; ok && i < len(r.Routes) {
			return r.Routes[i], true
		}
	} else {
		for _, rt := range r.Routes {
			if rt.Answerer == a {
				return rt, true
			}
		}
	}
	return r.Default, r.Default.Answerer == a
}

// Describe renders the routes for `teamlead validate`: one line per route in
// precedence order (pattern → answerer, sla, escalate_to, and capability
// and notify when set), the default last.
func (r *Routes) Describe() string {
	if r == nil {
		r = DefaultRoutes()
	}
	width := len("(default)")
	for _, rt := range r.Routes {
		width = max(width, utf8.RuneCountInString(rt.Pattern)) // %-*s pads runes
	}
	var b strings.Builder
	line := func(pattern string, rt Route) {
		fmt.Fprintf(&b, "%-*s → %s", width, pattern, rt.Answerer)
		if rt.SLA > 0 {
			b.WriteString(", sla " + rtFormatSLA(rt.SLA))
		} else {
			b.WriteString(", no sla")
		}
		if rt.EscalateTo != nil {
			b.WriteString(", escalate_to " + rt.EscalateTo.String())
		}
		if rt.Capability != "" {
			b.WriteString(", capability " + rt.Capability)
		}
		if len(rt.Notify) > 0 {
			b.WriteString(", notify " + strings.Join(rt.Notify, " "))
		}
		b.WriteByte('\n')
	}
	for _, rt := range r.Routes {
		line(rt.Pattern, rt)
	}
	line("(default)", r.Default)
	return b.String()
}

// ParseSLA parses an SLA: a Go duration (30m, 1h30m, 90s, 1.5h) extended
// with d (24h) and w (7 days), also combined (1w2d, 2d12h). "0" means no
// SLA. Negative, empty and unparsable values are errors.
func ParseSLA(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	const hint = "write a duration like 30m, 4h, 1h30m, 2d or 1w"
	if s == "" {
		return 0, errors.New("empty; " + hint)
	}
	if s == "0" {
		return 0, nil
	}
	if strings.HasPrefix(s, "-") {
		return 0, fmt.Errorf("%q is negative; %s", s, hint)
	}
	var total time.Duration
	for rest := s; rest != ""; {
		i := 0
		for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == '.') {
			i++
		}
		num := rest[:i]
		if strings.Trim(num, ".") == "" {
			return 0, fmt.Errorf("%q: expected a number at %q; %s", s, rest, hint)
		}
		j := i
		for j < len(rest) && !(rest[j] >= '0' && rest[j] <= '9' || rest[j] == '.') {
			j++
		}
		unit := rest[i:j]
		rest = rest[j:]
		// Days and weeks are parsed as hours, then multiplied.
		mult := time.Duration(1)
		switch unit {
		case "":
			return 0, fmt.Errorf("%q: %q has no unit; %s", s, num, hint)
		case "d":
			unit, mult = "h", 24
		case "w":
			unit, mult = "h", 7*24
		case "ns", "us", "µs", "μs", "ms", "s", "m", "h":
		default:
			return 0, fmt.Errorf("%q: unknown unit %q; use s, m, h, d or w (%s)", s, unit, hint)
		}
		d, err := time.ParseDuration(num + unit)
		if err != nil || d < 0 {
			return 0, fmt.Errorf("%q: %q is not a number or is too large; %s", s, num, hint)
		}
		if d > 0 && mult > 1 && d > time.Duration(1<<63-1)/mult {
			return 0, fmt.Errorf("%q is too long", s)
		}
		d *= mult
		if total > time.Duration(1<<63-1)-d {
			return 0, fmt.Errorf("%q is too long", s)
		}
		total += d
	}
	return total, nil
}

// rtFormatSLA renders d the way answerers.yaml writes it: 4h, 30m, 1m30s,
// 24h, and with days and weeks above a day: 1d12h, 2d, 1w; "0" for no SLA.
// ParseSLA reads it back.
func rtFormatSLA(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	if d < 0 || d%time.Second != 0 {
		return d.String()
	}
	units := []struct {
		name string
		d    time.Duration
	}{{"w", 7 * 24 * time.Hour}, {"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}}
	if d <= 24*time.Hour {
		units = units[2:] // 24h reads as written, not as 1d
	}
	var b strings.Builder
	for _, u := range units {
		if n := d / u.d; n > 0 {
			b.WriteString(strconv.FormatInt(int64(n), 10) + u.name)
			d -= n * u.d
		}
	}
	return b.String()
}

// rtNotifySchemes are the notification URL schemes a route may use.
var rtNotifySchemes = []string{"slack", "webhook", "exec", "bell", "http", "https"}

// rtCheckNotify validates one notify URL.
func rtCheckNotify(u string) error {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok || scheme == "" {
		return fmt.Errorf("%q is not a notification URL; write scheme://target with scheme %s, e.g. slack://team-channel", u, strings.Join(rtNotifySchemes, ", "))
	}
	if !slices.Contains(rtNotifySchemes, scheme) {
		return fmt.Errorf("%q: unknown scheme %q; use %s", u, scheme, strings.Join(rtNotifySchemes, ", "))
	}
	if strings.TrimSpace(rest) == "" {
		return fmt.Errorf("%q names no target after %s://", u, scheme)
	}
	return nil
}

// --- matching ---------------------------------------------------------------

// rtMatcher holds the compiled patterns of a Routes and an index by first
// topic level: a route whose pattern starts with a literal level can only
// match topics starting with that level, so a topic is tried only against
// the routes of its first level and the routes starting with a wildcard,
// still in file order.
//
// Every pattern is compiled by gobwas/glob, which validates it and matches
// the ones using glob syntax inside a level ("api.sem*", "{a,b}.*"). The
// common shape -- every level literal, "*" or "**" -- is also compiled to
// an rtLevels, matched level by level without backtracking state; it agrees
// with the glob on every well-formed topic (TestRoutesIndexAgreesWithLinearScan).
type rtMatcher struct {
	globs      []*glob.Pattern
	levels     []*rtLevels      // nil where the pattern needs the glob
	byFirst    map[string][]int // literal first level -> candidate routes, file order
	wild       []int            // routes whose first level is not literal
	byAnswerer map[Answerer]int // first route of each answerer
}

// rtNormPattern is how a pattern is compared and compiled.
func rtNormPattern(p string) string { return strings.ToLower(strings.TrimSpace(p)) }

// rtCompile compiles routes into a matcher.
func rtCompile(routes []Route) (*rtMatcher, error) {
	m := &rtMatcher{
		globs:      make([]*glob.Pattern, len(routes)),
		levels:     make([]*rtLevels, len(routes)),
		byFirst:    map[string][]int{},
		byAnswerer: map[Answerer]int{},
	}
	first := make([]string, len(routes)) // "" = not literal
	for i, rt := range routes {
		p := rtNormPattern(rt.Pattern)
		g, err := glob.Compile(p, '.')
		if err != nil {
			return nil, err
		}
		m.globs[i] = g
		m.levels[i] = rtCompileLevels(p)
		first[i] = rtLiteralFirst(p)
		if first[i] != "" {
			m.byFirst[first[i]] = nil
		} else {
			m.wild = append(m.wild, i)
		}
		if _, seen := m.byAnswerer[rt.Answerer]; !seen {
			m.byAnswerer[rt.Answerer] = i
		}
	}
	for i := range routes {
		for key := range m.byFirst {
			if first[i] == "" || first[i] == key {
				m.byFirst[key] = append(m.byFirst[key], i)
			}
		}
	}
	return m, nil
}

// rtGlobMeta are the characters with a meaning in gobwas/glob syntax.
const rtGlobMeta = `*?[]{}\`

// rtLiteralFirst returns the first level of pattern p when it is literal
// text (no glob syntax before the first '.' or the end), else "".
func rtLiteralFirst(p string) string {
	for i := 0; i < len(p); i++ {
		if p[i] == '.' {
			return p[:i]
		}
		if strings.IndexByte(rtGlobMeta, p[i]) >= 0 {
			return ""
		}
	}
	return p
}

// rtLevels is a pattern whose levels are all literal, "*" or "**".
type rtLevels struct {
	toks     []rtTok
	min, max int // level count bounds of a matching topic; max -1 = none
}

// rtTok is one step of an rtLevels: a literal level, exactly one level, or
// any number (zero or more) of levels. "**" compiles to rtOne, rtAny: one or
// more levels.
type rtTok struct {
	kind uint8
	lit  string
}

const (
	rtLit uint8 = iota
	rtOne
	rtAny
)

// rtCompileLevels compiles the lower-cased pattern p, or returns nil when
// a level uses other glob syntax.
func rtCompileLevels(p string) *rtLevels {
	l := &rtLevels{}
	for _, seg := range strings.Split(p, ".") {
		switch {
		case seg == "*":
			l.toks = append(l.toks, rtTok{kind: rtOne})
			l.min++
		case seg == "**":
			l.toks = append(l.toks, rtTok{kind: rtOne}, rtTok{kind: rtAny})
			l.min++
			l.max = -1
		case seg == "" || strings.ContainsAny(seg, rtGlobMeta):
			return nil
		default:
			l.toks = append(l.toks, rtTok{kind: rtLit, lit: seg})
			l.min++
		}
	}
	if l.max != -1 {
		l.max = l.min
	}
	return l
}

// match reports whether the topic levels segs match: the classic greedy
// wildcard walk, backtracking to the last rtAny.
func (l *rtLevels) match(segs []string) bool {
	if len(segs) < l.min || (l.max >= 0 && len(segs) > l.max) {
		return false
	}
	p, t, star, mark := 0, 0, -1, 0
	for t < len(segs) {
		if p < len(l.toks) {
			switch tk := l.toks[p]; {
			case tk.kind == rtAny:
				star, mark = p, t
				p++
				continue
			case tk.kind == rtOne || tk.lit == segs[t]:
				p++
				t++
				continue
			}
		}
		if star < 0 {
			return false
		}
		p = star + 1
		mark++
		t = mark
	}
	for p < len(l.toks) && l.toks[p].kind == rtAny {
		p++
	}
	return p == len(l.toks)
}

// match returns the index of the first route matching topic, or -1.
func (m *rtMatcher) match(topic string) int {
	t := strings.ToLower(strings.TrimSpace(topic))
	if t == "" || t[0] == '.' || t[len(t)-1] == '.' || strings.Contains(t, "..") {
		return -1
	}
	var buf [16]string
	segs := buf[:0]
	for rest := t; ; {
		i := strings.IndexByte(rest, '.')
		if i < 0 {
			segs = append(segs, rest)
			break
		}
		segs = append(segs, rest[:i])
		rest = rest[i+1:]
	}
	cands, ok := m.byFirst[segs[0]]
	if !ok {
		cands = m.wild
	}
	for _, i := range cands {
		if l := m.levels[i]; l != nil {
			if l.match(segs) {
				return i
			}
		} else if m.globs[i].Match(t) {
			return i
		}
	}
	return -1
}

// --- parsing ----------------------------------------------------------------

// rtParser collects every problem of one answerers.yaml.
type rtParser struct {
	file string
	errs []*fielderr.FieldError
	pats []rtPat // the valid patterns, in file order, for checkShadowing
}

// rtPat is a valid pattern seen by rtParser.
type rtPat struct {
	norm  string // rtNormPattern of the pattern
	line  int    // the route's line
	field string // e.g. routes[3].pattern
}

func (p *rtParser) fail(line int, field, msg string) {
	p.errs = append(p.errs, &fielderr.FieldError{File: p.file, Line: line, Field: field, Msg: msg})
}

var (
	rtTopKeys     = []string{"version", "routes", "default"}
	rtRouteKeys   = []string{"pattern", "answerer", "capability", "sla", "escalate_to", "notify"}
	rtDefaultKeys = []string{"answerer", "capability", "sla", "escalate_to", "notify"}
)

func (p *rtParser) parse(data []byte) *Routes {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		p.errs = append(p.errs, fielderr.SyntaxError(p.file, data, err)) // at the line of the problem
		return nil
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		p.fail(1, "(file)", "the file is empty; write version: \"1\", routes: and default:, or delete the file to send every question to human/requester")
		return nil
	}
	root := yamlstrict.Deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		p.fail(root.Line, "(top level)", "expected a mapping with version:, routes: and default:")
		return nil
	}
	r := &Routes{Version: rtVersion, File: p.file, Default: rtBuiltinDefault()}
	p.eachKey(root, "", rtTopKeys, "", func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			if s, ok := p.scalar(v, "version"); ok && s != rtVersion {
				p.fail(v.Line, "version", fmt.Sprintf("unsupported version %q; this teamlead reads version \"1\"", s))
			}
		case "routes":
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				return
			}
			if v.Kind != yaml.SequenceNode {
				p.fail(v.Line, "routes", "expected a list of routes, each starting with \"- pattern:\"")
				return
			}
			for i, n := range v.Content {
				if rt, ok := p.route(yamlstrict.Deref(n), fmt.Sprintf("routes[%d]", i), false); ok {
					r.Routes = append(r.Routes, rt)
				}
			}
		case "default":
			if rt, ok := p.route(v, "default", true); ok {
				rt.Line = k.Line
				r.Default = rt
			}
		}
	})
	p.checkShadowing()
	if len(p.errs) > 0 {
		return nil
	}
	m, err := rtCompile(r.Routes)
	if err != nil { // already reported per route; keep the invariant anyway
		p.fail(1, "routes", err.Error())
		return nil
	}
	r.m = m
	return r
}

// eachKey calls fn for each key of mapping n that is in known, reporting
// unknown and repeated keys. path prefixes field names; hint is added to the
// unknown-key message.
func (p *rtParser) eachKey(n *yaml.Node, path string, known []string, hint string, fn func(key string, k, v *yaml.Node)) {
	_ = yamlstrict.Mapping{Known: known, Hint: hint, PlainKeys: true,
		Each: func(_ string, k, v *yaml.Node) error { fn(k.Value, k, v); return nil },
		Bad:  func(field string, k *yaml.Node, msg string) error { p.fail(k.Line, field, msg); return nil },
	}.Walk(n, path)
}

// scalar returns the string value of a scalar node, reporting anything else.
func (p *rtParser) scalar(v *yaml.Node, field string) (string, bool) {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		p.fail(v.Line, field, "has no value; give one or delete the key")
	case v.Kind != yaml.ScalarNode:
		p.fail(v.Line, field, "expected a single value, not a list or mapping")
	default:
		return v.Value, true
	}
	return "", false
}

// route parses one route mapping (the default when isDefault).
func (p *rtParser) route(n *yaml.Node, path string, isDefault bool) (Route, bool) {
	rt := Route{Line: n.Line}
	if n.Kind != yaml.MappingNode {
		p.fail(n.Line, path, "expected a mapping with pattern:, answerer: and optionally capability:, sla:, escalate_to:, notify:")
		return rt, false
	}
	before := len(p.errs)
	known, hint := rtRouteKeys, ""
	if isDefault {
		known, hint = rtDefaultKeys, " (default: has no pattern: it takes every topic no route matches)"
	}
	var havePattern, haveAnswerer bool
	var slaLine, escLine, capLine int
	p.eachKey(n, path, known, hint, func(key string, k, v *yaml.Node) {
		field := yamlstrict.Join(path, key)
		if key == "notify" {
			p.notify(v, field, &rt)
			return
		}
		s, ok := p.scalar(v, field)
		if !ok {
			if key == "pattern" {
				havePattern = true // reported already
			}
			if key == "answerer" {
				haveAnswerer = true
			}
			return
		}
		switch key {
		case "pattern":
			havePattern = true
			rt.Pattern = s
			if err := rtCheckPattern(s); err != nil {
				p.fail(v.Line, field, err.Error())
				return
			}
			p.pats = append(p.pats, rtPat{norm: rtNormPattern(s), line: n.Line, field: field})
		case "answerer":
			haveAnswerer = true
			a, err := ParseAnswerer(s)
			if err != nil {
				p.fail(v.Line, field, err.Error())
				return
			}
			rt.Answerer = a
		case "capability":
			capLine = v.Line
			if strings.TrimSpace(s) == "" || strings.ContainsAny(s, " \t\n") {
				p.fail(v.Line, field, fmt.Sprintf("%q is not a capability name; use one word, e.g. planning or reviewing", s))
				return
			}
			rt.Capability = s
		case "sla":
			slaLine = v.Line
			d, err := ParseSLA(s)
			if err != nil {
				p.fail(v.Line, field, err.Error())
				return
			}
			rt.SLA = d
		case "escalate_to":
			escLine = v.Line
			a, err := ParseAnswerer(s)
			if err != nil {
				p.fail(v.Line, field, err.Error())
				return
			}
			rt.EscalateTo = &a
		}
	})
	if !isDefault && !havePattern {
		p.fail(n.Line, yamlstrict.Join(path, "pattern"), "missing; every route needs a topic pattern, e.g. \"api.*\"")
	}
	if !haveAnswerer {
		p.fail(n.Line, yamlstrict.Join(path, "answerer"), "missing; say who answers, e.g. agent/architect or human/requester")
	}
	if len(p.errs) > before {
		return rt, false
	}
	if rt.Capability != "" && rt.Answerer.Kind != KindAgent {
		p.fail(capLine, yamlstrict.Join(path, "capability"), fmt.Sprintf("only agent answerers use a model capability, and %s is a %s; delete the key", rt.Answerer, rt.Answerer.Kind))
	}
	if rt.EscalateTo != nil && *rt.EscalateTo == rt.Answerer {
		p.fail(escLine, yamlstrict.Join(path, "escalate_to"), fmt.Sprintf("escalates to its own answerer %s; name someone else or delete the key", rt.Answerer))
	}
	if rt.EscalateTo != nil && rt.SLA == 0 {
		line := escLine
		if slaLine != 0 {
			line = slaLine
		}
		p.fail(line, yamlstrict.Join(path, "escalate_to"), "has no effect without an sla; add sla: (e.g. 4h) or delete escalate_to")
	}
	return rt, len(p.errs) == before
}

// notify reads one notify URL or a list of them into rt.
func (p *rtParser) notify(v *yaml.Node, field string, rt *Route) {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.SequenceNode:
		items = v.Content
	default:
		items = []*yaml.Node{v}
	}
	for i, it := range items {
		it = yamlstrict.Deref(it)
		f := field
		if v.Kind == yaml.SequenceNode {
			f = fmt.Sprintf("%s[%d]", field, i)
		}
		s, ok := p.scalar(it, f)
		if !ok {
			continue
		}
		if err := rtCheckNotify(s); err != nil {
			p.fail(it.Line, f, err.Error())
			continue
		}
		rt.Notify = append(rt.Notify, s)
	}
}

// rtCheckPattern validates a topic pattern.
func rtCheckPattern(s string) error {
	p := rtNormPattern(s)
	switch {
	case p == "":
		return errors.New("empty; write a topic pattern like \"api.*\" (or use default: for everything else)")
	case p != strings.ToLower(s):
		return fmt.Errorf("%q has spaces around it; delete them", s)
	case strings.IndexFunc(p, unicode.IsControl) >= 0:
		return fmt.Errorf("%q holds a line break or another control character, which no topic holds", s)
	case p[0] == '.' || p[len(p)-1] == '.' || strings.Contains(p, ".."):
		return fmt.Errorf("%q has an empty level (a leading, trailing or doubled '.'), so it can never match a topic", s)
	}
	if _, err := glob.Compile(p, '.'); err != nil {
		return fmt.Errorf("%q is not a valid glob: %v; '*' is one level, '**' any number, e.g. \"api.*\" or \"architecture.**\"", s, strings.TrimPrefix(err.Error(), "glob: "))
	}
	return nil
}

// checkShadowing reports routes that can never match: a repeated pattern,
// or any route after a "**" route.
func (p *rtParser) checkShadowing() {
	seen := map[string]int{}
	for _, pt := range p.pats {
		if line, dup := seen[pt.norm]; dup {
			p.fail(pt.line, pt.field, fmt.Sprintf("same pattern as the route on line %d, which comes first, so this route can never match; merge them or delete one", line))
			continue
		}
		seen[pt.norm] = pt.line
	}
	for i, pt := range p.pats {
		if pt.norm == "**" && i < len(p.pats)-1 {
			lines := make([]string, 0, len(p.pats)-i-1)
			for _, later := range p.pats[i+1:] {
				lines = append(lines, strconv.Itoa(later.line))
			}
			p.fail(pt.line, pt.field, fmt.Sprintf("\"**\" matches every topic, so the routes after it (lines %s) can never match; move it last or make it the default:", strings.Join(lines, ", ")))
			return
		}
	}
}
