package vt

import (
	"slices"
	"unicode/utf8"

	"github.com/teamlead/teamlead/internal/cellwidth"
)

// penID returns the interned id of the current pen.
func (t *Terminal) penID() uint32 {
	if !t.penOK {
		t.penSID = t.intern(t.pen)
		t.penOK = true
	}
	return t.penSID
}

// eraseID returns the style of erased cells: the pen's background colour
// only (xterm's back-colour erase).
func (t *Terminal) eraseID() uint32 {
	if t.pen.BG == 0 {
		return 0
	}
	if t.pen.BG != t.eraseBG || t.eraseSID == 0 {
		t.eraseBG = t.pen.BG
		t.eraseSID = t.intern(Style{BG: t.pen.BG})
	}
	return t.eraseSID
}

// intern returns the id of style s in the style table, adding it if new.
// The table is indexed by an open-addressing hash of ids (0 marks an empty
// slot: the default style, id 0, is never looked up).
func (t *Terminal) intern(s Style) uint32 {
	if s == (Style{}) {
		return 0
	}
	mask := uint32(len(t.styleHash) - 1)
	h := styleHash(s) & mask
	for {
		id := t.styleHash[h]
		if id == 0 {
			break
		}
		if t.styles[id] == s {
			return id
		}
		h = (h + 1) & mask
	}
	if len(t.styles) >= t.styleLimit {
		t.collectStyles()
		return t.intern(s)
	}
	id := uint32(len(t.styles))
	t.styles = append(t.styles, s)
	t.styleHash[h] = id
	return id
}

func styleHash(s Style) uint32 {
	h := uint32(s.FG)*0x9e3779b1 ^ uint32(s.BG)*0x85ebca77 ^ uint32(s.Attrs)*0xc2b2ae3d
	return h ^ h>>15
}

// rehashStyles rebuilds the hash index for the current table and limit.
func (t *Terminal) rehashStyles() {
	n := 1
	for n < 2*t.styleLimit {
		n <<= 1
	}
	if len(t.styleHash) != n {
		t.styleHash = make([]uint32, n)
	} else {
		clear(t.styleHash)
	}
	mask := uint32(n - 1)
	for id := 1; id < len(t.styles); id++ {
		h := styleHash(t.styles[id]) & mask
		for t.styleHash[h] != 0 {
			h = (h + 1) & mask
		}
		t.styleHash[h] = uint32(id)
	}
}

// collectStyles drops the styles no screen cell uses and renumbers the
// rest. The table then has room for as many new styles again as are in use
// (and at least minStyleLimit), so the cost is amortised over the styles
// added.
func (t *Terminal) collectStyles() {
	remap := make([]uint32, len(t.styles))
	const unused = ^uint32(0)
	for i := range remap {
		remap[i] = unused
	}
	remap[0] = 0
	styles := []Style{{}}
	for _, s := range [2]*screen{&t.main, &t.alt} {
		for _, row := range s.lines {
			for i, c := range row {
				id := c.sid()
				if remap[id] == unused {
					remap[id] = uint32(len(styles))
					styles = append(styles, t.styles[id])
				}
				row[i].a = c.a&^sidMask | remap[id]
			}
		}
	}
	t.main.invalidateLogs() // their last styles were renumbered
	t.alt.invalidateLogs()
	t.styles = styles
	t.styleLimit = max(t.styleFloor, 2*len(styles))
	t.rehashStyles()
	t.penOK = false
	t.eraseSID = 0
}

// maxCluster bounds the bytes of one grapheme cluster; further marks are
// dropped.
const maxCluster = 32

// cluster interns a grapheme cluster of more than one rune.
func (t *Terminal) cluster(s string) rune {
	if id, ok := t.clusterIdx[s]; ok {
		return clusterBit | rune(id)
	}
	if len(t.clusters) >= t.clusterLim {
		t.collectClusters()
	}
	id := uint32(len(t.clusters))
	t.clusters = append(t.clusters, s)
	t.clusterIdx[s] = id
	return clusterBit | rune(id)
}

