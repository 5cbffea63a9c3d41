package textsafe

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/cellwidth"
)

func TestLineEscapesUncertainWidths(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain ünïcode ✓ 日本 😀", "plain ünïcode ✓ 日本 😀"},
		{"e\u0301 \u1112\u1161\u11ab สวัสดี", "e\u0301 \u1112\u1161\u11ab สวัสดี"},
		{strings.Repeat("\u1100", 3) + "x", `\u1100\u1100\u1100x`},
		{"\u2764\ufe0f", `❤\ufe0f`},
		{"\U0001F44D\U0001F3FD ok", `👍\u1f3fd ok`},
		{"\U0001F1FA\U0001F1F8", `\u1f1fa\u1f1f8`},
		{"a\u1161", `a\u1161`},
		{"\u0915\u093e", `क\u093e`},
	} {
		if got := Line(c.in); got != c.want {
			t.Errorf("Line(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Text (the CLI's output, kept data) keeps them: only the console's
	// rows need cells they can count.
	if got := Text("\U0001F44D\U0001F3FD"); got != "\U0001F44D\U0001F3FD" {
		t.Errorf("Text changed a modifier: %q", got)
	}
}

func TestClip(t *testing.T) {
	red, reset := "\x1b[31m", "\x1b[m"
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"hello", 10, "hello"},
		{"hello world", 5, "hello"},
		{red + "hello" + reset + " world", 7, red + "hello" + reset + " w"},
		{"中文字", 5, "中文"},
		{"a\tb", 10, "a    b"},
		{"x\x1b[2Jy", 20, `x\u001b[2Jy`},
		{"x\x07y", 20, `x\u0007y`},
		{strings.Repeat("\u1100", 46) + "filler", 20, strings.Repeat(`\u1100`, 3) + `\u`},
		{"\u2764\ufe0f\u2764\ufe0f", 30, `❤\ufe0f❤\ufe0f`},
		{"\U0001F44D\U0001F3FD", 30, `👍\u1f3fd`},
		{"e\u0301x", 2, "e\u0301x"},
		{"│" + red + "● q-0001" + reset + "│", 6, "│" + red + "● q-0" + reset},
	} {
		if got := Clip(c.in, c.w); got != c.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// clipPieces are what lines are made of: the console's own (styles, box
// drawing, ASCII) and an agent's (wide, joined and uncertain characters).
var clipPieces = []string{
	"a", "word ", "│", "─", "●", "…", "中", "😀", "\x1b[31m", "\x1b[1;44m", "\x1b[m", "\t", "\x1b[2J", "\x07",
	"e\u0301", "\u0301", "\u2764\ufe0f", "\ufe0f", "\U0001F44D\U0001F3FD", "\U0001F3FD", "\U0001F468\u200d\U0001F469",
	"\U0001F1FA\U0001F1F8", "\U0001F1FA", "\u1100", "\u1100\u1100\u1100", "\u1112\u1161\u11ab", "\u1161", "가",
	"\u0915\u094d\u0937", "\u093e", "\u00ad", "\U000E0041", "\xff",
}

var sgr = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// Whatever a line holds, Clip's result is no wider than asked, by lipgloss's
// measure and by tmux's alike.
func TestClipNeverWider(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(30) {
			b.WriteString(clipPieces[rng.IntN(len(clipPieces))])
		}
		in := b.String()
		w := rng.IntN(40)
		out := Clip(in, w)
		text := ansi.Strip(out)
		if gw, tw := ansi.StringWidth(out), cellwidth.String(text); gw > w || gw != tw {
			t.Fatalf("Clip(%q, %d) = %q: lipgloss %d, tmux %d", in, w, out, gw, tw)
		}
		for _, seg := range sgr.Split(out, -1) {
			if !cellwidth.Sure(seg) {
				t.Fatalf("Clip(%q, %d) = %q: %q is not sure", in, w, out, seg)
			}
		}
		if strings.ContainsAny(text, "\x1b\x07\t") {
			t.Fatalf("Clip(%q, %d) = %q keeps a control", in, w, out)
		}
	}
}

// What the console is given is width-safe once cleaned (Clean), and Needs
// says when it must be.
func TestCleanMakesWidthSafe(t *testing.T) {
	type item struct{ Body string }
	v := []item{{"46 × " + strings.Repeat("\u1100", 3)}, {"ok ✓"}}
	b, _ := json.Marshal(v)
	if !Needs(string(b)) {
		t.Fatalf("Needs(%s) = false", b)
	}
	Clean(&v)
	if v[0].Body != `46 × \u1100\u1100\u1100` || v[1].Body != "ok ✓" {
		t.Errorf("cleaned: %q", v)
	}
	if b, _ := json.Marshal([]item{{"ok ✓ 日本 e\u0301"}}); Needs(string(b)) {
		t.Errorf("Needs(%s) = true", b)
	}
}

func FuzzClip(f *testing.F) {
	for _, p := range clipPieces {
		f.Add(p+"x"+p, 5)
	}
	f.Add(strings.Repeat("\u1100", 46)+"filler │p-4 permission from qa · T-1             1m││", 38)
	f.Fuzz(func(t *testing.T, s string, w int) {
		w = min(max(w, 0), 300)
		out := Clip(s, w)
		text := ansi.Strip(out)
		if gw, tw := ansi.StringWidth(out), cellwidth.String(text); gw > w || gw != tw {
			t.Fatalf("Clip(%q, %d) = %q: lipgloss %d, tmux %d", s, w, out, gw, tw)
		}
		for _, seg := range sgr.Split(out, -1) {
			if !cellwidth.Sure(seg) {
				t.Fatalf("Clip(%q, %d) = %q: %q is not sure", s, w, out, seg)
			}
		}
		if l := Line(s); !cellwidth.Sure(l) || ansi.StringWidth(l) != cellwidth.String(l) {
			t.Fatalf("Line(%q) = %q is not sure", s, l)
		}
	})
}
