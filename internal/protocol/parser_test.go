package protocol

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// env builds an Envelope from key, value pairs; the key "body" sets Body.
func env(kv ...string) Envelope {
	var e Envelope
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i] == "body" {
			e.Body = kv[i+1]
			continue
		}
		e.Headers = append(e.Headers, Header{Key: kv[i], Value: kv[i+1]})
	}
	return e
}

// route is the event of a well-formed [ROUTE] block with a body.
func route(kv ...string) Event {
	return Event{Kind: KindEnvelope, Block: "route", Envelope: env(kv...), HasBody: true}
}

// bad is the event of a refused block; kv, when given, are the headers
// read from it.
func bad(block, reason string, kv ...string) Event {
	return Event{Kind: KindMalformed, Block: block, Reason: reason, Envelope: env(kv...)}
}

func gap(topic, question, context, urgency string) Event {
	return Event{Kind: KindGap, Block: "gap", Gap: Gap{topic, question, context, urgency}}
}

// std is the envelope most cases below carry.
var std = route("to", "architect", "type", "question", "task", "T-12", "body", "Which transport?")

// stdLines is std in the multi-line form, one string per line.
var stdLines = []string{"[ROUTE]", "to: architect", "type: question", "task: T-12", "body: Which transport?", "[/ROUTE]"}

// lines joins ls with "\n" and ends with one.
func lines(ls ...string) string { return strings.Join(ls, "\n") + "\n" }

// prefixed puts first before the first line and rest before the others.
func prefixed(first, rest string, ls ...string) string {
	out := make([]string, len(ls))
	for i, l := range ls {
		if i == 0 {
			out[i] = first + l
		} else {
			out[i] = rest + l
		}
	}
	return lines(out...)
}

type parseCase struct {
	name string
	in   string
	want []Event
}

// sameEvent compares the fields of want that a case pins down: Raw only
// when want has one, Envelope and HasBody for [ROUTE] blocks, Gap for
// well-formed gaps.
func sameEvent(got, want Event) bool {
	if got.Kind != want.Kind || got.Block != want.Block || got.Reason != want.Reason {
		return false
	}
	if want.Raw != "" && got.Raw != want.Raw {
		return false
	}
	if want.Block == "route" {
		if len(got.Envelope.Headers) != len(want.Envelope.Headers) {
			return false
		}
		if want.Kind == KindEnvelope && got.Envelope.Body != want.Envelope.Body {
			return false
		}
		for i, h := range want.Envelope.Headers {
			if got.Envelope.Headers[i] != h {
				return false
			}
		}
		if want.Kind == KindEnvelope && got.HasBody != want.HasBody {
			return false
		}
	}
	if want.Kind == KindGap && got.Gap != want.Gap {
		return false
	}
	return true
}

func checkEvents(t *testing.T, in string, got, want []Event) {
	t.Helper()
	ok := len(got) == len(want)
	for i := 0; ok && i < len(got); i++ {
		ok = sameEvent(got[i], want[i])
	}
	if !ok {
		t.Errorf("input %q\n got: %s\nwant: %s", clip(in), dump(got), dump(want))
	}
}

func clip(s string) string {
	if len(s) > 600 {
		return s[:300] + "…" + s[len(s)-300:]
	}
	return s
}

func dump(evs []Event) string {
	var b strings.Builder
	for _, e := range evs {
		e.Raw = clip(e.Raw)
		e.Envelope.Body = clip(e.Envelope.Body)
		fmt.Fprintf(&b, "\n  %+v", e)
	}
	if len(evs) == 0 {
		b.WriteString("(none)")
	}
	return b.String()
}

// feedChunks parses in with the given chunk boundaries (offsets into in).
func feedChunks(in []byte, cuts []int) []Event {
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	p := NewParser()
	prev := 0
	for _, c := range cuts {
		p.Feed(in[prev:c], emit)
		prev = c
	}
	p.Feed(in[prev:], emit)
	p.Flush(emit)
	return out
}

