package vt

import (
	"strconv"

	"github.com/charmbracelet/x/ansi"
)

// maxParam bounds numeric parameters: the parser does not guard against
// overflow, and no count needs more.
const maxParam = 1 << 16

// param returns parameter i, def when missing, clamped to [0, maxParam].
func param(ps ansi.Params, i, def int) int {
	if i >= len(ps) {
		return def
	}
	v := ps[i].Param(def)
	if v < 0 || v > maxParam {
		return maxParam
	}
	return v
}

// count returns parameter i as a count: default 1, and 0 also means 1.
func count(ps ansi.Params, i int) int {
	return max(1, param(ps, i, 1))
}

func (t *Terminal) csi(cmd ansi.Cmd, ps ansi.Params) {
	prefix, inter := cmd.Prefix(), cmd.Intermediate()
	if prefix == 0 && inter == 0 {
		t.csiPlain(cmd.Final(), ps)
		return
	}
	if prefix != 0 && inter == 0 && cmd.Final() == 'u' && t.noKitty {
		return
	}
	switch {
	case prefix == '?' && inter == 0:
		switch cmd.Final() {
		case 'h':
			t.setDECModes(ps, true)
		case 'l':
			t.setDECModes(ps, false)
		case 'J':
			t.eraseDisplay(param(ps, 0, 0))
		case 'K':
			t.eraseLine(param(ps, 0, 0))
		case 'n':
			t.decDSR(param(ps, 0, 0))
		case 'u': // kitty keyboard protocol: report the flags
			k := 0
			if n := len(t.m.kitty); n > 0 {
				k = t.m.kitty[n-1]
			}
			t.send("\x1b[?" + strconv.Itoa(k) + "u")
		}
	case prefix == '>' && inter == 0:
		switch cmd.Final() {
		case 'c':
			if param(ps, 0, 0) == 0 {
				t.send(da2Reply)
			}
		case 'q': // XTVERSION
			if param(ps, 0, 0) == 0 {
				t.send("\x1bP>|teamlead-vt\x1b\\")
			}
		case 'u': // kitty keyboard protocol: push flags
			if len(t.m.kitty) >= 16 {
				t.m.kitty = t.m.kitty[1:]
			}
			t.m.kitty = append(t.m.kitty, param(ps, 0, 0))
		}
	case prefix == '<' && inter == 0 && cmd.Final() == 'u': // kitty: pop
		n := min(count(ps, 0), len(t.m.kitty))
		t.m.kitty = t.m.kitty[:len(t.m.kitty)-n]
	case prefix == '=' && inter == 0 && cmd.Final() == 'u': // kitty: set
		flags, how := param(ps, 0, 0), param(ps, 1, 1)
		if len(t.m.kitty) == 0 {
			t.m.kitty = append(t.m.kitty, 0)
		}
		top := &t.m.kitty[len(t.m.kitty)-1]
		switch how {
		case 1:
			*top = flags
		case 2:
			*top |= flags
		case 3:
			*top &^= flags
		}
	case inter == '$' && cmd.Final() == 'p': // DECRQM
		t.requestMode(param(ps, 0, 0), prefix == '?')
	case prefix == 0 && inter == '!' && cmd.Final() == 'p':
		t.softReset()
	case prefix == 0 && inter == ' ' && cmd.Final() == 'q': // DECSCUSR
		t.m.cursorStyle = param(ps, 0, 0)
	}
}

