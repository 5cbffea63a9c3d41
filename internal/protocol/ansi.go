package protocol

import (
	"bytes"
	"encoding/binary"
	"strings"
)

// escState is where the stripper stands inside an escape sequence.
type escState uint8

const (
	stGround    escState = iota // plain text
	stEsc                       // after ESC
	stEscInter                  // ESC and intermediate bytes, waiting for the final byte
	stCSI                       // ESC [ parameters, waiting for the final byte
	stString                    // OSC, DCS, SOS, PM or APC body: ends with BEL or ESC \
	stStringEsc                 // ESC seen inside a string
)

// plain marks the bytes copied as text in the ground state: printable ASCII
// and every byte ≥ 0x80. UTF-8 text never holds C1 controls, so bytes of
// multi-byte runes (0x9b included) are text, not 8-bit CSI.
var plain [256]bool

func init() {
	for c := 0x20; c < 256; c++ {
		plain[c] = c != 0x7f
	}
}

// stripper removes escape sequences and control characters from a stream
// of bytes. Its state carries over between calls, so input may be split at
// any byte. Line breaks (CR, LF) and CAN/SUB abort an unfinished sequence:
// a sequence never spans lines, which keeps a runaway OSC from eating the
// rest of the output.
type stripper struct{ st escState }

// strip appends the text of src to dst and returns it. Tabs and LFs are
// kept; every other control character is dropped.
func (s *stripper) strip(dst, src []byte) []byte {
	st := s.st
	for i := 0; i < len(src); {
		// Skip runs in one go: text up to the next control byte (copied),
		// CSI parameters, string bodies.
		switch st {
		case stGround:
			j := textRun(src, i)
			dst = append(dst, src[i:j]...)
			i = j
		case stCSI:
			for i < len(src) && src[i] >= 0x20 && src[i] <= 0x3f {
				i++
			}
		case stString:
			for i < len(src) && src[i] >= 0x20 {
				i++
			}
		}
		if i == len(src) {
			break
		}
		c := src[i]
		i++
		if c == '\n' || c == '\r' || c == 0x18 || c == 0x1a {
			if c == '\n' {
				dst = append(dst, c)
			}
			st = stGround
			continue
		}
		switch st {
		case stGround:
			switch c {
			case 0x1b:
				st = stEsc
			case '\t':
				dst = append(dst, c)
			}
		case stEsc:
			switch {
			case c == '[':
				st = stCSI
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				st = stString
			case c >= 0x20 && c <= 0x2f:
				st = stEscInter
			case c >= 0x30 && c <= 0x7e:
				st = stGround // two-byte sequence such as ESC 7 or ESC =
			case c >= 0x80:
				st, i = stGround, i-1 // not a sequence: keep the text
			}
		case stEscInter:
			switch {
			case c == 0x1b:
				st = stEsc
			case c >= 0x30 && c <= 0x7e:
				st = stGround
			case c >= 0x80:
				st, i = stGround, i-1
			}
		case stCSI:
			switch {
			case c == 0x1b:
				st = stEsc
			case c >= 0x40 && c <= 0x7e:
				st = stGround
			case c >= 0x80:
				st, i = stGround, i-1
			}
		case stString:
			switch c {
			case 0x07:
				st = stGround
			case 0x1b:
				st = stStringEsc
			}
		case stStringEsc:
			if c == '\\' {
				st = stGround
			} else {
				st, i = stEsc, i-1 // ESC ends the string and starts a sequence
			}
		}
	}
	s.st = st
	return dst
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// textRun returns the offset of the first control byte (< 0x20 or DEL) in
// src at or after i, or len(src). It tests eight bytes at a time.
func textRun(src []byte, i int) int {
	for len(src)-i >= 8 {
		x := binary.LittleEndian.Uint64(src[i:])
		y := x ^ (0x7f * ones)
		// Some byte < 0x20, or some byte of y zero (that is, DEL in x).
		if ((x-0x20*ones)&^x|(y-ones)&^y)&highs != 0 {
			break
		}
		i += 8
	}
	for i < len(src) && plain[src[i]] {
		i++
	}
	return i
}

// caretPaste is the start of the caret-notation echo of the bracketed-paste
// markers ^[[200~ and ^[[201~ that some line editors print literally.
var caretPaste = []byte("^[[20")

// removeCaretPaste deletes every ^[[200~ and ^[[201~ from b, in place.
func removeCaretPaste(b []byte) []byte {
	i := bytes.Index(b, caretPaste)
	if i < 0 {
		return b
	}
	out := b[:i]
	for i < len(b) {
		if len(b)-i >= 7 && bytes.HasPrefix(b[i:], caretPaste) &&
			(b[i+5] == '0' || b[i+5] == '1') && b[i+6] == '~' {
			i += 7
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out
}

// StripANSI removes escape sequences (CSI, OSC, DCS, SOS, PM, APC and
// two-byte ESC sequences), control characters other than \n and \t, and the
// caret-notation echo of bracketed-paste markers (^[[200~, ^[[201~) from s.
// A line break ends an unfinished escape sequence. The console uses it to
// sanitize text it relays between agents.
func StripANSI(s string) string {
	if isClean(s) {
		return s
	}
	var st stripper
	b := st.strip(make([]byte, 0, len(s)), []byte(s))
	return string(removeCaretPaste(b))
}

// isClean reports whether s has nothing StripANSI would remove.
func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
			return false
		}
	}
	return !strings.Contains(s, string(caretPaste))
}
