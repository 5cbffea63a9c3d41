package protocol

// Tests of the stream parser against what the REAL agent CLIs write to
// their terminals, captured byte for byte from a PTY (testdata/real; see
// its README.md for how they were captured and how to capture them again).
//
// Each fixture's model reply holds one [ROUTE] envelope, so the correct
// result is exactly one envelope with the headers and body the model
// wrote. Where the current parser does not get there, the subtest is a
// known gap: it is skipped with a description of what the parser produces
// and why, and fails as soon as the parser gets it right, so that the entry
// is removed then.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// realMeta is the <fixture>.json the capture tool writes.
type realMeta struct {
	CLI       string   `json:"cli"`
	Version   string   `json:"version"`
	Cols      int      `json:"cols"`
	Rows      int      `json:"rows"`
	Scenario  string   `json:"scenario"`
	Prompt    string   `json:"prompt"`
	Reply     string   `json:"model_reply"`
	ExtraEnv  []string `json:"extra_env"`
	Bracketed bool     `json:"bracketed_paste"`
}

// The envelopes of the capture scenarios (capture/main.go).
var (
	realRoute = env("to", "architect", "type", "question", "task", "T-12",
		"body", "Which transport should I use for server-to-client updates?")
	realWrapBody = `The spec says "real-time updates" but not the transport. Which one should I use for 1000+ concurrent users, ` +
		`server-to-client only? The load balancer in front of us terminates TLS and has a 60 second idle timeout, ` +
		`and some customers sit behind corporate proxies that buffer responses.`
	realWrap = env("to", "architect", "type", "question", "task", "T-12", "body", realWrapBody)
	// realWrapShown is the body as both CLIs show it at 120 columns: soft-
	// wrapped at two blanks. docs/protocol.md keeps body lines as written,
	// so a screen reader that cannot tell a soft wrap from a line break
	// gives this; it is accepted too.
	realWrapShown = strings.Replace(strings.Replace(realWrapBody, "users, server", "users,\nserver", 1),
		"and some customers", "and some\ncustomers", 1)
	realOneLine = env("to", "architect", "type", "status", "task", "T-12",
		"body", "SSE chosen for server-to-client updates.")
)

// Why the stream parser cannot read each renderer's output (the details are
// in testdata/real/README.md).
const (
	gapClaudeDiff = "Claude Code 2.1.328's default renderer draws in the alternate screen (ESC[?1049h, mouse tracking " +
		"ESC[?1003h) by cell diffs: a line starts with CR and relative moves (CR ESC[2C ESC[1B), and the blanks between " +
		"words are never written but jumped over with ESC[<col>G (`to:\\x1b[7Garchitect`, `body:\\x1b[9GWhich\\x1b[15Gtransport`); " +
		"the parser removes cursor moves without leaving blanks, so words run together"
	gapClaudeScroll = gapClaudeDiff + "; and as the reply scrolls, every frame rewrites only the cells that differ from " +
		"the previous one, so the block is drawn again and again, each copy partial (`\\x1b[3C\\x1b[1Bype: question`, " +
		"`\\x1b[3C\\x1b[1Bask\\x1b[9GT-12`, `body\\x1b[9GWhich`), and each copy that has both markers is emitted"
	gapClaudeClassic = "Claude Code 2.1.328 with CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1 (classic renderer, main screen) " +
		"still writes cell diffs with ESC[<col>G in place of blanks (`to:\\x1b[7Garchitect`, `body:\\x1b[9GWhich`), so words run together"
	gapClaudeClassicLive = gapClaudeClassic + "; and while the reply streams, the input box and footer (rules, `❯`, " +
		"`⏸ manual mode on · esc to interrupt`) are drawn with CR CR LF below the part already shown and then overwritten after " +
		"ESC[<n>A, so the stream holds them between the block's lines, where they become header or body text"
	gapCodex = "Codex 0.169.0 (ratatui) draws in the alternate screen with absolute cursor addressing only: every run of " +
		"text is placed by ESC[<row>;<col>H inside synchronized updates (ESC[?2026h … ESC[?2026l), and the whole " +
		"capture holds one LF and one CR, so the parser sees one endless line that does not start with a marker"
	gapGemini = "Gemini CLI 0.61.0 (Ink, main screen) redraws its whole live region on every streamed chunk: it erases the " +
		"previous frame with ESC[2K ESC[1A per line, then writes the reply so far with CR LF and real blanks, followed by " +
		"the spinner line (`⠙ Thinking... (esc to cancel, 0s)`), a rule and the input box; so every frame holds a copy of " +
		"the block cut where the reply had got to (`type: questio`), and the parser refuses each such copy as " +
		"`no [/ROUTE] before the next [ROUTE]` (which would send the agent reformat requests) before it reads the " +
		"complete block"
	gapGeminiScroll = gapGemini + "; and since the finished block stays in the live region while the rest of the " +
		"reply streams, each later frame repeats the complete block, and the parser emits it once per frame"
)

