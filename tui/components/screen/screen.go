// Package screen is the pane showing the selected agent's live terminal,
// in colour, with its scrollback.
package screen

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/tui/style"
)

// Source is an agent's emulated terminal.
type Source interface {
	// Render draws width x height cells of the screen, scrolled back by
	// offset lines into the scrollback, with SGR colours.
	Render(offset, width, height int) string
	// ScrollbackLen is how many lines can be scrolled back.
	ScrollbackLen() int
}

// Model is the screen pane.
type Model struct {
	src    Source
	offset int
	width  int
	height int
	st     *style.Styles
}

// New returns an empty pane.
func New(st *style.Styles) Model { return Model{st: st} }

// SetSource shows src (another agent's screen); the view follows its
// bottom again.
func (m *Model) SetSource(src Source) {
	if src != m.src {
		m.offset = 0
	}
	m.src = src
}

// SetSize sets the pane's inner size.
func (m *Model) SetSize(w, h int) { m.width, m.height = w, h }

// Size returns the inner size (what the agent's PTY should be).
func (m Model) Size() (int, int) { return m.width, m.height }

// Scroll moves the view by lines (positive: back into the scrollback).
func (m *Model) Scroll(lines int) {
	if m.src == nil {
		return
	}
	m.offset = min(max(m.offset+lines, 0), m.src.ScrollbackLen())
}

// PageUp scrolls back a page; PageDown forward.
func (m *Model) PageUp() { m.Scroll(max(m.height-1, 1)) }

// PageDown scrolls forward a page.
func (m *Model) PageDown() { m.Scroll(-max(m.height-1, 1)) }

// Follow returns to the live bottom of the screen.
func (m *Model) Follow() { m.offset = 0 }

// Offset is how far back the view is scrolled (0: live).
func (m Model) Offset() int { return m.offset }

// View renders the screen.
func (m Model) View() string {
	if m.src == nil || m.width <= 0 || m.height <= 0 {
		return m.st.Muted.Render("no screen")
	}
	out := m.src.Render(m.offset, m.width, m.height)
	if m.st.NoColor {
		out = ansi.Strip(out)
	}
	lines := strings.Split(out, "\n")
	for len(lines) < m.height {
		lines = append(lines, "")
	}
	return strings.Join(lines[:m.height], "\n")
}