// feedBytes parses in one byte at a time.
func feedBytes(in []byte) []Event {
	cuts := make([]int, len(in))
	for i := range cuts {
		cuts[i] = i
	}
	return feedChunks(in, cuts)
}

func TestParse(t *testing.T) {
	for _, tc := range parseCases() {
		t.Run(tc.name, func(t *testing.T) {
			checkEvents(t, tc.in, Parse(tc.in), tc.want)
		})
	}
}

// TestSplitInvariance feeds every case one byte at a time, split in two at
// every offset, and in random chunks: the events must equal those of the
// whole input, Raw included.
func TestSplitInvariance(t *testing.T) {
	for _, tc := range parseCases() {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			whole := Parse(tc.in)
			if got := feedBytes(in); !reflect.DeepEqual(got, whole) {
				t.Fatalf("byte by byte:\n got: %s\nwant: %s", dump(got), dump(whole))
			}
			step := 1
			if len(in) > 4096 {
				step = len(in)/512 + 1 // large cases: a sample of split points
			}
			for k := 0; k <= len(in); k += step {
				if got := feedChunks(in, []int{k}); !reflect.DeepEqual(got, whole) {
					t.Fatalf("split at %d:\n got: %s\nwant: %s", k, dump(got), dump(whole))
				}
			}
			r := rand.New(rand.NewPCG(1, uint64(len(in))))
			for range 20 {
				var cuts []int
				for c := r.IntN(64); c < len(in); c += 1 + r.IntN(64) {
					cuts = append(cuts, c)
				}
				if got := feedChunks(in, cuts); !reflect.DeepEqual(got, whole) {
					t.Fatalf("cuts %v:\n got: %s\nwant: %s", cuts, dump(got), dump(whole))
				}
			}
		})
	}
}

