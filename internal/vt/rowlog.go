package vt

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// A rowLog is a row's scrollback encoding (its style runs and text, as
// pushScrollback makes them) built up while text is written to the row
// from left to right, which is how program output nearly always arrives.
// A row scrolled off with a valid log goes to the scrollback without its
// cells being looked at again: with a log printing 30,000 lines of prose
// into the scrollback, that per-cell work was a third of Write's time.
//
// A log is valid while cells [0, end) of its row were written in order by
// printASCII and put (no clusters) and the cells from end on are default
// blanks. Anything else that changes the row invalidates it; a row made
// all default blanks gets an empty, valid log.
type rowLog struct {
	valid bool
	sid   uint32 // the style of the last run, 0 before the first
	end   int32  // the columns described (int32: the struct is moved as rows scroll)
	nruns int32
	runs  []byte
	txt   []byte
}

// reset makes l the valid log of a row of default blanks.
func (l *rowLog) reset() {
	// Field by field: reslicing a slice in place stores no pointer, where
	// assigning the whole struct would (with a write barrier while the
	// collector runs), once per line scrolled.
	l.valid, l.sid, l.end, l.nruns = true, 0, 0, 0
	l.runs = l.runs[:0]
	l.txt = l.txt[:0]
}

// resetLogs gives every row of s an empty log if sid, the style its rows
// were just blanked with, is the default, or marks the logs invalid.
func (s *screen) resetLogs(sid uint32) {
	for i := range s.logs {
		s.blanked(i, sid)
	}
}

// blanked updates the log of row y after the row was filled with blanks
// of style sid.
func (s *screen) blanked(y int, sid uint32) {
	if sid == 0 && !s.noLogs {
		s.logs[y].reset()
	} else {
		s.logs[y].valid = false
	}
}

// invalidate marks the log of row y invalid: the row was changed in a way
// it doesn't follow.
func (s *screen) invalidate(y int) { s.logs[y].valid = false }

// invalidateLogs marks every row's log invalid.
func (s *screen) invalidateLogs() {
	for i := range s.logs {
		s.logs[i].valid = false
	}
}

// continues reports whether cells of style sid written at column x
// continue l's last run: the usual case, kept small enough to inline.
func (l *rowLog) continues(x int, sid uint32) bool {
	return l.valid && x == int(l.end) && sid == l.sid
}

// logRun prepares l, the log of the cursor row, for cells of style sid
// (the pen, t.pen) about to be written at column x, starting the style's
// run. It reports false if the log is invalid or the write isn't at its
// end (which invalidates it).
func (t *Terminal) logRun(l *rowLog, x int, sid uint32) bool {
	if !l.valid {
		return false
	}
	if x != int(l.end) {
		l.valid = false
		return false
	}
	if sid != l.sid {
		if t.runPen != t.pen || t.runPenN == 0 {
			// The pen's part of a run, kept while the pen is the same: a
			// coloured word in a line is often the colour of the last.
			s := &t.pen
			n := binary.PutUvarint(t.runPenEnc[:], uint64(s.FG))
			n += binary.PutUvarint(t.runPenEnc[n:], uint64(s.BG))
			n += binary.PutUvarint(t.runPenEnc[n:], uint64(s.Attrs))
			t.runPen, t.runPenN = *s, n
		}
		var buf [binary.MaxVarintLen64]byte
		n := binary.PutUvarint(buf[:], uint64(x))
		b := extend(&l.runs, n+t.runPenN)
		copyShort(b, buf[:n])
		copyShort(b[n:], t.runPenEnc[:t.runPenN])
		l.nruns++
		l.sid = sid
	}
	return true
}

// logASCII records printable ASCII b written in style sid at column x of
// the cursor row.
func (t *Terminal) logASCII(x int, sid uint32, b []byte) {
	l := &t.cur.logs[t.y]
	if !l.continues(x, sid) && !t.logRun(l, x, sid) {
		return
	}
	copyShort(extend(&l.txt, len(b)), b)
	l.end += int32(len(b))
}

// logRune records rune r of width w written in style sid at column x of
// the cursor row.
func (t *Terminal) logRune(x int, sid uint32, r rune, w int) {
	l := &t.cur.logs[t.y]
	if !l.continues(x, sid) && !t.logRun(l, x, sid) {
		return
	}
	n := utf8.EncodeRune(extend(&l.txt, utf8.UTFMax), r)
	l.txt = l.txt[:len(l.txt)-utf8.UTFMax+n]
	l.end += int32(w)
}

// logBytes records a character of width w, encoded as b, written in style
// sid at column x of the cursor row.
func (t *Terminal) logBytes(x int, sid uint32, b []byte, w int) {
	l := &t.cur.logs[t.y]
	if !l.continues(x, sid) && !t.logRun(l, x, sid) {
		return
	}
	copyShort(extend(&l.txt, len(b)), b)
	l.end += int32(w)
}

// copyShort is copy for slices that are mostly a few bytes long (a word
// or two of text, a style run), where a loop beats calling memmove.
func copyShort(dst, src []byte) {
	switch n := len(src); {
	case n > 16:
		copy(dst, src)
	case n >= 8:
		// Two words that overlap in the middle.
		_ = dst[n-1]
		binary.LittleEndian.PutUint64(dst, binary.LittleEndian.Uint64(src))
		binary.LittleEndian.PutUint64(dst[n-8:], binary.LittleEndian.Uint64(src[n-8:]))
	default:
		for i, c := range src {
			dst[i] = c
		}
	}
}

// extend lengthens *b by n bytes and returns them. When there is room it
// only reslices *b in place, which stores no pointer: appending would,
// and pay for a write barrier while the garbage collector runs (which the
// scrollback's allocations make often). A log's buffers are reused from
// row to row, so they grow by less than append's doubling: a quarter more
// than needed, not up to twice what the longest row takes.
func extend(b *[]byte, n int) []byte {
	l := len(*b)
	if cap(*b)-l < n {
		nb := make([]byte, l, l+n+(l+n)/4)
		copy(nb, *b)
		*b = nb
	}
	*b = (*b)[:l+n]
	return (*b)[l:]
}

// pushLogged encodes row, which ends as kind says, into the scrollback
// from its log, if the log is valid and describes all of the row's
// content, and reports whether it did.
func (t *Terminal) pushLogged(row []cell, l *rowLog, kind wrapKind) bool {
	if l == nil || !l.valid || int(l.end) > len(row) {
		return false
	}
	// The cells from l.end on are default blanks; the row's content must
	// end at l.end: not in blanks the log holds, nor (wrapped) after it.
	end := int(l.end)
	if kind == noWrap {
		if t.contentEnd(row[:end]) != end {
			return false
		}
	} else if len(t.rowContent(row, kind)) != end {
		return false
	}
	b := t.assemble(int(l.nruns), l.runs, noSegs, l.txt, kind)
	t.addScrollback(b)
	if checkRowLogs {
		t.checkLogged(row, b, kind)
	}
	return true
}

// noSegs is the cell segments part of a line whose cells its text tells.
var noSegs = []byte{0}

// checkRowLogs makes pushLogged check each line it encodes against the
// encoding of the row's cells (set by the tests).
var checkRowLogs bool

func (t *Terminal) checkLogged(row []cell, got []byte, kind wrapKind) {
	nruns, runs, segs, txt := t.encodeRow(t.rowContent(row, kind))
	want := appendLine(nil, nruns, runs, segs, txt, kind)
	if string(want) != string(got) {
		panic(fmt.Sprintf("vt: row log %q differs from the row's encoding %q", got, want))
	}
}