func (t *Terminal) collectClusters() {
	remap := map[rune]rune{}
	var clusters []string
	for _, s := range [2]*screen{&t.main, &t.alt} {
		for _, row := range s.lines {
			for i, c := range row {
				if c.r&clusterBit == 0 {
					continue
				}
				n, ok := remap[c.r]
				if !ok {
					n = clusterBit | rune(len(clusters))
					clusters = append(clusters, t.clusters[c.r&^clusterBit])
					remap[c.r] = n
				}
				row[i].r = n
			}
		}
	}
	t.clusters = clusters
	t.clusterIdx = make(map[string]uint32, len(clusters))
	for i, s := range clusters {
		t.clusterIdx[s] = uint32(i)
	}
	t.clusterLim = max(4096, 2*len(clusters))
}

// printASCII writes a run of printable ASCII: the fast path.
func (t *Terminal) printASCII(b []byte) {
	if t.charsets[t.gl] == '0' || t.m.insert {
		for _, c := range b {
			t.printRune(rune(c))
		}
		return
	}
	if t.zwj {
		// The first character joins the cluster before it.
		t.printRune(rune(b[0]))
		b = b[1:]
	}
	if len(b) == 0 {
		return
	}
	t.lastRune = rune(b[len(b)-1])
	for len(b) > 0 {
		if t.wrapNext {
			t.wrapLine(softWrap)
		}
		// After the wrap: scrolling may intern the erase style, and a
		// collection of the style table renumbers the pen.
		a := t.penID() | 1<<widthShift
		row := t.cur.lines[t.y]
		x := t.x
		n := min(len(b), t.cols-x)
		if row[x].r == 0 && x > 0 {
			// Overwriting the right half of a wide character.
			row[x-1] = mkcell(' ', row[x-1].sid(), 1)
		}
		if e := x + n; e < t.cols && row[e].r == 0 {
			// Overwrote the left half of a wide character.
			row[e] = mkcell(' ', row[e].sid(), 1)
		}
		dst := row[x : x+n]
		for i := range dst {
			dst[i] = cell{r: rune(b[i]), a: a}
		}
		t.logASCII(x, a&sidMask, b[:n])
		b = b[n:]
		if x+n < t.cols {
			t.x = x + n
			continue
		}
		t.x = t.cols - 1
		if t.m.autowrap {
			t.wrapNext = true
		} else if len(b) > 0 {
			row[t.x] = cell{r: rune(b[len(b)-1]), a: a}
			t.cur.invalidate(t.y)
			b = nil
		}
	}
}

