package vt

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
					t.pushScrollback(s.lines[i], nil, s.wrapped[i])
				}
			}
			s.lines = append([][]cell(nil), s.lines[excess:]...)
			s.wrapped = append([]wrapKind(nil), s.wrapped[excess:]...)
			shifted = excess
		}
	}
	for len(s.lines) < rows {
		s.lines = append(s.lines, blankRow(t.cols, 0))
		s.wrapped = append(s.wrapped, noWrap)
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
	s.base, s.baseW, s.baseL = nil, nil, nil // slide makes new ones for the new height
	s.logs = make([]rowLog, rows)            // invalid: rows were cut or padded
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
