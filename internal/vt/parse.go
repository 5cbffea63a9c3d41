package vt

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strconv"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"
)

// How input is decoded.
//
// x/ansi's Parser decodes ESC and CSI sequences here (their parameters,
// sub-parameters, prefixes and intermediates) and DCS headers. Three kinds
// of input are handled before the bytes reach it, because its state table
// treats them as 8-bit (ISO 2022) controls rather than UTF-8:
//
//   - Printable text. Runs of printable ASCII are written straight to the
//     screen (the fast path) and UTF-8 is decoded here. In the parser's
//     ground state the bytes 0x80-0x9F are C1 controls, so a stray UTF-8
//     continuation byte would start a CSI (0x9B), OSC (0x9D) or DCS (0x90);
//     and once a UTF-8 lead byte is seen it swallows the next bytes whatever
//     they are, ESC included. Here invalid UTF-8 becomes U+FFFD and an
//     interrupted sequence does not eat the control that interrupts it.
//   - Control strings (OSC, DCS data, SOS, PM, APC). The parser ends them
//     at byte 0x9C (8-bit ST) even inside UTF-8, so a title such as
//     "✳ claude" (✳ is E2 9C B3) would end early and leak its tail onto the
//     screen. Here they end at BEL (OSC only), ESC, CAN or SUB.
//   - Bytes >= 0x80 inside an escape sequence abort it (xterm in UTF-8 mode
//     does not recognise 8-bit controls either).
const (
	stGround = iota
	stSeq    // the parser is in an escape, CSI or DCS header state
	stString // collecting a control string
)

const (
	strOSC = iota + 1
	strDCS
	strIgnore // SOS, PM, APC
)

// maxString bounds the control strings kept (titles, colour queries and
// DECRQSS are short; the rest of a longer string is dropped).
const maxString = 4096

func (t *Terminal) feed(p []byte) {
	i := 0
	for i < len(p) {
		switch t.st {
		case stGround:
			if t.u8need > 0 {
				i = t.moreUTF8(p, i)
				continue
			}
			b := p[i]
			if b >= 0x20 && b < 0x7f {
				j := i + 1 + printableRun(p[i+1:])
				t.printASCII(p[i:j])
				i = j
				continue
			}
			if b < 0x80 {
				if b == 0x1b {
					if n := t.fastCSI(p[i:]); n > 0 {
						i += n
						continue
					}
					t.p.Reset()
					t.p.Advance(b)
					t.st = stSeq
				} else {
					t.execute(b)
				}
				i++
				continue
			}
			if k := t.printUTF8(p[i:]); k > 0 {
				i += k
				continue
			}
			n := utf8Len(b)
			if n == 0 {
				t.printRune(utf8.RuneError)
				i++
				continue
			}
			if i+n <= len(p) && continuations(p[i+1:i+n]) {
				t.printRune(decodeRune(p[i : i+n]))
				i += n
				continue
			}
			t.u8[0], t.u8n, t.u8need = b, 1, n
			i++
		case stSeq:
			b := p[i]
			if b >= 0x80 {
				t.p.Reset()
				t.st = stGround
				continue
			}
			if b < 0x20 && b != 0x1b && b != 0x18 && b != 0x1a && escOrCSI(t.p.State()) {
				// A control inside an ESC or CSI sequence is executed and
				// the sequence goes on. The parser would do that too, but it
				// keeps the control byte as the sequence's command, so
				// "CSI 2 CR ; 3 H" would dispatch as CSI M (0x0D|'H').
				t.execute(b)
				i++
				continue
			}
			t.p.Advance(b)
			i++
			switch t.p.State() {
			case parser.GroundState:
				t.st = stGround
			case parser.OscStringState:
				t.beginString(strOSC)
			case parser.DcsStringState:
				t.beginString(strDCS)
			case parser.SosStringState, parser.PmStringState, parser.ApcStringState:
				t.beginString(strIgnore)
			}
		case stString:
			i = t.collectString(p, i)
		}
	}
}

// printableRun returns the length of the run of printable ASCII at the
// start of p, testing eight bytes at a time.
func printableRun(p []byte) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(p); i += 8 {
		w := binary.LittleEndian.Uint64(p[i:])
		// The top bit of each byte below 0x20 or above 0x7e (0x7f and all
		// of 0x80-0xff). Borrows and carries can mark bytes after the
		// first such byte too, but not before it: the lowest mark is
		// exact.
		if m := ((w-0x20*ones)&^w | (w + ones) | w) & highs; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for i < len(p) && p[i] >= 0x20 && p[i] < 0x7f {
		i++
	}
	return i
}

