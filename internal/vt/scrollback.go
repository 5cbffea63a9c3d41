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
			r.lines = append(r.lines, l)
		} else {
			r.lines[(r.start+r.n)%r.max] = l
		}
		r.n++
		return
	}
	r.lines[r.start] = l
	r.start = (r.start + 1) % r.max
}

func (r *ring) get(i int) *sbLine { return &r.lines[(r.start+i)%r.max] }

func (r *ring) clear() {
	r.lines, r.start, r.n = nil, 0, 0
}

// sbLine is one scrollback line in one allocation. data holds, in order:
//
//   - the style runs: a uvarint count, then per run the uvarint column
//     where it starts and the uvarints of its FG, BG and Attrs (a line in
//     the default style has count 0);
//   - for a line whose cells can't be recovered from its text (a cluster
//     joined by ZWJ holds more than one wide rune): a uvarint count of cells
//     then per cell a uvarint of its byte length << 2 | width; else 0;
//   - the text: the cells' contents, right halves of wide characters
//     omitted, trailing blank cells in the default style dropped.
//
// data points into a slab shared with other lines (see alloc); the bytes
// are never written again once the line is made.
type sbLine struct {
	data    string
	textOff uint32
	wrap    bool
}

func (l *sbLine) text() string  { return strings.TrimRight(l.data[l.textOff:], " ") }
func (l *sbLine) wrapped() bool { return l.wrap }

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

// pushScrollback encodes a screen row into the scrollback.
func (t *Terminal) pushScrollback(row []cell, wrapped bool) {
	t.scrolledOff++
	if t.sb.max == 0 {
		return
	}
	end := len(row)
	for end > 0 {
		c := row[end-1]
		if c.r != ' ' || (c.sid() != 0 && t.styles[c.sid()].visibleOnBlank()) {
			break
		}
		end--
	}
	row = row[:end]
	runs, txt := t.sbRuns[:0], t.sbText[:0]
	nruns := 0
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
			_, n := utf8.DecodeRuneInString(s)
			for _, r := range s[n:] {
				if runeWidth(r) > 0 {
					complex = true
				}
			}
		default:
			txt = utf8.AppendRune(txt, c.r)
		}
	}
	var hdr [2 * binary.MaxVarintLen64]byte
	h := binary.AppendUvarint(hdr[:0], uint64(nruns))
	segs := t.sbSegs[:0]
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
	off := len(h) + len(runs) + len(segs)
	b := t.alloc(off + len(txt))
	n := copy(b, h)
	n += copy(b[n:], runs)
	n += copy(b[n:], segs)
	copy(b[n:], txt)
	t.sbRuns, t.sbText, t.sbSegs = runs, txt, segs
	t.sb.push(sbLine{data: unsafe.String(&b[0], len(b)), textOff: uint32(off), wrap: wrapped})
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
	d := l.data
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
	text := d[l.textOff:]
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
		for k := 0; k < ncells && pos < int(l.textOff); k++ {
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