func parseCases() []parseCase {
	var cs []parseCase
	add := func(name, in string, want ...Event) { cs = append(cs, parseCase{name, in, want}) }

	// Envelopes and headers.
	add("multi-line", lines(stdLines...), std)
	add("protocol example", lines("[ROUTE]", "from: dev", "to: architect", "type: question", "task: T-12",
		`body: The spec says "real-time updates" but not the transport.`, "Which one should I use?", "[/ROUTE]"),
		route("from", "dev", "to", "architect", "type", "question", "task", "T-12",
			"body", "The spec says \"real-time updates\" but not the transport.\nWhich one should I use?"))
	add("keys case-insensitive, order free",
		lines("[ROUTE]", "TASK: T-1", "Type: status", "tO: dev", "X-Custom: Kept As Is", "Body: hi", "[/ROUTE]"),
		route("task", "T-1", "type", "status", "to", "dev", "x-custom", "Kept As Is", "body", "hi"))
	add("body is last: key-value lines after it are body",
		lines("[ROUTE]", "to: dev", "type: status", "task: T-1", "body: first", "to: someone else", "type: x", "[/ROUTE]"),
		route("to", "dev", "type", "status", "task", "T-1", "body", "first\nto: someone else\ntype: x"))
	add("soft-wrapped header values",
		lines("[ROUTE]", "to: architect,", "dev", "type: question", "task: T-12", "question: is the", "   transport fixed?", "body: x", "[/ROUTE]"),
		route("to", "architect, dev", "type", "question", "task", "T-12", "question", "is the transport fixed?", "body", "x"))
	add("blank lines before body ignored",
		lines("[ROUTE]", "", "to: dev", "   ", "type: status", "task: T-1", "", "body: hi", "[/ROUTE]"),
		route("to", "dev", "type", "status", "task", "T-1", "body", "hi"))
	add("body on following lines, inner indentation kept, trailing blanks dropped",
		lines("[ROUTE]", "to: dev", "type: status", "task: T-1", "body:", "", "steps:", "  1. build   ", "",
			"      go test ./...", "", "  ", "[/ROUTE]"),
		route("to", "dev", "type", "status", "task", "T-1", "body", "steps:\n  1. build\n\n      go test ./..."))
	add("empty header value", lines("[ROUTE]", "to: dev", "priority:", "body: x", "[/ROUTE]"),
		route("to", "dev", "priority", "", "body", "x"))
	add("missing body is still an envelope", lines("[ROUTE]", "to: dev", "type: status", "[/ROUTE]"),
		Event{Kind: KindEnvelope, Block: "route", Envelope: env("to", "dev", "type", "status")})
	add("url is not a header", lines("[ROUTE]", "to: dev", "question: see", "http://x/y", "body: x", "[/ROUTE]"),
		route("to", "dev", "question", "see http://x/y", "body", "x"))
	add("close marker after body text", lines("[ROUTE]", "to: dev", "type: status", "task: T-1", "body: done [/ROUTE]"),
		route("to", "dev", "type", "status", "task", "T-1", "body", "done"))
	add("two blocks", lines(stdLines...)+lines(stdLines...), std, std)

	// The one-line form.
	add("one-line", "[ROUTE] from: a to: b type: status task: T-1 body: hi [/ROUTE]\n",
		route("from", "a", "to", "b", "type", "status", "task", "T-1", "body", "hi"))
	add("one-line, unknown words do not split, body swallows keys",
		"[ROUTE] to: b type: status task: T-1 question: what to do? body: hi to: x [/ROUTE]\n",
		route("to", "b", "type", "status", "task", "T-1", "question", "what to do?", "body", "hi to: x"))
	add("one-line in backticks after a bullet", "● `[ROUTE] to: b type: status task: T-1 body: hi there [/ROUTE]`\n",
		route("to", "b", "type", "status", "task", "T-1", "body", "hi there"))
	add("one-line, every known key",
		"[ROUTE] from: a to: b type: verdict task: T id: m-1 decision: d consult: c-1 verdict: approved supersedes: c-0 question: q-1 topic: x.y permission: p-1 priority: high body: ok [/ROUTE]\n",
		route("from", "a", "to", "b", "type", "verdict", "task", "T", "id", "m-1", "decision", "d", "consult", "c-1",
			"verdict", "approved", "supersedes", "c-0", "question", "q-1", "topic", "x.y", "permission", "p-1",
			"priority", "high", "body", "ok"))
	add("headers on the marker line, then more lines",
		lines("[ROUTE] to: architect type: question", "task: T-12", "body: Which transport?", "[/ROUTE]"), std)
	add("one-line wrapped by the terminal",
		prefixed("● ", "  ", "[ROUTE] to: architect type: question task: T-12 body: Which", "transport? [/ROUTE]"),
		route("to", "architect", "type", "question", "task", "T-12", "body", "Which\ntransport?"))
	add("empty block", "[ROUTE][/ROUTE]\n", Event{Kind: KindEnvelope, Block: "route", Raw: "[ROUTE][/ROUTE]"})

	// Not blocks.
	add("marker after words", lines("I will send [ROUTE] later", "to: dev", "body: x", "[/ROUTE]"))
	add("marker then prose", lines("[ROUTE] blocks are how we talk.", "to: dev", "[/ROUTE]"))
	add("quoted marker", lines(`"[ROUTE]"`, "to: dev", "body: x", "[/ROUTE]"))
	add("stray end markers", lines("[/ROUTE]", "</gap>", "[ROUTE", "<gap"))
	add("marker in prose inside a body is text",
		lines("[ROUTE]", "to: dev", "body: put [ROUTE] first and", "<gap> blocks are fine", "[/ROUTE]"),
		route("to", "dev", "body", "put [ROUTE] first and\n<gap> blocks are fine"))

	// Decoration.
	for _, pre := range []string{"⏺ ", "● ", "│ ", "┃ ", "> ", "* ", "- ", "• ", "  ", "\t", "❯ ", ">> ", "  ⎿  "} {
		add(fmt.Sprintf("prefix %q on every line", pre), prefixed(pre, pre, stdLines...), std)
	}
	for _, pre := range []string{"⏺ ", "● ", "> ", "* ", "- ", "• ", "🤖 "} {
		add(fmt.Sprintf("prefix %q then spaces", pre), prefixed(pre, strings.Repeat(" ", len([]rune(pre))+strings.Count(pre, "🤖")), stdLines...), std)
	}
	add("marker cased and padded", lines("  [route]   ", "to: architect", "type: question", "task: T-12", "body: Which transport?", "[/Route]\t "), std)
	add("glyph blanked, box kept", prefixed("│ ● ", "│   ", stdLines...), std)
	add("lines without the prefix still taken",
		lines("    [ROUTE]", "  to: architect", "type: question", "    task: T-12", "   body: Which transport?", "[/ROUTE]"), std)
	add("blockquote with bare > lines",
		lines("> [ROUTE]", "> to: dev", ">", "> body: a", ">", "> b", "> [/ROUTE]"),
		route("to", "dev", "body", "a\n\nb"))
	add("backtick before marker", lines("`[ROUTE]`", "to: architect", "type: question", "task: T-12", "body: Which transport?", "`[/ROUTE]`"), std)
	add("code fence", "```text\n"+lines(stdLines...)+"```\n", std)
	add("indented code fence", prefixed("  ", "  ", append(append([]string{"```"}, stdLines...), "```")...), std)
	add("claude code reply", strings.Join([]string{
		"\x1b[38;2;255;255;255m●\x1b[39m I'll ask the architect about the transport.",
		"",
		"  [ROUTE]",
		"  to: architect",
		"  type: question",
		"  task: T-12",
		`  body: The spec says "real-time updates" but not the transport. Which one should I use for 1000+ concurrent users,`,
		"  server-to-client only?",
		"  [/ROUTE]",
		"",
		"\x1b[2m────────────────────────────────────────\x1b[22m",
		"\x1b[1m❯\x1b[22m ",
		"",
	}, "\r\n"), route("to", "architect", "type", "question", "task", "T-12",
		"body", "The spec says \"real-time updates\" but not the transport. Which one should I use for 1000+ concurrent users,\nserver-to-client only?"))
	add("claude code, bullet on the marker line", prefixed("● ", "  ", "[ROUTE]", "to: dev", "type: status", "task: T-3",
		"body: done:", "  - parser", "    - tests", "[/ROUTE]"),
		route("to", "dev", "type", "status", "task", "T-3", "body", "done:\n  - parser\n    - tests"))
	add("box", strings.Join([]string{
		"╭──────────────────────────╮",
		"│ [ROUTE]                  │",
		"│ to: qa                   │",
		"│ type: handoff            │",
		"│ task: T-9                │",
		"│ body: ready for          │",
		"│   review │ soon          │",
		"│                          │",
		"│ [/ROUTE]                 │",
		"╰──────────────────────────╯",
		"",
	}, "\n"), route("to", "qa", "type", "handoff", "task", "T-9", "body", "ready for\n  review │ soon"))
	add("box without padding", lines("┃ [ROUTE]┃", "┃ to: qa┃", "┃ body: x┃", "┃ [/ROUTE]┃"), route("to", "qa", "body", "x"))
	add("raw is the undecorated block", prefixed("│ ", "│ ", "[ROUTE] to: dev", "body: x   │", "[/ROUTE]  │"),
		Event{Kind: KindEnvelope, Block: "route", Envelope: env("to", "dev", "body", "x"), HasBody: true,
			Raw: "[ROUTE] to: dev\nbody: x\n[/ROUTE]"})

	// Escape sequences and control characters.
	add("sgr everywhere", lines("\x1b[1m[ROUTE]\x1b[0m", "\x1b[36mto:\x1b[0m architect", "\x1b[38;5;208mtype\x1b[0m: question",
		"task: \x1b[38;2;1;2;3mT-12\x1b[39m", "body: Which \x1b[4mtransport\x1b[24m?", "\x1b[1m[/ROUTE]\x1b[m"), std)
	add("escape inside the word ROUTE", lines("[RO\x1b[31mUT\x1b[0mE]", "to: architect", "type: question", "task: T-12",
		"body: Which transport?", "[/R\x1b[1mOUTE\x1b[22m]"), std)
	add("osc, dcs, sos, pm, apc", lines("\x1b]0;title\x07[ROUTE]", "to: architect\x1bP1$r0m\x1b\\", "type: question\x1b_Gf=100;AAAA\x1b\\",
		"task: T-12\x1bXsos\x1b\\\x1b^pm\x1b\\", "body: Which \x1b]8;;http://x/\x1b\\transport\x1b]8;;\x1b\\?", "[/ROUTE]\x1b]2;t\x1b\\"), std)
	add("two-byte escapes and cursor moves", lines("\x1b7\x1b[2K\x1b[1G[ROUTE]\x1b8", "\x1b=to: architect\x1b>", "\x1b(Btype: question",
		"\x1b[1A\x1b[2Ktask: T-12", "body: Which transport?\x1b[K", "\x1b[?25l[/ROUTE]\x1b[?25h"), std)
	add("c0 controls dropped", lines("\x00[ROUTE]\x07", "to: arch\x7fitect", "type: que\x08stion", "task: T-12\x0e\x0f", "body: Which transport?", "[/ROUTE]\x1a"), std)
	add("escape sequence ended by a line break", lines("\x1b]0;unterminated title", "\x1b[12", "[ROUTE]", "to: architect", "type: question",
		"task: T-12", "body: Which transport?", "[/ROUTE]"), std)
	add("bracketed paste markers and their caret echo", lines("\x1b[200~^[[200~[ROUTE]", "to: architect", "type: question",
		"task: T-12^[[201~", "body: Which transport?", "[/ROUTE]^[[201~\x1b[201~"), std)
	add("utf-8 bytes are not c1 controls", lines("[ROUTE]", "to: dev", "body: Ûber › naïve … 测试 ✓ ⛔", "[/ROUTE]"),
		route("to", "dev", "body", "Ûber › naïve … 测试 ✓ ⛔"))

	// Line breaks.
	add("crlf", strings.Join(stdLines, "\r\n")+"\r\n", std)
	add("bare cr", strings.Join(stdLines, "\r")+"\r", std)
	add("cr runs and lf-cr are one break", strings.Join(stdLines[:4], "\r\r\r\n")+"\n\r"+strings.Join(stdLines[4:], "\r\r\n"), std)
	add("blank body line with crlf", "[ROUTE]\r\nto: dev\r\nbody: a\r\n\r\nb\r\n[/ROUTE]\r\n",
		route("to", "dev", "body", "a\n\nb"))
	add("last line without newline", strings.Join(stdLines, "\n"), std)
	add("one-line without newline", "[ROUTE] to: b body: hi [/ROUTE]", route("to", "b", "body", "hi"))

	// Refusals.
	add("nested", lines("[ROUTE]", "to: dev", "type: status", "body: half")+lines(stdLines...),
		bad("route", "no [/ROUTE] before the next [ROUTE]", "to", "dev", "type", "status"), std)
	add("nested one-line", lines("[ROUTE]", "to: dev", "[ROUTE] to: b body: hi [/ROUTE]"),
		bad("route", "no [/ROUTE] before the next [ROUTE]", "to", "dev"), route("to", "b", "body", "hi"))
	add("unterminated at end of output", lines("[ROUTE]", "to: dev", "body: x"),
		bad("route", "unterminated [ROUTE]: no [/ROUTE] before the output ended", "to", "dev"))
	add("unterminated one-line at end of output", "● [ROUTE] to: dev body: x",
		bad("route", "unterminated [ROUTE]: no [/ROUTE] before the output ended", "to", "dev"))
	body499 := make([]string, 0, 500)
	for i := range 496 {
		body499 = append(body499, fmt.Sprintf("line %d", i))
	}
	add("500 lines is the limit", lines(append(append([]string{"[ROUTE]", "to: dev", "body: x"}, body499...), "[/ROUTE]")...),
		route("to", "dev", "body", "x\n"+strings.Join(body499, "\n")))
	add("501 lines is over the limit", lines(append(append([]string{"[ROUTE]", "to: dev", "body: x"}, body499...), "one more", "[/ROUTE]")...)+
		lines(stdLines...),
		bad("route", "no [/ROUTE] within 500 lines", "to", "dev"), std)
	big := strings.Repeat("0123456789abcde ", 64)[:1023] + "\n" // 1 KiB lines
	// "[ROUTE]\nbody:\n" + 63 KiB + x's + "\n[/ROUTE]" is 64 KiB with 1001 x's.
	add("exactly 64 KiB", "[ROUTE]\nbody:\n"+strings.Repeat(big, 63)+strings.Repeat("x", 1001)+"\n[/ROUTE]\n",
		route("body", strings.Repeat(big, 63)+strings.Repeat("x", 1001)))
	add("64 KiB and one byte", "[ROUTE]\nbody:\n"+strings.Repeat(big, 63)+strings.Repeat("x", 1002)+"\n[/ROUTE]\n",
		bad("route", "block larger than 64 KiB"))
	add("larger than 64 KiB", "[ROUTE]\nto: dev\nbody:\n"+strings.Repeat(big, 64)+"[/ROUTE]\n"+lines(stdLines...),
		bad("route", "block larger than 64 KiB", "to", "dev"), std)
	add("over-long line in a block", "[ROUTE]\nto: dev\nbody: "+strings.Repeat("x", 200<<10)+" [/ROUTE]\n"+lines(stdLines...),
		bad("route", "block larger than 64 KiB", "to", "dev"), std)
	// Issue 12 item 6: this block used to vanish without a trace.
	add("over-long one-line block is refused", "[ROUTE] to: dev body: "+strings.Repeat("x", 100<<10)+" [/ROUTE]\n"+lines(stdLines...),
		bad("route", "block larger than 64 KiB", "to", "dev"), std)
	add("over-long plain line starts no block", strings.Repeat("x", 100<<10)+" [ROUTE] to: dev body: x [/ROUTE]\n"+lines(stdLines...), std)
	add("oversized and unterminated", "[ROUTE]\nto: dev\nbody:\n"+strings.Repeat(big, 80),
		bad("route", "block larger than 64 KiB", "to", "dev"))

	// Gaps.
	add("gap", lines("<gap>", "  <topic>architecture.auth</topic>", "  <question>Should refresh tokens be stored in cookies?</question>",
		"  <context>Designing the session layer</context>", "  <urgency>high</urgency>", "</gap>"),
		gap("architecture.auth", "Should refresh tokens be stored in cookies?", "Designing the session layer", "high"))
	add("gap on one line", "<gap><topic>a.b</topic><question>q?</question></gap>\n", gap("a.b", "q?", "", "normal"))
	add("gap entities", lines("<gap>", "<topic>x</topic>",
		"<question>a &lt; b &amp;&amp; c &gt; d &quot;q&quot; &apos;s&apos; &amp;lt; &#233;&#x2713; &nope; &</question>", "</gap>"),
		gap("x", `a < b && c > d "q" 's' &lt; é✓ &nope; &`, "", "normal"))
	add("gap multi-line values", lines("<gap>", "<topic>", "  api.auth", "</topic>", "<question>Should we", "   use cookies", "   or headers?</question>",
		"<context>line one", "", "line two</context>", "</gap>"),
		gap("api.auth", "Should we\nuse cookies\nor headers?", "line one\n\nline two", "normal"))
	add("gap urgency cased", "<gap><topic>t</topic><question>q</question><urgency> BLOCKING </urgency></gap>\n", gap("t", "q", "", "blocking"))
	add("gap urgency unknown kept", "<gap><topic>t</topic><question>q</question><urgency>ASAP</urgency></gap>\n", gap("t", "q", "", "ASAP"))
	add("gap tags cased, element unclosed", "<GAP><Topic>t<QUESTION>q</question></Gap>\n", gap("t", "q", "", "normal"))
	add("gap without topic", lines("<gap>", "<question>q?</question>", "</gap>"), bad("gap", "<gap> without <topic>"))
	add("gap without question", lines("<gap>", "<topic>t</topic>", "<question>  </question>", "</gap>"), bad("gap", "<gap> without <question>"))
	add("gap empty", "<gap></gap>\n", bad("gap", "<gap> without <topic> and <question>"))
	add("gap in a claude reply", "\x1b[38;2;255;255;255m●\x1b[39m <gap>\r\n    <topic>db.schema</topic>\r\n    <question>Which\r\n    index?</question>\r\n  </gap>\r\n",
		gap("db.schema", "Which\nindex?", "", "normal"))
	add("gap with escapes in tags", lines("<\x1b[1mga\x1b[0mp>", "<topic>t</topic><question>q</question>", "</g\x1b[2map>"), gap("t", "q", "", "normal"))
	add("gap in a box", lines("│ <gap>                       │", "│   <topic>t</topic>          │", "│   <question>q</question>    │", "│ </gap>                      │"),
		gap("t", "q", "", "normal"))
	add("gap mentioned in prose", lines("<gap> is how we ask", "<topic>t</topic>", "</gap>"))
	add("gap unterminated", lines("<gap>", "<topic>t</topic>"), bad("gap", "unterminated <gap>: no </gap> before the output ended"))
	add("gap nested", lines("<gap>", "<topic>t</topic>", "<gap><topic>u</topic><question>q</question></gap>"),
		bad("gap", "no </gap> before the next <gap>"), gap("u", "q", "", "normal"))
	add("gap interrupted by a route", lines("<gap>", "<topic>t</topic>")+lines(stdLines...),
		bad("gap", "no </gap> before the next [ROUTE]"), std)
	add("gap then route on adjacent lines", lines("<gap><topic>t</topic><question>q</question></gap>")+lines(stdLines...),
		gap("t", "q", "", "normal"), std)
	add("gap markers inside a route body", lines("[ROUTE]", "to: dev", "body: example:", "<gap>", "<topic>t</topic>", "</gap>", "[/ROUTE]"),
		route("to", "dev", "body", "example:\n<gap>\n<topic>t</topic>\n</gap>"))
	return cs
}

