package vt

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
)

// checkInvariants verifies the screen model's internal consistency.
func checkInvariants(term *Terminal) error {
	term.mu.Lock()
	defer term.mu.Unlock()
	if term.x < 0 || term.x >= term.cols || term.y < 0 || term.y >= term.rows {
		return fmt.Errorf("cursor %d,%d outside %dx%d", term.x, term.y, term.cols, term.rows)
	}
	if term.top < 0 || term.top >= term.bottom && term.rows > 1 || term.bottom >= term.rows {
		return fmt.Errorf("scroll region %d-%d on %d rows", term.top, term.bottom, term.rows)
	}
	if len(term.tabs) != term.cols {
		return fmt.Errorf("%d tab stops for %d columns", len(term.tabs), term.cols)
	}
	if sb := &term.sb; sb.n > sb.max || len(sb.lines) > sb.max || sb.n > len(sb.lines) ||
		term.sbLent < 0 || term.sbLent > sb.n || term.scrolledOff < uint64(sb.n) {
		return fmt.Errorf("scrollback of %d lines (%d slots, at most %d), %d lent, %d scrolled off",
			sb.n, len(sb.lines), sb.max, term.sbLent, term.scrolledOff)
	}
	for si, s := range [2]*screen{&term.main, &term.alt} {
		if len(s.lines) != term.rows || len(s.wrapped) != term.rows {
			return fmt.Errorf("screen %d has %d rows (%d flags), want %d", si, len(s.lines), len(s.wrapped), term.rows)
		}
		for y, row := range s.lines {
			if len(row) != term.cols {
				return fmt.Errorf("screen %d row %d has %d cells, want %d", si, y, len(row), term.cols)
			}
			for x, c := range row {
				if int(c.sid()) >= len(term.styles) {
					return fmt.Errorf("screen %d cell %d,%d: style %d of %d", si, x, y, c.sid(), len(term.styles))
				}
				if c.r&clusterBit != 0 && int(c.r&^clusterBit) >= len(term.clusters) {
					return fmt.Errorf("screen %d cell %d,%d: cluster %d of %d", si, x, y, c.r&^clusterBit, len(term.clusters))
				}
				switch w := c.width(); {
				case c.r == 0 && w != 0, c.r != 0 && w == 0:
					return fmt.Errorf("screen %d cell %d,%d: rune %#x width %d", si, x, y, c.r, w)
				case w == 0 && (x == 0 || row[x-1].width() != 2):
					return fmt.Errorf("screen %d cell %d,%d: right half without a left half", si, x, y)
				case w == 2 && (x+1 >= len(row) || row[x+1].width() != 0):
					return fmt.Errorf("screen %d cell %d,%d: left half without a right half", si, x, y)
				case w == 3:
					return fmt.Errorf("screen %d cell %d,%d: width 3", si, x, y)
				}
			}
		}
	}
	return nil
}

// quickDump is a cheaper dump: the rendered scrollback and screen (text,
// widths and styles), cursor, modes and title.
func quickDump(term *Terminal) string {
	cols, rows := term.Size()
	x, y, vis := term.Cursor()
	n := term.ScrollbackLen()
	wraps := make([]bool, 0, n+rows)
	for i := range n {
		wraps = append(wraps, term.ScrollbackWrapped(i))
	}
	for i := range rows {
		wraps = append(wraps, term.Wrapped(i))
	}
	return fmt.Sprintf("%d %d %v %v %q %+v %d %v\n", x, y, vis, term.AltScreen(), term.Title(), term.Modes(), term.ScrolledOff(), wraps) +
		term.Render(n, cols, rows+n)
}

