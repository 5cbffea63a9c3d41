// Package cellwidth is the console's one measure of how many terminal
// cells text takes. The emulator (internal/vt) places an agent's output in
// cells with it, the console draws that output and its own rows with it,
// and it says which characters the measures in use do not agree on.
//
// Three measures meet on the human's screen: the emulator's, which must
// place characters where the agent's own terminal would; lipgloss's and
// Bubble Tea's (github.com/charmbracelet/x/ansi), which measure grapheme
// clusters and pad or cut each line of a pane by what they measure; and
// the real terminal's, which draws the console (tmux 3.3a draws each code
// point at its wcwidth; tmux 3.4 and most current terminals widen an emoji
// followed by U+FE0F and join skin-tone modifiers and flags; tmux 3.7
// composes Hangul jamo). Where they differ by a cell, a row of a pane is a
// cell wider on the screen than the console counted, the terminal wraps
// it, and every row below moves down (the ninth red team's finding 15).
//
// So: Rune is the width of a code point, as glibc, xterm and tmux give it;
// Plain says which code points every measure gives that width and that
// never join a neighbour into one cluster (text of plain runes measures the
// same everywhere); Sure says the same of a grapheme cluster; Cell is what
// to draw for an emulator cell so that it takes exactly its width
// everywhere, and FixRow checks a row of such cells as lipgloss will read
// it. Text that is not sure is escaped (internal/textsafe) or replaced.
package cellwidth