func escOrCSI(s parser.State) bool {
	switch s {
	case parser.EscapeState, parser.EscapeIntermediateState,
		parser.CsiEntryState, parser.CsiParamState, parser.CsiIntermediateState:
		return true
	}
	return false
}

// fastCSI dispatches a CSI sequence that lies whole in p (which starts
// with ESC) and has at most a private prefix, parameters and a final byte:
// nearly all of what programs send (SGR, cursor movement, erasing, modes).
// It decodes parameters exactly as x/ansi's Parser does (same limit of 32,
// same handling of missing and colon sub-parameters) and returns the bytes
// used, or 0 to leave the sequence to the Parser: sequences split across
// writes, with intermediates or controls inside, and all others.
// TestSplitInvariance, which feeds every input byte by byte through the
// Parser, checks the two agree.
func (t *Terminal) fastCSI(p []byte) int {
	if len(p) < 3 || p[1] != '[' {
		return 0
	}
	i := 2
	var cmd int
	if c := p[i]; c >= '<' && c <= '?' {
		cmd = int(c) << parser.PrefixShift
		i++
	}
	// The parameter being read is kept in v and stored at its end: a
	// store to the array per digit cost a fifth of the function.
	params := &t.params
	n := 0
	v := ansi.Param(parser.MissingParam)
	for ; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= '0' && c <= '9':
			if v == parser.MissingParam {
				v = 0
			}
			v = v*10 + ansi.Param(c-'0')
			continue
		case c == ';' || c == ':':
			if n >= len(params) {
				continue
			}
			if c == ':' {
				v |= parser.HasMoreFlag
			}
			params[n] = v
			v = parser.MissingParam
			n++
			continue
		case c >= 0x40 && c <= 0x7e:
			if n < len(params) {
				params[n] = v
			}
			if n > 0 && n < len(params)-1 || n == 0 && v != parser.MissingParam {
				n++
			}
			if c == 'm' && cmd == 0 {
				t.sgr(params[:n]) // what csi would do, for the most common sequence
			} else {
				t.csi(ansi.Cmd(cmd|int(c)), params[:n])
			}
			return i + 1
		}
		return 0
	}
	return 0
}

// moreUTF8 continues a UTF-8 sequence begun in an earlier chunk.
func (t *Terminal) moreUTF8(p []byte, i int) int {
	for i < len(p) && t.u8need > 0 {
		b := p[i]
		if b < 0x80 || b > 0xbf {
			// Interrupted: one U+FFFD for what came, then b as usual.
			t.u8need = 0
			t.printRune(utf8.RuneError)
			return i
		}
		t.u8[t.u8n] = b
		t.u8n++
		i++
		if t.u8n == t.u8need {
			t.u8need = 0
			t.printRune(decodeRune(t.u8[:t.u8n]))
		}
	}
	return i
}

func utf8Len(b byte) int {
	switch {
	case b >= 0xc2 && b <= 0xdf:
		return 2
	case b >= 0xe0 && b <= 0xef:
		return 3
	case b >= 0xf0 && b <= 0xf4:
		return 4
	}
	return 0
}

func continuations(p []byte) bool {
	for _, b := range p {
		if b < 0x80 || b > 0xbf {
			return false
		}
	}
	return true
}

// decodeRune decodes a UTF-8 sequence whose lead byte utf8Len accepted
// and whose continuation bytes are in 0x80-0xBF (the callers check both),
// so only overlong forms, surrogates and runes past U+10FFFF are left to
// refuse: U+FFFD for those, as utf8.DecodeRune gives, without its general
// (slower) path.
func decodeRune(p []byte) rune {
	var r, lo rune
	switch len(p) {
	case 2:
		return rune(p[0]&0x1f)<<6 | rune(p[1]&0x3f) // C2-DF: never overlong
	case 3:
		r = rune(p[0]&0x0f)<<12 | rune(p[1]&0x3f)<<6 | rune(p[2]&0x3f)
		lo = 0x800
	case 4:
		r = rune(p[0]&0x07)<<18 | rune(p[1]&0x3f)<<12 | rune(p[2]&0x3f)<<6 | rune(p[3]&0x3f)
		lo = 0x10000
	default:
		return utf8.RuneError
	}
	if r < lo || r > utf8.MaxRune || r >= 0xd800 && r <= 0xdfff {
		return utf8.RuneError
	}
	return r
}

