package vt

import (
	"unicode/utf8"
	"unsafe"
)

// Resize changes the screen size. The main screen reflows: its logical
// lines, in the scrollback too, are laid out again at the new width (see
// reflow.go) and the cursor stays on the same character, as tmux does. The
// alternate screen is cut or padded instead: the full-screen programs that
// use it redraw it on SIGWINCH, and tmux doesn't reflow it either. When
// the screen has more rows than fit, blank rows below the cursor go first
// and then rows from the top, into the scrollback on the main screen, so
// that the cursor's row stays visible (as xterm and tmux do); when it has
// room, the main screen takes back the rows resizes pushed into the
// scrollback (tmux takes back any), so that shrinking and growing again
// gives the same screen. The scroll region is reset and the cursor
// clamped.
func (t *Terminal) Resize(cols, rows int) {
	cols, rows = clampSize(cols, rows)
	t.mu.Lock()
	defer t.mu.Unlock()
	if cols == t.cols && rows == t.rows {
		return
	}
	t.resizeMain(cols, rows)
	altY := 0
	if t.altActive {
		altY = t.y
	}
	if k := t.resizeAlt(cols, rows, altY); k > 0 && t.altActive {
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
	if t.altActive {
		t.x, t.y = min(t.x, cols-1), min(t.y, rows-1)
		t.wrapNext = false
	}
}

// resizeMain resizes the main screen: the stream of the scrollback's rows
// and the screen's is laid out at the new width, then shared out between
// the two (see place).
func (t *Terminal) resizeMain(cols, rows int) {
	s := &t.main
	// The stream starts with the whole scrollback if it is laid out again,
	// else with the rows resizes lent it, the only ones that can move.
	sbLen, lent := t.sb.n, min(t.sbLent, t.sb.n)
	from := 0
	if cols == t.cols {
		from = sbLen - lent
	}
	src := stream{sb: &t.sb, from: from, screen: t.encodeScreen(s)}
	// The main screen's cursor: while the alternate screen is shown, the
	// one saved on entering it (if any: else the rows kept are still those
	// around the cursor's row).
	cx, cy, pending := t.x, t.y, t.wrapNext
	if t.altActive && s.saved.valid {
		cx, cy, pending = s.saved.x, s.saved.y, s.saved.wrapNext
	}
	top := &mark{row: sbLen - from, out: -1}
	lentTop := &mark{row: sbLen - lent - from, out: -1}
	cur := &mark{row: top.row + cy, col: cx + btoi(pending), out: -1}
	saved := &mark{row: top.row + s.saved.y, col: s.saved.x + btoi(s.saved.wrapNext), out: -1}
	rf := reflower{
		t: t, src: src, width: cols, oldWidth: t.cols, need: t.sb.max + rows,
		marks: []*mark{top, lentTop, cur, saved}, top: top, cursor: cur,
	}
	out, skipped := rf.run()

	lentRow := max(lentTop.out, 0) // not reached: older than the rows kept
	first, end := place(out, top.out, cur.out, lentRow, rows)
	dropped := t.scrolledOff - uint64(sbLen) // lines dropped from the scrollback or erased
	t.setScrollback(from, out[:first])
	t.scrolledOff = dropped + uint64(skipped+from+first)
	t.sbLent = min(first-lentRow, t.sb.n)
	t.setScreen(s, out[first:end], cols, rows)
	switch {
	case !t.altActive:
		t.x, t.y, t.wrapNext = screenPos(cur, first, cols, rows)
		if s.saved.valid {
			s.saved.x, s.saved.y, s.saved.wrapNext = screenPos(saved, first, cols, rows)
		}
	case s.saved.valid:
		s.saved.x, s.saved.y, s.saved.wrapNext = screenPos(cur, first, cols, rows)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// encodeScreen returns the rows of s encoded as scrollback lines, in an
// arena of their own: most go back to the screen, and only those that go
// to the scrollback are copied into a slab (setScrollback).
func (t *Terminal) encodeScreen(s *screen) []outRow {
	rows := make([]outRow, len(s.lines))
	var arena []byte
	for y, row := range s.lines {
		nruns, runs, segs, txt := t.encodeRow(t.rowContent(row, s.wrapped[y]))
		start := len(arena)
		arena = appendLine(arena, nruns, runs, segs, txt, s.wrapped[y])
		b := arena[start:]
		rows[y] = outRow{l: sbLine{data: unsafe.String(&b[0], len(b))}, fresh: true}
	}
	return rows
}

// place shares rows out between the scrollback and a screen of height
// rows: it returns the screen's first row and the end of its rows (rows
// after end are dropped). The screen starts at row top (holding the old
// screen's first cell). If it has more rows than fit, blank rows below row
// cur (the cursor's) go first and then rows from the top, to the
// scrollback; if fewer, it takes back the rows from lent on, which resizes
// lent the scrollback, and the caller pads it with blank rows.
func place(rows []outRow, top, cur, lent, height int) (first, end int) {
	end = len(rows)
	if end-top <= height {
		return top - min(height-(end-top), top-lent), end
	}
	for end-top > height && end-1 > cur && rows[end-1].l.blank() {
		end--
	}
	return max(top, end-height), end
}

// screenPos returns the screen position of mark m on a screen of cols x
// rows whose first row is first, and whether a wrap is pending there: m
// is just past the end of a full row. A mark above the screen goes to its
// top left corner, as tmux puts the cursor.
func screenPos(m *mark, first, cols, rows int) (x, y int, pending bool) {
	x, y = m.x, m.out-first
	if y < 0 {
		x, y = 0, 0
	}
	y = min(y, rows-1)
	if x >= cols {
		return cols - 1, y, x == cols
	}
	return x, y, false
}

// setScrollback keeps the oldest keep lines of the scrollback and adds
// rows after them (the ring drops the oldest if they don't all fit),
// copying those encoded in a resize's arena into slabs.
func (t *Terminal) setScrollback(keep int, rows []outRow) {
	t.sb.truncate(keep)
	for _, r := range rows {
		l := r.l
		if r.fresh {
			b := t.alloc(len(l.data))
			copy(b, l.data)
			l.data = unsafe.String(&b[0], len(b))
		}
		t.sb.push(l)
	}
}

// setScreen gives s rows x cols cells: those of lines, then blank rows.
// The rows are in s while their cells are interned, so that collecting
// the style or cluster table renumbers the cells already set.
func (t *Terminal) setScreen(s *screen, lines []outRow, cols, rows int) {
	s.lines = make([][]cell, rows)
	s.wrapped = make([]wrapKind, rows)
	s.logs = make([]rowLog, rows)            // invalid: the rows weren't written in order
	s.base, s.baseW, s.baseL = nil, nil, nil // slide makes new ones for the new height
	for y := range s.lines {
		s.lines[y] = blankRow(cols, 0)
	}
	var cells []viewCell
	for y, l := range lines {
		cells = t.loadRow(s.lines[y], &l.l, cells)
		s.wrapped[y] = l.l.kind()
	}
}

// loadRow sets row, a row of a screen, to the cells of l; cells is a
// buffer for decoding, returned for reuse.
func (t *Terminal) loadRow(row []cell, l *sbLine, cells []viewCell) []viewCell {
	cells = l.decode(cells[:0])
	n := min(len(cells), len(row))
	for x, c := range cells[:n] {
		sid := t.intern(c.st)
		switch {
		case c.w == 0:
			row[x] = mkcell(0, sid, 0)
		case c.s == "":
			row[x] = mkcell(c.r, sid, int(c.w))
		default:
			row[x] = mkcell(t.clusterRune(c.s), sid, int(c.w))
		}
	}
	fixWideEdges(row, n, n)
	return cells
}

// clusterRune returns the rune of a cell showing s: the rune itself, or
// the interned cluster.
func (t *Terminal) clusterRune(s string) rune {
	if r, n := utf8.DecodeRuneInString(s); n == len(s) {
		return r
	}
	return t.cluster(s)
}

// resizeAlt resizes the alternate screen, keeping row anchorY on it; it
// returns the number of rows removed from the top.
func (t *Terminal) resizeAlt(cols, rows, anchorY int) int {
	s := &t.alt
	shifted := 0
	if n := len(s.lines); rows < n {
		excess := n - rows
		for excess > 0 && n-1 > anchorY && blankCells(s.lines[n-1]) {
			n--
			excess--
		}
		s.lines = append([][]cell(nil), s.lines[excess:n]...)
		s.wrapped = append([]wrapKind(nil), s.wrapped[excess:n]...)
		shifted = excess
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
