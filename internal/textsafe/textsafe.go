// Package textsafe makes text that came from an agent safe to show to the
// human: every character a terminal would interpret, or that would make
// the text read differently from what it is, is written as a visible
// escape (\u001b, \u202e …) instead. An agent cannot then redraw the
// human's screen (a dangerous command made to look like `go test`), hide
// text, or reverse it.
package textsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Dangerous reports whether r must not reach a terminal as itself: C0
// controls (a caller keeps "\n" and "\t" where they are layout), DEL, C1
// controls, bidirectional overrides and isolates, zero-width and other
// invisible format characters (invisible), line and paragraph separators,
// and the replacement character standing for bytes that are not UTF-8.
func Dangerous(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff, r == 0x061c, r == 0x180e, r == 0x00ad, r == 0xfff9, r == 0xfffa, r == 0xfffb:
		return true
	case invisible(r):
		return true
	}
	return false
}

// invisible are the characters that show as nothing, or as a blank, yet
// are not spaces (the eighth red team hid text with them): tag characters,
// variation selectors, the combining grapheme joiner, Hangul fillers,
// musical formatting characters, and private-use characters (a font shows
// them as anything).
func invisible(r rune) bool {
	switch {
	case r >= 0xe0000 && r <= 0xe007f, r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	case r == 0x034f, r == 0x115f, r == 0x1160, r == 0x3164, r == 0xffa0, r >= 0x1d173 && r <= 0x1d17a:
		return true
	case r == 0x2800: // the blank braille pattern: a blank that is no space (the ninth red team)
		return true
	case r >= 0xe000 && r <= 0xf8ff, r >= 0xf0000 && r <= 0x10ffff:
		return true
	case r >= 0x80 && unicode.Is(unicode.Cf, r):
		return true // every other format character (U+13430…, U+1BCA0…): invisible too
	}
	return false
}

// escape is the visible form of r: \uXXXX (valid in JSON strings too, where
// it stands for the same character).
func escape(r rune) string { return fmt.Sprintf(`\u%04x`, r) }

// Line makes s safe on one line: line breaks too become visible, and so do
// the characters of a grapheme cluster whose width terminals and lipgloss
// do not agree about (see WidthSafe), so a row of the console holding s
// takes the cells the console counted.
func Line(s string) string { return WidthSafe(clean(s, false)) }

// Text makes s safe keeping its line breaks and tabs.
func Text(s string) string { return clean(s, true) }

// oddSpace are the spaces other than the ASCII one: on one line (Line)
// they pad a command out of sight as well as the blanks above do.
func oddSpace(r rune) bool {
	return r == 0xa0 || r == 0x1680 || r >= 0x2000 && r <= 0x200a || r == 0x202f || r == 0x205f || r == 0x3000
}

func clean(s string, keepLayout bool) string {
	if !needs(s, keepLayout) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case keepLayout && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case Dangerous(r), !keepLayout && oddSpace(r):
			b.WriteString(escape(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Needs reports whether s, or JSON encoding a value, holds anything Text
// or WidthSafe would change, or an escaped C0 control (JSON writes those as
// \u00XX).
func Needs(s string) bool {
	return needs(s, true) || strings.Contains(s, `\u00`) || widthUnsure(s)
}

// needs reports whether s holds anything clean would change.
func needs(s string, keepLayout bool) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || Dangerous(r) && !(keepLayout && (r == '\n' || r == '\t')) || !keepLayout && oddSpace(r) {
			return true
		}
		i += n
	}
	return false
}

// Writer passes text through Text: what a command prints can carry
// agents' text (inbox, audit, permissions …). A rune split across writes
// is held until it is whole.
type Writer struct {
	w    io.Writer
	hold []byte
}

// NewWriter returns a Writer on w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write cleans p and writes it; it reports len(p) when all went out.
func (sw *Writer) Write(p []byte) (int, error) {
	buf := append(sw.hold, p...)
	sw.hold = nil
	// Keep an incomplete rune at the end for the next write.
	cut := len(buf)
	for k := 1; k <= utf8.UTFMax-1 && k <= len(buf); k++ {
		c := buf[len(buf)-k]
		if c < 0x80 {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(buf[len(buf)-k:]) {
				cut = len(buf) - k
			}
			break
		}
	}
	sw.hold = append([]byte(nil), buf[cut:]...)
	if _, err := io.WriteString(sw.w, Text(string(buf[:cut]))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes what is held (an incomplete rune at the very end).
func (sw *Writer) Flush() error {
	if len(sw.hold) == 0 {
		return nil
	}
	_, err := io.WriteString(sw.w, Text(string(sw.hold)))
	sw.hold = nil
	return err
}
