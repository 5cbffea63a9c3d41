package primer

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/tasks"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// maxWords is the budget of one primer: it must fit in a system prompt.
const maxWords = 2500

func loadTeam(t *testing.T, file string) *config.Team {
	t.Helper()
	team, err := config.LoadTeam(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	return team
}

func primerOf(t *testing.T, team *config.Team, agent string) string {
	t.Helper()
	text, err := Text(team, agent)
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// The primer of each role, kept as a golden file so that reviewers read
// the text agents get; run with -update after changing primer.tmpl.
func TestGolden(t *testing.T) {
	team := loadTeam(t, "team.yaml")
	for _, a := range team.Agents {
		t.Run(a.Role, func(t *testing.T) {
			got := primerOf(t, team, a.Name)
			path := filepath.Join("testdata", "golden", a.Role+".md")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("primer of %s differs from %s (run go test -update and review the diff)\n%s", a.Name, path, got)
			}
			if n := len(strings.Fields(got)); n > maxWords {
				t.Errorf("primer of %s has %d words; keep it under %d", a.Name, n, maxWords)
			} else {
				t.Logf("%s (%s): %d words", a.Name, a.Role, n)
			}
		})
	}
}

// examples returns every [ROUTE] example of text: the multi-line blocks
// (a line that is only [ROUTE] up to the line [/ROUTE]) and the one-line
// ones written inline between backticks.
func examples(t *testing.T, text string) (multi, inline []string) {
	t.Helper()
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		if lines[i] != "[ROUTE]" {
			continue
		}
		j := i + 1
		for j < len(lines) && lines[j] != "[/ROUTE]" {
			j++
		}
		if j == len(lines) {
			t.Fatalf("the [ROUTE] on line %d is never closed", i+1)
		}
		multi = append(multi, strings.Join(lines[i:j+1], "\n"))
		i = j
	}
	for _, m := range regexp.MustCompile("`(\\[ROUTE\\] [^`]*\\[/ROUTE\\])`").FindAllStringSubmatch(text, -1) {
		inline = append(inline, m[1])
	}
	return multi, inline
}

// swallowed finds a `key: ` inside a header value: a header the one-line
// form did not split off, so the example would not mean what it shows.
var swallowed = regexp.MustCompile(`(^|\s)[a-z][a-z-]*: `)

// Every envelope the primer shows parses as one valid envelope whose
// headers are the ones written, so the primer never teaches a broken
// format; the prose around them starts no block, and the <gap> example
// is a complete question.
func TestExamplesParse(t *testing.T) {
	teams := map[string]*config.Team{"team.yaml": loadTeam(t, "team.yaml"), "custom.yaml": loadTeam(t, "custom.yaml")}
	for file, team := range teams {
		for _, a := range team.Agents {
			t.Run(file+"/"+a.Name, func(t *testing.T) {
				text := primerOf(t, team, a.Name)
				multi, inline := examples(t, text)
				if len(multi) < 6 || len(inline) < 4 {
					t.Fatalf("only %d block and %d one-line examples found", len(multi), len(inline))
				}
				types := map[string]bool{}
				for _, ex := range append(multi, inline...) {
					evs := protocol.Parse(ex + "\n")
					if len(evs) != 1 || evs[0].Kind != protocol.KindEnvelope {
						t.Errorf("example does not parse as one envelope: %v\n%s", evs, ex)
						continue
					}
					env := evs[0].Envelope
					if p := protocol.Problems(&env, evs[0].HasBody); len(p) > 0 {
						t.Errorf("example is not valid: %v\n%s", p, ex)
					}
					for _, h := range env.Headers {
						if swallowed.MatchString(h.Value) {
							t.Errorf("header %s: %q swallowed another header\n%s", h.Key, h.Value, ex)
						}
					}
					if strings.TrimSpace(env.Body) == "" {
						t.Errorf("example has an empty body\n%s", ex)
					}
					types[env.Get("type")] = true
					if env.Get("type") == protocol.TypeReview {
						if r := tasks.ValidateReview(nil, env.Body); !r.Complete() {
							t.Errorf("the review example is incomplete: %v", r.Missing)
						}
					}
				}
				for _, typ := range []string{"status", "question", "answer", "consult", "verdict", "decision", "permission"} {
					if !types[typ] {
						t.Errorf("no example of type %s", typ)
					}
				}
				shown := map[uint64]bool{}
				for _, ex := range append(multi, inline...) {
					if evs := protocol.Parse(ex + "\n"); len(evs) == 1 {
						shown[protocol.Fingerprint(&evs[0].Envelope)] = true
					}
				}
				var envs, gaps int
				for _, ev := range protocol.Parse(text) {
					switch ev.Kind {
					case protocol.KindEnvelope:
						envs++
						if !shown[protocol.Fingerprint(&ev.Envelope)] {
							t.Errorf("the prose holds an envelope that is no example: %s", ev.Raw)
						}
					case protocol.KindGap:
						gaps++
						if ev.Gap.Topic == "" || ev.Gap.Question == "" || ev.Gap.Urgency != protocol.UrgencyHigh {
							t.Errorf("gap example %+v", ev.Gap)
						}
					default:
						t.Errorf("the primer holds a malformed block: %s\n%s", ev.Reason, ev.Raw)
					}
				}
				if envs < len(multi) || gaps != 1 {
					t.Errorf("the whole primer parses to %d envelopes and %d gaps; it shows %d block examples and 1 gap", envs, gaps, len(multi))
				}
			})
		}
	}
}

