package cellwidth

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestRune(t *testing.T) {
	for _, c := range []struct {
		r    rune
		want int
	}{
		{'a', 1}, {0x1f, 0}, {0x7f, 0}, {0x9b, 0}, {0xad, 1}, {'é', 1}, {'─', 1}, {'●', 1}, {'…', 1},
		{'中', 2}, {'가', 2}, {'😀', 2}, {'⌚', 2}, {0x2764, 1}, {0x3000, 2},
		// The Hangul leading consonants are wide, the vowels and finals zero,
		// as glibc, xterm and tmux have them (the ninth red team's finding 15).
		{0x1100, 2}, {0x1112, 2}, {0x115f, 2}, {0x1160, 0}, {0x1161, 0}, {0x11a8, 0}, {0x11ff, 0}, {0xa960, 2}, {0xd7b0, 0},
		{0x0301, 0}, {ZWJ, 0}, {VS16, 0}, {0xfe0e, 0}, {0x1f3fd, 2}, {0x1f1fa, 1},
		{0xd800, 1}, {0x20000, 2}, {0x10ffff + 1, 1},
	} {
		if got := Rune(c.r); got != c.want {
			t.Errorf("Rune(%U) = %d, want %d", c.r, got, c.want)
		}
	}
}

func TestPlain(t *testing.T) {
	for _, r := range []rune{'a', ' ', '~', 'é', '─', '│', '╭', '●', '…', '⏺', '✻', '❯', '⎿', '中', '😀', '👍', 0x2764, 'ㄱ', '？', 'क', 'ا'} {
		if !Plain(r) {
			t.Errorf("%q (%U) is not plain", r, r)
		}
	}
	for _, r := range []rune{0x07, 0x1b, 0x7f, 0x9b, 0x0301, 0x093e, 0x094d, 0x1100, 0x1161, 0x11a8, 0xac00, ZWJ, VS16, 0xfe0e, 0xe0100,
		0x1f3fd, 0x1f1fa, 0xe0041, 0xad, 0xd800, utf8.RuneError} {
		if Plain(r) {
			t.Errorf("%q (%U) is plain", r, r)
		}
	}
}

// Every plain rune takes its width for lipgloss too and joins neither
// neighbour, whatever the neighbour: the property Render's fast path and
// textsafe's rely on.
func TestPlainRunesMeasureTheSame(t *testing.T) {
	neighbours := []string{"a", " ", "中", "😀", "\u0301", "\u200d", "\ufe0f", "\U0001F3FD", "\U0001F1FA", "\u1100", "\u1161", "\u11a8", "가", "\u0915\u094d", "\u093e"}
	check := func(r rune) {
		if !Plain(r) {
			return
		}
		s := string(r)
		if gw := ansi.StringWidth(s); gw != Rune(r) {
			t.Errorf("%U: lipgloss %d, Rune %d", r, gw, Rune(r))
		}
		for _, n := range neighbours {
			if allPlain(n) {
				if c, _ := ansi.FirstGraphemeCluster(n+s, ansi.GraphemeWidth); c != n {
					t.Errorf("%U joins %q after it", r, n)
				}
				if c, _ := ansi.FirstGraphemeCluster(s+n, ansi.GraphemeWidth); c != s {
					t.Errorf("%U joins %q before it", r, n)
				}
			}
		}
	}
	// Every rune of the basic plane and of the emoji blocks; a sample of
	// the rest (long blocks of one kind: ideographs, historic scripts).
	for r := rune(0); r < 0x30000; r++ {
		if r < 0x10000 || r >= 0x1f000 && r < 0x20000 || r%17 == 0 {
			check(r)
		}
	}
}

func allPlain(s string) bool {
	for _, r := range s {
		if !Plain(r) {
			return false
		}
	}
	return true
}

func TestSure(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"plain text ✓ 日本", true}, {"e\u0301", true}, {"\u1112\u1161\u11ab", true}, {"สวัสดี", true}, {"", true},
		{"\u1100\u1100", false}, {strings.Repeat("\u1100", 46), false}, {"a\u1161", false},
		{"\u2764\ufe0f", false}, {"\ufe0f", false}, {"\U0001F44D\U0001F3FD", false}, {"\U0001F468\u200d\U0001F469", false},
		{"\U0001F1FA\U0001F1F8", false}, {"\u00ad", false},
	} {
		if got := Sure(c.s); got != c.want {
			t.Errorf("Sure(%q) = %v, want %v", c.s, got, c.want)
		}
	}
}

