package questions

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gobwas/glob"

	"github.com/teamlead/teamlead/internal/config"
)

// rtMust parses yaml or fails the test.
func rtMust(t testing.TB, yaml string) *Routes {
	t.Helper()
	r, err := ParseRoutes("answerers.yaml", []byte(yaml))
	if err != nil {
		t.Fatalf("ParseRoutes:\n%v\nyaml:\n%s", err, yaml)
	}
	return r
}

func rtAns(kind AnswererKind, name string) *Answerer { return &Answerer{Kind: kind, Name: name} }

// The seed's example file (testdata/answerers.yaml is copied byte for byte
// from seed 004) loads with exactly its routes.
func TestRoutesSeedExampleLoads(t *testing.T) {
	r, err := LoadRoutes(filepath.Join("testdata", "answerers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Route{
		{Pattern: "api.semstreams.*", Answerer: Answerer{KindTeam, "semstreams"}, SLA: 4 * time.Hour,
			Notify: []string{"slack://semstreams-team"}, EscalateTo: rtAns(KindHuman, "tech-lead"), Line: 5},
		{Pattern: "architecture.*", Answerer: Answerer{KindAgent, "architect"}, Capability: "planning", SLA: time.Hour,
			EscalateTo: rtAns(KindTeam, "architecture"), Line: 12},
		{Pattern: "security.*", Answerer: Answerer{KindAgent, "security-reviewer"}, Capability: "reviewing", SLA: 30 * time.Minute,
			EscalateTo: rtAns(KindTeam, "security"), Notify: []string{"slack://security-alerts"}, Line: 19},
		{Pattern: "requirements.*", Answerer: Answerer{KindHuman, "requester"}, SLA: 24 * time.Hour,
			EscalateTo: rtAns(KindTeam, "product"), Line: 27},
		{Pattern: "knowledge.*", Answerer: Answerer{KindTool, "web-search"}, SLA: 5 * time.Minute, Line: 33},
	}
	if r.Version != "1" || r.File != filepath.Join("testdata", "answerers.yaml") {
		t.Errorf("version %q file %q", r.Version, r.File)
	}
	if !reflect.DeepEqual(r.Routes, want) {
		t.Errorf("routes:\n got %+v\nwant %+v", r.Routes, want)
	}
	wantDefault := Route{Answerer: Answerer{KindHuman, "requester"}, SLA: 24 * time.Hour, Line: 38}
	if !reflect.DeepEqual(r.Default, wantDefault) {
		t.Errorf("default %+v, want %+v", r.Default, wantDefault)
	}
	for topic, pattern := range map[string]string{
		"api.semstreams.loop":       "api.semstreams.*",
		"api.semstreams":            "",
		"architecture.auth":         "architecture.*",
		"architecture.auth.refresh": "", // '*' is one level
		"security.tokens":           "security.*",
		"requirements.scope":        "requirements.*",
		"knowledge.go":              "knowledge.*",
		"misc":                      "",
	} {
		if got := r.Match(topic).Pattern; got != pattern {
			t.Errorf("Match(%q) = %q, want %q", topic, got, pattern)
		}
	}
}

// The pattern semantics documented at the top of routes.go.
func TestRoutesPatternSemantics(t *testing.T) {
	tests := []struct {
		pattern, topic string
		want           bool
	}{
		// '*' is exactly one level.
		{"api.*", "api.auth", true},
		{"api.*", "api.users", true},
		{"api.*", "api", false},
		{"api.*", "api.auth.refresh", false},
		{"api.semstreams.*", "api.semstreams.loop", true},
		{"api.semstreams.*", "api.semstreams.model", true},
		{"api.semstreams.*", "api.semstreams", false},
		{"api.*.refresh", "api.auth.refresh", true},
		{"api.*.refresh", "api.refresh", false},
		{"*.auth", "api.auth", true},
		{"*.auth", "auth", false},
		// '*' alone: single-level topics only.
		{"*", "api", true},
		{"*", "api.auth", false},
		// '**' is one or more whole levels; the level before it is required.
		{"architecture.**", "architecture.db", true},
		{"architecture.**", "architecture.auth.refresh", true},
		{"architecture.**", "architecture", false}, // not the level itself
		{"architecture.**", "architectures.db", false},
		{"a.**.b", "a.x.b", true},
		{"a.**.b", "a.x.y.b", true},
		{"a.**.b", "a.b", false},
		{"**.refresh", "api.auth.refresh", true},
		{"**.refresh", "refresh", false},
		// '**' alone: any topic.
		{"**", "api", true},
		{"**", "api.auth.refresh.token", true},
		// A level and everything under it: glob alternatives.
		{"{api,api.**}", "api", true},
		{"{api,api.**}", "api.auth.x", true},
		{"{api,web}.*", "web.x", true},
		// Glob syntax inside a level.
		{"api.sem*", "api.semstreams", true},
		{"api.sem*", "api.sem", true},
		{"api.sem*", "api.semstreams.loop", false},
		{"api.?uth", "api.auth", true},
		{"api.[a-c]*", "api.beta", true},
		{"api.[a-c]*", "api.delta", false},
		{`api.\*`, "api.*", true},
		{`api.\*`, "api.auth", false},
		// Literal patterns.
		{"api", "api", true},
		{"api", "api.auth", false},
		{"api.auth", "api.auth", true},
		// Case-insensitive, both ways; surrounding spaces in topics ignored.
		{"API.Auth", "api.auth", true},
		{"api.auth", "API.AUTH", true},
		{"Api.*", "aPI.Users", true},
		{"api.*", "  api.auth\n", true},
		// Topics with an empty level match nothing, not even '*' or '**'.
		{"api.*", "api.", false},
		{"api.**", "api.", false},
		{"api.**", "api..x", false},
		{"a.*.b", "a..b", false},
		{"*", "", false},
		{"**", "", false},
		{"**", ".", false},
		{"**", ".api", false},
		{"**", "api.", false},
		{"**", "api..auth", false},
		{"*.auth", ".auth", false},
	}
	for _, tc := range tests {
		// The semantics are gobwas/glob's with '.' as separator, for every
		// well-formed topic (the fast path must agree).
		topic := strings.ToLower(strings.TrimSpace(tc.topic))
		if topic != "" && !strings.HasPrefix(topic, ".") && !strings.HasSuffix(topic, ".") && !strings.Contains(topic, "..") {
			if got := glob.MustCompile(strings.ToLower(tc.pattern), '.').Match(topic); got != tc.want {
				t.Errorf("gobwas/glob: pattern %q, topic %q: %v, want %v", tc.pattern, tc.topic, got, tc.want)
			}
		}
		r := rtMust(t, fmt.Sprintf("routes:\n  - pattern: %q\n    answerer: agent/x\n", tc.pattern))
		got := r.Match(tc.topic)
		if (got.Pattern == tc.pattern) != tc.want {
			t.Errorf("pattern %q, topic %q: matched=%v, want %v", tc.pattern, tc.topic, got.Pattern == tc.pattern, tc.want)
		}
		if !tc.want && got.Answerer != (Answerer{KindHuman, "requester"}) {
			t.Errorf("pattern %q, topic %q: no match should give the default, got %+v", tc.pattern, tc.topic, got)
		}
	}
}

// Precedence is file order: the first matching route wins, whether or not a
// later one is more specific.
func TestRoutesPrecedenceIsFileOrder(t *testing.T) {
	r := rtMust(t, `version: "1"
routes:
  - pattern: "api.auth.*"
    answerer: agent/auth
  - pattern: "api.**"
    answerer: agent/api
  - pattern: "*.auth"
    answerer: agent/anyauth
  - pattern: "api.auth"
    answerer: agent/never
  - pattern: "**"
    answerer: agent/rest
default:
  answerer: human/lead
  sla: 1h
`)
	for topic, want := range map[string]string{
		"api.auth.refresh": "agent/auth",
		"api.auth":         "agent/api", // api.** comes before *.auth and api.auth
		"api.users.list":   "agent/api",
		"web.auth":         "agent/anyauth",
		"web":              "agent/rest",
		"x.y.z":            "agent/rest",
		"api..auth":        "human/lead", // malformed
	} {
		if got := r.Match(topic).Answerer.String(); got != want {
			t.Errorf("Match(%q) = %s, want %s", topic, got, want)
		}
	}
}

// The first-level index never changes the result: compare with a plain
// first-match scan over many random patterns and topics.
func TestRoutesIndexAgreesWithLinearScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	levels := []string{"api", "web", "auth", "db", "x", "API", "Auth"}
	pick := func() string { return levels[rng.IntN(len(levels))] }
	wild := []string{"*", "**", "a*", "{api,web}", "?b", "[a-d]*"}
	for round := 0; round < 200; round++ {
		var b strings.Builder
		b.WriteString("routes:\n")
		seen := map[string]bool{}
		var pats []string
		for len(pats) < 30 {
			n := 1 + rng.IntN(4)
			parts := make([]string, n)
			for i := range parts {
				if rng.IntN(3) == 0 {
					parts[i] = wild[rng.IntN(len(wild))]
				} else {
					parts[i] = pick()
				}
			}
			p := strings.Join(parts, ".")
			if seen[strings.ToLower(p)] || strings.ToLower(p) == "**" {
				continue
			}
			seen[strings.ToLower(p)] = true
			pats = append(pats, p)
			fmt.Fprintf(&b, "  - pattern: %q\n    answerer: agent/a%d\n", p, len(pats))
		}
		r := rtMust(t, b.String())
		globs := make([]*glob.Pattern, len(pats))
		for i, p := range pats {
			globs[i] = glob.MustCompile(strings.ToLower(p), '.')
		}
		for k := 0; k < 300; k++ {
			n := 1 + rng.IntN(5)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = pick()
			}
			topic := strings.Join(parts, ".")
			want := r.Default
			for i, g := range globs {
				if g.Match(strings.ToLower(topic)) {
					want = r.Routes[i]
					break
				}
			}
			if got := r.Match(topic); !reflect.DeepEqual(got, want) {
				t.Fatalf("Match(%q) = %q, linear scan says %q\n%s", topic, got.Pattern, want.Pattern, b.String())
			}
		}
	}
}

