package main

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// screen is a small terminal emulator: enough of VT100/xterm to follow
// what a full-screen CLI draws (cursor moves, erases, scroll regions, the
// alternate screen), so that the capture can wait for what is visible and
// save the final screen as text. Colours and attributes are ignored.
type screen struct {
	cols, rows int
	main, alt  [][]rune
	grid       [][]rune // main or alt
	r, c       int
	wrapNext   bool // the last column was written: the next rune wraps first
	top, bot   int  // scroll region, inclusive
	saveR      int
	saveC      int

	// Parser state of the byte stream.
	state   int
	params  []byte
	pending []byte // bytes of an incomplete UTF-8 rune

	// Modes the program set, as seen in the stream.
	bracketed bool
}

const (
	stGround = iota
	stEsc
	stCSI
	stOSC
	stOSCEsc
	stString // DCS, APC, PM, SOS: skipped up to ST
	stStringEsc
	stCharset // ESC ( X and the like: one more byte
)

func newScreen(cols, rows int) *screen {
	s := &screen{cols: cols, rows: rows, bot: rows - 1}
	s.main = blank(cols, rows)
	s.alt = blank(cols, rows)
	s.grid = s.main
	return s
}

func blank(cols, rows int) [][]rune {
	g := make([][]rune, rows)
	for i := range g {
		g[i] = blankLine(cols)
	}
	return g
}

func blankLine(cols int) []rune {
	l := make([]rune, cols)
	for i := range l {
		l[i] = ' '
	}
	return l
}