// printUTF8 writes the run of whole, valid UTF-8 characters of width 1
// or 2 at the start of p (the fast path for non-ASCII text: box drawing,
// bullets, CJK) and returns the bytes used. It stops before anything
// printRune must look at more closely (combining marks and other zero
// width runes, invalid or cut sequences, U+FFFD, ASCII) and does nothing
// in insert mode or after a zero-width joiner. Each character is written
// as put writes it, but its bytes go to the row's log as they came, not
// encoded again. FuzzTerminal and TestFastPathsMatchSlowPath check it
// against printRune, which text fed byte by byte goes through.
func (t *Terminal) printUTF8(p []byte) int {
	if t.m.insert || t.zwj {
		return 0
	}
	// The characters written side by side in one style are logged at once
	// (a box's rule is one call): the batch is p[bs:i], from column bx
	// (-1: none), bw columns wide, in style bsid. It is logged before
	// anything that could touch the row's log (a wrap, put) and when the
	// next character does not continue it.
	bx, bs, bw := -1, 0, 0
	var bsid uint32
	i := 0
	for i < len(p) {
		n := utf8Len(p[i])
		if n == 0 || i+n > len(p) || !continuations(p[i+1:i+n]) {
			break
		}
		r := decodeRune(p[i : i+n])
		if r == utf8.RuneError {
			break
		}
		w := runeWidth(r)
		if w == 0 || cellwidth.Modifier(r) {
			break
		}
		if t.wrapNext {
			if bx >= 0 {
				t.logBytes(bx, bsid, p[bs:i], bw)
				bx = -1
			}
			t.wrapLine(softWrap)
		}
		x := t.x
		if w == 2 && x == t.cols-1 {
			if bx >= 0 {
				t.logBytes(bx, bsid, p[bs:i], bw)
				bx = -1
			}
			t.put(r, w) // wraps or drops it
			i += n
			continue
		}
		row := t.cur.lines[t.y]
		t.clearWide(row, x)
		sid := t.penID()
		if w == 2 {
			t.clearWide(row, x+1)
			row[x+1] = mkcell(0, sid, 0)
		}
		row[x] = mkcell(r, sid, w)
		if bx >= 0 && (sid != bsid || x != bx+bw) {
			t.logBytes(bx, bsid, p[bs:i], bw)
			bx = -1
		}
		if bx < 0 {
			bx, bs, bw, bsid = x, i, 0, sid
		}
		bw += w
		t.lastRune = r
		i += n
		if x+w < t.cols {
			t.x = x + w
			continue
		}
		t.x = t.cols - 1
		if t.m.autowrap {
			t.wrapNext = true
		}
	}
	if bx >= 0 {
		t.logBytes(bx, bsid, p[bs:i], bw)
	}
	return i
}

// wrapLine performs the deferred wrap: the row is marked as wrapped (how:
// kind) and the cursor goes to the start of the next line, scrolling if
// needed.
func (t *Terminal) wrapLine(kind wrapKind) {
	t.cur.wrapped[t.y] = kind
	t.wrapNext = false
	t.x = 0
	t.index()
}

// decGraphics maps 0x5F–0x7E in the DEC special graphics set.
var decGraphics = [...]rune{
	'\u00a0', '◆', '▒', '␉', '␌', '␍', '␊', '°', '±', '␤', '␋', '┘', '┐', '┌', '└', '┼',
	'⎺', '⎻', '─', '⎼', '⎽', '├', '┤', '┴', '┬', '│', '≤', '≥', 'π', '≠', '£', '·',
}

const zwjRune = 0x200d

// printRune writes one rune: the general path for non-ASCII text, the
// line-drawing set and insert mode.
func (t *Terminal) printRune(r rune) {
	if r >= 0x5f && r <= 0x7e && t.charsets[t.gl] == '0' {
		r = decGraphics[r-0x5f]
	}
	w := runeWidth(r)
	if t.zwj {
		// After a zero-width joiner the next character joins the cluster
		// (as tmux does): 👨‍👩 is one cell.
		t.zwj = false
		if t.combine(r, false) {
			t.zwj = r == zwjRune
			return
		}
	}
	if w == 0 {
		// U+FE0F asks for the emoji form, two cells wide (❤️), as tmux
		// 3.4, current terminals and the agents' own width tables have it.
		if t.combine(r, r == cellwidth.VS16) {
			t.zwj = r == zwjRune
		}
		return
	}
	if cellwidth.Modifier(r) && t.combine(r, true) {
		return // a skin-tone modifier joins the emoji before it (👍🏽), as in tmux 3.4
	}
	t.put(r, w)
}

