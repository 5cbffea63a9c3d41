package vt

import (
	"encoding/binary"
	"math"
	"slices"
	"unicode/utf8"
	"unsafe"
)

// A resize of the main screen works on a stream of rows: the scrollback's,
// oldest first, then the screen's, all encoded as scrollback lines (see
// sbLine). When the width changes, each logical line of the stream (rows
// joined by soft wraps) is laid out again at the new width, as tmux and
// kitty do, so that narrowing and widening again gives the text back. The
// layout works on the encoding's bytes: a line is cut and joined by slicing
// its text and moving its style runs, never decoded into cells, so that
// rewrapping a full scrollback is cheap.

// A mark is a position in the stream followed through the layout: the
// cursor, the saved cursor, the screen's top, the oldest row resizes lent
// the scrollback.
type mark struct {
	row, col int // before: stream row and column (the width: just past the row)
	off      int // the cells of its logical line before it
	out, x   int // after: row and column (past the width if the line ends before)
}

// outRow is a row of the new stream. A fresh one's data is in an arena of
// the resize's, not in a slab (see encodeScreen).
type outRow struct {
	l     sbLine
	fresh bool
}

// stream is the rows a resize of the main screen works on: the
// scrollback's from row from on, then the screen's.
type stream struct {
	sb     *ring
	from   int
	screen []outRow // the screen's rows, encoded
}

func (s *stream) len() int { return s.sb.n - s.from + len(s.screen) }

func (s *stream) row(i int) outRow {
	if i += s.from; i < s.sb.n {
		return outRow{l: *s.sb.get(i)}
	}
	return s.screen[i-s.sb.n]
}

// kind returns how row i ends.
func (s *stream) kind(i int) wrapKind {
	r := s.row(i)
	return r.l.kind()
}

// defaultStyle is the encoding of Style{} in a style run.
const defaultStyle = "\x00\x00\x00"

// lineParts is an encoded line taken apart: its style runs (nruns of
// them), its cell segments after their count ("" if the text tells the
// cells), its text.
type lineParts struct {
	runs       string
	nruns      int
	segs, text string
	kind       wrapKind
}

// runIter reads a line's style runs in order: col is where the next one
// starts (past any column at the end), st its style's encoding (its FG,
// BG and Attrs uvarints).
type runIter struct {
	runs string
	n    int
	col  int
	st   string
}

func (it *runIter) init(p *lineParts) {
	it.runs, it.n = p.runs, p.nruns
	it.next()
}

// next moves to the next run.
func (it *runIter) next() {
	if it.n == 0 {
		it.col = math.MaxInt
		return
	}
	col, i := uvarint(it.runs, 0)
	j := skipUvarints(it.runs, i, 3)
	it.col, it.st, it.runs, it.n = int(col), it.runs[i:j], it.runs[j:], it.n-1
}

// skipUvarints returns the index after the n uvarints at s[i:].
func skipUvarints(s string, i, n int) int {
	for ; n > 0 && i < len(s); i++ {
		if s[i] < 0x80 {
			n--
		}
	}
	return i
}

// reflower lays a stream out at a new width. The rows it makes are
// encoded in the terminal's slabs (t.assemble): most go to the
// scrollback, and the few that go back to the screen leave their bytes
// there unused.
type reflower struct {
	t        *Terminal
	src      stream
	width    int
	oldWidth int
	need     int // rows above the screen's top laid out at most: older ones would fall off the scrollback
	marks    []*mark
	top      *mark    // the screen's first cell, among marks
	cursor   *mark    // the cursor, among marks
	rev      []outRow // the new stream, last row first

	// The logical line being laid out.
	first          int // its first stream row
	parts          []lineParts
	endRow, endPos int      // its last cell that isn't a space: part (-1: none) and byte in its text
	line           []outRow // its rows, in order
	starts         []int    // the offset in the line of each row's first cell
	w              rowWriter
}

