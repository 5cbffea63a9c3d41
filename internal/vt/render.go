package vt

import "unicode/utf8"

// Render returns the view of the terminal for display: height lines of
// exactly width cells joined by "\n", styled with SGR sequences. With
// scrollOffset 0 the view is the screen; with n > 0 it starts n lines
// further back, in the scrollback (clamped to its length). Lines are cut or
// padded with blanks to width and the view with blank lines to height. Only
// style changes are emitted, and every line ends in the default style, so
// lines can be placed side by side with others.
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
	for i := range height {
		if i > 0 {
			b = append(b, '\n')
		}
		var cur Style
		col := 0
		emit := func(r rune, s string, w int, st Style) bool {
			if w == 0 {
				return true
			}
			if col+w > width {
				return false
			}
			b = appendSGR(b, cur, st)
			cur = st
			switch {
			case s != "":
				b = append(b, s...)
			case r < 0x80:
				b = append(b, byte(r))
			default:
				b = utf8.AppendRune(b, r)
			}
			col += w
			return true
		}
		switch l := t.sb.n - off + i; {
		case l < t.sb.n:
			cells = t.sb.get(l).decode(cells[:0])
			for _, c := range cells {
				if !emit(c.r, c.s, int(c.w), c.st) {
					break
				}
			}
		case l-t.sb.n < t.rows:
			for _, c := range t.cur.lines[l-t.sb.n] {
				r, s := c.r, ""
				if r&clusterBit != 0 {
					s = t.clusters[r&^clusterBit]
				}
				if !emit(r, s, c.width(), t.styles[c.sid()]) {
					break
				}
			}
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
