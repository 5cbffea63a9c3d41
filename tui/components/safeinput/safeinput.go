// Package safeinput makes the console's text fields without the clipboard
// key. bubbles pastes on ctrl+v by running the first xclip, xsel,
// wl-paste or termux helper on PATH, as the human, outside every sandbox:
// an agent that put one of its own in a folder of PATH that comes first
// (~/go/bin, ~/.local/bin) had it run when the human pasted, and it
// approved a critical request as the human (red team 13a, finding 1). The
// terminal's own paste (bracketed paste) still types into the field.
package safeinput

import (
	"github.com/charmbracelet/bubbles/textarea"
	"github.com/charmbracelet/bubbles/textinput"
)

// Line is a one-line field.
func Line() textinput.Model {
	in := textinput.New()
	in.KeyMap.Paste.SetEnabled(false)
	return in
}

// Area is a field of several lines.
func Area() textarea.Model {
	ed := textarea.New()
	ed.KeyMap.Paste.SetEnabled(false)
	return ed
}