// TestMarkerInsideLongNoise checks that lines of noise around a block,
// including very long ones and lines that start with '[' or '<', change
// nothing.
func TestMarkerInsideLongNoise(t *testing.T) {
	noise := []string{
		strings.Repeat("word ", 1000),
		"[1/4] Compiling",
		"<div>",
		"\x1b[2m" + strings.Repeat("─", 300) + "\x1b[0m",
		strings.Repeat(" ", 300) + "[ROUTE]",
		"[" + strings.Repeat("x", 70<<10),
	}
	in := lines(noise...) + lines(stdLines...) + lines(noise...)
	checkEvents(t, in, Parse(in), []Event{std})
	checkEvents(t, in, feedBytes([]byte(in)), []Event{std})
}

func TestGenerateLogParses(t *testing.T) {
	log, n := GenerateLog(30<<20, 1)
	if n < 100 {
		t.Fatalf("only %d envelopes in %d bytes", n, len(log))
	}
	p := NewParser()
	got := 0
	emit := func(e Event) {
		if e.Kind != KindEnvelope {
			t.Fatalf("unexpected %v event: %+v", e.Kind, e)
		}
		if probs := Problems(&e.Envelope, e.HasBody); len(probs) > 0 {
			t.Fatalf("invalid envelope %+v: %v", e, probs)
		}
		got++
	}
	for i := 0; i < len(log); i += 4096 {
		p.Feed(log[i:min(len(log), i+4096)], emit)
	}
	p.Flush(emit)
	if got != n {
		t.Fatalf("parsed %d envelopes, GenerateLog says %d", got, n)
	}
	again, n2 := GenerateLog(30<<20, 1)
	if n2 != n || string(again) != string(log) {
		t.Fatal("GenerateLog is not deterministic")
	}
}

