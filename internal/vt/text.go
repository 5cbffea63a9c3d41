package vt

import "strings"

// ScreenText is the screen as `tmux capture-pane -p` prints it: each row
// with trailing blanks trimmed, trailing empty rows dropped, a newline
// after each row.
func (t *Terminal) ScreenText() string {
	_, rows := t.Size()
	out := make([]string, 0, rows)
	for y := 0; y < rows; y++ {
		out = append(out, t.Text(y))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n") + "\n"
}