// run returns the rows of the stream laid out at the new width (as they
// are if the width is the same) and the number of rows at its start left
// out: their lines would fall off the scrollback. It maps the marks.
func (rf *reflower) run() ([]outRow, int) {
	if rf.width == rf.oldWidth {
		out := make([]outRow, rf.src.len())
		for i := range out {
			out[i] = rf.src.row(i)
		}
		for _, m := range rf.marks {
			m.out, m.x = m.row, m.col
		}
		return out, 0
	}
	// Room for the rows if the old ones are cut in as many as their widths
	// say, but no more than are kept.
	per := (rf.oldWidth + rf.width - 1) / rf.width
	rf.rev = make([]outRow, 0, min(rf.src.len()*per, rf.need+len(rf.src.screen)*per+64))
	// Last line first, so that lines that would fall off the scrollback
	// are never laid out.
	end := rf.src.len()
	for end > 0 {
		start := end - 1
		for start > 0 && rf.src.kind(start-1) != noWrap {
			start--
		}
		rf.lineOut(start, end)
		end = start
		if rf.top.out >= 0 && len(rf.rev)-1-rf.top.out >= rf.need {
			break
		}
	}
	slices.Reverse(rf.rev)
	for _, m := range rf.marks {
		if m.out >= 0 {
			m.out = len(rf.rev) - 1 - m.out
		}
	}
	return rf.rev, end
}

// lineOut appends to rf.rev the rows of the logical line made of stream
// rows [a, b) and maps the marks in it.
func (rf *reflower) lineOut(a, b int) {
	rf.line, rf.starts = rf.line[:0], rf.starts[:0]
	// The cursor's line is laid out even if it fits: the cursor may be
	// past its end, and past the new width.
	if first := rf.src.row(a); b-a == 1 && rf.cursor.row != a && rf.fits(first.l) {
		rf.line, rf.starts = append(rf.line, first), append(rf.starts, 0)
		for _, m := range rf.marks {
			if m.row == a {
				m.off = m.col
			}
		}
	} else {
		rf.layout(a, b)
	}
	base := len(rf.rev)
	for i := len(rf.line) - 1; i >= 0; i-- {
		rf.rev = append(rf.rev, rf.line[i])
	}
	for _, m := range rf.marks {
		if m.row < a || m.row >= b {
			continue
		}
		k := len(rf.starts) - 1
		for k > 0 && rf.starts[k] > m.off {
			k--
		}
		m.out, m.x = base+len(rf.line)-1-k, m.off-rf.starts[k]
	}
}

// fits reports whether l, a line of one row, can stay as it is: it ends
// its line and is no wider than the new width, as any is when the screen
// gets wider, or if its text is no longer (a cell takes a byte at least).
// Others are laid out again, even the few whose wide characters make
// their text longer than they are wide.
func (rf *reflower) fits(l sbLine) bool {
	body, textOff, kind := l.parts()
	return kind == noWrap && (rf.width >= rf.oldWidth || len(body)-textOff <= rf.width)
}

// parse takes l apart into p.
func (p *lineParts) parse(l sbLine) {
	body, textOff, kind := l.parts()
	nruns, i := uvarint(body, 0)
	p.nruns, p.segs, p.text, p.kind = int(nruns), "", body[textOff:], kind
	// Without cell segments the byte before the text is their count, 0;
	// with them, the end of a segment's nonzero uvarint.
	if body[textOff-1] == 0 {
		p.runs = body[i : textOff-1]
		return
	}
	j := skipUvarints(body, i, 4*int(nruns)) // a column and a style each
	_, k := uvarint(body, j)
	p.runs, p.segs = body[i:j], body[k:textOff]
}

// nextCell returns the byte length and width of the cell at text[pos:],
// whether the text alone can't tell it (see sbLine), and the cell
// segments after it. segs holds the cell segments left, "" if the text
// tells the cells.
func nextCell(text string, pos int, segs string) (n, w int, complex bool, rest string) {
	if segs != "" {
		v, i := uvarint(segs, 0)
		n, w = max(1, min(int(v>>2), len(text)-pos)), max(1, int(v&3))
		return n, w, clusterComplex(text[pos:pos+n], w), segs[i:]
	}
	r, n := rune(text[pos]), 1
	if r >= 0x80 {
		r, n = utf8.DecodeRuneInString(text[pos:])
	}
	w = max(1, runeWidth(r)) // a mark at the start is a cell of its own, as decode reads it
	for pos+n < len(text) && text[pos+n] >= 0x80 {
		m, size := utf8.DecodeRuneInString(text[pos+n:])
		if runeWidth(m) != 0 {
			break
		}
		n += size
	}
	return n, w, false, ""
}

