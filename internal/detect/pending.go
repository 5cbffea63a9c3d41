package detect

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// pendingTail is how many runes of the end of typed text are looked for on
// the input row: enough not to match by chance, short enough to fit on the
// row when the CLI wrapped a long line.
const pendingTail = 16

// maxNewlines is how many blank rows above the cursor are passed over to
// the text: one per submit key taken as a newline.
const maxNewlines = 6

// Pending reports whether text typed into a CLI still waits in its input box
// on this screen, that is, the submit key was not taken. screen is the
// screen's rows (Rows, SplitScreen) and cursorY the terminal cursor's row:
// full-screen CLIs leave the cursor at the input caret even when they hide
// it (Claude Code, Codex and Gemini CLI all do). The text waits when the
// cursor's row ends with the end of the text's last line, or when the
// cursor's row is blank and the row above it does: the submit key was taken
// as a newline (Gemini CLI does that with an Enter right after a paste).
// Box borders and runs of blanks do not count. A row that one of
// placeholders matches waits too: a CLI that shows a long paste as "[Pasted
// text #1 +7 lines]" (Claude Code) or "[Pasted Text: 8 lines]" (Gemini
// CLI) keeps the text out of sight.
func Pending(screen []string, cursorY int, text string, placeholders ...*regexp.Regexp) bool {
	tail := lastLine(text)
	if tail == "" || cursorY < 0 || cursorY >= len(screen) {
		return false
	}
	if n := utf8.RuneCountInString(tail); n > pendingTail {
		tail = string([]rune(tail)[n-pendingTail:])
	}
	_, width := rowsOf(screen)
	at := func(y int) string { return squeeze(strip(screen[y], width).text) }
	row := at(cursorY)
	for y := cursorY - 1; row == "" && y >= max(0, cursorY-maxNewlines); y-- {
		row = at(y)
	}
	for _, re := range placeholders {
		if row != "" && re.MatchString(row) {
			return true
		}
	}
	return endsWithTail(row, tail)
}

// endsWithTail reports whether row ends with tail or, when the CLI wrapped
// the line and only its end is on the row, tail ends with the row (four
// runes at least, so a lone prompt glyph never matches).
func endsWithTail(row, tail string) bool {
	return strings.HasSuffix(row, tail) || utf8.RuneCountInString(row) >= 4 && strings.HasSuffix(tail, row)
}

// lastLine is the last non-blank line of text with its runs of blanks
// squeezed.
func lastLine(text string) string {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := squeeze(lines[i]); l != "" {
			return l
		}
	}
	return ""
}

// squeeze trims s and turns each run of white space in it into one blank.
func squeeze(s string) string { return strings.Join(strings.Fields(s), " ") }