// realCases lists every fixture with what it must give. gap, when set,
// says why the stream parser fails it today.
var realCases = []struct {
	name          string
	want          Envelope
	shown         string // a second accepted body: as soft-wrapped on screen
	gap           string
	finalScreenOK bool // the block is still on the final screen
}{
	{"claude-code-2.1.328-route", realRoute, "", gapClaudeDiff, true},
	{"claude-code-2.1.328-wrap", realWrap, realWrapShown, gapClaudeDiff, true},
	{"claude-code-2.1.328-oneline", realOneLine, "", gapClaudeDiff, true},
	{"claude-code-2.1.328-scroll", realRoute, "", gapClaudeScroll, false},
	{"claude-code-2.1.328-classic-route", realRoute, "", gapClaudeClassic, true},
	{"claude-code-2.1.328-classic-wrap", realWrap, realWrapShown, gapClaudeClassicLive, true},
	{"claude-code-2.1.328-classic-oneline", realOneLine, "", gapClaudeClassic, true},
	{"claude-code-2.1.328-classic-scroll", realRoute, "", gapClaudeClassicLive, false},
	{"codex-0.169.0-route", realRoute, "", gapCodex, true},
	{"codex-0.169.0-wrap", realWrap, realWrapShown, gapCodex, true},
	{"codex-0.169.0-oneline", realOneLine, "", gapCodex, true},
	{"codex-0.169.0-scroll", realRoute, "", gapCodex, false},
	{"gemini-cli-0.61.0-route", realRoute, "", gapGemini, true},
	{"gemini-cli-0.61.0-wrap", realWrap, realWrapShown, gapGemini, true},
	// Passes: the two chunks of this short reply arrived before Ink drew
	// its next frame, so the block was only ever drawn whole, once. A
	// reply drawn over several frames would show gapGemini here too.
	{"gemini-cli-0.61.0-oneline", realOneLine, "", "", true},
	{"gemini-cli-0.61.0-scroll", realRoute, "", gapGeminiScroll, false},
}

const realDir = "testdata/real"

func readReal(t *testing.T, name string) (raw []byte, screen string, meta realMeta) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(realDir, name+".bin"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.ReadFile(filepath.Join(realDir, name+".screen.txt"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(realDir, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m, &meta); err != nil {
		t.Fatalf("%s.json: %v", name, err)
	}
	return raw, string(s), meta
}

// feedBytewise runs a fresh Parser over raw one byte at a time.
func feedBytewise(raw []byte) []Event {
	var out []Event
	p := NewParser()
	emit := func(e Event) { out = append(out, e) }
	for i := range raw {
		p.Feed(raw[i:i+1], emit)
	}
	p.Flush(emit)
	return out
}

// checkOne reports what is wrong with evs, given that exactly one
// envelope equal to want (or with body shown, when set) is correct; "" when
// nothing is.
func checkOne(evs []Event, want Envelope, shown string) string {
	if len(evs) != 1 {
		return fmt.Sprintf("%d events, want 1: %s", len(evs), summarize(evs))
	}
	e := evs[0]
	if e.Kind != KindEnvelope || !e.HasBody {
		return fmt.Sprintf("want a well-formed envelope: %s", summarize(evs))
	}
	got := e.Envelope
	if reflect.DeepEqual(got.Headers, want.Headers) && (got.Body == want.Body || (shown != "" && got.Body == shown)) {
		return ""
	}
	return fmt.Sprintf("want headers %q body %q: %s", want.Headers, want.Body, summarize(evs))
}

// summarize describes events briefly, for skip and failure messages.
func summarize(evs []Event) string {
	if len(evs) == 0 {
		return "no event"
	}
	var parts []string
	for i, e := range evs {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("… %d more", len(evs)-i))
			break
		}
		s := fmt.Sprintf("[%d] %v headers=%q", i, e.Kind, e.Envelope.Headers)
		if e.HasBody {
			s += fmt.Sprintf(" body=%q", e.Envelope.Body)
		}
		if e.Reason != "" {
			s += fmt.Sprintf(" reason=%q", e.Reason)
		}
		parts = append(parts, s)
	}
	return fmt.Sprintf("%d events: %s", len(evs), strings.Join(parts, "; "))
}

