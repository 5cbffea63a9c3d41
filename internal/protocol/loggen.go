package protocol

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// GenerateLog returns about size bytes (a little more: the last item is
// finished) of realistic agent terminal output, the same for the same seed,
// and the number of valid [ROUTE] envelopes in it. The output has 256-colour
// and truecolour SGR, cursor moves, OSC titles and links, spinner redraws
// with bare CRs, lines of 2000+ characters, non-ASCII text, `● ` bullets,
// indentation, CRLF line ends, lines that start with '[' or '<' or mention
// [ROUTE] in prose, and every 150–250 lines an envelope in one of the shapes
// agents print (Claude Code style, coloured markers, a box, the one-line
// form, a code fence). It is meant for benchmarks and load tests.
func GenerateLog(size int, seed int64) (log []byte, envelopes int) {
	g := &logGen{r: rand.New(rand.NewPCG(uint64(seed), 0x7e47)), b: make([]byte, 0, size+16<<10)}
	next := g.n(150, 250)
	for len(g.b) < size {
		if next == 0 {
			g.envelope()
			envelopes++
			next = g.n(150, 250)
			continue
		}
		g.noise()
		next--
	}
	return g.b, envelopes
}

type logGen struct {
	r *rand.Rand
	b []byte
}

var logWords = strings.Fields(`the a to of and in is it that for on with as was
	build test file function return error value type struct config server client
	request response handler update session token cache query index schema
	migration deploy commit branch merge review refactor package module import
	café naïve résumé Überprüfung データ 测试 λ → ✓ — …`)