func FuzzTerminal(f *testing.F) {
	for _, c := range vtCases {
		f.Add([]byte(c.in), uint8(10), uint8(4), uint16(len(c.in)/2), uint8(7), uint8(3))
	}
	f.Add([]byte("\x1b[?1049h\x1b[1;3r\x1b[3;1H\n\n中文\u0301👨\u200d👩\x1b[2;1H\x1b[2@"), uint8(5), uint8(3), uint16(10), uint8(3), uint8(9))
	f.Add([]byte("\x1b[38:2::1:2:3m\x1b]0;✳ x\x07\xe2\x9c\x1b[6n\x1bP$qm\x1b\\"), uint8(80), uint8(24), uint16(3), uint8(1), uint8(1))
	recs, data := loadRecordings(f)
	for _, r := range recs {
		d := data[r.Name]
		f.Add(d[:min(len(d), 4096)], uint8(r.Cols), uint8(r.Rows), uint16(1000), uint8(40), uint8(12))
	}
	f.Fuzz(func(t *testing.T, in []byte, cols, rows uint8, split uint16, cols2, rows2 uint8) {
		c, r := int(cols%120)+1, int(rows%40)+1
		c2, r2 := int(cols2%120)+1, int(rows2%40)+1
		at := min(int(split), len(in))
		run := func(chunks func([]byte) [][]byte) *Terminal {
			term := New(c, r, Options{Scrollback: 20, Reply: io.Discard})
			// A small style table and cluster table, to collect them often.
			term.styleFloor, term.styleLimit = 4, 4
			term.rehashStyles()
			term.clusterLim = 2
			for _, ch := range chunks(in[:at]) {
				term.Write(ch)
			}
			if err := checkInvariants(term); err != nil {
				t.Fatalf("before resize: %v", err)
			}
			term.Resize(c2, r2)
			if err := checkInvariants(term); err != nil {
				t.Fatalf("after resize: %v", err)
			}
			for _, ch := range chunks(in[at:]) {
				term.Write(ch)
			}
			if err := checkInvariants(term); err != nil {
				t.Fatalf("at the end: %v", err)
			}
			return term
		}
		one := run(whole)
		for _, off := range []int{0, 1, 5, 100} {
			for _, w := range []int{1, 7, 200} {
				_ = one.Render(off, w, 5)
			}
		}
		_ = one.Snapshot()
		x, y, _ := one.Cursor()
		if x < 0 || x >= c2 || y < 0 || y >= r2 {
			t.Fatalf("cursor %d,%d outside %dx%d", x, y, c2, r2)
		}
		// Byte by byte goes through x/ansi's parser for every sequence;
		// one write takes the fast paths. They must agree.
		if a, b := quickDump(one), quickDump(run(bytewise)); a != b {
			t.Fatalf("one write and byte by byte differ:\n%s\n---\n%s", a, b)
		}
		one.Close()
	})
}

// FuzzResizeReflow writes any bytes at one size, then resizes to each size
// a pair of bytes of sizes gives: the screen model stays consistent, and
// while no width has been one column (where wide characters can't stay)
// the logical lines of the scrollback and the main screen keep their
// characters and styles in order.
func FuzzResizeReflow(f *testing.F) {
	for _, c := range vtCases {
		f.Add([]byte(c.in), uint8(10), uint8(4), []byte{3, 2, 30, 9, 9, 4})
	}
	f.Add([]byte("ab界界界\r\nxyz   \r\n\x1b[41mred\x1b[K\x1b[m\r\n$ "), uint8(12), uint8(5), []byte{4, 5, 2, 2, 11, 9})
	var agent bytes.Buffer
	agentScreen(&agent, 3)
	f.Add(agent.Bytes(), uint8(160), uint8(40), []byte{100, 40, 60, 40, 160, 40})
	f.Add([]byte(randomLines(rand.New(rand.NewPCG(1, 2)), 20)), uint8(40), uint8(8), []byte{13, 20, 7, 3, 40, 8})
	recs, data := loadRecordings(f)
	for _, r := range recs {
		d := data[r.Name]
		f.Add(d[:min(len(d), 4096)], uint8(r.Cols), uint8(r.Rows), []byte{50, 20, 100, 30})
	}
	f.Fuzz(func(t *testing.T, in []byte, cols, rows uint8, sizes []byte) {
		term := New(int(cols%120)+1, int(rows%40)+1, Options{Scrollback: 100000, Reply: io.Discard})
		defer term.Close()
		term.styleFloor, term.styleLimit = 4, 4 // collected often, also while a resize interns
		term.rehashStyles()
		term.clusterLim = 2
		term.Write(in)
		want := logicalLines(term)
		wide := cols%120 > 0
		for i := 0; i+1 < len(sizes) && i < 16; i += 2 {
			c, r := int(sizes[i]%130)+1, int(sizes[i+1]%40)+1
			term.Resize(c, r)
			if err := checkInvariants(term); err != nil {
				t.Fatalf("after resizing to %dx%d: %v", c, r, err)
			}
			if wide = wide && c > 1; wide {
				if d := diffLines(logicalLines(term), want); d != "" {
					t.Fatalf("after resizing to %dx%d the lines differ:\n%s", c, r, d)
				}
			}
		}
	})
}
