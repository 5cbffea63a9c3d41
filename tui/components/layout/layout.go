// Package layout holds the small text helpers the console's panes share:
// padding and cutting to a width, wrapping with a hanging indent, a dash
// for nothing.
package layout

import (
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// Pad pads s with blanks to w columns (styled text measured as shown); s
// wider than w is left as it is.
func Pad(s string, w int) string {
	return s + strings.Repeat(" ", max(w-lipgloss.Width(s), 0))
}

// Cell pads or cuts s (with "…") to exactly w columns.
func Cell(s string, w int) string { return Pad(ansi.Truncate(s, w, "…"), w) }

// OrDash is s, or "-" when s is blank.
func OrDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// Wrap breaks s into lines of at most w columns; each paragraph after the
// first, and the continuation lines of each, start with indent.
func Wrap(s string, w int, indent string) []string {
	var out []string
	for i, para := range strings.Split(s, "\n") {
		if i > 0 {
			para = indent + para
		}
		lines := strings.Split(ansi.Wrap(para, w, ""), "\n")
		out = append(out, lines[0])
		if len(lines) > 1 {
			rest := strings.Join(lines[1:], " ")
			for _, l := range strings.Split(ansi.Wrap(rest, max(w-len(indent), 1), ""), "\n") {
				out = append(out, indent+l)
			}
		}
	}
	return out
}

// Stamp writes a time in the boards' detail views: "Jan 02 15:04:05", or
// "--:--:--" for none.
func Stamp(t time.Time) string {
	if t.IsZero() {
		return "--:--:--"
	}
	return t.Format("Jan 02 15:04:05")
}