// combine appends r to the cluster in the cell before the cursor; with
// wide, a one-cell character becomes two cells wide (if the row has room
// after it; the cell after it is overwritten and the cursor moves on one).
// A skin-tone modifier (wide) joins only a character that is not ASCII,
// as in tmux.
func (t *Terminal) combine(r rune, wide bool) bool {
	x := t.x - 1
	if t.wrapNext {
		x = t.x
	}
	if x < 0 {
		return false
	}
	row := t.cur.lines[t.y]
	if row[x].r == 0 && x > 0 {
		x--
	}
	c := row[x]
	if c.r == 0 || cellwidth.Modifier(r) && c.r < 0x80 {
		return false
	}
	var buf [maxCluster + utf8.UTFMax]byte
	s := append(buf[:0], t.content(c)...)
	if len(s)+utf8.RuneLen(r) > maxCluster {
		return true // swallowed
	}
	s = utf8.AppendRune(s, r)
	row[x].r = t.cluster(string(s))
	t.cur.invalidate(t.y)
	if wide && c.width() == 1 && !t.wrapNext && x+1 == t.x && x+1 < t.cols {
		t.clearWide(row, x+1)
		row[x].a = c.sid() | 2<<widthShift
		row[x+1] = mkcell(0, c.sid(), 0)
		if x+2 < t.cols {
			t.x = x + 2
		} else {
			t.x = t.cols - 1
			t.wrapNext = t.m.autowrap
		}
	}
	return true
}

// put writes a character of width w (1 or 2) at the cursor.
func (t *Terminal) put(r rune, w int) {
	if t.wrapNext {
		t.wrapLine(softWrap)
	}
	if w == 2 && t.x == t.cols-1 {
		if !t.m.autowrap || t.cols < 2 {
			return // doesn't fit; dropped, as tmux does
		}
		// A wide character doesn't fit in the last column: the column is
		// left as it is and the character goes on the next line.
		t.wrapLine(padWrap)
	}
	if t.m.insert {
		t.insertCells(w)
	}
	row := t.cur.lines[t.y]
	x := t.x
	t.clearWide(row, x)
	if w == 2 {
		t.clearWide(row, x+1)
	}
	sid := t.penID()
	row[x] = mkcell(r, sid, w)
	if w == 2 {
		row[x+1] = mkcell(0, sid, 0)
	}
	t.logRune(x, sid, r, w)
	t.lastRune = r
	if x+w < t.cols {
		t.x = x + w
		return
	}
	t.x = t.cols - 1
	if t.m.autowrap {
		t.wrapNext = true
	}
}

// clearWide blanks the other half of a wide character that cell x is part
// of, before x is overwritten.
func (t *Terminal) clearWide(row []cell, x int) {
	c := row[x]
	switch {
	case c.r == 0 && x > 0:
		row[x-1] = mkcell(' ', row[x-1].sid(), 1)
	case c.width() == 2 && x+1 < len(row):
		row[x+1] = mkcell(' ', row[x+1].sid(), 1)
	}
}

// fixWideEdges blanks half-characters left at the edges of the span
// [x0, x1) of row after cells in it were moved or erased.
func fixWideEdges(row []cell, x0, x1 int) {
	if x0 > 0 && x0 < len(row) && row[x0].r == 0 && row[x0-1].width() != 2 {
		row[x0] = mkcell(' ', row[x0].sid(), 1)
	}
	if x0 > 0 && x0 <= len(row) && row[x0-1].width() == 2 && (x0 == len(row) || row[x0].r != 0) {
		row[x0-1] = mkcell(' ', row[x0-1].sid(), 1)
	}
	if x1 > 0 && x1 < len(row) && row[x1].r == 0 && row[x1-1].width() != 2 {
		row[x1] = mkcell(' ', row[x1].sid(), 1)
	}
	if x1 > 0 && x1 <= len(row) && row[x1-1].width() == 2 && (x1 == len(row) || row[x1].r != 0) {
		row[x1-1] = mkcell(' ', row[x1-1].sid(), 1)
	}
}

// index moves the cursor down, scrolling the region at its bottom margin.
func (t *Terminal) index() {
	t.wrapNext = false
	switch {
	case t.y == t.bottom:
		t.scrollUp(t.top, t.bottom, 1, t.saveScroll())
	case t.y < t.rows-1:
		t.y++
	}
}

// reverseIndex moves the cursor up, scrolling the region at its top margin.
func (t *Terminal) reverseIndex() {
	t.wrapNext = false
	switch {
	case t.y == t.top:
		t.scrollDown(t.top, t.bottom, 1)
	case t.y > 0:
		t.y--
	}
}