func (t *Terminal) beginString(kind uint8) {
	t.st = stString
	t.strKind = kind
	t.strBuf = t.strBuf[:0]
}

func (t *Terminal) collectString(p []byte, i int) int {
	for i < len(p) {
		b := p[i]
		switch {
		case b == 0x07 && t.strKind == strOSC:
			t.st = stGround
			t.p.Reset()
			t.endString(false)
			return i + 1
		case b == 0x1b:
			t.endString(true)
			t.p.Reset()
			t.p.Advance(b) // ESC \ is then an ignored ESC sequence
			t.st = stSeq
			return i + 1
		case b == 0x18 || b == 0x1a:
			t.p.Reset()
			t.st = stGround
			return i + 1
		}
		// Find the end of the run of ordinary bytes.
		j := i + 1
		for j < len(p) {
			c := p[j]
			if c == 0x07 || c == 0x1b || c == 0x18 || c == 0x1a {
				break
			}
			j++
		}
		if t.strKind != strIgnore && len(t.strBuf) < maxString {
			t.strBuf = append(t.strBuf, p[i:min(j, i+maxString-len(t.strBuf))]...)
		}
		i = j
	}
	return i
}

// endString dispatches a finished OSC or DCS string; st tells whether it
// ended with ST (ESC \) rather than BEL, for replies that echo the form.
func (t *Terminal) endString(st bool) {
	switch t.strKind {
	case strOSC:
		t.osc(t.strBuf, st)
	case strDCS:
		t.dcs(t.strBuf)
	}
	t.st = stGround
}

func (t *Terminal) execute(b byte) {
	switch b {
	case 0x07:
		t.bells++
	case 0x08:
		t.wrapNext = false
		if t.x > 0 {
			t.x--
		}
	case 0x09:
		t.tabForward(1)
	case 0x0a, 0x0b, 0x0c:
		t.index()
		if t.m.lnm {
			t.x = 0
		}
	case 0x0d:
		t.x, t.wrapNext = 0, false
	case 0x0e:
		t.gl = 1
	case 0x0f:
		t.gl = 0
	}
}

func (t *Terminal) esc(cmd ansi.Cmd) {
	switch cmd.Intermediate() {
	case 0:
		switch cmd.Final() {
		case '7':
			t.saveCursor()
		case '8':
			t.restoreCursor()
		case 'D':
			t.index()
		case 'E':
			t.index()
			t.x = 0
		case 'H':
			t.tabs[t.x] = true
		case 'M':
			t.reverseIndex()
		case 'c':
			t.fullReset()
		case '=':
			t.m.appKeypad = true
		case '>':
			t.m.appKeypad = false
		case 'Z':
			t.send(da1Reply)
		case 'n':
			t.gl = 2
		case 'o':
			t.gl = 3
		}
	case '(', ')', '*', '+':
		f := cmd.Final()
		if f != '0' {
			f = 'B'
		}
		t.charsets[cmd.Intermediate()-'('] = f
	case '#':
		if cmd.Final() == '8' {
			t.alignmentTest()
		}
	}
}

// Replies to device attribute queries.
const (
	da1Reply = "\x1b[?62;22c"  // VT220 with ANSI colour
	da2Reply = "\x1b[>1;10;0c" // VT220, firmware 10
)

func (t *Terminal) send(s string) {
	if t.reply != nil {
		t.reply.send([]byte(s))
	}
}

func (t *Terminal) sendBuf(b []byte) {
	if t.reply != nil {
		t.reply.send(b)
	}
}

// osc handles an operating system command: titles and colour queries.
func (t *Terminal) osc(data []byte, st bool) {
	num, rest, _ := bytes.Cut(data, []byte{';'})
	n, err := strconv.Atoi(string(num))
	if err != nil {
		return
	}
	switch n {
	case 0, 2:
		t.title = sanitizeTitle(rest)
	case 4:
		t.oscPalette(rest, st)
	case 10, 11, 12:
		// Each further parameter applies to the next colour (10;?;? asks
		// for the foreground and the background).
		for _, spec := range bytes.Split(rest, []byte{';'}) {
			if n > 12 {
				break
			}
			if string(spec) == "?" {
				c := t.fg
				if n == 11 {
					c = t.bg
				}
				t.sendBuf(t.colorReply(strconv.Itoa(n), c, st))
			} else if c, ok := parseColorSpec(spec); ok {
				switch n {
				case 10:
					t.fg = c
				case 11:
					t.bg = c
				}
			}
			n++
		}
	case 104:
		t.palette = nil
	}
}