func TestString(t *testing.T) {
	for _, c := range []struct {
		s    string
		want int
	}{
		{"abc", 3}, {"中文", 4}, {"e\u0301", 1}, {strings.Repeat("\u1100", 46), 92}, {"\u1112\u1161\u11ab", 2},
		{strings.Repeat("\u2764\ufe0f", 60), 120}, {"⌚\ufe0f", 2}, {"\U0001F44D\U0001F3FD", 2}, {"a\U0001F3FD", 3},
		{"\U0001F468\u200d\U0001F469\u200d\U0001F467", 2}, {"\U0001F1FA\U0001F1F8", 2},
	} {
		if got := String(c.s); got != c.want {
			t.Errorf("String(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestCell(t *testing.T) {
	for _, c := range []struct {
		s    string
		w    int
		want string
	}{
		{"a", 1, "a"}, {"中", 2, "中"}, {"e\u0301", 1, "e\u0301"}, {"\u1112\u1161\u11ab", 2, "\u1112\u1161\u11ab"},
		{"\u2764\ufe0f", 2, "\u2764 "}, {"\u2764\ufe0f", 1, "\u2764"}, {"⌚\ufe0f", 2, "⌚"}, {"☔\ufe0e", 2, "☔"},
		{"\U0001F44D\U0001F3FD", 2, "\U0001F44D"}, {"\U0001F468\u200d\U0001F469", 2, "\U0001F468"},
		{"\U0001F1FA", 1, "U"}, {"\u1100", 2, "ㄱ"}, {"\u1112", 2, "ㅎ"}, {"\u1113", 2, "\u1113"},
		{"\u0301", 1, "?"}, {"\u1161", 1, "?"}, {"a\u1161", 1, "?"}, {"\U0001F3FD", 2, "？"}, {"\u093e", 1, "?"},
	} {
		if got := Cell(c.s, c.w); got != c.want {
			t.Errorf("Cell(%q, %d) = %q, want %q", c.s, c.w, got, c.want)
		}
	}
}

// cellContents are what an emulator cell can hold: characters and the
// clusters the emulator makes of them.
var cellContents = []string{
	"a", "é", "中", "😀", "e\u0301", "中\u0301", "\u0301", "\u2764\ufe0f", "⌚\ufe0f", "1\ufe0f\u20e3", "☔\ufe0e",
	"\U0001F44D\U0001F3FD", "\U0001F3FD", "\U0001F468\u200d\U0001F469\u200d\U0001F467", "\U0001F1FA", "\U0001F1F8",
	"\u1100", "\u1113", "\ua960", "\u1112\u1161\u11ab", "\u1161", "a\u1161", "가", "각", "\u093e", "\u0915", "\u0915\u094d",
	"\u0600", "\u00ad", "\U000E0041", "\U0001F3F4\U000E0067\U000E0062\U000E007F", "?", "？", "ㄱ",
}

// However cells are put side by side, the row Cell and FixRow draw takes
// exactly the cells' widths for lipgloss and for tmux.
func TestRowsTakeTheirWidth(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 9))
	for range 20000 {
		n := 1 + rng.IntN(8)
		pieces, widths := make([]string, n), make([]int, n)
		want := 0
		for i := range pieces {
			s := cellContents[rng.IntN(len(cellContents))]
			w := max(1, String(s))
			if w > 2 {
				w = 2
			}
			if rng.IntN(4) == 0 {
				w = 1 + rng.IntN(2)
			}
			pieces[i], widths[i] = Cell(s, w), w
			want += w
		}
		in := strings.Join(pieces, "")
		FixRow(pieces, widths)
		row := "│" + strings.Join(pieces, "") + "│"
		if gw, tw := ansi.StringWidth(row), String(row); gw != want+2 || tw != want+2 || !Sure(row) {
			t.Fatalf("%q (from %q): lipgloss %d, tmux %d, want %d", row, in, gw, tw, want+2)
		}
	}
}

func TestFixRow(t *testing.T) {
	// Cells that join when side by side (Hangul leading consonants, one
	// before a syllable): each alone is sure.
	pieces, widths := []string{"a", "\u1113", "\u1113", "가", "\u1113", "b"}, []int{1, 2, 2, 2, 2, 1}
	if !FixRow(pieces, widths) {
		t.Fatal("no change")
	}
	if got := strings.Join(pieces, "|"); got != "a|？|？|？|\u1113|b" {
		t.Errorf("got %q", got)
	}
	pieces = []string{"a", "中", "b"}
	if FixRow(pieces, []int{1, 2, 1}) {
		t.Errorf("changed a plain row: %q", pieces)
	}
}

func FuzzCell(f *testing.F) {
	for _, c := range cellContents {
		f.Add(c, uint8(1))
		f.Add(c, uint8(2))
	}
	f.Fuzz(func(t *testing.T, s string, w uint8) {
		cw := 1 + int(w%2)
		got := Cell(s, cw)
		if gw, tw := ansi.StringWidth("│"+got+"│"), String("│"+got+"│"); gw != cw+2 || tw != cw+2 || !Sure(got) {
			t.Fatalf("Cell(%q, %d) = %q: lipgloss %d, tmux %d between borders", s, cw, got, gw-2, tw-2)
		}
	})
}