func (t *Terminal) csiPlain(final byte, ps ansi.Params) {
	switch final {
	case '@':
		t.insertCells(count(ps, 0))
	case 'A':
		t.cursorUp(count(ps, 0))
	case 'B', 'e':
		t.cursorDown(count(ps, 0))
	case 'C', 'a':
		t.moveTo(t.x+count(ps, 0), t.y)
	case 'D':
		t.moveTo(t.x-count(ps, 0), t.y)
	case 'E':
		t.cursorDown(count(ps, 0))
		t.x = 0
	case 'F':
		t.cursorUp(count(ps, 0))
		t.x = 0
	case 'G', '`':
		t.moveTo(count(ps, 0)-1, t.y)
	case 'H', 'f':
		t.moveToOrigin(count(ps, 1)-1, count(ps, 0)-1)
	case 'I':
		t.tabForward(count(ps, 0))
	case 'J':
		t.eraseDisplay(param(ps, 0, 0))
	case 'K':
		t.eraseLine(param(ps, 0, 0))
	case 'L':
		t.insertLines(count(ps, 0))
	case 'M':
		t.deleteLines(count(ps, 0))
	case 'P':
		t.deleteCells(count(ps, 0))
	case 'S':
		if len(ps) <= 1 {
			t.scrollUp(t.top, t.bottom, count(ps, 0), t.saveScroll())
		}
	case 'T':
		if len(ps) <= 1 {
			t.scrollDown(t.top, t.bottom, count(ps, 0))
		}
	case 'X':
		t.eraseCells(t.y, t.x, t.x+count(ps, 0))
		t.wrapNext = false
	case 'Z':
		t.tabBackward(count(ps, 0))
	case 'b': // REP
		if t.lastRune != 0 {
			n := min(count(ps, 0), t.cols*t.rows)
			r := t.lastRune
			for range n {
				t.printRune(r)
			}
		}
	case 'c':
		if param(ps, 0, 0) == 0 {
			t.send(da1Reply)
		}
	case 'd':
		t.moveToOrigin(t.x, count(ps, 0)-1)
	case 'g':
		switch param(ps, 0, 0) {
		case 0:
			t.tabs[t.x] = false
		case 3:
			clear(t.tabs)
		}
	case 'h':
		t.setANSIModes(ps, true)
	case 'l':
		t.setANSIModes(ps, false)
	case 'm':
		t.sgr(ps)
	case 'n':
		switch param(ps, 0, 0) {
		case 5:
			t.send("\x1b[0n")
		case 6:
			t.send("\x1b[" + t.cursorReport() + "R")
		}
	case 'r':
		top, bottom := count(ps, 0)-1, param(ps, 1, t.rows)
		if bottom == 0 || bottom > t.rows {
			bottom = t.rows
		}
		bottom--
		if top < bottom {
			t.top, t.bottom = top, bottom
			t.moveToOrigin(0, 0)
		}
	case 's':
		if len(ps) == 0 {
			t.saveCursor()
		}
	case 'u':
		if len(ps) == 0 {
			t.restoreCursor()
		}
	case 't':
		t.windowOp(ps)
	}
}

func (t *Terminal) cursorUp(n int) {
	top := 0
	if t.y >= t.top {
		top = t.top
	}
	t.moveTo(t.x, max(top, t.y-n))
}

func (t *Terminal) cursorDown(n int) {
	bottom := t.rows - 1
	if t.y <= t.bottom {
		bottom = t.bottom
	}
	t.moveTo(t.x, min(bottom, t.y+n))
}

// cursorReport is the row;col of a cursor position report, relative to the
// scroll region in origin mode.
func (t *Terminal) cursorReport() string {
	y := t.y
	if t.m.origin {
		y -= t.top
	}
	return strconv.Itoa(y+1) + ";" + strconv.Itoa(t.x+1)
}

func (t *Terminal) decDSR(n int) {
	switch n {
	case 6:
		t.send("\x1b[?" + t.cursorReport() + "R")
	case 15:
		t.send("\x1b[?13n") // no printer
	case 996: // colour scheme: 1 dark, 2 light
		r, g, b, _ := t.bg.RGB()
		scheme := "1"
		if int(r)*299+int(g)*587+int(b)*114 > 128*1000 {
			scheme = "2"
		}
		t.send("\x1b[?997;" + scheme + "n")
	}
}