// clusterComplex reports whether the text of cluster s, w cells wide,
// does not tell its width (see sbLine): it holds more than one rune that
// takes cells, or a variation selector widened it (❤️).
func clusterComplex(s string, w int) bool {
	r0, n := utf8.DecodeRuneInString(s)
	if w != max(1, runeWidth(r0)) {
		return true
	}
	for _, r := range s[n:] {
		if runeWidth(r) > 0 {
			return true
		}
	}
	return false
}

// asciiCells returns how many cells of text, at most limit, are single
// ASCII bytes: a byte that may be followed by a combining mark is left
// out.
func asciiCells(text string, limit int) int {
	n := 0
	for n < limit && n < len(text) && text[n] < 0x80 {
		n++
	}
	if n < len(text) && text[n] >= 0x80 && n > 0 {
		n--
	}
	return n
}

// layout lays out the logical line made of stream rows [a, b) at the new
// width into rf.line, splitting it wherever a row fills up and never
// between the halves of a wide character. Cells carry their style runs
// with them. A line that ends (not one the stream cuts off) makes no row
// for the blank cells after its last other one: they are kept only as far
// as the row holding that one goes, or up to the cursor, which keeps its
// column past the line's end.
func (rf *reflower) layout(a, b int) {
	rf.first = a
	rf.parts = rf.parts[:0]
	complex := false
	for i := a; i < b; i++ {
		var p lineParts
		p.parse(rf.src.row(i).l)
		rf.parts = append(rf.parts, p)
		complex = complex || p.segs != ""
	}
	last := rf.parts[len(rf.parts)-1].kind
	rf.endRow, rf.endPos = len(rf.parts), 0
	if last == noWrap {
		rf.endRow, rf.endPos = rf.contentEnd()
	}
	rf.w.reset(complex)
	rf.starts = append(rf.starts, 0)
	for _, m := range rf.marks {
		if m.row >= a && m.row < b {
			m.off = -1
		}
	}
	off := 0
	for i := range rf.parts {
		for _, m := range rf.marks {
			if m.row == a+i {
				m.off = off + m.col
			}
		}
		if !rf.layoutPart(&rf.parts[i], i, &off) {
			break
		}
	}
	if c := rf.cursor; c.row >= a && c.row < b && c.off > off {
		rf.pad(&off, c.off)
	}
	for _, m := range rf.marks {
		if m.row >= a && m.row < b && m.off < 0 {
			m.off = off // in the blanks dropped: at the line's end
		}
	}
	if last != noWrap {
		last = softWrap
	}
	rf.finishRow(last)
}

// contentEnd returns the part and the byte in its text of the line's last
// cell that isn't a space (-1 if there is none).
func (rf *reflower) contentEnd() (int, int) {
	for i := len(rf.parts) - 1; i >= 0; i-- {
		text := rf.parts[i].text
		for j := len(text) - 1; j >= 0; j-- {
			if text[j] != ' ' {
				return i, j
			}
		}
	}
	return -1, 0
}

// over reports whether the line's content is over at byte pos of part i,
// line offset off: only blanks follow, and the cursor is not among them.
func (rf *reflower) over(i, pos, off int) bool {
	if i < rf.endRow || i == rf.endRow && pos <= rf.endPos {
		return false
	}
	switch ci := rf.cursor.row - rf.first; {
	case ci < 0 || ci >= len(rf.parts):
		return true
	case ci > i:
		return false
	}
	return off >= rf.cursor.off
}

// blanks are default blank cells for pad.
const blanks = "                                                                "