import (
	"sync/atomic"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// VS16 is VARIATION SELECTOR-16, which asks for the emoji presentation of
// the character before it: drawn two cells wide by current terminals and
// measured so by lipgloss; the emulator widens the character before it.
const VS16 = 0xfe0f

// ZWJ is the ZERO WIDTH JOINER: the character after it joins the cluster
// before it (👨‍👩 is one cell).
const ZWJ = 0x200d

// Modifier reports whether r is an emoji skin-tone modifier (U+1F3FB to
// U+1F3FF), which joins the emoji before it into one cluster two cells wide
// (as tmux 3.4 and current terminals draw 👍🏽; tmux 3.3a draws four).
func Modifier(r rune) bool { return r >= 0x1f3fb && r <= 0x1f3ff }

// RegionalIndicator reports whether r is one of the letters flags are
// made of (U+1F1E6 🇦 to U+1F1FF 🇿): two make a flag, whose width and
// clustering terminals disagree about.
func RegionalIndicator(r rune) bool { return r >= 0x1f1e6 && r <= 0x1f1ff }

// Unsure reports whether terminals and lipgloss disagree about what r
// does to the width of the text around it, whatever its own width:
// variation selectors, the zero width joiner, skin-tone modifiers,
// regional indicators and tag characters.
func Unsure(r rune) bool {
	switch {
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == ZWJ, Modifier(r), RegionalIndicator(r):
		return true
	case r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// Widths of code points below tableLimit are looked up in pages of 256
// computed on first use (one byte per rune: the width in the low two bits,
// plainBit); the rest are computed each time (they are rare). Pages are
// shared by every caller, so they are published atomically; two callers
// that compute the same page at once store equal tables.
const (
	tableLimit = 0x40000 // the first four planes: the BMP, emoji, CJK extensions
	plainBit   = 4
)

var pages [tableLimit >> 8]atomic.Pointer[[256]uint8]

// Rune returns the cells r takes on its own: 0, 1 or 2. Widths follow
// wcwidth(3) as x/ansi's WcWidth method computes it (one width per code
// point: marks, format characters, ZWJ and variation selectors are zero
// width, East Asian wide and emoji presentation characters are two), with
// two corrections so it agrees with glibc, xterm and tmux: U+00AD SOFT
// HYPHEN is one column and the Hangul Jamo medial vowels and final
// consonants are zero (the leading consonants, U+1100 to U+115F, are two).
// A rune whose page is computed already costs a load and an index.
func Rune(r rune) int {
	if p := pages[uint32(r)>>8&(tableLimit>>8-1)].Load(); p != nil && uint32(r) < tableLimit {
		return int(p[uint8(r)] & 3)
	}
	return runeSlow(r)
}

func runeSlow(r rune) int { return int(lookup(r) & 3) }

// Plain reports whether r takes Rune(r) cells by every measure (lipgloss's
// grapheme clusters, tmux's wcwidth, the emulator's) and never joins the
// character before or after it into one grapheme cluster: a run of plain
// runes is drawn the same everywhere. Printable ASCII is plain; controls,
// marks, Hangul jamo, and what Unsure names are not.
func Plain(r rune) bool {
	if p := pages[uint32(r)>>8&(tableLimit>>8-1)].Load(); p != nil && uint32(r) < tableLimit {
		return p[uint8(r)]&plainBit != 0
	}
	return plainSlow(r)
}

func plainSlow(r rune) bool { return lookup(r)&plainBit != 0 }

// lookup computes r's entry, and its page if r is below tableLimit.
func lookup(r rune) uint8 {
	if r < 0 || r >= tableLimit {
		return entry(r)
	}
	base := r &^ 0xff
	var p [256]uint8
	for i := range p {
		p[i] = entry(base + rune(i))
	}
	pages[r>>8].Store(&p)
	return p[r&0xff]
}

func entry(r rune) uint8 {
	w := computeWidth(r)
	if plain(r, w) {
		return uint8(w) | plainBit
	}
	return uint8(w)
}

func computeWidth(r rune) int {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return 0
	case r < 0x7f:
		return 1
	case r == 0xad:
		return 1
	case r >= 0x1160 && r <= 0x11ff, r >= 0xd7b0 && r <= 0xd7ff:
		return 0
	case r >= 0xd800 && r <= 0xdfff, r > 0x10ffff:
		return 1 // not valid runes; printed as given
	}
	return ansi.StringWidthWc(string(r))
}

// plainProbes are put before and after a rune to see whether it joins a
// neighbour: an ordinary letter, the rune itself (regional indicators and
// Hangul leading consonants pair up), and the Hangul jamo and syllables
// that join each other.
var plainProbes = []string{"a", "\u1100", "\u1161", "\u11a8", "\uac00", "\uac01"}

// plain reports whether r, of width w, is plain (see Plain).
func plain(r rune, w int) bool {
	switch {
	case r < 0x20, r >= 0x7f && r < 0xa0:
		return false
	case r < 0x7f:
		return true
	case w == 0, Unsure(r), r >= 0xd800 && r <= 0xdfff, r > 0x10ffff, r == utf8.RuneError:
		return false
	}
	s := string(r)
	if c, gw := ansi.FirstGraphemeCluster(s, ansi.GraphemeWidth); c != s || gw != w {
		return false
	}
	alone := func(pair, first string) bool {
		c, _ := ansi.FirstGraphemeCluster(pair, ansi.GraphemeWidth)
		return c == first
	}
	if !alone(s+s, s) {
		return false
	}
	for _, p := range plainProbes {
		if !alone(p+s, p) || !alone(s+p, s) {
			return false
		}
	}
	return true
}

// GraphemeWidth is the width lipgloss and Bubble Tea give cluster (one
// grapheme cluster, no escape sequences).
func GraphemeWidth(cluster string) int {
	_, w := ansi.FirstGraphemeCluster(cluster, ansi.GraphemeWidth)
	return w
}

// Sure reports whether c (a grapheme cluster, or text without escape
// sequences) takes the same cells by every measure: it holds nothing
// Unsure, and the sum of its code points' widths (what tmux 3.3a and the
// emulator give it) is the width lipgloss gives it. "e\u0301" and a Hangul
// syllable spelt in jamo (ᄒ+ᅡ+ᆫ) are sure; 46 leading consonants in a row
// (one cluster two cells wide for lipgloss, ninety-two for tmux) are not.
func Sure(c string) bool {
	sum := 0
	plain := true
	for _, r := range c {
		if Unsure(r) {
			return false
		}
		plain = plain && Plain(r)
		sum += Rune(r)
	}
	return plain || sum == ansi.StringWidth(c)
}

// String returns the cells text without escape sequences takes as the
// emulator lays it out and as tmux 3.4 draws it: the sum of its code
// points' widths, where U+FE0F widens the character before it to two
// cells, a skin-tone modifier joins the character before it unless that is
// a lone ASCII character, and the character
// after a zero width joiner joins the cluster. Where text is Sure, every
// measure agrees with it.
func String(s string) int {
	w, last, joined := 0, 0, false
	ascii := false // the last cell holds one ASCII character and nothing joined to it
	for _, r := range s {
		rw := Rune(r)
		switch {
		case joined && rw > 0:
			rw, ascii = 0, false // joined to the cluster before
		case r == VS16 && last == 1:
			rw, last, ascii = 1, 2, false
		case Modifier(r) && last > 0 && !ascii:
			rw, last = 2-last, 2
		case rw > 0:
			last, ascii = rw, r < 0x80
		default:
			ascii = false // joins the cell before
		}
		joined = r == ZWJ
		w += rw
	}
	return w
}
