package vt

import (
	"sync"

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

type widthPage struct {
	once sync.Once
	w    [256]int8
}

var widthPages [256]widthPage

func runeWidth(r rune) int {
	if r < 0x7f {
		if r >= 0x20 {
			return 1
		}
		return 0
	}
	if r < 0x10000 {
		p := &widthPages[r>>8]
		p.once.Do(func() {
			base := r &^ 0xff
			for i := range p.w {
				p.w[i] = int8(computeWidth(base + rune(i)))
			}
		})
		return int(p.w[r&0xff])
	}
	return computeWidth(r)
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
