package agents

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes text safe to type into an agent: it removes escape
// sequences (CSI, OSC, DCS/SOS/PM/APC strings, and two-byte and nF ESC
// sequences, in their 7-bit and C1 forms), removes control characters
// except "\n" and "\t" (C0, DEL and C1), turns CRLF and lone CR into "\n",
// and replaces invalid UTF-8 with U+FFFD. An unterminated string sequence
// (OSC, DCS …) swallows the rest of the text, as it would in a terminal.
func Sanitize(text string) string {
	var b strings.Builder
	b.Grow(len(text))
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == 0x1b:
			i = skipEscape(text, i+1)
		case c == '\r':
			b.WriteByte('\n')
			i++
			if i < len(text) && text[i] == '\n' {
				i++
			}
		case c == '\n' || c == '\t':
			b.WriteByte(c)
			i++
		case c < 0x20 || c == 0x7f:
			i++
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b.WriteRune(utf8.RuneError)
				i++
			case r == 0x9b: // C1 CSI
				i = skipCSI(text, i+size)
			case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
				i = skipString(text, i+size)
			case r >= 0x80 && r <= 0x9f: // other C1 controls
				i += size
			default:
				b.WriteString(text[i : i+size])
				i += size
			}
		}
	}
	return b.String()
}

// skipEscape returns the index just past the escape sequence whose ESC is
// at i-1. A malformed sequence is cut at the first byte that cannot belong
// to it, and that byte is then read as text.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	c := s[i]
	switch {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // nF: intermediates, then a final byte
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // two-byte sequence
		return i + 1
	default:
		return i
	}
}

// skipCSI returns the index past a control sequence whose parameters start
// at i: parameter bytes 0x30–0x3F, intermediates 0x20–0x2F, one final byte
// 0x40–0x7E.
func skipCSI(s string, i int) int {
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 0x40 && c <= 0x7e:
			return i + 1
		case c >= 0x20 && c <= 0x3f:
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the index past a control string (OSC, DCS, SOS, PM,
// APC) whose content starts at i, ended by BEL, ESC \ or C1 ST. An ESC
// followed by anything else ends the string and starts a new sequence.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b:
			if i+1 < len(s) && s[i+1] == '\\' {
				return i + 2
			}
			return i
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c: // C1 ST in UTF-8
			return i + 2
		default:
			i++
		}
	}
	return i
}
