package vt

import (
	"sync/atomic"

	"github.com/charmbracelet/x/ansi"
)

// Cell widths follow wcwidth(3) as x/ansi's WcWidth method computes it (one
// width per code point: marks, format characters, ZWJ and variation
// selectors are zero width, East Asian wide and emoji presentation
// characters are two), with two corrections so the emulator agrees with
// glibc, xterm and tmux: U+00AD SOFT HYPHEN is one column and the Hangul
// Jamo medial vowels and final consonants are zero.
//
// Widths of the basic multilingual plane are looked up in pages of 256
// runes computed on first use; runes above it are computed each time (they
// are mostly emoji and rare).

// widthPages holds the pages computed so far (nil: not yet). Terminals
// share them, so they are published atomically; two that compute the same
// page at once store equal tables.
var widthPages [256]atomic.Pointer[[256]int8]

// runeWidth returns the cells r takes: 0, 1 or 2. The lookup in a page
// computed already is small enough to inline.
func runeWidth(r rune) int {
	if p := widthPages[uint8(r>>8)].Load(); p != nil && uint32(r) < 0x10000 {
		return int(p[uint8(r)])
	}
	return runeWidthSlow(r)
}

// runeWidthSlow computes r's width, and its page's if r is in the basic
// multilingual plane.
func runeWidthSlow(r rune) int {
	if r < 0 || r >= 0x10000 {
		return computeWidth(r)
	}
	base := r &^ 0xff
	var w [256]int8
	for i := range w {
		w[i] = int8(computeWidth(base + rune(i)))
	}
	widthPages[r>>8].Store(&w)
	return int(w[r&0xff])
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
