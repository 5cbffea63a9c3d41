// Package style builds the console's lipgloss styles from a theme, so that
// no pane keeps colours of its own.
package style

import (
	"github.com/charmbracelet/lipgloss"

	"github.com/teamlead/teamlead/themes"
)

// Styles are every style the panes use.
type Styles struct {
	// NoColor is set when NO_COLOR asks for plain text.
	NoColor bool
	// Text is ordinary text.
	Text lipgloss.Style
	// Muted is secondary text.
	Muted lipgloss.Style
	// Accent marks titles and keys.
	Accent lipgloss.Style
	// Pane frames an unfocused pane; PaneFocus the focused one.
	Pane lipgloss.Style
	// PaneFocus frames the focused pane.
	PaneFocus lipgloss.Style
	// Title is a pane title.
	Title lipgloss.Style
	// Selected is the selected row.
	Selected lipgloss.Style
	// Ok, Busy, Warn and Error colour states.
	Ok lipgloss.Style
	// Busy colours an agent at work.
	Busy lipgloss.Style
	// Warn colours what needs attention.
	Warn lipgloss.Style
	// Error colours failures.
	Error lipgloss.Style
	// Badge is the "needs you" badge.
	Badge lipgloss.Style
	// Bar is the status bar.
	Bar lipgloss.Style
}

// New builds the styles of theme t; noColor drops every colour.
func New(t themes.Theme, noColor bool) *Styles {
	c := func(v string) lipgloss.TerminalColor {
		if noColor {
			return lipgloss.NoColor{}
		}
		return lipgloss.Color(v)
	}
	border := lipgloss.RoundedBorder()
	s := &Styles{NoColor: noColor}
	s.Text = lipgloss.NewStyle().Foreground(c(t.Fg))
	s.Muted = lipgloss.NewStyle().Foreground(c(t.Muted))
	s.Accent = lipgloss.NewStyle().Foreground(c(t.Accent)).Bold(true)
	s.Pane = lipgloss.NewStyle().Border(border).BorderForeground(c(t.Border))
	s.PaneFocus = lipgloss.NewStyle().Border(border).BorderForeground(c(t.BorderFocus))
	s.Title = lipgloss.NewStyle().Foreground(c(t.Accent)).Bold(true)
	s.Selected = lipgloss.NewStyle().Foreground(c(t.SelectedFg)).Background(c(t.SelectedBg)).Bold(true)
	if noColor {
		s.Selected = lipgloss.NewStyle().Reverse(true)
	}
	s.Ok = lipgloss.NewStyle().Foreground(c(t.Ok))
	s.Busy = lipgloss.NewStyle().Foreground(c(t.Busy))
	s.Warn = lipgloss.NewStyle().Foreground(c(t.Warn))
	s.Error = lipgloss.NewStyle().Foreground(c(t.Error)).Bold(true)
	s.Badge = lipgloss.NewStyle().Foreground(c(t.BadgeFg)).Background(c(t.BadgeBg)).Bold(true).Padding(0, 1)
	if noColor {
		s.Badge = lipgloss.NewStyle().Reverse(true).Padding(0, 1)
	}
	s.Bar = lipgloss.NewStyle().Foreground(c(t.Muted))
	return s
}

// State colours an agent state word.
func (s *Styles) State(state string) lipgloss.Style {
	switch state {
	case "idle", "running":
		return s.Ok
	case "busy", "starting":
		return s.Busy
	case "restarting", "waiting", "blocked":
		return s.Warn
	case "exited", "failed", "stopped":
		return s.Error
	}
	return s.Text
}

// Risk colours a permission request's risk: low muted, medium warn, high
// error, critical error and bold (whatever the theme makes of error).
func (s *Styles) Risk(risk string) lipgloss.Style {
	switch risk {
	case "low":
		return s.Muted
	case "medium":
		return s.Warn
	case "high":
		return s.Error.Bold(false)
	case "critical":
		return s.Error.Bold(true)
	}
	return s.Text
}