// n returns a random int in [lo, hi].
func (g *logGen) n(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

func (g *logGen) s(s string) { g.b = append(g.b, s...) }

func (g *logGen) crlf() { g.s("\r\n") }

func (g *logGen) word() string { return logWords[g.r.IntN(len(logWords))] }

// words appends about n bytes of words, some of them coloured.
func (g *logGen) words(n int) {
	start := len(g.b)
	for len(g.b)-start < n {
		if len(g.b) > start {
			g.s(" ")
		}
		switch g.r.IntN(8) {
		case 0:
			g.sgr256()
			g.s(g.word())
			g.s("\x1b[0m")
		case 1:
			g.sgrTrue()
			g.s(g.word())
			g.s("\x1b[39m")
		default:
			g.s(g.word())
		}
	}
}

func (g *logGen) sgr256() { g.s("\x1b[38;5;" + strconv.Itoa(g.r.IntN(256)) + "m") }

func (g *logGen) sgrTrue() {
	g.s("\x1b[38;2;" + strconv.Itoa(g.r.IntN(256)) + ";" + strconv.Itoa(g.r.IntN(256)) + ";" +
		strconv.Itoa(g.r.IntN(256)) + "m")
}

// noise appends one line (or spinner redraw) that holds no block.
func (g *logGen) noise() {
	switch k := g.r.IntN(100); {
	case k < 28: // indented prose
		g.s("  ")
		g.words(g.n(30, 118))
	case k < 38: // reply bullet
		g.sgrTrue()
		g.s("●\x1b[0m ")
		g.words(g.n(20, 110))
	case k < 46: // tool output
		g.s("  \x1b[2m⎿\x1b[22m  ")
		g.words(g.n(10, 90))
	case k < 50: // long line
		g.words(g.n(2000, 4000))
	case k < 55: // spinner redrawn with bare CRs
		for i := g.n(2, 5); i > 0; i-- {
			g.s("\r\x1b[2K\x1b[38;5;174m✻\x1b[0m Thinking… (" + strconv.Itoa(i) + "s · esc to interrupt)")
		}
	case k < 60: // cursor moves
		g.s("\x1b[1A\x1b[2K\x1b[1G\x1b[?25l")
		g.words(g.n(10, 60))
		g.s("\x1b[?25h")
	case k < 65: // lines that look like a marker at first sight
		switch g.r.IntN(3) {
		case 0:
			g.s("[" + strconv.Itoa(g.n(1, 9)) + "/9] Compiling ")
		case 1:
			g.s("  <div class=\"row\">")
		default:
			g.s("[INFO] ")
		}
		g.words(g.n(10, 60))
	case k < 68: // markers in prose
		g.s("  I will send a [ROUTE] block to the architect once the tests pass, then <gap> if unsure.")
	case k < 73: // rule
		g.s("\x1b[2m" + strings.Repeat("─", 120) + "\x1b[0m")
	case k < 83: // blank
	case k < 86: // window title and hyperlink
		g.s("\x1b]0;✳ claude\x07\x1b]8;;https://example.com/x\x1b\\link\x1b]8;;\x1b\\ ")
		g.words(g.n(10, 40))
	default: // code
		g.s(strings.Repeat("  ", g.n(1, 4)) + "\x1b[38;5;204mfunc\x1b[0m \x1b[38;5;81m" + g.word() + "\x1b[0m() {")
	}
	g.crlf()
}

// bodyText returns a random body of about n bytes.
func (g *logGen) bodyText(n int) []string {
	var words []string
	for size := 0; size < n; {
		w := g.word()
		words = append(words, w)
		size += len(w) + 1
	}
	return words
}

// wrap joins words into lines at most width runes wide.
func wrap(words []string, width int) []string {
	var lines []string
	line := ""
	for _, w := range words {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

// envelope appends one valid envelope in a random shape.
func (g *logGen) envelope() {
	to := []string{"architect", "dev", "qa", "team-lead", "role:developer"}[g.r.IntN(5)]
	typ := Types[g.r.IntN(len(Types))]
	task := "T-" + strconv.Itoa(g.n(1, 999))
	body := g.bodyText(g.n(20, 400))
	switch g.r.IntN(5) {
	case 0: // Claude Code: bullet, then a two-space indented block wrapped at 120 columns
		g.s("\x1b[38;5;231m●\x1b[0m I'll send this on.\r\n\r\n")
		lines := append([]string{"[ROUTE]", "to: " + to, "type: " + typ, "task: " + task},
			wrap(append([]string{"body:"}, body...), 118)...)
		for _, l := range append(lines, "[/ROUTE]") {
			g.s("  " + l + "\r\n")
		}
	case 1: // coloured, with a colour change inside the marker
		g.s("  \x1b[1m[RO\x1b[22;38;5;111mUTE]\x1b[0m\r\n")
		g.s("  \x1b[36mto:\x1b[0m " + to + "\r\n  \x1b[36mtype:\x1b[0m " + typ + "\r\n")
		g.s("  \x1b[36mtask:\x1b[0m " + task + "\r\n  \x1b[36mbody:\x1b[0m\r\n")
		for _, l := range wrap(body, 100) {
			g.s("    " + l + "\r\n")
		}
		g.s("  \x1b[1m[/ROUTE]\x1b[0m\r\n")
	case 2: // a box
		const w = 70
		g.s("╭" + strings.Repeat("─", w) + "╮\r\n")
		lines := append([]string{"[ROUTE]", "to: " + to, "type: " + typ, "task: " + task},
			wrap(append([]string{"body:"}, body...), w-2)...)
		for _, l := range append(lines, "[/ROUTE]") {
			g.s("│ " + l + strings.Repeat(" ", w-2-len([]rune(l))) + " │\r\n")
		}
		g.s("╰" + strings.Repeat("─", w) + "╯\r\n")
	case 3: // the one-line form in backticks
		g.s("\x1b[38;5;231m●\x1b[0m `[ROUTE] to: " + to + " type: " + typ + " task: " + task +
			" body: " + strings.Join(body[:min(len(body), 12)], " ") + " [/ROUTE]`\r\n")
	default: // in a code fence
		g.s("```text\r\n[ROUTE]\r\nfrom: dev\r\nto: " + to + "\r\ntype: " + typ + "\r\ntask: " + task + "\r\nbody: ")
		for i, l := range wrap(body, 80) {
			if i > 0 {
				g.s("\r\n")
			}
			g.s(l)
		}
		g.s("\r\n[/ROUTE]\r\n```\r\n")
	}
}