// scrollUp moves rows top+n..bottom up to top, filling the bottom with
// blank rows. With save set the rows scrolled off go to the scrollback.
func (t *Terminal) scrollUp(top, bottom, n int, save bool) {
	s := t.cur
	n = min(n, bottom-top+1)
	if n <= 0 {
		return
	}
	if save {
		for i := 0; i < n; i++ {
			t.pushScrollback(s.lines[top+i], &s.logs[top+i], s.wrapped[top+i])
		}
	}
	if top == 0 && bottom == len(s.lines)-1 {
		s.slide(n)
	} else {
		rotateRows(s.lines[top:bottom+1], s.wrapped[top:bottom+1], s.logs[top:bottom+1], n)
	}
	sid := t.eraseID()
	for y := bottom - n + 1; y <= bottom; y++ {
		t.fillRow(s.lines[y], sid)
		s.wrapped[y] = noWrap
		s.blanked(y, sid)
	}
}

// scrollDown moves rows top..bottom-n down by n, filling the top with blank
// rows.
func (t *Terminal) scrollDown(top, bottom, n int) {
	s := t.cur
	n = min(n, bottom-top+1)
	if n <= 0 {
		return
	}
	rotateRows(s.lines[top:bottom+1], s.wrapped[top:bottom+1], s.logs[top:bottom+1], bottom-top+1-n)
	sid := t.eraseID()
	for y := top; y < top+n; y++ {
		fillBlank(s.lines[y], sid)
		s.wrapped[y] = noWrap
		s.blanked(y, sid)
	}
}

// slide moves the top n rows of the whole screen to the bottom. The rows
// slide along a backing array twice the screen's height and are copied
// back to its start when they reach its end, so scrolling a line does not
// move every row of the screen (with the write barriers that would take
// while the garbage collector runs).
func (s *screen) slide(n int) {
	rows := len(s.lines)
	if cap(s.lines)-rows < n || cap(s.wrapped)-rows < n || cap(s.logs)-rows < n {
		if len(s.base) < 2*rows {
			s.base, s.baseW, s.baseL = make([][]cell, 2*rows), make([]wrapKind, 2*rows), make([]rowLog, 2*rows)
		}
		copy(s.base, s.lines)
		copy(s.baseW, s.wrapped)
		copy(s.baseL, s.logs)
		clear(s.baseL[rows:]) // stale copies would keep buffers the logs have outgrown
		s.lines, s.wrapped, s.logs = s.base[:rows], s.baseW[:rows], s.baseL[:rows]
	}
	if n == 1 {
		// One line scrolled, the usual case: no copies through buffers.
		top, log := s.lines[0], s.logs[0]
		s.logs[0] = rowLog{}
		s.lines, s.wrapped, s.logs = s.lines[1:rows+1], s.wrapped[1:rows+1], s.logs[1:rows+1]
		s.lines[rows-1], s.logs[rows-1] = top, log
		return
	}
	var small [8][]cell
	gone := append(small[:0], s.lines[:n]...)
	s.lines = append(s.lines[n:], gone...)
	s.wrapped = s.wrapped[n : rows+n]
	// The logs keep their buffers (the rows' new logs are reset by the
	// caller): a line scrolled costs no allocation.
	var smallL [8]rowLog
	goneL := append(smallL[:0], s.logs[:n]...)
	clear(s.logs[:n])
	s.logs = append(s.logs[n:], goneL...)
}

// rotateRows rotates rows (and their flags and logs) left by n.
func rotateRows(rows [][]cell, flags []wrapKind, logs []rowLog, n int) {
	if n <= 0 || n >= len(rows) {
		return
	}
	slices.Reverse(logs[:n])
	slices.Reverse(logs[n:])
	slices.Reverse(logs)
	var small [8][]cell
	var smallF [8]wrapKind
	var tmp [][]cell
	var tmpF []wrapKind
	if n <= len(small) {
		tmp, tmpF = small[:n], smallF[:n]
	} else {
		tmp, tmpF = make([][]cell, n), make([]wrapKind, n)
	}
	copy(tmp, rows[:n])
	copy(tmpF, flags[:n])
	copy(rows, rows[n:])
	copy(flags, flags[n:])
	copy(rows[len(rows)-n:], tmp)
	copy(flags[len(flags)-n:], tmpF)
}

