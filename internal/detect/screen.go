package detect

import (
	"strings"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/vt"
)

// Rows returns the screen rows of a terminal snapshot as text, the form
// Detector.Check reads.
func Rows(snap vt.Snapshot) []string {
	out := make([]string, len(snap.Screen))
	for i, l := range snap.Screen {
		out[i] = l.Text
	}
	return out
}

// SplitScreen cuts a screen's text (vt.Terminal.ScreenText, a fixture
// file) into rows.
func SplitScreen(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// row is one screen row as the detectors read it.
type row struct {
	// text is the row without box borders and trailing blanks; leading
	// blanks are kept.
	text string
	// left is the width of what was removed at the left (a border and the
	// blank after it), so the text starts at column left.
	left int
	// limit is the column the row's text may reach: the screen width, or
	// the column before a right border and its padding.
	limit int
}

// borders are the vertical lines boxes and gutters are drawn with.
const borders = "│┃║▏▕"

// rowsOf prepares screen rows: borders removed, widths measured. width is
// the widest row (a CLI's rules and boxes span the terminal).
func rowsOf(screen []string) (rows []row, width int) {
	for _, s := range screen {
		width = max(width, ansi.StringWidth(strings.TrimRight(s, " ")))
	}
	rows = make([]row, len(screen))
	for i, s := range screen {
		rows[i] = strip(s, width)
	}
	return rows, width
}

// strip removes a row's box borders: a border that is the row's first
// non-blank character (with one blank after it), and one that is its
// last (with the blanks before it).
func strip(s string, width int) row {
	s = strings.TrimRight(s, " ")
	r := row{limit: width}
	// Nested boxes: a border inside a border.
	for range 3 {
		if t := strings.TrimSpace(s); len([]rune(t)) == 1 && strings.ContainsRune(borders, []rune(t)[0]) {
			return r // an empty row of a box
		}
		c, size := utf8.DecodeLastRuneInString(s)
		if size == 0 || !strings.ContainsRune(borders, c) || !strings.HasSuffix(s[:len(s)-size], " ") {
			break
		}
		// A right border, after at least one blank of padding: the text
		// may reach the column before that blank.
		body := s[:len(s)-size]
		r.limit = ansi.StringWidth(body) - 1
		s = strings.TrimRight(body, " ")
	}
	for range 3 {
		lead := len(s) - len(strings.TrimLeft(s, " "))
		c, size := utf8.DecodeRuneInString(s[lead:])
		if size == 0 || !strings.ContainsRune(borders, c) {
			break
		}
		cut := lead + size
		if strings.HasPrefix(s[cut:], " ") {
			cut++
		}
		r.left += ansi.StringWidth(s[:cut])
		s = s[cut:]
	}
	r.text = s
	return r
}

// end is the column after the row's last character.
func (r row) end() int { return r.left + ansi.StringWidth(r.text) }

// join turns the rows of an action back into its text: each row trimmed,
// a row the CLI wrapped (the next row's first word would not have fitted
// after it, margin columns short of the row's limit; margin < 0: the
// default) joined to the next with a space, or with nothing inside a word
// longer than a row; other rows with a newline. Blank rows at either end
// are dropped.
func join(rows []row, margin int) string {
	for len(rows) > 0 && strings.TrimSpace(rows[0].text) == "" {
		rows = rows[1:]
	}
	for len(rows) > 0 && strings.TrimSpace(rows[len(rows)-1].text) == "" {
		rows = rows[:len(rows)-1]
	}
	var b strings.Builder
	for i, r := range rows {
		b.WriteString(strings.TrimSpace(r.text))
		if i == len(rows)-1 {
			break
		}
		m := margin
		if m < 0 {
			m = min(4, r.limit/20)
		}
		b.WriteString(separator(r, rows[i+1], m))
	}
	return b.String()
}

// separator is what joins row r to the row after it, next, for a CLI
// that wraps margin columns short of the row's limit.
func separator(r, next row, margin int) string {
	text, following := strings.TrimSpace(r.text), strings.TrimSpace(next.text)
	if text == "" || following == "" {
		return "\n"
	}
	first, _, _ := strings.Cut(following, " ")
	w := ansi.StringWidth(first)
	if r.end()+1+w <= r.limit-margin {
		return "\n" // the word would have fitted: the line ended here
	}
	if r.end() >= r.limit-margin {
		// A full row: a word longer than a row is broken at the edge.
		words := strings.Fields(text)
		if last := words[len(words)-1]; ansi.StringWidth(last)+w > r.limit-margin-r.left-indent(r.text) {
			return ""
		}
	}
	return " "
}

// indent is the width of s's leading blanks.
func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " ")) }