func (t *Terminal) windowOp(ps ansi.Params) {
	switch param(ps, 0, 0) {
	case 14: // text area in pixels, with 8x16 cells
		t.send("\x1b[4;" + strconv.Itoa(t.rows*16) + ";" + strconv.Itoa(t.cols*8) + "t")
	case 16: // cell size in pixels
		t.send("\x1b[6;16;8t")
	case 18: // text area in cells
		t.send("\x1b[8;" + strconv.Itoa(t.rows) + ";" + strconv.Itoa(t.cols) + "t")
	case 22: // push the title
		if len(t.titleStack) >= 16 {
			t.titleStack = t.titleStack[1:]
		}
		t.titleStack = append(t.titleStack, t.title)
	case 23: // pop the title
		if n := len(t.titleStack); n > 0 {
			t.title = t.titleStack[n-1]
			t.titleStack = t.titleStack[:n-1]
		}
	}
}

func (t *Terminal) setANSIModes(ps ansi.Params, on bool) {
	for i := range ps {
		switch param(ps, i, 0) {
		case 4:
			t.m.insert = on
		case 20:
			t.m.lnm = on
		}
	}
}

func (t *Terminal) setDECModes(ps ansi.Params, on bool) {
	for i := range ps {
		switch param(ps, i, 0) {
		case 1:
			t.m.appCursor = on
		case 5:
			t.m.reverseVideo = on
		case 6:
			t.m.origin = on
			t.moveToOrigin(0, 0)
		case 7:
			t.m.autowrap = on
			if !on {
				t.wrapNext = false
			}
		case 12:
			t.m.cursorBlink = on
		case 25:
			t.m.cursorHidden = !on
		case 9, 1000, 1002, 1003:
			if on {
				t.m.mouse = param(ps, i, 0)
			} else {
				t.m.mouse = MouseNone
			}
		case 1004:
			t.m.focus = on
		case 1005, 1006, 1015:
			if on {
				t.m.mouseEnc = param(ps, i, 0)
			} else {
				t.m.mouseEnc = 0
			}
		case 47, 1047:
			t.setAltScreen(on)
		case 1048:
			if on {
				t.saveCursor()
			} else {
				t.restoreCursor()
			}
		case 1049:
			if on {
				if !t.altActive {
					t.saveCursor()
					t.setAltScreen(true)
				}
			} else if t.altActive {
				t.setAltScreen(false)
				t.restoreCursor()
			}
		case 2004:
			t.m.bracketedPaste = on
		case 2026:
			t.m.sync = on
		case 2027:
			t.m.unicode = on
		}
	}
}

// requestMode answers DECRQM: 1 set, 2 reset, 0 not recognised.
func (t *Terminal) requestMode(mode int, dec bool) {
	b2i := func(on bool) int {
		if on {
			return 1
		}
		return 2
	}
	v := 0
	if dec {
		switch mode {
		case 1:
			v = b2i(t.m.appCursor)
		case 5:
			v = b2i(t.m.reverseVideo)
		case 6:
			v = b2i(t.m.origin)
		case 7:
			v = b2i(t.m.autowrap)
		case 12:
			v = b2i(t.m.cursorBlink)
		case 25:
			v = b2i(!t.m.cursorHidden)
		case 9, 1000, 1002, 1003:
			v = b2i(t.m.mouse == mode)
		case 1004:
			v = b2i(t.m.focus)
		case 1005, 1006, 1015:
			v = b2i(t.m.mouseEnc == mode)
		case 47, 1047, 1049:
			v = b2i(t.altActive)
		case 2004:
			v = b2i(t.m.bracketedPaste)
		case 2026:
			v = b2i(t.m.sync)
		case 2027:
			// Clusters follow tmux's rules (marks and ZWJ sequences join,
			// widths per code point) whatever the program asks.
			v = b2i(t.m.unicode)
		}
		t.send("\x1b[?" + strconv.Itoa(mode) + ";" + strconv.Itoa(v) + "$y")
		return
	}
	switch mode {
	case 4:
		v = b2i(t.m.insert)
	case 20:
		v = b2i(t.m.lnm)
	case 2, 12:
		v = 4 // KAM, SRM: permanently reset
	}
	t.send("\x1b[" + strconv.Itoa(mode) + ";" + strconv.Itoa(v) + "$y")
}