func (t *Terminal) oscPalette(rest []byte, st bool) {
	parts := bytes.Split(rest, []byte{';'})
	for i := 0; i+1 < len(parts); i += 2 {
		idx, err := strconv.Atoi(string(parts[i]))
		if err != nil || idx < 0 || idx > 255 {
			continue
		}
		if string(parts[i+1]) == "?" {
			c, ok := t.palette[uint8(idx)]
			if !ok {
				r, g, b := paletteRGB(uint8(idx))
				c = RGBColor(r, g, b)
			}
			t.sendBuf(t.colorReply("4;"+strconv.Itoa(idx), c, st))
		} else if c, ok := parseColorSpec(parts[i+1]); ok {
			if t.palette == nil {
				t.palette = map[uint8]Color{}
			}
			if len(t.palette) < 256 {
				t.palette[uint8(idx)] = c
			}
		}
	}
}

func (t *Terminal) colorReply(prefix string, c Color, st bool) []byte {
	r, g, b, _ := c.RGB()
	out := append(t.replyBuf[:0], "\x1b]"...)
	out = append(out, prefix...)
	out = append(out, ";rgb:"...)
	for i, v := range [3]uint8{r, g, b} {
		if i > 0 {
			out = append(out, '/')
		}
		const hex = "0123456789abcdef"
		out = append(out, hex[v>>4], hex[v&15], hex[v>>4], hex[v&15])
	}
	if st {
		out = append(out, "\x1b\\"...)
	} else {
		out = append(out, 0x07)
	}
	t.replyBuf = out
	return out
}

// parseColorSpec parses the X11 forms rgb:r/g/b (1–4 hex digits each) and
// #rgb, #rrggbb.
func parseColorSpec(s []byte) (Color, bool) {
	hexv := func(h []byte) (uint8, bool) {
		if len(h) < 1 || len(h) > 4 {
			return 0, false
		}
		v, err := strconv.ParseUint(string(h), 16, 16)
		if err != nil {
			return 0, false
		}
		maxv := uint64(1)<<(4*len(h)) - 1
		return uint8(v * 255 / maxv), true
	}
	if rest, ok := bytes.CutPrefix(s, []byte("rgb:")); ok {
		p := bytes.Split(rest, []byte{'/'})
		if len(p) != 3 {
			return 0, false
		}
		r, ok1 := hexv(p[0])
		g, ok2 := hexv(p[1])
		b, ok3 := hexv(p[2])
		return RGBColor(r, g, b), ok1 && ok2 && ok3
	}
	if rest, ok := bytes.CutPrefix(s, []byte("#")); ok && (len(rest) == 3 || len(rest) == 6) {
		k := len(rest) / 3
		r, ok1 := hexv(rest[:k])
		g, ok2 := hexv(rest[k : 2*k])
		b, ok3 := hexv(rest[2*k:])
		return RGBColor(r, g, b), ok1 && ok2 && ok3
	}
	return 0, false
}

func sanitizeTitle(b []byte) string {
	const maxTitle = 1024
	if len(b) > maxTitle {
		b = b[:maxTitle]
	}
	out := make([]byte, 0, len(b))
	for _, c := range b {
		if c >= 0x20 && c != 0x7f {
			out = append(out, c)
		}
	}
	return string(bytes.ToValidUTF8(out, []byte("\uFFFD")))
}

// dcs handles a device control string: DECRQSS and XTGETTCAP queries.
func (t *Terminal) dcs(data []byte) {
	cmd := ansi.Cmd(t.p.Command())
	switch {
	case cmd.Intermediate() == '$' && cmd.Final() == 'q': // DECRQSS
		var v []byte
		switch string(data) {
		case "m":
			v = append(appendStyleParams([]byte("0"), t.pen), 'm')
		case "r":
			v = strconv.AppendInt(nil, int64(t.top+1), 10)
			v = append(v, ';')
			v = strconv.AppendInt(v, int64(t.bottom+1), 10)
			v = append(v, 'r')
		case " q":
			v = append(strconv.AppendInt(nil, int64(t.m.cursorStyle), 10), " q"...)
		default:
			t.send("\x1bP0$r\x1b\\")
			return
		}
		t.send("\x1bP1$r" + string(v) + "\x1b\\")
	case cmd.Intermediate() == '+' && cmd.Final() == 'q': // XTGETTCAP
		t.send("\x1bP0+r\x1b\\")
	}
}