// TestBoundedMemory feeds huge inputs without line breaks and checks after
// every Feed that the parser holds no more than a fixed amount.
func TestBoundedMemory(t *testing.T) {
	chunk := []byte(strings.Repeat("\x1b[31mabc\x1b[0m [/ROUTE] <gap> ", 2048))
	cases := []struct {
		name  string
		start string
		total int
	}{
		{"text", "plain text ", 100 << 20},
		{"marker start", "[ROUTE] to: dev body: ", 16 << 20},
		{"in a block", "[ROUTE]\nto: dev\nbody: ", 16 << 20},
		{"in a gap", "<gap>\n<topic>", 16 << 20},
		{"escape sequence", "\x1b]0;", 16 << 20},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := NewParser()
			var evs []Event
			emit := func(e Event) { evs = append(evs, e) }
			p.Feed([]byte(tc.start), emit)
			for n := 0; n < tc.total; n += len(chunk) {
				p.Feed(chunk, emit)
				if r := p.retained(); r > maxRetained {
					t.Fatalf("after %d bytes the parser holds %d bytes", n, r)
				}
			}
			p.Feed([]byte("\n"), emit)
			for range MaxBlockLines {
				p.Feed(chunk[:len(chunk)/4], emit)
				p.Feed([]byte("\r\n"), emit)
				if r := p.retained(); r > maxRetained {
					t.Fatalf("the parser holds %d bytes", r)
				}
			}
			p.Feed([]byte(lines(stdLines...)), emit)
			p.Flush(emit)
			if n := len(evs); n == 0 || !sameEvent(evs[n-1], std) {
				t.Fatalf("the parser did not recover: %s", dump(evs))
			}
			for _, e := range evs {
				if len(e.Raw) > rawCap {
					t.Fatalf("Raw has %d bytes", len(e.Raw))
				}
			}
		})
	}
}

