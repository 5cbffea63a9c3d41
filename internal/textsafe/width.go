package textsafe

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/cellwidth"
)

// WidthSafe escapes, in s (text without escape sequences), the characters
// whose width is uncertain: in every grapheme cluster that is not sure
// (cellwidth.Sure: lipgloss, tmux and current terminals give it different
// widths, such as 46 × U+1100, 👍🏽, a lone U+FE0F or a flag), or that
// starts with a mark joined to nothing, each character that is not plain
// (cellwidth.Plain) becomes an escape (\u1100), whose width is known. Sure
// text is returned as it is.
func WidthSafe(s string) string {
	if !widthUnsure(s) {
		return s
	}
	var b strings.Builder
	for rest := s; rest != ""; {
		c, _ := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if c == "" {
			c = rest[:1]
		}
		writeCluster(&b, c)
		rest = rest[len(c):]
	}
	return b.String()
}

// keep reports whether grapheme cluster c can be drawn as it is: it is
// sure, holds nothing Dangerous, it does not start with a character that
// joins the one before it
// (a mark after a control, or at the start: what is written before it may
// not stay what it was), and it does not end with one that joins the next.
func keep(c string) bool {
	if !cellwidth.Sure(c) || !utf8.ValidString(c) {
		return false
	}
	for _, r := range c {
		if Dangerous(r) {
			return false
		}
	}
	if last, _ := utf8.DecodeLastRuneInString(c); last >= 0x1100 && last <= 0x115f || last >= 0xa960 && last <= 0xa97f {
		return false // a Hangul leading consonant joins what comes next, style changes or not, in some terminals
	}
	r, _ := utf8.DecodeRuneInString(c)
	if r < 0x80 || cellwidth.Plain(r) {
		return true
	}
	j, _ := ansi.FirstGraphemeCluster("a"+c, ansi.GraphemeWidth)
	return j == "a"
}

// writeCluster writes grapheme cluster c, escaped unless keep(c).
func writeCluster(b *strings.Builder, c string) {
	if keep(c) {
		b.WriteString(c)
		return
	}
	for i := 0; i < len(c); {
		r, n := utf8.DecodeRuneInString(c[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(b, `\x%02x`, c[i])
		case cellwidth.Plain(r):
			b.WriteString(c[i : i+n])
		default:
			b.WriteString(escape(r))
		}
		i += n
	}
}

// widthUnsure reports whether s holds a grapheme cluster that is not sure:
// text of ASCII and plain characters does not.
func widthUnsure(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < 0x80 {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !cellwidth.Plain(r) {
			return unsureClusters(s)
		}
		i += n
	}
	return false
}

func unsureClusters(s string) bool {
	for rest := s; rest != ""; {
		c, _ := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
		if c == "" {
			return true
		}
		if !keep(c) {
			return true
		}
		rest = rest[len(c):]
	}
	return false
}

// tabWidth is how many blanks Clip puts for a tab, as lipgloss does.
const tabWidth = 4

// Clip returns line s, which may hold SGR sequences (the console's
// styles), cut to at most w cells, with what could make it take other
// cells than counted made safe first: clusters of uncertain width escaped
// as WidthSafe does, controls escaped (the ESC of an escape sequence other
// than SGR, which only styles, too: the rest shows as text), and tabs made
// blanks. Whatever the
// width tables say, a line passed through Clip is measured the same by
// lipgloss, tmux and the emulator, and is never wider than w: the console
// clips every line it draws in a pane with it.
func Clip(s string, w int) string {
	w = max(w, 0)
	if fits(s, w) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	used := 0
	full := false
	var tmp strings.Builder
	put := func(text string, tw int) {
		if full {
			return
		}
		if used+tw <= w {
			b.WriteString(text)
			used += tw
			return
		}
		// Only ASCII (escapes, blanks) is cut in the middle.
		if isASCII(text) {
			b.WriteString(text[:w-used])
			used = w
		}
		full = true
	}
	for rest := s; rest != ""; {
		c := rest[0]
		switch {
		case c >= 0x20 && c < 0x7f && (len(rest) == 1 || rest[1] < 0x80):
			put(rest[:1], 1)
			rest = rest[1:]
		case c == ansi.ESC:
			if j := sgrEnd(rest, 0); j > 0 {
				b.WriteString(rest[:j]) // styles go on after the cut: the line ends reset
				rest = rest[j:]
				continue
			}
			put(escape(ansi.ESC), 6) // what follows is shown as text
			rest = rest[1:]
		case c == '\t':
			put(strings.Repeat(" ", tabWidth), tabWidth)
			rest = rest[1:]
		case c < 0x20 || c == 0x7f:
			put(escape(rune(c)), 6)
			rest = rest[1:]
		default:
			if r, n := utf8.DecodeRuneInString(rest); r == utf8.RuneError && n <= 1 {
				put(fmt.Sprintf(`\x%02x`, c), 4)
				rest = rest[1:]
				continue
			}
			// A cluster, as lipgloss measures it: an ASCII character with
			// the marks after it is one.
			cl, width := ansi.FirstGraphemeCluster(rest, ansi.GraphemeWidth)
			if cl == "" {
				cl = rest[:1]
			}
			rest = rest[len(cl):]
			if keep(cl) {
				put(cl, width)
				continue
			}
			tmp.Reset()
			writeCluster(&tmp, cl)
			e := tmp.String()
			put(e, cellwidth.String(e))
		}
	}
	return b.String()
}

// fits reports whether s is ASCII (printable, or SGR sequences) and plain
// characters no wider than w: the common case, returned as it is.
func fits(s string, w int) bool {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			n++
			i++
		case c == ansi.ESC:
			j := sgrEnd(s, i)
			if j < 0 {
				return false
			}
			i = j
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if !cellwidth.Plain(r) {
				return false
			}
			n += cellwidth.Rune(r)
			i += size
		default:
			return false
		}
		if n > w {
			return false
		}
	}
	return true
}

// sgrEnd returns the index after the SGR sequence at s[i:], or -1 if there
// is none there.
func sgrEnd(s string, i int) int {
	if i+1 >= len(s) || s[i+1] != '[' {
		return -1
	}
	for j := i + 2; j < len(s); j++ {
		switch c := s[j]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return j + 1
		default:
			return -1
		}
	}
	return -1
}

func isSGR(seq string) bool { return sgrEnd(seq, 0) == len(seq) }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
