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

// Resize changes the screen size. Content stays at the top left (no
// reflow); when the screen gets shorter, blank rows below the cursor go
// first and then rows from the top, into the scrollback on the main screen,
// so that the cursor's row stays visible (as xterm and tmux do). The scroll
// region is reset and the cursor clamped.
func (t *Terminal) Resize(cols, rows int) {
	cols, rows = clampSize(cols, rows)
	t.mu.Lock()
	defer t.mu.Unlock()
	if cols == t.cols && rows == t.rows {
		return
	}
	mainY := t.y
	if t.altActive && t.main.saved.valid {
		mainY = t.main.saved.y
	}
	if k := t.resizeScreen(&t.main, cols, rows, mainY, true); k > 0 && !t.altActive {
		t.y = max(0, t.y-k)
	}
	altY := 0
	if t.altActive {
		altY = t.y
	}
	if k := t.resizeScreen(&t.alt, cols, rows, altY, false); k > 0 && t.altActive {
		t.y = max(0, t.y-k)
	}
	tabs := make([]bool, cols)
	copy(tabs, t.tabs)
	for i := 8; i < cols; i += 8 {
		if i >= t.cols {
			tabs[i] = true
		}
	}
	t.tabs = tabs
	t.cols, t.rows = cols, rows
	t.top, t.bottom = 0, rows-1
	t.x, t.y = min(t.x, cols-1), min(t.y, rows-1)
	t.wrapNext = false
}

// resizeScreen resizes s, keeping row anchorY on it; it returns the number
// of rows removed from the top.
func (t *Terminal) resizeScreen(s *screen, cols, rows, anchorY int, save bool) int {
	shifted := 0
	if n := len(s.lines); rows < n {
		excess := n - rows
		for excess > 0 && n-1 > anchorY && blankCells(s.lines[n-1]) {
			n--
			excess--
		}
		s.lines, s.wrapped = s.lines[:n], s.wrapped[:n]
		if excess > 0 {
			for i := range excess {
				if save {
					t.pushScrollback(s.lines[i], s.wrapped[i])
				}
			}
			s.lines = append([][]cell(nil), s.lines[excess:]...)
			s.wrapped = append([]bool(nil), s.wrapped[excess:]...)
			shifted = excess
		}
	}
	for len(s.lines) < rows {
		s.lines = append(s.lines, blankRow(t.cols, 0))
		s.wrapped = append(s.wrapped, false)
	}
	for y, row := range s.lines {
		switch {
		case cols < len(row):
			row = row[:cols:cols]
			if row[cols-1].width() == 2 {
				row[cols-1] = mkcell(' ', row[cols-1].sid(), 1)
			}
		case cols > len(row):
			old := len(row)
			row = append(row[:old:old], make([]cell, cols-old)...)
			fillBlank(row[old:], 0)
		}
		s.lines[y] = row
	}
	s.saved.x, s.saved.y = min(s.saved.x, cols-1), max(0, min(s.saved.y-shifted, rows-1))
	return shifted
}

func blankCells(row []cell) bool {
	for _, c := range row {
		if c.r != ' ' || c.sid() != 0 {
			return false
		}
	}
	return true
}
