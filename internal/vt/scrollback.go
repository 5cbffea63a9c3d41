package vt

import (
	"encoding/binary"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// ring is the scrollback: a ring of at most max lines, oldest first.
type ring struct {
	lines []sbLine
	start int
	n     int
	max   int
}

func (r *ring) push(l sbLine) {
	if r.max == 0 {
		return
	}
	if r.n < r.max {
		if len(r.lines) < r.max {
			if len(r.lines) == cap(r.lines) {
				r.grow()
			}
			r.lines = append(r.lines, l)
		} else {
			i := r.start + r.n // no division: a line is pushed per line scrolled
			if i >= r.max {
				i -= r.max
			}
			r.lines[i] = l
		}
		r.n++
		return
	}
	r.lines[r.start] = l
	if r.start++; r.start == r.max {
		r.start = 0
	}
}

// grow doubles the room for lines, up to max: append's growth would leave
// slack past max (a tenth of the ring's size, for 10,000 lines) for good.
func (r *ring) grow() {
	lines := make([]sbLine, len(r.lines), min(r.max, max(64, 2*cap(r.lines))))
	copy(lines, r.lines)
	r.lines = lines
}

func (r *ring) get(i int) *sbLine { return &r.lines[(r.start+i)%r.max] }

func (r *ring) clear() {
	r.lines, r.start, r.n = nil, 0, 0
}

// truncate keeps the oldest n lines.
func (r *ring) truncate(n int) {
	for i := n; i < r.n; i++ {
		*r.get(i) = sbLine{} // its slab may go
	}
	r.n = n
	if len(r.lines) < r.max {
		r.lines = r.lines[:n] // not yet full: push appends
	}
}

// sbLine is one scrollback line in one allocation. data holds, in order:
//
//   - a uvarint of the offset of the text (from the end of this uvarint)
//     << 2 | the row's wrapKind (kept here rather than in fields of sbLine:
//     8 bytes less per line in the ring for one or two more in the slab);
//   - the style runs: a uvarint count, then per run the uvarint column
//     where it starts and the uvarints of its FG, BG and Attrs (a line in
//     the default style has count 0);
//   - for a line whose cells can't be recovered from its text (a cluster
//     joined by ZWJ holds more than one wide rune, U+FE0F widened one): a uvarint count of cells
//     then per cell a uvarint of its byte length << 2 | width; else 0;
//   - the text: the cells' contents, right halves of wide characters
//     omitted. A row that ends its line drops its trailing blank cells in
//     the default style; a wrapped row keeps them (a space at the end of a
//     row is part of its line) and drops only its padding column (see
//     padWrap), so reflow reads the line's cells back exactly.
//
// data points into a slab shared with other lines (see alloc); the bytes
// are never written again once the line is made.
type sbLine struct {
	data string
}

// uvarint reads a uvarint at s[i:], returning it and the index after it.
func uvarint(s string, i int) (uint64, int) {
	var v uint64
	for shift := 0; i < len(s) && shift < 64; shift += 7 {
		b := s[i]
		i++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			break
		}
	}
	return v, i
}

// parts returns the line's data after its first uvarint, the offset of
// the text in it and how the row ended.
func (l *sbLine) parts() (body string, textOff int, kind wrapKind) {
	v, i := uvarint(l.data, 0)
	return l.data[i:], int(v >> 2), wrapKind(v & 3)
}

// kind returns how the line's row ended.
func (l *sbLine) kind() wrapKind {
	_, _, kind := l.parts()
	return kind
}

// blank reports whether the line is an empty row that ends its line.
func (l *sbLine) blank() bool {
	body, textOff, kind := l.parts()
	return kind == noWrap && textOff == len(body)
}

func (l *sbLine) text() string {
	body, off, _ := l.parts()
	return strings.TrimRight(body[off:], " ")
}

func (l *sbLine) wrapped() bool { return l.kind() != noWrap }

// slabSize is the size of the blocks scrollback lines are cut from: one
// allocation per block instead of one per line. A block is freed when the
// last line in it leaves the ring.
const slabSize = 64 << 10

// alloc returns n bytes of the current slab.
func (t *Terminal) alloc(n int) []byte {
	if cap(t.slab)-len(t.slab) < n {
		t.slab = make([]byte, 0, max(slabSize, n))
	}
	l := len(t.slab)
	t.slab = t.slab[:l+n]
	return t.slab[l : l+n : l+n]
}

// pushScrollback encodes a screen row that ends as kind says into the
// scrollback, from its log if that can be used (l may be nil).
func (t *Terminal) pushScrollback(row []cell, l *rowLog, kind wrapKind) {
	t.scrolledOff++
	if t.sb.max == 0 {
		return
	}
	if t.pushLogged(row, l, kind) {
		return
	}
	t.addScrollback(t.encodeLine(row, kind))
}

// encodeLine returns the scrollback encoding of a screen row that ends as
// kind says, in a slab.
func (t *Terminal) encodeLine(row []cell, kind wrapKind) []byte {
	nruns, runs, segs, txt := t.encodeRow(t.rowContent(row, kind))
	return t.assemble(nruns, runs, segs, txt, kind)
}

// rowContent returns the cells of row that are part of its logical line:
// a wrapped row's but its padding column, the cells of a row that ends
// its line up to its last one that doesn't look like a default blank.
func (t *Terminal) rowContent(row []cell, kind wrapKind) []cell {
	switch kind {
	case softWrap:
		return row
	case padWrap:
		if n := len(row); n > 0 && t.contentEnd(row[n-1:]) == 0 {
			return row[:n-1]
		}
		return row
	}
	return row[:t.contentEnd(row)]
}

