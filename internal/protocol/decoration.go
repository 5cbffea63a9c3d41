package protocol

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// maxPrefix is the longest decoration prefix (in bytes) a marker line may
// have. Longer runs of glyphs are not terminal decoration.
const maxPrefix = 128

// asciiDeco marks the ASCII characters that may decorate a marker line:
// blanks and punctuation that terminals and markdown put before text
// (`> `, `* `, `- `, backticks, `|`). Quotes and brackets are not in it: a
// marker after them is quoted text, not a block.
var asciiDeco [utf8.RuneSelf]bool

func init() {
	for _, c := range " \t!#$%&*+,-./:;=>?@\\^_`|~" {
		asciiDeco[c] = true
	}
}

// isDecoration reports whether r may appear in the decoration prefix of a
// marker line: whitespace, symbols and punctuation (●, ⏺, │, •, ❯ …) and
// marks attached to them, but not letters, digits, quotes or opening
// brackets.
func isDecoration(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && asciiDeco[r]
	}
	if r < decoTableEnd {
		// Box drawing, bullets and the like sit in this range; the
		// unicode tables are too slow for the hot path.
		t := decoTable()
		return t[r>>3]&(1<<(r&7)) != 0
	}
	return isDecorationSlow(r)
}

// decoTableEnd bounds the runes whose isDecoration answer is cached.
const decoTableEnd = 0x3000

// decoTable is a bitmap of isDecorationSlow for runes below decoTableEnd,
// built on first use.
var decoTable = sync.OnceValue(func() *[decoTableEnd / 8]byte {
	var t [decoTableEnd / 8]byte
	for r := rune(0); r < decoTableEnd; r++ {
		if isDecorationSlow(r) {
			t[r>>3] |= 1 << (r & 7)
		}
	}
	return &t
})

func isDecorationSlow(r rune) bool {
	if r < utf8.RuneSelf {
		return asciiDeco[r]
	}
	if r == utf8.RuneError {
		return false
	}
	if unicode.IsSpace(r) {
		return true
	}
	if unicode.In(r, unicode.Ps, unicode.Pi, unicode.Pf) {
		return false
	}
	return unicode.In(r, unicode.P, unicode.S, unicode.M, unicode.Cf)
}

// isBar reports whether r is a vertical box border.
func isBar(r rune) bool {
	switch r {
	case '|', '│', '┃', '║', '╎', '╏', '┆', '┇', '┊', '┋', '▏', '▕':
		return true
	}
	return false
}

// isBox reports whether r is a box-drawing glyph, which stays in place on
// every line of a box (unlike a bullet, which only marks the first line).
func isBox(r rune) bool { return isBar(r) || (r >= 0x2500 && r <= 0x257f) }

// runeWidth is the number of terminal columns r takes: 0 for combining and
// format characters, 2 for East Asian wide characters and emoji, else 1.
func runeWidth(r rune) int {
	switch {
	case r < 0x300:
		return 1
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	case r >= 0x1100 && r <= 0x115f, r >= 0x2e80 && r <= 0x303e,
		r >= 0x3041 && r <= 0x33ff, r >= 0x3400 && r <= 0x4dbf,
		r >= 0x4e00 && r <= 0x9fff, r >= 0xa000 && r <= 0xa4cf,
		r >= 0xac00 && r <= 0xd7a3, r >= 0xf900 && r <= 0xfaff,
		r >= 0xfe30 && r <= 0xfe4f, r >= 0xff00 && r <= 0xff60,
		r >= 0xffe0 && r <= 0xffe6, r >= 0x1f300 && r <= 0x1f64f,
		r >= 0x1f900 && r <= 0x1f9ff, r >= 0x20000 && r <= 0x3fffd:
		return 2
	}
	return 1
}

// lineClass is what the start of a line says about it being a marker line.
type lineClass uint8

const (
	undecided lineClass = iota // only decoration so far
	candidate                  // decoration, then '[' or '<'
	reject                     // text first, or too much decoration
)

// classify scans b from offset from over decoration runes. It returns
// candidate with the offset of the first '[' or '<' after the decoration,
// reject when something else comes first (or the decoration is longer than
// maxPrefix), and undecided with the offset to resume from when b ends
// first. The answer depends only on a prefix of the line, so it is the same
// however the line arrives.
func classify(b []byte, from int) (lineClass, int) {
	i := from
	for i < len(b) {
		if i > maxPrefix {
			return reject, i
		}
		c := b[i]
		if c < utf8.RuneSelf {
			if c == '[' || c == '<' {
				return candidate, i
			}
			if !asciiDeco[c] {
				return reject, i
			}
			i++
			continue
		}
		if !utf8.FullRune(b[i:]) {
			return undecided, i
		}
		r, n := utf8.DecodeRune(b[i:])
		if !isDecoration(r) {
			return reject, i
		}
		i += n
		// Rules and borders repeat one glyph: skip its copies unexamined.
		for n > 1 && i+n <= len(b) && string(b[i:i+n]) == string(b[i-n:i]) && i <= maxPrefix {
			i += n
		}
	}
	return undecided, i
}

// allDecoration reports whether s consists of decoration runes only.
func allDecoration(s string) bool {
	for _, r := range s {
		if !isDecoration(r) {
			return false
		}
	}
	return true
}

// countBars is the number of vertical box borders in s.
func countBars(s string) int {
	n := 0
	for _, r := range s {
		if isBar(r) {
			n++
		}
	}
	return n
}

// trimBorder removes up to bars right-hand box borders (each with the
// padding before it) from s.
func trimBorder(s string, bars int) string {
	for k := 0; k < bars; k++ {
		t := strings.TrimRight(s, " \t")
		r, n := utf8.DecodeLastRuneInString(t)
		if !isBar(r) {
			break
		}
		s = t[:len(t)-n]
	}
	return s
}

// hasFoldPrefix reports whether b starts with the lower-case ASCII string
// p, ignoring ASCII case.
func hasFoldPrefix[T string | []byte](b T, p string) bool {
	if len(b) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lower(b[i]) != p[i] {
			return false
		}
	}
	return true
}

// indexFold is the index of the first occurrence of the lower-case ASCII
// string p (which starts with a non-letter) in s, ignoring ASCII case, or -1.
func indexFold(s, p string) int {
	for i := 0; ; {
		j := strings.IndexByte(s[i:], p[0])
		if j < 0 {
			return -1
		}
		i += j
		if hasFoldPrefix(s[i:], p) {
			return i
		}
		i++
	}
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// asciiLower lower-cases ASCII letters only, so byte offsets stay valid.
func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				b[j] = lower(b[j])
			}
			return string(b)
		}
	}
	return s
}
