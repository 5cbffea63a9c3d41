package vt

import (
	"unicode/utf8"

	"github.com/teamlead/teamlead/internal/cellwidth"
)

// Render returns the view of the terminal for display: height lines of
// exactly width cells joined by "\n", styled with SGR sequences. With
// scrollOffset 0 the view is the screen; with n > 0 it starts n lines
// further back, in the scrollback (clamped to its length). Lines are cut or
// padded with blanks to width and the view with blank lines to height. Only
// style changes are emitted, and every line ends in the default style, so
// lines can be placed side by side with others.
//
// Every line takes exactly width cells for every terminal and for lipgloss,
// whatever the agent wrote: a cell whose character they would measure
// differently is drawn as cellwidth.Cell makes it (❤️ as "❤ ", a row of
// U+1100 as ㄱㄱㄱ, else a placeholder), and a line with such cells is
// checked as lipgloss will cut it into grapheme clusters (cellwidth.FixRow).
func (t *Terminal) Render(scrollOffset, width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	width, height = min(width, MaxCols), min(height, MaxRows)
	t.mu.Lock()
	defer t.mu.Unlock()
	off := max(0, min(scrollOffset, t.sb.n))
	b := make([]byte, 0, (width+8)*height)
	var cells []viewCell
	var fix lineFix
	for i := range height {
		if i > 0 {
			b = append(b, '\n')
		}
		start := len(b)
		var cur Style
		col := 0
		// emit draws a cell; it reports false when the line is full or
		// the cell is not plain (the line is then drawn again by fix).
		emit := func(r rune, s string, w int, st Style) bool {
			if w == 0 {
				return true
			}
			if col+w > width {
				return false
			}
			if s != "" || r >= 0x80 && (!cellwidth.Plain(r) || cellwidth.Rune(r) != w) {
				fix.needed = true
				return false
			}
			b = appendSGR(b, cur, st)
			cur = st
			if r < 0x80 {
				b = append(b, byte(r))
			} else {
				b = utf8.AppendRune(b, r)
			}
			col += w
			return true
		}
		fix.reset()
		switch l := t.sb.n - off + i; {
		case l < t.sb.n:
			cells = t.sb.get(l).decode(cells[:0])
			for _, c := range cells {
				if !emit(c.r, c.s, int(c.w), c.st) {
					break
				}
			}
			if fix.needed {
				for _, c := range cells {
					if !fix.add(c.r, c.s, int(c.w), c.st, width) {
						break
					}
				}
			}
		case l-t.sb.n < t.rows:
			line := t.cur.lines[l-t.sb.n]
			for _, c := range line {
				r, s := c.r, ""
				if r&clusterBit != 0 {
					s = t.clusters[r&^clusterBit]
				}
				if !emit(r, s, c.width(), t.styles[c.sid()]) {
					break
				}
			}
			if fix.needed {
				for _, c := range line {
					r, s := c.r, ""
					if r&clusterBit != 0 {
						s = t.clusters[r&^clusterBit]
					}
					if !fix.add(r, s, c.width(), t.styles[c.sid()], width) {
						break
					}
				}
			}
		}
		if fix.needed {
			b, cur, col = fix.draw(b[:start])
		}
		if col < width {
			b = appendSGR(b, cur, Style{})
			cur = Style{}
			for ; col < width; col++ {
				b = append(b, ' ')
			}
		}
		b = appendSGR(b, cur, Style{})
	}
	return string(b)
}

// lineFix draws a line holding cells that are not plain (see
// cellwidth.Plain): each cell as cellwidth.Cell makes it, the line checked
// with cellwidth.FixRow.
type lineFix struct {
	needed bool
	col    int
	pieces []string
	widths []int
	styles []Style
}

func (f *lineFix) reset() {
	f.needed, f.col = false, 0
	f.pieces, f.widths, f.styles = f.pieces[:0], f.widths[:0], f.styles[:0]
}

// add takes the next cell; it reports false when the line is full.
func (f *lineFix) add(r rune, s string, w int, st Style, width int) bool {
	if w == 0 {
		return true
	}
	if f.col+w > width {
		return false
	}
	if s == "" {
		s = string(r)
	}
	f.pieces = append(f.pieces, cellwidth.Cell(s, w))
	f.widths = append(f.widths, w)
	f.styles = append(f.styles, st)
	f.col += w
	return true
}

// draw appends the line to b, returning it, the style it ends in and its
// width.
func (f *lineFix) draw(b []byte) ([]byte, Style, int) {
	cellwidth.FixRow(f.pieces, f.widths)
	var cur Style
	for k, p := range f.pieces {
		b = appendSGR(b, cur, f.styles[k])
		cur = f.styles[k]
		b = append(b, p...)
	}
	return b, cur, f.col
}