// The role-specific parts: handoff for a developer, the review contract
// for QA, and neither for others.
func TestRoleSections(t *testing.T) {
	team := loadTeam(t, "team.yaml")
	dev, qa, sec := primerOf(t, team, "dev"), primerOf(t, team, "qa"), primerOf(t, team, "sec")
	for _, want := range []string{"type: handoff", "(your `handoff` is this decision): approval from role review (rev), and role testing (tester)", "protocol v1", "You are **dev**, role **developer**", "- `arch`: role architect; capabilities: planning"} {
		if !strings.Contains(dev, want) {
			t.Errorf("the developer's primer lacks %q", want)
		}
	}
	if !strings.Contains(qa, strings.TrimRight(tasks.Example, "\n")) || !strings.Contains(qa, "env_blocker") || strings.Contains(qa, "type: handoff\n") {
		t.Error("the QA primer lacks the review contract, or teaches a handoff")
	}
	if strings.Contains(dev, "commands:\n") || strings.Contains(sec, "commands:\n") {
		t.Error("a non-QA primer carries the review contract")
	}
	if strings.Contains(sec, "Asking for advice") || strings.Contains(sec, "## Query files") {
		t.Error("security may consult no one optionally, yet its primer teaches it")
	}
	if !strings.Contains(dev, "## Query files") || !strings.Contains(dev, "from: dev\nto: arch\n") {
		t.Error("the developer's primer lacks the query file for the architect it may consult")
	}
}

// The mandatory rules of the agent's role are listed: what it needs
// approved, by whom, and what it must approve, with deadline and
// escalation; a rule whose role has no agent says the decision stays
// blocked.
func TestMandatoryRulesListed(t *testing.T) {
	cases := []struct {
		file, agent string
		want, not   []string
	}{
		{"team.yaml", "arch", []string{
			"- `infrastructure`: approval from role security (sec).",
			"- `design-impact`: approval from role designer (no agent has it: the decision stays blocked",
			"decision: infrastructure\ntask: T-7",
			"from: sec\nto: arch\ntype: verdict",
		}, []string{"Decisions you must approve"}},
		{"team.yaml", "sec", []string{
			"Decisions you must approve",
			"- `infrastructure` decisions of role architect (arch): give your verdict within 4h, else it escalates to another agent of your role, then the human.",
		}, []string{"Your decisions that need approval"}},
		{"team.yaml", "rev", []string{"- `code-complete` decisions of role developer (dev): give your verdict within 4h"}, nil},
		{"team.yaml", "qa", []string{"No mandatory rule names your role", "you may consult role developer (dev), and role pm, which no agent has now"}, nil},
		{"custom.yaml", "dev", []string{
			"- `dependency-upgrade`: approval from role security (sec).",
			"- `schema-change`: approval from role dba (no agent has it",
			"decision: dependency-upgrade",
		}, []string{"code-complete`:"}},
		{"custom.yaml", "sec", []string{"- `dependency-upgrade` decisions of role developer (dev): give your verdict within 30m, else it escalates to arch, then the human."}, nil},
		{"custom.yaml", "arch", []string{"No mandatory rule names your role", "your role may consult no one optionally", "You may be consulted by role developer (dev)."}, nil},
	}
	teams := map[string]*config.Team{}
	for _, c := range cases {
		if teams[c.file] == nil {
			teams[c.file] = loadTeam(t, c.file)
		}
		text := primerOf(t, teams[c.file], c.agent)
		for _, w := range c.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s/%s: lacks %q", c.file, c.agent, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(text, w) {
				t.Errorf("%s/%s: has %q", c.file, c.agent, w)
			}
		}
	}
}

func TestUnknownAgent(t *testing.T) {
	_, err := Text(loadTeam(t, "team.yaml"), "nobody")
	if !errors.Is(err, ErrUnknownAgent) || !strings.Contains(err.Error(), "dev, arch, sec, rev, tester, qa") {
		t.Errorf("err = %v", err)
	}
}

// A team of one: no teammates to address, the Team Lead only.
func TestSoloAgent(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte("agents:\n  - name: solo\n    role: developer\n    command: [claude]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	team, err := config.LoadTeam(path)
	if err != nil {
		t.Fatal(err)
	}
	text := primerOf(t, team, "solo")
	if !strings.Contains(text, "You are the only agent") || !strings.Contains(text, "to: team-lead\ntype: question") ||
		!strings.Contains(text, "role review (no agent has it") || !strings.Contains(text, "body: received m-41 [/ROUTE]") ||
		!strings.Contains(text, "answered-by: human/requester") {
		t.Errorf("solo primer:\n%s", text)
	}
	multi, inline := examples(t, text)
	for _, ex := range append(multi, inline...) {
		if evs := protocol.Parse(ex + "\n"); len(evs) != 1 || evs[0].Kind != protocol.KindEnvelope {
			t.Errorf("example does not parse: %s", ex)
		}
	}
}