// pad lays out default blanks from line offset *off to to.
func (rf *reflower) pad(off *int, to int) {
	w := &rf.w
	for *off < to {
		if w.col == rf.width {
			rf.breakRow(softWrap, *off)
		}
		k := min(rf.width-w.col, to-*off, len(blanks))
		w.setStyle(w.col, defaultStyle)
		w.addASCII(blanks[:k])
		*off += k
	}
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// layoutPart lays out the cells of p, the line's ith part, from line
// offset *off on. It reports false once the rest of the line is blanks to
// drop. Cells of one ASCII byte, the usual case, are moved as many at a
// time as fit in the row.
func (rf *reflower) layoutPart(p *lineParts, i int, off *int) bool {
	w := &rf.w
	ascii := p.segs == "" && isASCII(p.text)
	var it runIter
	it.init(p)
	st, col, segs := defaultStyle, 0, p.segs
	for pos := 0; pos < len(p.text); {
		for it.col <= col {
			st = it.st
			it.next()
		}
		room := rf.width - w.col
		k := 0
		switch {
		case ascii:
			k = min(room, len(p.text)-pos)
		case segs == "":
			k = asciiCells(p.text[pos:], room)
		}
		if k > 0 {
			rf.span(p.text[pos:pos+k], col, &it, &st)
			pos, col, *off = pos+k, col+k, *off+k
			continue
		}
		n, cw, complex, rest := nextCell(p.text, pos, segs)
		if cw > room {
			if w.col == 0 {
				// A wide character in a one-column row: it can't be
				// shown, as put drops it.
				pos, col, *off, segs = pos+n, col+cw, *off+cw, rest
				continue
			}
			if rf.over(i, pos, *off) {
				return false
			}
			kind := softWrap
			if room > 0 {
				kind = padWrap
			}
			rf.breakRow(kind, *off)
			continue
		}
		w.setStyle(w.col, st)
		w.addCell(p.text[pos:pos+n], cw, complex)
		pos, col, *off, segs = pos+n, col+cw, *off+cw, rest
	}
	return true
}

// span appends cells of one ASCII byte each, text, from column col of
// their part, in style *st and those of the runs it starts among them.
func (rf *reflower) span(text string, col int, it *runIter, st *string) {
	w := &rf.w
	w.setStyle(w.col, *st)
	for ; it.col < col+len(text); it.next() {
		*st = it.st
		w.setStyle(w.col+it.col-col, *st)
	}
	w.addASCII(text)
}

// breakRow ends the row being written, of the given kind, and starts the
// next at line offset off.
func (rf *reflower) breakRow(kind wrapKind, off int) {
	rf.finishRow(kind)
	rf.starts = append(rf.starts, off)
}

// finishRow ends the row being written, of the given kind.
func (rf *reflower) finishRow(kind wrapKind) {
	w := &rf.w
	segs := noSegs
	if w.complex {
		w.segsOut = binary.AppendUvarint(w.segsOut[:0], uint64(w.ncells))
		w.segsOut = append(w.segsOut, w.segs...)
		segs = w.segsOut
	}
	b := rf.t.assemble(w.nruns, w.runs, segs, w.text, kind)
	rf.line = append(rf.line, outRow{l: sbLine{data: unsafe.String(&b[0], len(b))}})
	w.next()
}

// rowWriter builds an encoded row (see sbLine) from cells.
type rowWriter struct {
	lineComplex bool // the line has cells its text can't tell: record segments
	complex     bool // this row has: it needs them
	runs        []byte
	nruns       int
	segs        []byte // per cell, recorded only if lineComplex
	ncells      int
	segsOut     []byte // the count and segs, for finishRow
	text        []byte
	col         int
	style       string
}

func (w *rowWriter) reset(lineComplex bool) {
	w.lineComplex = lineComplex
	w.next()
}

// next empties the row for the next one.
func (w *rowWriter) next() {
	w.complex = false
	w.runs, w.nruns = w.runs[:0], 0
	w.segs, w.ncells = w.segs[:0], 0
	w.text = w.text[:0]
	w.col = 0
	w.style = defaultStyle
}

// setStyle starts a run of style st at column col, unless the row is in
// that style already.
func (w *rowWriter) setStyle(col int, st string) {
	if st != w.style {
		w.runs = binary.AppendUvarint(w.runs, uint64(col))
		w.runs = append(w.runs, st...)
		w.nruns++
		w.style = st
	}
}

// addASCII appends cells of one ASCII byte each.
func (w *rowWriter) addASCII(b string) {
	w.text = append(w.text, b...)
	w.col += len(b)
	if w.lineComplex {
		for range len(b) {
			w.segs = append(w.segs, 1<<2|1)
		}
		w.ncells += len(b)
	}
}

// addCell appends a cell cw columns wide showing b; complex says its text
// can't tell it (see sbLine).
func (w *rowWriter) addCell(b string, cw int, complex bool) {
	w.text = append(w.text, b...)
	w.col += cw
	w.complex = w.complex || complex
	if w.lineComplex {
		w.segs = binary.AppendUvarint(w.segs, uint64(len(b))<<2|uint64(cw))
		w.ncells++
	}
}