// saveScroll reports whether lines scrolled off the region go to the
// scrollback: on the main screen with the region's top at the screen's.
func (t *Terminal) saveScroll() bool { return t.top == 0 && !t.altActive }

// eraseCells blanks cells [x0, x1) of row y with the erase style.
func (t *Terminal) eraseCells(y, x0, x1 int) {
	row := t.cur.lines[y]
	x0, x1 = max(0, x0), min(len(row), x1)
	if x0 >= x1 {
		return
	}
	sid := t.eraseID()
	fillBlank(row[x0:x1], sid)
	fixWideEdges(row, x0, x1)
	if x1 == len(row) {
		t.cur.wrapped[y] = noWrap
	}
	switch l := &t.cur.logs[y]; {
	case x0 == 0 && x1 == len(row):
		t.cur.blanked(y, sid)
	case sid != 0 || x0 < int(l.end):
		l.valid = false
	}
}

// eraseDisplay implements ED.
func (t *Terminal) eraseDisplay(mode int) {
	switch mode {
	case 0:
		t.eraseCells(t.y, t.x, t.cols)
		for y := t.y + 1; y < t.rows; y++ {
			t.eraseCells(y, 0, t.cols)
		}
	case 1:
		for y := 0; y < t.y; y++ {
			t.eraseCells(y, 0, t.cols)
		}
		t.eraseCells(t.y, 0, t.x+1)
	case 2:
		for y := 0; y < t.rows; y++ {
			t.eraseCells(y, 0, t.cols)
		}
	case 3:
		t.sb.clear()
		t.sbLent = 0
		return
	default:
		return
	}
	t.wrapNext = false
}

// eraseLine implements EL.
func (t *Terminal) eraseLine(mode int) {
	switch mode {
	case 0:
		t.eraseCells(t.y, t.x, t.cols)
	case 1:
		t.eraseCells(t.y, 0, t.x+1)
	case 2:
		t.eraseCells(t.y, 0, t.cols)
	default:
		return
	}
	t.wrapNext = false
}

// splitAt blanks both halves of a wide character that straddles the
// boundary before column x.
func splitAt(row []cell, x int) {
	if x > 0 && x < len(row) && row[x].r == 0 {
		row[x-1] = mkcell(' ', row[x-1].sid(), 1)
		row[x] = mkcell(' ', row[x].sid(), 1)
	}
}

// insertCells implements ICH: n blanks at the cursor, the rest of the line
// shifted right.
func (t *Terminal) insertCells(n int) {
	row := t.cur.lines[t.y]
	x := t.x
	n = min(n, t.cols-x)
	splitAt(row, x)
	splitAt(row, t.cols-n)
	copy(row[x+n:], row[x:])
	fillBlank(row[x:x+n], t.eraseID())
	t.cur.invalidate(t.y)
	t.wrapNext = false
}

// deleteCells implements DCH.
func (t *Terminal) deleteCells(n int) {
	row := t.cur.lines[t.y]
	x := t.x
	n = min(n, t.cols-x)
	splitAt(row, x)
	splitAt(row, x+n)
	copy(row[x:], row[x+n:])
	fillBlank(row[t.cols-n:], t.eraseID())
	t.cur.invalidate(t.y)
	t.wrapNext = false
}

// insertLines implements IL (only inside the scroll region).
func (t *Terminal) insertLines(n int) {
	if t.y < t.top || t.y > t.bottom {
		return
	}
	t.scrollDown(t.y, t.bottom, n)
	t.wrapNext = false
}

// deleteLines implements DL (only inside the scroll region). Deleted lines
// never go to the scrollback.
func (t *Terminal) deleteLines(n int) {
	if t.y < t.top || t.y > t.bottom {
		return
	}
	t.scrollUp(t.y, t.bottom, n, false)
	t.wrapNext = false
}