func TestRoutesMatchOnHandBuiltRoutes(t *testing.T) {
	r := &Routes{
		Routes:  []Route{{Pattern: "api.*", Answerer: Answerer{KindAgent, "api"}}, {Pattern: "[", Answerer: Answerer{KindAgent, "bad"}}},
		Default: Route{Answerer: Answerer{KindHuman, "x"}},
	}
	// A bad pattern in a hand-built value makes everything go to Default.
	if got := r.Match("api.auth").Answerer.Name; got != "x" {
		t.Errorf("got %s", got)
	}
	r.Routes = r.Routes[:1]
	if got := r.Match("api.auth").Answerer.Name; got != "api" {
		t.Errorf("got %s", got)
	}
	if a, ok := r.ForAnswerer(Answerer{KindAgent, "api"}); !ok || a.Pattern != "api.*" {
		t.Errorf("ForAnswerer %+v %v", a, ok)
	}
	var nilRoutes *Routes
	if got := nilRoutes.Match("api"); got.Answerer.String() != "human/requester" || got.SLA != 24*time.Hour {
		t.Errorf("nil routes: %+v", got)
	}
}

func TestRoutesMatchConcurrent(t *testing.T) {
	r := rtBenchRoutes(t, 200)
	topics := rtBenchTopics(1000)
	want := make([]string, len(topics))
	for i, tp := range topics {
		want[i] = r.Match(tp).Pattern
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, tp := range topics {
				if got := r.Match(tp).Pattern; got != want[i] {
					t.Errorf("Match(%q) = %q, want %q", tp, got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestDefaultRoutes(t *testing.T) {
	r := DefaultRoutes()
	if len(r.Routes) != 0 || r.Version != "1" || r.File != "" {
		t.Errorf("%+v", r)
	}
	for _, topic := range []string{"api.auth", "x", "", "a..b"} {
		got := r.Match(topic)
		if got.Answerer != (Answerer{KindHuman, "requester"}) || got.SLA != 24*time.Hour || got.EscalateTo != nil || got.Pattern != "" {
			t.Errorf("Match(%q) = %+v", topic, got)
		}
	}
	// A file without default: gets the same default.
	r = rtMust(t, "routes:\n  - pattern: a.*\n    answerer: agent/a\n")
	if r.Default.Answerer.String() != "human/requester" || r.Default.SLA != 24*time.Hour || r.Version != "1" {
		t.Errorf("default %+v version %q", r.Default, r.Version)
	}
	// An explicit default without sla never escalates.
	r = rtMust(t, "default:\n  answerer: team/ops\n")
	if r.Default.Answerer.String() != "team/ops" || r.Default.SLA != 0 || r.Default.Line != 1 {
		t.Errorf("default %+v", r.Default)
	}
}

func TestRoutesForAnswerer(t *testing.T) {
	r := rtMust(t, `routes:
  - pattern: "a.*"
    answerer: agent/architect
    sla: 1h
    escalate_to: team/architecture
  - pattern: "b.*"
    answerer: agent/architect
    sla: 2h
  - pattern: "c.*"
    answerer: team/architecture
    sla: 4h
    escalate_to: human/tech-lead
default:
  answerer: human/tech-lead
  sla: 24h
`)
	tests := []struct {
		a       string
		pattern string
		sla     time.Duration
		ok      bool
	}{
		{"agent/architect", "a.*", time.Hour, true}, // first in file order
		{"team/architecture", "c.*", 4 * time.Hour, true},
		{"human/tech-lead", "", 24 * time.Hour, true}, // the default names it
		{"team/product", "", 24 * time.Hour, false},   // nobody names it: Default, ok=false
	}
	for _, tc := range tests {
		a, err := ParseAnswerer(tc.a)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := r.ForAnswerer(a)
		if got.Pattern != tc.pattern || got.SLA != tc.sla || ok != tc.ok {
			t.Errorf("ForAnswerer(%s) = %q %v %v, want %q %v %v", tc.a, got.Pattern, got.SLA, ok, tc.pattern, tc.sla, tc.ok)
		}
	}
	if _, ok := DefaultRoutes().ForAnswerer(Answerer{KindHuman, "requester"}); !ok {
		t.Error("DefaultRoutes should name human/requester")
	}
}

func TestParseAnswerer(t *testing.T) {
	tests := []struct {
		in      string
		want    Answerer
		wantErr string
	}{
		{"agent/architect", Answerer{KindAgent, "architect"}, ""},
		{"team/semstreams", Answerer{KindTeam, "semstreams"}, ""},
		{"human/requester", Answerer{KindHuman, "requester"}, ""},
		{"tool/web-search", Answerer{KindTool, "web-search"}, ""},
		{" human/tech-lead ", Answerer{KindHuman, "tech-lead"}, ""},
		{"human/ann@example.com", Answerer{KindHuman, "ann@example.com"}, ""},
		{"agent/security_reviewer.2", Answerer{KindAgent, "security_reviewer.2"}, ""},
		{"robot/x", Answerer{}, `unknown answerer kind "robot"`},
		{"Agent/x", Answerer{}, `unknown answerer kind "Agent"`},
		{"agent/", Answerer{}, "no name"},
		{"/x", Answerer{}, `unknown answerer kind ""`},
		{"architect", Answerer{}, "has no kind"},
		{"", Answerer{}, "empty"},
		{"agent/a/b", Answerer{}, "not usable"},
		{"agent/Architect", Answerer{}, "not usable"},
		{"agent/a b", Answerer{}, "not usable"},
		{"agent/-x", Answerer{}, "not usable"},
	}
	for _, tc := range tests {
		got, err := ParseAnswerer(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseAnswerer(%q) error %v, want %q", tc.in, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseAnswerer(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			continue
		}
		if back, err := ParseAnswerer(got.String()); err != nil || back != got {
			t.Errorf("round trip of %q: %+v %v", got.String(), back, err)
		}
	}
	if s := (Answerer{KindAgent, "architect"}).String(); s != "agent/architect" {
		t.Errorf("String() = %q", s)
	}
}

func TestParseSLA(t *testing.T) {
	const day = 24 * time.Hour
	tests := []struct {
		in      string
		want    time.Duration
		wantErr string
	}{
		{"30m", 30 * time.Minute, ""},
		{"4h", 4 * time.Hour, ""},
		{"24h", day, ""},
		{"1h30m", 90 * time.Minute, ""},
		{"90s", 90 * time.Second, ""},
		{"1.5h", 90 * time.Minute, ""},
		{"500ms", 500 * time.Millisecond, ""},
		{"1d", day, ""},
		{"2d", 2 * day, ""},
		{"1.5d", 36 * time.Hour, ""},
		{"1w", 7 * day, ""},
		{"1w2d", 9 * day, ""},
		{"2d12h", 60 * time.Hour, ""},
		{"1w1d1h1m1s", 8*day + time.Hour + time.Minute + time.Second, ""},
		{" 4h ", 4 * time.Hour, ""},
		{"0", 0, ""},
		{"0s", 0, ""},
		{"", 0, "empty"},
		{"   ", 0, "empty"},
		{"4x", 0, `unknown unit "x"`},
		{"4", 0, "has no unit"},
		{"1d2", 0, "has no unit"},
		{"-1h", 0, "negative"},
		{"-1d", 0, "negative"},
		{"1h-30m", 0, `unknown unit "h-"`},
		{"+1h", 0, "expected a number"},
		{"h", 0, "expected a number"},
		{"d", 0, "expected a number"},
		{"1 h", 0, `unknown unit " h"`},
		{"1h 30m", 0, `unknown unit "h "`},
		{"4H", 0, `unknown unit "H"`},
		{"1..5h", 0, "not a number"},
		{".d", 0, "expected a number"},
		{"1e3h", 0, `unknown unit "e"`},
		{"forever", 0, "expected a number"},
		{"99999999999w", 0, "too"},
		{"2562047h1h", 0, "too"},
		{"106751d1d", 0, "too"},
	}
	for _, tc := range tests {
		got, err := ParseSLA(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseSLA(%q) = %v, %v; want error %q", tc.in, got, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseSLA(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func TestFormatSLARoundTrip(t *testing.T) {
	for d, want := range map[time.Duration]string{
		4 * time.Hour:                    "4h",
		30 * time.Minute:                 "30m",
		90 * time.Second:                 "1m30s",
		24 * time.Hour:                   "24h",
		48 * time.Hour:                   "2d",
		7 * 24 * time.Hour:               "1w",
		36 * time.Hour:                   "1d12h",
		9 * 24 * time.Hour:               "1w2d",
		500 * time.Millisecond:           "500ms",
		0:                                "0",
		time.Hour + 500*time.Millisecond: "1h0m0.5s",
	} {
		if got := rtFormatSLA(d); got != want {
			t.Errorf("rtFormatSLA(%v) = %q, want %q", d, got, want)
		}
		if back, err := ParseSLA(rtFormatSLA(d)); err != nil || back != d {
			t.Errorf("ParseSLA(rtFormatSLA(%v)) = %v, %v", d, back, err)
		}
	}
}

// Every validation error names file, line and field, wraps config.ErrInvalid
// and says what is wrong.
func TestParseRoutesErrors(t *testing.T) {
	route := func(extra string) string {
		return "version: \"1\"\nroutes:\n  - pattern: \"api.*\"\n    answerer: agent/api\n" + extra
	}
	tests := []struct {
		name, yaml string
		want       []string // each "line:field: substring"
	}{
		{"empty file", "", []string{"1:(file): the file is empty"}},
		{"only a comment", "# nothing\n", []string{"1:(file): the file is empty"}},
		{"not yaml", "routes: [\n", []string{"1:not valid YAML"}},
		{"indentation", "version: \"1\"\nroutes:\n  - pattern: a.*\n    answerer: agent/a\n   sla: 1h\n", []string{"5:not valid YAML: did not find expected '-' indicator; check the indentation of this line"}},
		{"top level list", "- a\n", []string{"1:(top level): expected a mapping"}},
		{"unknown top key", "version: \"1\"\nrouts: []\n", []string{"2:routs: unknown field; known fields are version, routes, default"}},
		{"bad version", "version: \"2\"\n", []string{`1:version: unsupported version "2"`}},
		{"routes not a list", "routes:\n  pattern: a\n", []string{"2:routes: expected a list of routes"}},
		{"route not a mapping", "routes:\n  - api.*\n", []string{"2:routes[0]: expected a mapping"}},
		{"unknown route key", route("    escalate: human/x\n"), []string{"5:routes[0].escalate: unknown field; known fields are pattern, answerer, capability, sla, escalate_to, notify"}},
		{"key twice", route("    sla: 1h\n    sla: 2h\n"), []string{"6:routes[0].sla: given twice (first on line 5)"}},
		{"missing pattern", "routes:\n  - answerer: agent/a\n", []string{"2:routes[0].pattern: missing"}},
		{"missing answerer", "routes:\n  - pattern: a.*\n", []string{"2:routes[0].answerer: missing"}},
		{"empty pattern", "routes:\n  - pattern: \"\"\n    answerer: agent/a\n", []string{"2:routes[0].pattern: empty"}},
		{"null pattern", "routes:\n  - pattern:\n    answerer: agent/a\n", []string{"2:routes[0].pattern: has no value"}},
		{"list pattern", "routes:\n  - pattern: [a, b]\n    answerer: agent/a\n", []string{"2:routes[0].pattern: expected a single value"}},
		{"glob error", "routes:\n  - pattern: \"api.[\"\n    answerer: agent/a\n", []string{`2:routes[0].pattern: "api.[" is not a valid glob`}},
		{"unclosed brace", "routes:\n  - pattern: \"{api\"\n    answerer: agent/a\n", []string{`2:routes[0].pattern: "{api" is not a valid glob`}},
		{"trailing backslash", "routes:\n  - pattern: \"api\\\\\"\n    answerer: agent/a\n", []string{`2:routes[0].pattern: "api\\" is not a valid glob`}},
		{"empty level", "routes:\n  - pattern: \"api..auth\"\n    answerer: agent/a\n", []string{"2:routes[0].pattern: \"api..auth\" has an empty level"}},
		{"leading dot", "routes:\n  - pattern: \".api\"\n    answerer: agent/a\n", []string{"has an empty level"}},
		{"trailing dot", "routes:\n  - pattern: \"api.\"\n    answerer: agent/a\n", []string{"has an empty level"}},
		{"spaces", "routes:\n  - pattern: \" api.*\"\n    answerer: agent/a\n", []string{"has spaces around it"}},
		{"unknown kind", "routes:\n  - pattern: a.*\n    answerer: robot/x\n", []string{`3:routes[0].answerer: "robot/x": unknown answerer kind "robot"`}},
		{"missing name", "routes:\n  - pattern: a.*\n    answerer: agent/\n", []string{`3:routes[0].answerer: "agent/" has no name`}},
		{"bad sla unit", route("    sla: 4x\n"), []string{`5:routes[0].sla: "4x": unknown unit "x"`}},
		{"negative sla", route("    sla: -1h\n"), []string{`5:routes[0].sla: "-1h" is negative`}},
		{"sla without unit", route("    sla: 30\n"), []string{`5:routes[0].sla: "30": "30" has no unit`}},
		{"bad escalate_to", route("    sla: 1h\n    escalate_to: boss\n"), []string{`6:routes[0].escalate_to: "boss" has no kind`}},
		{"escalate to self", route("    sla: 1h\n    escalate_to: agent/api\n"), []string{"6:routes[0].escalate_to: escalates to its own answerer agent/api"}},
		{"escalate without sla", route("    escalate_to: human/lead\n"), []string{"5:routes[0].escalate_to: has no effect without an sla"}},
		{"zero sla with escalate", route("    sla: 0\n    escalate_to: human/lead\n"), []string{"5:routes[0].escalate_to: has no effect without an sla"}},
		{"capability on a human", "routes:\n  - pattern: a.*\n    answerer: human/x\n    capability: planning\n", []string{"4:routes[0].capability: only agent answerers"}},
		{"capability with space", route("    capability: deep thought\n"), []string{`5:routes[0].capability: "deep thought" is not a capability name`}},
		{"notify scheme", route("    notify: email://ops\n"), []string{`5:routes[0].notify: "email://ops": unknown scheme "email"`}},
		{"notify not a url", route("    notify: ops-channel\n"), []string{`5:routes[0].notify: "ops-channel" is not a notification URL`}},
		{"notify no target", route("    notify: \"slack://\"\n"), []string{"5:routes[0].notify: \"slack://\" names no target"}},
		{"notify list item", route("    notify:\n      - slack://ok\n      - ftp://no\n"), []string{`7:routes[0].notify[1]: "ftp://no": unknown scheme "ftp"`}},
		{"notify mapping item", route("    notify:\n      - {a: b}\n"), []string{"6:routes[0].notify[0]: expected a single value"}},
		{"duplicate pattern", route("  - pattern: \"API.*\"\n    answerer: agent/other\n"), []string{"5:routes[1].pattern: same pattern as the route on line 3, which comes first, so this route can never match"}},
		{"catch-all first", "routes:\n  - pattern: \"**\"\n    answerer: agent/a\n  - pattern: b.*\n    answerer: agent/b\n  - pattern: c.*\n    answerer: agent/c\n",
			[]string{`2:routes[0].pattern: "**" matches every topic, so the routes after it (lines 4, 6) can never match`}},
		{"default with pattern", "default:\n  pattern: \"**\"\n  answerer: human/x\n", []string{"2:default.pattern: unknown field; known fields are answerer, capability, sla, escalate_to, notify (default: has no pattern:"}},
		{"default missing answerer", "default:\n  sla: 1h\n", []string{"2:default.answerer: missing"}},
		{"default null", "default:\n", []string{"1:default: expected a mapping"}},
		{"default bad sla", "default:\n  answerer: human/x\n  sla: soon\n", []string{`3:default.sla: "soon": expected a number`}},
		{"non-scalar key", "routes:\n  - ? [a]\n    : b\n    pattern: a.*\n    answerer: agent/a\n", []string{"routes[0].(key): a key must be a plain word"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRoutes("answerers.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error; routes %+v", r)
			}
			if r != nil {
				t.Errorf("routes returned with an error")
			}
			if !errors.Is(err, config.ErrInvalid) {
				t.Errorf("error does not wrap config.ErrInvalid: %v", err)
			}
			var fe *config.FieldError
			if !errors.As(err, &fe) || fe.File != "answerers.yaml" || fe.Line < 1 {
				t.Errorf("not a FieldError with file and line: %#v", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				// "5:routes[0].sla: ..." stands for "answerers.yaml:5: routes[0].sla: ...".
				if line, rest, ok := strings.Cut(w, ":"); ok && line != "" && strings.Trim(line, "0123456789") == "" {
					w = "answerers.yaml:" + line + ": " + rest
				}
				if !strings.Contains(msg, w) {
					t.Errorf("error\n%s\nlacks %q", msg, w)
				}
			}
		})
	}
}

// All problems of a file are reported at once, sorted by line, so that
// `teamlead validate` shows them together.
func TestParseRoutesReportsEveryError(t *testing.T) {
	yaml := `version: "1"
routes:
  - pattern: "api.*"
    answerer: robot/x
    sla: 4x
    notify: email://ops
    colour: red
  - pattern: "api.*"
    answerer: agent/
  - pattern: "ok.*"
    answerer: agent/ok
    sla: -1h
    escalate_to: nobody
default:
  answerer: human/requester
  pattern: x
`
	_, err := ParseRoutes("a.yaml", []byte(yaml))
	if err == nil {
		t.Fatal("no error")
	}
	want := []string{
		`a.yaml:4: routes[0].answerer: "robot/x": unknown answerer kind "robot"`,
		`a.yaml:5: routes[0].sla: "4x": unknown unit "x"`,
		`a.yaml:6: routes[0].notify: "email://ops": unknown scheme "email"`,
		`a.yaml:7: routes[0].colour: unknown field`,
		`a.yaml:8: routes[1].pattern: same pattern as the route on line 3`,
		`a.yaml:9: routes[1].answerer: "agent/" has no name`,
		`a.yaml:12: routes[2].sla: "-1h" is negative`,
		`a.yaml:13: routes[2].escalate_to: "nobody" has no kind`,
		`a.yaml:16: default.pattern: unknown field`,
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != len(want) {
		t.Fatalf("%d errors, want %d:\n%v", len(lines), len(want), err)
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w) {
			t.Errorf("error %d:\n got %s\nwant %s...", i, lines[i], w)
		}
	}
	joined, ok := err.(interface{ Unwrap() []error })
	if !ok || len(joined.Unwrap()) != len(want) {
		t.Fatalf("not an errors.Join of %d errors: %T", len(want), err)
	}
	for _, e := range joined.Unwrap() {
		var fe *config.FieldError
		if !errors.As(e, &fe) || !errors.Is(e, config.ErrInvalid) {
			t.Errorf("%v is not a FieldError wrapping ErrInvalid", e)
		}
	}
}

func TestParseRoutesAccepts(t *testing.T) {
	r := rtMust(t, `version: 1
routes:
  - pattern: "tools.*"
    answerer: tool/web-search
    notify:
      - slack://a
      - webhook://hooks.example/x
      - exec:///usr/local/bin/notify --loud
      - bell://console
      - http://example.com/hook
      - https://example.com/hook
  - pattern: "ops.*"
    answerer: team/ops
    sla: 1w2d
    escalate_to: human/boss
    notify: []
  - pattern: "Mixed.Case.*"
    answerer: agent/a
    capability: planning
    sla: 0
`)
	if len(r.Routes) != 3 {
		t.Fatalf("%d routes", len(r.Routes))
	}
	if n := r.Routes[0].Notify; len(n) != 6 || n[2] != "exec:///usr/local/bin/notify --loud" {
		t.Errorf("notify %q", n)
	}
	if r.Routes[1].SLA != 9*24*time.Hour || r.Routes[1].Notify != nil {
		t.Errorf("ops %+v", r.Routes[1])
	}
	if r.Routes[2].Pattern != "Mixed.Case.*" || r.Match("mixed.case.x").Pattern != "Mixed.Case.*" {
		t.Errorf("pattern kept as written and matched case-insensitively: %+v", r.Routes[2])
	}
	// Routes with no routes at all, and with an empty routes list.
	for _, y := range []string{"version: \"1\"\n", "routes:\n", "routes: []\n"} {
		r := rtMust(t, y)
		if len(r.Routes) != 0 || r.Match("a.b").Answerer.String() != "human/requester" {
			t.Errorf("%q: %+v", y, r)
		}
	}
	// Anchors and aliases resolve.
	r = rtMust(t, "routes:\n  - pattern: a.*\n    answerer: &who agent/a\n  - pattern: b.*\n    answerer: *who\n")
	if r.Routes[1].Answerer.String() != "agent/a" {
		t.Errorf("alias: %+v", r.Routes[1])
	}
}

func TestLoadRoutesMissingFile(t *testing.T) {
	_, err := LoadRoutes(filepath.Join(t.TempDir(), "answerers.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want os.ErrNotExist", err)
	}
}

func TestRoutesDescribe(t *testing.T) {
	r, err := LoadRoutes(filepath.Join("testdata", "answerers.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	want := `api.semstreams.* → team/semstreams, sla 4h, escalate_to human/tech-lead, notify slack://semstreams-team
architecture.*   → agent/architect, sla 1h, escalate_to team/architecture, capability planning
security.*       → agent/security-reviewer, sla 30m, escalate_to team/security, capability reviewing, notify slack://security-alerts
requirements.*   → human/requester, sla 24h, escalate_to team/product
knowledge.*      → tool/web-search, sla 5m
(default)        → human/requester, sla 24h
`
	if got := r.Describe(); got != want {
		t.Errorf("Describe:\n%s\nwant:\n%s", got, want)
	}
	if got := DefaultRoutes().Describe(); got != "(default) → human/requester, sla 24h\n" {
		t.Errorf("DefaultRoutes().Describe() = %q", got)
	}
	r = rtMust(t, "routes:\n  - pattern: a\n    answerer: agent/a\ndefault:\n  answerer: team/x\n")
	if got := r.Describe(); got != "a         → agent/a, no sla\n(default) → team/x, no sla\n" {
		t.Errorf("Describe() = %q", got)
	}
}

// FuzzParseRoutes: arbitrary bytes never panic; an error always wraps
// config.ErrInvalid; a success always matches and describes.
func FuzzParseRoutes(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "answerers.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(seed)
	f.Add([]byte(""))
	f.Add([]byte("routes:\n  - pattern: \"{a,b}.**\"\n    answerer: agent/a\n    notify: [slack://x]\n"))
	f.Add([]byte("routes:\n  - pattern: \"[\"\n    answerer: robot/\n    sla: -1w\n"))
	f.Add([]byte("a: &a [*a]\nroutes: *a\n"))
	f.Add([]byte("default:\n  answerer: human/x\n  sla: 1w2d3h\n  escalate_to: team/y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseRoutes("f.yaml", data)
		if err != nil {
			if r != nil {
				t.Fatal("routes with an error")
			}
			if !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("error does not wrap config.ErrInvalid: %v", err)
			}
			return
		}
		for _, topic := range []string{"a", "a.b", "api.semstreams.x", "", "..", strings.ToUpper(string(data))} {
			_ = r.Match(topic)
		}
		for _, rt := range r.Routes {
			if got := r.Match(rt.Pattern); got.Line == 0 && got.Pattern != "" {
				t.Fatalf("Match(%q) returned a route without line", rt.Pattern)
			}
			if _, ok := r.ForAnswerer(rt.Answerer); !ok {
				t.Fatalf("ForAnswerer(%s) not found", rt.Answerer)
			}
		}
		if lines := strings.Count(r.Describe(), "\n"); lines != len(r.Routes)+1 {
			t.Fatalf("Describe has %d lines for %d routes", lines, len(r.Routes))
		}
	})
}

// FuzzMatchAgreesWithGlob: for any valid pattern and well-formed topic,
// Match decides as gobwas/glob does (the level fast path included).
func FuzzMatchAgreesWithGlob(f *testing.F) {
	for _, c := range [][2]string{
		{"api.*", "api.auth"}, {"a.**.b", "a.x.y.b"}, {"**.x", "x"}, {"*.**.*", "a.b"},
		{"{a,b}.**", "b.c"}, {"a.sem*", "a.semx"}, {"**.**", "a.b.c"}, {"A.*", "a.B"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, pattern, topic string) {
		// %q below would turn invalid UTF-8 into YAML escapes of other runes.
		if rtCheckPattern(pattern) != nil || !utf8.ValidString(pattern) {
			return
		}
		r, err := ParseRoutes("f.yaml", []byte(fmt.Sprintf("routes:\n  - pattern: %q\n    answerer: agent/x\n", pattern)))
		if err != nil {
			return // e.g. YAML-quoting trouble; ParseRoutes is fuzzed on its own
		}
		got := r.Match(topic).Pattern == pattern
		tp := strings.ToLower(strings.TrimSpace(topic))
		wellFormed := tp != "" && !strings.HasPrefix(tp, ".") && !strings.HasSuffix(tp, ".") && !strings.Contains(tp, "..")
		want := wellFormed && glob.MustCompile(rtNormPattern(pattern), '.').Match(tp)
		if got != want {
			t.Fatalf("pattern %q topic %q: Match says %v, gobwas/glob says %v", pattern, topic, got, want)
		}
	})
}

// FuzzParseSLA: never panics; a success is non-negative and survives a
// round trip through rtFormatSLA.
func FuzzParseSLA(f *testing.F) {
	for _, s := range []string{"4h", "1w2d", "1.5d", "-1h", "0", "90s", "1e9w", "2562047h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := ParseSLA(s)
		if err != nil {
			return
		}
		if d < 0 {
			t.Fatalf("ParseSLA(%q) = %v", s, d)
		}
		if back, err := ParseSLA(rtFormatSLA(d)); err != nil || back != d {
			t.Fatalf("round trip %q → %v → %q → %v, %v", s, d, rtFormatSLA(d), back, err)
		}
	})
}

// rtBenchRoutes builds n routes like a big team's file: mostly literal
// first levels (area.sub.*, zone.**), some starting with a wildcard.
func rtBenchRoutes(tb testing.TB, n int) *Routes {
	var b strings.Builder
	b.WriteString("version: \"1\"\nroutes:\n")
	for i := 0; i < n; i++ {
		var p string
		switch {
		case i%10 == 9:
			p = fmt.Sprintf("*.wild%d.*", i)
		case i%10 == 8:
			p = fmt.Sprintf("zone%d.**", i/10)
		default:
			p = fmt.Sprintf("area%d.sub%d.*", i%20, i)
		}
		fmt.Fprintf(&b, "  - pattern: %q\n    answerer: agent/a%d\n    sla: 1h\n", p, i)
	}
	b.WriteString("default:\n  answerer: human/requester\n  sla: 24h\n")
	return rtMust(tb, b.String())
}

// rtBenchTopics returns n topics: hits on every kind of route and misses.
func rtBenchTopics(n int) []string {
	rng := rand.New(rand.NewPCG(7, 7))
	topics := make([]string, n)
	for i := range topics {
		switch rng.IntN(5) {
		case 0:
			topics[i] = fmt.Sprintf("area%d.sub%d.x", rng.IntN(20), rng.IntN(200))
		case 1:
			topics[i] = fmt.Sprintf("zone%d.other.deep.topic", rng.IntN(25))
		case 2:
			topics[i] = fmt.Sprintf("x.wild%d.y", rng.IntN(200))
		case 3:
			topics[i] = fmt.Sprintf("Area%d.Sub%d.Y", rng.IntN(20), rng.IntN(200))
		default:
			topics[i] = fmt.Sprintf("misc%d.thing", rng.IntN(1000))
		}
	}
	return topics
}

// BenchmarkMatch routes 10,000 topics through 200 routes; one op is one
// routing decision.
func BenchmarkMatch(b *testing.B) {
	r := rtBenchRoutes(b, 200)
	topics := rtBenchTopics(10000)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		_ = r.Match(topics[i%len(topics)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}

// BenchmarkMatchAllWildcards is the worst case for the index: 200 routes
// that all start with a wildcard, so every topic is tried against all.
func BenchmarkMatchAllWildcards(b *testing.B) {
	var y strings.Builder
	y.WriteString("routes:\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&y, "  - pattern: \"*.w%d.**\"\n    answerer: agent/a%d\n", i, i)
	}
	r := rtMust(b, y.String())
	topics := make([]string, 10000)
	for i := range topics {
		topics[i] = fmt.Sprintf("t.w%d.x.y", i%400) // half match somewhere, half miss
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for b.Loop() {
		_ = r.Match(topics[i%len(topics)])
		i++
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "decisions/s")
}