// assemble joins the parts of a scrollback line (see sbLine) in a slab.
func (t *Terminal) assemble(nruns int, runs, segs, txt []byte, kind wrapKind) []byte {
	n := 2*binary.MaxVarintLen64 + len(runs) + len(segs) + len(txt)
	b := appendLine(t.alloc(n)[:0], nruns, runs, segs, txt, kind)
	t.slab = t.slab[:len(t.slab)-n+len(b)] // give back the room not used
	return b[:len(b):len(b)]
}

// appendLine appends the encoding of a scrollback line to dst.
func appendLine(dst []byte, nruns int, runs, segs, txt []byte, kind wrapKind) []byte {
	var cnt [binary.MaxVarintLen64]byte
	c := binary.PutUvarint(cnt[:], uint64(nruns))
	v := uint64(c+len(runs)+len(segs))<<2 | uint64(kind)
	dst = binary.AppendUvarint(dst, v)
	dst = append(dst, cnt[:c]...)
	dst = append(dst, runs...)
	dst = append(dst, segs...)
	return append(dst, txt...)
}

// addScrollback adds encoded line b to the scrollback.
func (t *Terminal) addScrollback(b []byte) {
	t.sb.push(sbLine{data: unsafe.String(&b[0], len(b))})
}

// contentEnd returns the length of row without its trailing blanks that
// look like default blanks.
func (t *Terminal) contentEnd(row []cell) int {
	end := len(row)
	for end > 0 {
		c := row[end-1]
		if c.r != ' ' || (c.sid() != 0 && t.styles[c.sid()].visibleOnBlank()) {
			break
		}
		end--
	}
	return end
}

// encodeRow returns the parts of the scrollback encoding (see sbLine) of
// cells, a row's content (see rowContent): the number of style runs and
// the runs, the cell segments and the text. They are in scratch buffers,
// valid until the next call.
func (t *Terminal) encodeRow(row []cell) (nruns int, runs, segs, txt []byte) {
	runs, txt = t.sbRuns[:0], t.sbText[:0]
	prev := uint32(0)
	complex := false
	for i := 0; i < len(row); i++ {
		c := row[i]
		if sid := c.sid(); sid != prev {
			s := t.styles[sid]
			runs = binary.AppendUvarint(runs, uint64(i))
			runs = binary.AppendUvarint(runs, uint64(s.FG))
			runs = binary.AppendUvarint(runs, uint64(s.BG))
			runs = binary.AppendUvarint(runs, uint64(s.Attrs))
			nruns++
			prev = sid
		}
		switch {
		case c.r == 0:
		case c.r < 0x80:
			// The run of ASCII in this style.
			txt = append(txt, byte(c.r))
			for i+1 < len(row) && row[i+1].a == c.a && row[i+1].r < 0x80 && row[i+1].r != 0 {
				i++
				txt = append(txt, byte(row[i].r))
			}
		case c.r&clusterBit != 0:
			s := t.clusters[c.r&^clusterBit]
			txt = append(txt, s...)
			complex = complex || clusterComplex(s, c.width())
		default:
			txt = utf8.AppendRune(txt, c.r)
		}
	}
	segs = t.sbSegs[:0]
	if complex {
		segs = binary.AppendUvarint(segs, uint64(len(row)))
		for _, c := range row {
			if c.r != 0 {
				segs = binary.AppendUvarint(segs, uint64(len(t.content(c)))<<2|uint64(c.width()))
			}
		}
	} else {
		segs = append(segs, 0)
	}
	t.sbRuns, t.sbText, t.sbSegs = runs, txt, segs
	return nruns, runs, segs, txt
}

// viewCell is a cell decoded for reading: its content is s, or r if s is
// empty.
type viewCell struct {
	r  rune
	s  string
	w  int8
	st Style
}

// decode appends the cells of a scrollback line to out.
func (l *sbLine) decode(out []viewCell) []viewCell {
	d, textOff, _ := l.parts()
	pos := 0
	uv := func() uint64 {
		var v uint64
		for shift := 0; pos < len(d) && shift < 64; shift += 7 {
			b := d[pos]
			pos++
			v |= uint64(b&0x7f) << shift
			if b < 0x80 {
				break
			}
		}
		return v
	}
	type run struct {
		col int
		st  Style
	}
	var runsBuf [16]run
	runs := runsBuf[:0]
	for n := uv(); n > 0; n-- {
		col := int(uv())
		runs = append(runs, run{col, Style{FG: Color(uv()), BG: Color(uv()), Attrs: Attr(uv())}})
	}
	ncells := int(uv())
	text := d[textOff:]
	var st Style
	ri := 0
	col := 0
	styleAt := func() Style {
		for ri < len(runs) && runs[ri].col <= col {
			st = runs[ri].st
			ri++
		}
		return st
	}
	if ncells > 0 {
		for k := 0; k < ncells && pos < textOff; k++ {
			v := uv()
			n, w := int(v>>2), int8(v&3)
			if n > len(text) {
				break
			}
			s := styleAt()
			out = append(out, viewCell{s: text[:n], w: w, st: s})
			text = text[n:]
			col++
			if w == 2 {
				out = append(out, viewCell{w: 0, st: s})
				col++
			}
		}
		return out
	}
	last, lastStart := -1, 0
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= 0x80 {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		w := runeWidth(r)
		if w == 0 && last >= 0 {
			// A mark: extend the previous cell's cluster.
			out[last].s = text[lastStart : i+n]
			i += n
			continue
		}
		s := styleAt()
		last, lastStart = len(out), i
		out = append(out, viewCell{r: r, w: int8(max(w, 1)), st: s})
		i += n
		col++
		if w == 2 {
			out = append(out, viewCell{w: 0, st: s})
			col++
		}
	}
	return out
}
