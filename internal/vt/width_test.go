package vt

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/cellwidth"
)

// widthPieces are text whose width the measures in use disagree about, and
// text they agree about.
var widthPieces = []string{
	"a", "word ", "中", "😀", "e\u0301", "\u0301", "\u2764\ufe0f", "⌚\ufe0f", "\ufe0f", "1\ufe0f\u20e3", "☔\ufe0e",
	"\U0001F44D\U0001F3FD", "\U0001F3FD", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F1FA\U0001F1F8", "\U0001F1FA",
	"\u1100", "\u1100\u1100\u1100", "\u1112\u1161\u11ab", "\u1161", "\u11a8", "가", "\u0915\u094d\u0937", "\u093e",
	"\u00ad", "\U000E0041", "│", "─", "●",
}

// The emulator moves the cursor as cellwidth.String measures: one width
// function for the emulator and for the console.
func TestEmulatorAgreesWithString(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 1))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.IntN(12) {
			b.WriteString(widthPieces[rng.IntN(len(widthPieces))])
		}
		s := b.String()
		term := New(200, 2, Options{})
		term.Write([]byte(s))
		x, _, _ := term.Cursor()
		want := cellwidth.String(s)
		if strings.HasPrefix(s, "\u0301") || strings.HasPrefix(s, "\u1161") || strings.HasPrefix(s, "\u11a8") || strings.HasPrefix(s, "\ufe0f") || strings.HasPrefix(s, "\u093e") {
			continue // a mark at column 0 has nothing to join: dropped (as in tmux)
		}
		if x != want {
			t.Fatalf("%q: cursor at %d, String says %d", s, x, want)
		}
	}
}

// assertLinesFit fails unless every line of view takes exactly width cells
// for lipgloss (grapheme clusters) and for tmux (code points), and holds
// nothing whose width terminals disagree about.
func assertLinesFit(t *testing.T, view string, width int) {
	t.Helper()
	for i, l := range strings.Split(view, "\n") {
		plain := ansi.Strip(l)
		if gw, tw := ansi.StringWidth(l), cellwidth.String(plain); gw != width || tw != width || !cellwidth.Sure(plain) {
			t.Errorf("line %d is %d cells for lipgloss, %d for tmux, want %d (sure %v): %q", i, gw, tw, width, cellwidth.Sure(plain), plain)
		}
	}
}

// The ninth red team's finding 15: an agent's line of Hangul leading
// consonants (two cells each in the emulator and in tmux, one cluster two
// cells wide for lipgloss) or of ❤️ (one cell in tmux 3.3a, two for
// lipgloss) made a pane's line wider than the pane, the terminal wrapped
// it and the console scrolled. Each rendered line now takes exactly the
// pane's width by every measure.
func TestRenderLinesTakeThePaneWidth(t *testing.T) {
	for _, width := range []int{10, 57, 92, 118, 120} {
		term := New(width, 10, Options{Scrollback: 10})
		term.Write([]byte(strings.Repeat("\u1100", 46) + "filler │p-4 permission from qa · T-1             1m││\r\n"))
		term.Write([]byte(strings.Repeat("\u2764\ufe0f", 60) + " hearts\r\n"))
		term.Write([]byte("\U0001F44D\U0001F3FD\U0001F468\u200d\U0001F469 \U0001F1FA\U0001F1F8 \U0001F3FD a\u1161 \u0915\u093e\r\n"))
		term.Write([]byte("\x1b[31m\u1100\u1100\x1b[m ok\r\n"))
		assertLinesFit(t, term.Render(0, width, 10), width)
		assertLinesFit(t, term.Render(5, width, 10), width) // from the scrollback
		if width == 120 {
			text := ansi.Strip(term.Render(0, width, 10))
			for _, want := range []string{strings.Repeat("ㄱ", 46) + "filler", strings.Repeat("\u2764 ", 60)[:10], "\U0001F44D\U0001F468 US ？ ?", "ㄱㄱ ok"} {
				if !strings.Contains(text, want) {
					t.Errorf("render lacks %q:\n%s", want, text)
				}
			}
		}
	}
}

// Random text of every kind, rendered at random widths: no line is ever
// wider (or narrower) than the pane.
func TestRenderRandomTextFits(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for range 300 {
		cols := 1 + rng.IntN(40)
		term := New(cols, 5, Options{Scrollback: 20})
		var b strings.Builder
		for range rng.IntN(80) {
			b.WriteString(widthPieces[rng.IntN(len(widthPieces))])
			if rng.IntN(10) == 0 {
				b.WriteString("\r\n")
			}
		}
		term.Write([]byte(b.String()))
		w := 1 + rng.IntN(45)
		assertLinesFit(t, term.Render(rng.IntN(5), w, 5), w)
		if t.Failed() {
			t.Fatalf("text %q at %d columns, drawn %d wide", b.String(), cols, w)
		}
	}
}
