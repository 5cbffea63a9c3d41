package vt

import "github.com/teamlead/teamlead/internal/cellwidth"

// Cell widths are the console's one measure (internal/cellwidth): the
// width of a code point as glibc, xterm and tmux give it, with U+FE0F
// widening the character before it and a skin-tone modifier joining the
// emoji before it, as tmux 3.4 and current terminals draw them (see
// combine). What the emulator places is drawn by Render so that every
// terminal and lipgloss give each cell its width (cellwidth.Cell).

// runeWidth returns the cells r takes: 0, 1 or 2.
func runeWidth(r rune) int { return cellwidth.Rune(r) }
