package cellwidth

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Placeholder is what is drawn for a cell w cells wide whose character
// cannot be drawn so that every terminal gives it w cells: "?" or the
// fullwidth "？".
func Placeholder(w int) string {
	switch w {
	case 1:
		return "?"
	case 2:
		return "？"
	}
	return strings.Repeat("?", max(w, 0))
}

// compatJamo are the Hangul compatibility jamo (U+3131 ㄱ …) of the modern
// leading consonants U+1100 to U+1112: the same letters, two cells wide
// everywhere, joining nothing.
var compatJamo = [...]rune{
	0x3131, 0x3132, 0x3134, 0x3137, 0x3138, 0x3139, 0x3141, 0x3142, 0x3143, 0x3145,
	0x3146, 0x3147, 0x3148, 0x3149, 0x314a, 0x314b, 0x314c, 0x314d, 0x314e,
}

// Cell returns what to draw for an emulator cell w (1 or 2) cells wide
// holding s (a character and any it joined: marks, a variation selector,
// a skin-tone modifier, what a zero width joiner added) so that every
// terminal and lipgloss give it exactly w cells and it joins no
// neighbour:
//
//   - s itself when it is one Plain character of width w, or Sure and
//     alone (see alone): "é" spelt e + U+0301, "한" spelt in jamo;
//   - else s without what terminals disagree about (variation selectors,
//     modifiers, tag characters, all from a zero width joiner on), padded
//     with blanks to w: ❤️ is drawn "❤ ", 👍🏽 "👍", 👨‍👩‍👧 "👨";
//   - a regional indicator as its letter (🇺🇸 is drawn "US"), a lone
//     modern Hangul leading consonant as its compatibility jamo (U+1100
//     as ㄱ, which does not join the next one);
//   - else Placeholder(w).
func Cell(s string, w int) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == len(s) {
		switch {
		case Plain(r) && Rune(r) == w:
			return s
		case RegionalIndicator(r):
			return pad(string('A'+r-0x1f1e6), 1, w)
		case r >= 0x1100 && r <= 0x1112 && w == 2:
			return string(compatJamo[r-0x1100])
		}
	}
	base := s
	if needsStrip(s) {
		base = strip(s)
	}
	bw := 0
	for _, r := range base {
		bw += Rune(r)
	}
	if base == "" || bw == 0 || bw > w || !Sure(base) || !alone(base) {
		return Placeholder(w)
	}
	return pad(base, bw, w)
}

func pad(s string, have, w int) string {
	if have >= w {
		return s
	}
	return s + strings.Repeat(" ", w-have)
}

func needsStrip(s string) bool {
	for _, r := range s {
		if Unsure(r) {
			return true
		}
	}
	return false
}

// strip returns s without variation selectors, modifiers, regional
// indicators and tag characters, cut at its first zero width joiner.
func strip(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == ZWJ {
			break
		}
		if !Unsure(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// alone reports whether s is one grapheme cluster that joins neither an
// ordinary character before it nor one after it: drawn between others it
// is measured as it is measured alone.
func alone(s string) bool {
	if c, _ := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth); c != s {
		return false
	}
	if c, _ := ansi.FirstGraphemeCluster(s+"a", ansi.GraphemeWidth); c != s {
		return false
	}
	c, _ := ansi.FirstGraphemeCluster("a"+s, ansi.GraphemeWidth)
	return c == "a"
}

// FixRow checks a row of cells drawn side by side, pieces[i] (from Cell)
// taking widths[i] cells, as lipgloss will measure the row: where a
// grapheme cluster spans two pieces, or a piece measures other than its
// width, those pieces are replaced by Placeholder, in place. It reports
// whether it replaced any. Rows whose pieces are all Plain need no check.
func FixRow(pieces []string, widths []int) bool {
	changed := false
	var buf strings.Builder
	starts := make([]int, len(pieces)+1)
	measured := make([]int, len(pieces))
	bad := make([]bool, len(pieces))
	for round := 0; round < 4; round++ {
		buf.Reset()
		for i, p := range pieces {
			starts[i] = buf.Len()
			buf.WriteString(p)
			measured[i], bad[i] = 0, false
		}
		starts[len(pieces)] = buf.Len()
		row := buf.String()
		found := false
		k := 0 // the piece the next cluster starts in
		for pos := 0; pos < len(row); {
			c, w := ansi.FirstGraphemeCluster(row[pos:], ansi.GraphemeWidth)
			if len(c) == 0 {
				break
			}
			for k+1 < len(pieces) && starts[k+1] <= pos {
				k++
			}
			end := pos + len(c)
			j := k
			for j+1 < len(pieces) && starts[j+1] < end {
				j++
			}
			if j != k {
				for x := k; x <= j; x++ {
					bad[x] = true
				}
			}
			measured[k] += w
			pos = end
		}
		for i := range pieces {
			if measured[i] != widths[i] {
				bad[i] = true
			}
		}
		for i := range pieces {
			if bad[i] && pieces[i] != Placeholder(widths[i]) {
				pieces[i] = Placeholder(widths[i])
				found = true
			}
		}
		if !found {
			return changed
		}
		changed = true
	}
	return changed
}
