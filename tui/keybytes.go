package tui

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// specialKeys are the escape sequences an xterm sends for keys that are
// not a character: focus mode forwards them to the agent as typed.
var specialKeys = map[tea.KeyType]string{
	tea.KeyUp: "\x1b[A", tea.KeyDown: "\x1b[B", tea.KeyRight: "\x1b[C", tea.KeyLeft: "\x1b[D",
	tea.KeyShiftUp: "\x1b[1;2A", tea.KeyShiftDown: "\x1b[1;2B", tea.KeyShiftRight: "\x1b[1;2C", tea.KeyShiftLeft: "\x1b[1;2D",
	tea.KeyCtrlUp: "\x1b[1;5A", tea.KeyCtrlDown: "\x1b[1;5B", tea.KeyCtrlRight: "\x1b[1;5C", tea.KeyCtrlLeft: "\x1b[1;5D",
	tea.KeyHome: "\x1b[H", tea.KeyEnd: "\x1b[F", tea.KeyPgUp: "\x1b[5~", tea.KeyPgDown: "\x1b[6~",
	tea.KeyDelete: "\x1b[3~", tea.KeyInsert: "\x1b[2~", tea.KeyShiftTab: "\x1b[Z", tea.KeySpace: " ",
	tea.KeyF1: "\x1bOP", tea.KeyF2: "\x1bOQ", tea.KeyF3: "\x1bOR", tea.KeyF4: "\x1bOS",
	tea.KeyF5: "\x1b[15~", tea.KeyF6: "\x1b[17~", tea.KeyF7: "\x1b[18~", tea.KeyF8: "\x1b[19~",
	tea.KeyF9: "\x1b[20~", tea.KeyF10: "\x1b[21~", tea.KeyF11: "\x1b[23~", tea.KeyF12: "\x1b[24~",
}

// KeyBytes is what a terminal would send for k; nil when k has no bytes.
func KeyBytes(k tea.KeyMsg) []byte {
	var s string
	switch {
	case k.Type == tea.KeyRunes:
		s = string(k.Runes)
		if k.Paste {
			s = "\x1b[200~" + s + "\x1b[201~"
		}
	case k.Type >= 0 && k.Type <= 127:
		s = string(rune(k.Type)) // control characters: their key type is their byte
	default:
		s = specialKeys[k.Type]
	}
	if s == "" {
		return nil
	}
	if k.Alt {
		s = "\x1b" + s
	}
	return []byte(s)
}

// parseKey turns a key name as bubbles/key writes it ("q", "ctrl+c",
// "alt+x", "shift+tab", "pgup") into the KeyMsg that matches it.
func parseKey(s string) (tea.KeyMsg, bool) {
	alt := false
	if rest, ok := strings.CutPrefix(s, "alt+"); ok && rest != "" {
		alt, s = true, rest
	}
	for t := tea.KeyType(-200); t <= 127; t++ {
		if t == tea.KeyRunes {
			continue
		}
		if (tea.Key{Type: t}).String() == s {
			return tea.KeyMsg{Type: t, Alt: alt}, true
		}
	}
	if r := []rune(s); len(r) == 1 {
		return tea.KeyMsg{Type: tea.KeyRunes, Runes: r, Alt: alt}, true
	}
	return tea.KeyMsg{}, false
}

// keyMsgFor is parseKey for keys known to be valid (the keymap's own).
func keyMsgFor(s string) tea.KeyMsg {
	k, _ := parseKey(s)
	return k
}