// Text is the screen as lines, trailing blanks removed, trailing empty
// lines dropped.
func (s *screen) Text() string {
	var out []string
	for _, l := range s.grid {
		var b strings.Builder
		for _, r := range l {
			if r != 0 { // 0 is the right half of a wide rune
				b.WriteRune(r)
			}
		}
		out = append(out, strings.TrimRight(b.String(), " "))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}

// Write feeds terminal output to the emulator.
func (s *screen) Write(p []byte) (int, error) {
	for _, b := range p {
		s.byte(b)
	}
	return len(p), nil
}

func (s *screen) byte(b byte) {
	switch s.state {
	case stGround:
		s.ground(b)
	case stEsc:
		s.esc(b)
	case stCSI:
		switch {
		case b >= 0x40 && b <= 0x7e:
			s.csi(b)
			s.state = stGround
		case b == 0x1b:
			s.state = stEsc
		case b == 0x18 || b == 0x1a:
			s.state = stGround
		default:
			s.params = append(s.params, b)
		}
	case stOSC:
		switch b {
		case 0x07:
			s.state = stGround
		case 0x1b:
			s.state = stOSCEsc
		}
	case stOSCEsc:
		if b == '\\' {
			s.state = stGround
		} else {
			s.state = stOSC
		}
	case stString:
		if b == 0x1b {
			s.state = stStringEsc
		}
	case stStringEsc:
		if b == '\\' {
			s.state = stGround
		} else {
			s.state = stString
		}
	case stCharset:
		s.state = stGround
	}
}

func (s *screen) ground(b byte) {
	if len(s.pending) > 0 || b >= 0x80 {
		s.pending = append(s.pending, b)
		if !utf8.FullRune(s.pending) {
			return
		}
		r, _ := utf8.DecodeRune(s.pending)
		s.pending = s.pending[:0]
		s.put(r)
		return
	}
	switch b {
	case 0x1b:
		s.state = stEsc
	case '\r':
		s.c, s.wrapNext = 0, false
	case '\n', 0x0b, 0x0c:
		s.lf()
	case '\b':
		if s.c > 0 {
			s.c--
		}
		s.wrapNext = false
	case '\t':
		s.c = min((s.c/8+1)*8, s.cols-1)
	default:
		if b >= 0x20 && b < 0x7f {
			s.put(rune(b))
		}
	}
}

func (s *screen) esc(b byte) {
	s.state = stGround
	switch b {
	case '[':
		s.state, s.params = stCSI, s.params[:0]
	case ']':
		s.state = stOSC
	case 'P', '_', '^', 'X':
		s.state = stString
	case '(', ')', '*', '+', '#', '%':
		s.state = stCharset
	case '7':
		s.saveR, s.saveC = s.r, s.c
	case '8':
		s.r, s.c, s.wrapNext = s.saveR, s.saveC, false
	case 'D':
		s.lf()
	case 'E':
		s.c = 0
		s.lf()
	case 'M':
		s.ri()
	case 'c':
		*s = *newScreen(s.cols, s.rows)
	}
}

// width of a rune on screen: 0, 1 or 2 (a rough East Asian Width).
func width(r rune) int {
	switch {
	case r == 0 || (r >= 0x300 && r <= 0x36f) || r == 0x200b || r == 0x200d || (r >= 0xfe00 && r <= 0xfe0f):
		return 0
	case r >= 0x1100 && (r <= 0x115f || (r >= 0x2e80 && r <= 0xa4cf) || (r >= 0xac00 && r <= 0xd7a3) ||
		(r >= 0xf900 && r <= 0xfaff) || (r >= 0xfe30 && r <= 0xfe4f) || (r >= 0xff00 && r <= 0xff60) ||
		(r >= 0xffe0 && r <= 0xffe6) || (r >= 0x1f300 && r <= 0x1f64f) || (r >= 0x1f900 && r <= 0x1f9ff) ||
		(r >= 0x20000 && r <= 0x3fffd)):
		return 2
	}
	return 1
}

func (s *screen) put(r rune) {
	w := width(r)
	if w == 0 {
		return
	}
	if s.wrapNext {
		s.c, s.wrapNext = 0, false
		s.lf()
	}
	if s.c+w > s.cols {
		s.c = 0
		s.lf()
	}
	s.grid[s.r][s.c] = r
	if w == 2 {
		s.grid[s.r][s.c+1] = 0
	}
	s.c += w
	if s.c >= s.cols {
		s.c, s.wrapNext = s.cols-1, true
	}
}

func (s *screen) lf() {
	s.wrapNext = false
	if s.r == s.bot {
		s.scrollUp(1)
		return
	}
	if s.r < s.rows-1 {
		s.r++
	}
}

func (s *screen) ri() {
	s.wrapNext = false
	if s.r == s.top {
		s.scrollDown(1)
		return
	}
	if s.r > 0 {
		s.r--
	}
}

func (s *screen) scrollUp(n int) {
	for ; n > 0; n-- {
		copy(s.grid[s.top:s.bot+1], s.grid[s.top+1:s.bot+1])
		s.grid[s.bot] = blankLine(s.cols)
	}
}

func (s *screen) scrollDown(n int) {
	for ; n > 0; n-- {
		copy(s.grid[s.top+1:s.bot+1], s.grid[s.top:s.bot])
		s.grid[s.top] = blankLine(s.cols)
	}
}

// csi runs one control sequence ending in final.
func (s *screen) csi(final byte) {
	raw := string(s.params)
	priv := ""
	if raw != "" && strings.ContainsRune("?<=>", rune(raw[0])) {
		priv, raw = raw[:1], raw[1:]
	}
	if strings.ContainsAny(raw, " !\"#$%&'*+,-./") { // intermediates: not handled
		return
	}
	var ps []int
	for _, f := range strings.Split(raw, ";") {
		f, _, _ = strings.Cut(f, ":")
		n, _ := strconv.Atoi(f)
		ps = append(ps, n)
	}
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] != 0 {
			return ps[i]
		}
		return def
	}
	clampR := func(r int) int { return max(0, min(r, s.rows-1)) }
	clampC := func(c int) int { return max(0, min(c, s.cols-1)) }
	if priv == "?" {
		for _, p := range ps {
			on := final == 'h'
			if final != 'h' && final != 'l' {
				continue
			}
			switch p {
			case 2004:
				s.bracketed = on
			case 1049, 1047, 47:
				if on && !s.isAlt() {
					s.alt = blank(s.cols, s.rows)
					s.grid = s.alt
					if p == 1049 {
						s.saveR, s.saveC = s.r, s.c
					}
				} else if !on && s.isAlt() {
					s.grid = s.main
					if p == 1049 {
						s.r, s.c = s.saveR, s.saveC
					}
				}
			}
		}
		return
	}
	if priv != "" {
		return
	}
	s.wrapNext = false
	switch final {
	case 'A':
		s.r = max(s.r-arg(0, 1), min(s.top, s.r))
	case 'B', 'e':
		s.r = min(s.r+arg(0, 1), max(s.bot, s.r))
	case 'C', 'a':
		s.c = clampC(s.c + arg(0, 1))
	case 'D':
		s.c = clampC(s.c - arg(0, 1))
	case 'E':
		s.r, s.c = clampR(s.r+arg(0, 1)), 0
	case 'F':
		s.r, s.c = clampR(s.r-arg(0, 1)), 0
	case 'G', '`':
		s.c = clampC(arg(0, 1) - 1)
	case 'd':
		s.r = clampR(arg(0, 1) - 1)
	case 'H', 'f':
		s.r, s.c = clampR(arg(0, 1)-1), clampC(arg(1, 1)-1)
	case 'J':
		switch arg(0, 0) {
		case 0:
			s.eraseLine(s.r, s.c, s.cols)
			for r := s.r + 1; r < s.rows; r++ {
				s.grid[r] = blankLine(s.cols)
			}
		case 1:
			for r := 0; r < s.r; r++ {
				s.grid[r] = blankLine(s.cols)
			}
			s.eraseLine(s.r, 0, s.c+1)
		case 2, 3:
			for r := range s.grid {
				s.grid[r] = blankLine(s.cols)
			}
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			s.eraseLine(s.r, s.c, s.cols)
		case 1:
			s.eraseLine(s.r, 0, s.c+1)
		case 2:
			s.eraseLine(s.r, 0, s.cols)
		}
	case 'X':
		s.eraseLine(s.r, s.c, min(s.cols, s.c+arg(0, 1)))
	case 'P':
		n := min(arg(0, 1), s.cols-s.c)
		l := s.grid[s.r]
		copy(l[s.c:], l[s.c+n:])
		s.eraseLine(s.r, s.cols-n, s.cols)
	case '@':
		n := min(arg(0, 1), s.cols-s.c)
		l := s.grid[s.r]
		copy(l[s.c+n:], l[s.c:s.cols-n])
		s.eraseLine(s.r, s.c, s.c+n)
	case 'L', 'M':
		if s.r < s.top || s.r > s.bot {
			return
		}
		top := s.top
		s.top = s.r
		if final == 'L' {
			s.scrollDown(min(arg(0, 1), s.bot-s.r+1))
		} else {
			s.scrollUp(min(arg(0, 1), s.bot-s.r+1))
		}
		s.top = top
	case 'S':
		s.scrollUp(min(arg(0, 1), s.bot-s.top+1))
	case 'T':
		s.scrollDown(min(arg(0, 1), s.bot-s.top+1))
	case 'r':
		t, b := arg(0, 1)-1, arg(1, s.rows)-1
		if t < b && b < s.rows {
			s.top, s.bot = t, b
			s.r, s.c = 0, 0
		}
	case 's':
		s.saveR, s.saveC = s.r, s.c
	case 'u':
		s.r, s.c = s.saveR, s.saveC
	}
}

func (s *screen) eraseLine(r, from, to int) {
	for c := max(0, from); c < min(to, s.cols); c++ {
		s.grid[r][c] = ' '
	}
}

func (s *screen) isAlt() bool { return len(s.grid) > 0 && len(s.alt) > 0 && &s.grid[0] == &s.alt[0] }
