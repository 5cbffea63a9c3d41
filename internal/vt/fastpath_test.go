package vt

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// fastPathPieces are the bits randomText strings together: text each fast
// path takes (ASCII, box drawing, CJK, emoji), text it must leave to the
// slow path (combining marks, joiners, U+FFFD, invalid and cut UTF-8), and
// the state that changes how text is written (colours, insert mode,
// autowrap, the line-drawing set, cursor moves near the edges).
var fastPathPieces = []string{
	"word", "a", " ", "  ", "lorem ipsum dolor", "─────", "│ ", "●", "⎿", "✓", "→", "…", "café", "naïve",
	"データ", "测试", "中", "😀", "🧑\u200d💻", "e\u0301", "\u0301", "\u200d", "a\u200db", "\ufe0f", "\u00ad",
	"❤\ufe0f", "👍\U0001F3FD", "\U0001F3FD", "\u1100\u1100", "\u1112\u1161\u11ab",
	"\ufffd", "\xff", "\xe2\x94", "\xe2", "\xc3\x28", "\xf0\x9f\x98", "\xed\xa0\x80", "\xc0\xaf",
	"\r", "\n", "\r\n", "\b", "\t",
	"\x1b[38;5;174m", "\x1b[38;2;1;2;3m", "\x1b[0m", "\x1b[m", "\x1b[1m", "\x1b[22m", "\x1b[44m", "\x1b[7m",
	"\x1b[4h", "\x1b[4l", "\x1b[?7l", "\x1b[?7h", "\x1b(0", "\x1b(B", "lqqk",
	"\x1b[1;1H", "\x1b[999C", "\x1b[2D", "\x1b[1A", "\x1b[2K", "\x1b[K", "\x1b[3@", "\x1b[2P", "\x1b[5b",
}

// randomText returns n pieces of fastPathPieces, the plain ones more often.
func randomText(rng *rand.Rand, n int) []byte {
	var b strings.Builder
	for range n {
		i := rng.IntN(len(fastPathPieces))
		if rng.IntN(2) == 0 {
			i = rng.IntN(20) // words and characters the fast paths take
		}
		b.WriteString(fastPathPieces[i])
	}
	return []byte(b.String())
}

// TestFastPathsMatchSlowPath feeds random text through the fast paths (one
// write) and through the slow path (byte by byte: each character then
// reaches printRune alone) on screens from one column wide up: the
// screens, scrollback and cursor must come out the same, and every row
// log pushed to the scrollback is checked against its cells (TestMain).
func TestFastPathsMatchSlowPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for i := range 3000 {
		in := randomText(rng, 1+rng.IntN(60))
		cols, rows := 1+rng.IntN(14), 1+rng.IntN(5)
		run := func(chunks [][]byte) *Terminal {
			term := New(cols, rows, Options{Scrollback: 50})
			for _, ch := range chunks {
				term.Write(ch)
			}
			if err := checkInvariants(term); err != nil {
				t.Fatalf("%q on %dx%d: %v", in, cols, rows, err)
			}
			return term
		}
		fast, slow := run(whole(in)), run(bytewise(in))
		if a, b := dump(fast), dump(slow); a != b {
			t.Fatalf("case %d: %q on %dx%d, one write:\n%s\nbyte by byte:\n%s", i, in, cols, rows, a, b)
		}
	}
}