// maxRetained bounds what a parser holds between Feed calls: a line, a
// block's content, and small buffers.
const maxRetained = 4*MaxBlockBytes + 64<<10

func TestStripANSI(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":                               "plain\ttext\n",
		"\x1b[1;31mred\x1b[0m":                        "red",
		"a\x1b]0;title\x07b\x1b]8;;u\x1b\\c":          "abc",
		"a\x1bP1$r\x1b\\b\x1b_apc\x1b\\c\x1b^p\x1b\\": "abc",
		"a\x1b7b\x1b(Bc\x1b=":                         "abc",
		"a\r\nb\x00\x07\x08\x7f":                      "a\nb",
		"^[[200~pasted^[[201~":                        "pasted",
		"Ûber › …":                                    "Ûber › …",
		"\x1b]0;runaway\ntext":                        "\ntext",
		"\x1b[":                                       "",
		"x\x1b\x1b[1mz":                               "xz",
	} {
		if got := StripANSI(in); got != want {
			t.Errorf("StripANSI(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestFlushAndReset(t *testing.T) {
	var evs []Event
	emit := func(e Event) { evs = append(evs, e) }
	p := NewParser()
	p.Feed([]byte("[ROUTE]\nto: dev\n"), emit)
	p.Reset()
	p.Feed([]byte("body: x\n[/ROUTE]\n"), emit)
	if len(evs) != 0 {
		t.Fatalf("Reset kept the block: %s", dump(evs))
	}
	p.Feed([]byte("[ROUTE] to: a body: b [/ROUTE]"), emit)
	p.Flush(emit)
	p.Flush(emit)
	p.Feed([]byte(lines(stdLines...)), emit)
	p.Flush(emit)
	checkEvents(t, "", evs, []Event{route("to", "a", "body", "b"), std})
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{KindEnvelope: "envelope", KindGap: "gap", KindMalformed: "malformed", 0: "Kind(?)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}