func (t *Terminal) tabForward(n int) {
	for ; n > 0 && t.x < t.cols-1; n-- {
		t.x++
		for t.x < t.cols-1 && !t.tabs[t.x] {
			t.x++
		}
	}
	t.wrapNext = false
}

func (t *Terminal) tabBackward(n int) {
	for ; n > 0 && t.x > 0; n-- {
		t.x--
		for t.x > 0 && !t.tabs[t.x] {
			t.x--
		}
	}
	t.wrapNext = false
}

func (t *Terminal) saveCursor() {
	t.cur.saved = savedCursor{
		valid: true, x: t.x, y: t.y, wrapNext: t.wrapNext, pen: t.pen,
		origin: t.m.origin, autowrap: t.m.autowrap, charsets: t.charsets, gl: t.gl,
	}
}

func (t *Terminal) restoreCursor() {
	s := t.cur.saved
	if !s.valid {
		s = savedCursor{autowrap: t.m.autowrap, charsets: [4]byte{'B', 'B', 'B', 'B'}}
	}
	t.x, t.y = min(s.x, t.cols-1), min(s.y, t.rows-1)
	t.wrapNext = s.wrapNext && t.x == t.cols-1
	t.pen, t.penOK = s.pen, false
	t.m.origin, t.m.autowrap = s.origin, s.autowrap
	t.charsets, t.gl = s.charsets, s.gl
}

// setAltScreen switches between the screens; entering clears the
// alternate screen (as xterm's 1049 and tmux's 47/1047/1049 do).
func (t *Terminal) setAltScreen(on bool) {
	if on == t.altActive {
		return
	}
	t.altActive = on
	if on {
		t.cur = &t.alt
		for y := range t.rows {
			fillBlank(t.alt.lines[y], t.eraseID())
			t.alt.wrapped[y] = noWrap
		}
		t.alt.resetLogs(t.eraseID())
	} else {
		t.cur = &t.main
	}
	t.wrapNext = false
}

// moveTo puts the cursor at (x, y) of the screen, clamped.
func (t *Terminal) moveTo(x, y int) {
	t.x = max(0, min(x, t.cols-1))
	t.y = max(0, min(y, t.rows-1))
	t.wrapNext = false
}

// moveToOrigin is CUP: (x, y) relative to the scroll region in origin mode.
func (t *Terminal) moveToOrigin(x, y int) {
	if t.m.origin {
		y = max(t.top, min(y+t.top, t.bottom))
	}
	t.moveTo(x, y)
}

func (t *Terminal) fullReset() {
	t.setAltScreen(false)
	t.resetState()
	for _, s := range [2]*screen{&t.main, &t.alt} {
		for y := range s.lines {
			fillBlank(s.lines[y], 0)
			s.wrapped[y] = noWrap
		}
		s.resetLogs(0)
	}
	t.title = ""
	t.titleStack = nil
	t.palette = nil
}

// softReset is DECSTR.
func (t *Terminal) softReset() {
	t.m.cursorHidden = false
	t.m.insert, t.m.origin, t.m.appCursor, t.m.appKeypad = false, false, false, false
	t.m.autowrap = true
	t.pen, t.penOK = Style{}, false
	t.top, t.bottom = 0, t.rows-1
	t.charsets, t.gl = [4]byte{'B', 'B', 'B', 'B'}, 0
	t.cur.saved = savedCursor{}
	t.wrapNext = false
}

// alignmentTest is DECALN: the screen filled with E.
func (t *Terminal) alignmentTest() {
	for y := range t.rows {
		row := t.cur.lines[y]
		for x := range row {
			row[x] = mkcell('E', 0, 1)
		}
		t.cur.wrapped[y] = noWrap
	}
	t.cur.invalidateLogs()
	t.top, t.bottom = 0, t.rows-1
	t.moveTo(0, 0)
}