// sgr applies Select Graphic Rendition parameters to the pen.
func (t *Terminal) sgr(ps ansi.Params) {
	t.penOK = false
	if len(ps) == 0 {
		t.pen = Style{}
		return
	}
	s := &t.pen
	// A switch on constants compiles to a jump table, not a chain of
	// comparisons: SGR is the most frequent sequence.
	for i := 0; i < len(ps); i++ {
		p := param(ps, i, 0)
		more := ps[i].HasMore()
		switch p {
		case 0:
			*s = Style{}
		case 1:
			s.Attrs |= Bold
		case 2:
			s.Attrs |= Faint
		case 3:
			s.Attrs |= Italic
		case 4:
			if more && param(ps, i+1, 1) == 0 {
				s.Attrs &^= Underline // 4:0
			} else {
				s.Attrs |= Underline
			}
		case 5, 6:
			s.Attrs |= Blink
		case 7:
			s.Attrs |= Reverse
		case 8:
			s.Attrs |= Hidden
		case 9:
			s.Attrs |= Strike
		case 21:
			s.Attrs |= Underline
		case 22:
			s.Attrs &^= Bold | Faint
		case 23:
			s.Attrs &^= Italic
		case 24:
			s.Attrs &^= Underline
		case 25:
			s.Attrs &^= Blink
		case 27:
			s.Attrs &^= Reverse
		case 28:
			s.Attrs &^= Hidden
		case 29:
			s.Attrs &^= Strike
		case 30, 31, 32, 33, 34, 35, 36, 37:
			s.FG = IndexedColor(uint8(p - 30))
		case 39:
			s.FG = 0
		case 40, 41, 42, 43, 44, 45, 46, 47:
			s.BG = IndexedColor(uint8(p - 40))
		case 49:
			s.BG = 0
		case 90, 91, 92, 93, 94, 95, 96, 97:
			s.FG = IndexedColor(uint8(p - 90 + 8))
		case 100, 101, 102, 103, 104, 105, 106, 107:
			s.BG = IndexedColor(uint8(p - 100 + 8))
		case 38, 48, 58:
			c, next, ok := extColor(ps, i)
			if ok {
				switch p {
				case 38:
					s.FG = c
				case 48:
					s.BG = c
				}
			}
			i = next - 1
			continue
		}
		// Skip the sub-parameters of codes that have none we use.
		for i < len(ps) && ps[i].HasMore() {
			i++
		}
	}
}

// extColor decodes the colour of SGR 38/48/58 at ps[i] in either form:
// 38;5;n and 38;2;r;g;b, or 38:5:n, 38:2::r:g:b and 38:2:r:g:b. It returns
// the index of the parameter after it.
func extColor(ps ansi.Params, i int) (Color, int, bool) {
	if ps[i].HasMore() {
		// Colon form: the group runs to the first parameter without more.
		j := i + 1
		for j < len(ps) && ps[j-1].HasMore() {
			j++
		}
		g := ps[i+1 : j]
		if len(g) == 0 {
			return 0, j, false
		}
		switch param(g, 0, 0) {
		case 5:
			if len(g) >= 2 && param(g, 1, 0) <= 255 {
				return IndexedColor(uint8(param(g, 1, 0))), j, true
			}
		case 2:
			k := 1
			if len(g) >= 5 {
				k = 2 // a colour space id comes first
			}
			if len(g) >= k+3 {
				c, _, ok := rgbParams(g, k)
				return c, j, ok
			}
		}
		return 0, j, false
	}
	switch param(ps, i+1, 0) {
	case 5:
		if i+2 < len(ps) && param(ps, i+2, 0) <= 255 {
			return IndexedColor(uint8(param(ps, i+2, 0))), i + 3, true
		}
		return 0, i + 3, false
	case 2:
		if i+4 < len(ps) {
			c, _, ok := rgbParams(ps, i+2)
			return c, i + 5, ok
		}
		return 0, len(ps), false
	}
	return 0, i + 2, false
}

func rgbParams(ps ansi.Params, k int) (Color, int, bool) {
	r, g, b := param(ps, k, 0), param(ps, k+1, 0), param(ps, k+2, 0)
	if r > 255 || g > 255 || b > 255 {
		return 0, len(ps), false
	}
	return RGBColor(uint8(r), uint8(g), uint8(b)), len(ps), true
}
