// Package palette is the command palette: slash commands (/send, /answer,
// /questions, ...) typed with arguments, or any action of the keymap
// chosen from a fuzzy-filtered list.
package palette

import (
	"sort"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
	"github.com/teamlead/teamlead/tui/components/safeinput"

	"github.com/teamlead/teamlead/tui/components/layout"
	"github.com/teamlead/teamlead/tui/style"
)

// Entry is one choosable line: a slash command or an action.
type Entry struct {
	// Name is the action name, or the command with its slash (/send).
	Name string
	// Usage shows the arguments (/send <agent> <text>) or the keys.
	Usage string
	// Desc says what it does.
	Desc string
}

// Run is what the palette asks the console to do when the human presses
// enter: Name is a slash command or an action; Args is the rest of the line.
type Run struct {
	Name string
	Args string
}

// Model is the palette.
type Model struct {
	input   textinput.Model
	entries []Entry
	matches []Entry
	sel     int
	width   int
	st      *style.Styles
}

// New returns a palette offering entries.
func New(st *style.Styles, entries []Entry) Model {
	in := safeinput.Line()
	in.Prompt = ": "
	in.Placeholder = "a command (/send dev hello) or an action"
	m := Model{input: in, entries: entries, st: st}
	m.refilter()
	return m
}

// Open clears and focuses the input.
func (m *Model) Open() tea.Cmd {
	m.input.SetValue("")
	m.sel = 0
	m.refilter()
	return m.input.Focus()
}

// SetWidth sets the palette's width.
func (m *Model) SetWidth(w int) {
	m.width = w
	m.input.Width = max(w-4, 10)
}

// Move moves the selection in the list.
func (m *Model) Move(d int) {
	if n := len(m.matches); n > 0 {
		m.sel = min(max(m.sel+d, 0), n-1)
	}
}

// Enter returns what to run: a slash command with its arguments as typed,
// or the selected action.
func (m Model) Enter() (Run, bool) {
	v := strings.TrimSpace(m.input.Value())
	if strings.HasPrefix(v, "/") {
		name, args, _ := strings.Cut(v, " ")
		return Run{Name: name, Args: strings.TrimSpace(args)}, true
	}
	if m.sel < len(m.matches) {
		return Run{Name: m.matches[m.sel].Name}, true
	}
	return Run{}, false
}

// Update handles typing.
func (m Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	m.refilter()
	return m, cmd
}

func (m *Model) refilter() {
	q := strings.ToLower(strings.TrimSpace(m.input.Value()))
	if name, _, found := strings.Cut(q, " "); found && strings.HasPrefix(q, "/") {
		q = name // typing arguments: keep showing the command
	}
	type scored struct {
		e     Entry
		score int
	}
	var hits []scored
	for _, e := range m.entries {
		if s, ok := Fuzzy(q, strings.ToLower(e.Name+" "+e.Desc)); ok {
			hits = append(hits, scored{e, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	m.matches = m.matches[:0]
	for _, h := range hits {
		m.matches = append(m.matches, h.e)
	}
	if m.sel >= len(m.matches) {
		m.sel = 0
	}
}

// Fuzzy reports whether the letters of q appear in s in order, and a
// score favouring matches at the start and in runs.
func Fuzzy(q, s string) (int, bool) {
	if q == "" {
		return 0, true
	}
	score, j, run := 0, 0, 0
	for i := 0; i < len(s) && j < len(q); i++ {
		if s[i] == q[j] {
			j++
			run++
			score += run
			if i == j-1 {
				score += 3 // prefix
			}
		} else {
			run = 0
		}
	}
	return score, j == len(q)
}

// View renders the input and up to 10 matches.
func (m Model) View() string {
	lines := []string{m.input.View()}
	// Columns as wide as what they show, the same while filtering (a long
	// usage is cut, never pushes the description out of line).
	nameW, usageW := 0, 0
	for _, e := range m.entries {
		nameW, usageW = max(nameW, ansi.StringWidth(e.Name)), max(usageW, ansi.StringWidth(e.Usage))
	}
	nameW, usageW = min(nameW, 18), min(usageW, max(m.width/3, 12))
	for i, e := range m.matches {
		if i >= 10 {
			lines = append(lines, m.st.Muted.Render("  …"))
			break
		}
		line := ansi.Truncate("  "+layout.Pad(ansi.Truncate(e.Name, nameW, "…"), nameW)+" "+layout.Pad(ansi.Truncate(e.Usage, usageW, "…"), usageW)+" "+e.Desc, max(m.width-2, 10), "…")
		if i == m.sel {
			line = m.st.Selected.Render(line)
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