// expectOne asserts the correct result, or skips the subtest as a known gap.
func expectOne(t *testing.T, evs []Event, want Envelope, shown, gap string) {
	t.Helper()
	problem := checkOne(evs, want, shown)
	switch {
	case problem == "" && gap != "":
		t.Errorf("known gap fixed: the parser now reads this capture correctly; remove the gap from realCases (%s)", gap)
	case problem != "" && gap != "":
		t.Skipf("known gap: %s. The parser produces %s", gap, strings.TrimPrefix(problem, "want a well-formed envelope: "))
	case problem != "":
		t.Error(problem)
	}
}

func TestRealCLIFixtures(t *testing.T) {
	for _, c := range realCases {
		t.Run(c.name, func(t *testing.T) {
			raw, screen, meta := readReal(t, c.name)
			if meta.Cols != 120 || meta.Rows != 40 {
				t.Errorf("captured at %dx%d, the expectations assume 120x40", meta.Cols, meta.Rows)
			}
			// The expectation is what the model wrote.
			t.Run("reply", func(t *testing.T) {
				if p := checkOne(Parse(meta.Reply), c.want, ""); p != "" {
					t.Errorf("the model's reply itself: %s", p)
				}
			})
			whole := Parse(string(raw))
			t.Run("stream-whole", func(t *testing.T) { expectOne(t, whole, c.want, c.shown, c.gap) })
			bytewise := feedBytewise(raw)
			t.Run("stream-bytewise", func(t *testing.T) { expectOne(t, bytewise, c.want, c.shown, c.gap) })
			// Whatever the parser makes of it, it must not depend on how
			// the output was split.
			t.Run("split-invariant", func(t *testing.T) {
				if !reflect.DeepEqual(whole, bytewise) {
					t.Errorf("whole: %s\nbytewise: %s", summarize(whole), summarize(bytewise))
				}
			})
			// The final screen as text (what a screen reader would give
			// once the reply is drawn), rendered by the capture tool's
			// terminal emulator.
			t.Run("final-screen", func(t *testing.T) {
				evs := Parse(screen)
				if !c.finalScreenOK {
					// The reply scrolled the block off the screen before it
					// ended: a screen reader must read it while it is shown.
					if len(evs) != 0 || strings.Contains(screen, "[ROUTE]") {
						t.Errorf("the block was expected to have scrolled off the final screen: %s", summarize(evs))
					}
					return
				}
				if p := checkOne(evs, c.want, c.shown); p != "" {
					t.Error(p)
				}
			})
		})
	}
}

// TestRealCLIFixturesListed makes sure every captured fixture has an
// expectation above, and every expectation its fixture.
func TestRealCLIFixturesListed(t *testing.T) {
	bins, err := filepath.Glob(filepath.Join(realDir, "*.bin"))
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, b := range bins {
		have = append(have, strings.TrimSuffix(filepath.Base(b), ".bin"))
	}
	var listed []string
	for _, c := range realCases {
		listed = append(listed, c.name)
	}
	sort.Strings(have)
	sort.Strings(listed)
	if !reflect.DeepEqual(have, listed) {
		t.Errorf("fixtures %q, realCases %q", have, listed)
	}
}
