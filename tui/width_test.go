package tui

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/cellwidth"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/vt"
	"github.com/teamlead/teamlead/tui/components/screen"
)

// The ninth red team's finding 15: what an agent printed.
var (
	jamoLine  = strings.Repeat("\u1100", 46) + "filler │p-4 permission from qa · T-1             1m││"
	heartLine = strings.Repeat("\u2764\ufe0f", 60) + " hearts"
	mixedLine = "\U0001F44D\U0001F3FD \U0001F468\u200d\U0001F469 \U0001F1FA\U0001F1F8 \U0001F3FD a\u1161 \u0915\u093e \ufe0f end"
)

// rawScreen is a source that draws the agent's text as it came, the
// widths unchecked: the panes must hold it all the same.
type rawScreen struct{}

func (rawScreen) ScrollbackLen() int { return 0 }
func (rawScreen) Render(offset, w, h int) string {
	lines := []string{jamoLine, heartLine, mixedLine}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines[:h], "\n")
}

// wideConsole is the fake console whose agents all show src.
type wideConsole struct {
	*fakeConsole
	src screen.Source
}

func (c wideConsole) Screen(string) screen.Source { return c.src }

var sgrRE = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// assertFits fails unless view has height lines each exactly width cells
// wide for lipgloss and for tmux, holding nothing whose width terminals
// disagree about.
func assertFits(t *testing.T, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("%d lines, want %d", len(lines), height)
	}
	for i, l := range lines {
		text := ansi.Strip(l)
		if gw, tw := ansi.StringWidth(l), cellwidth.String(text); gw != width || tw != width {
			t.Errorf("line %d is %d cells for lipgloss and %d for tmux, want %d: %q", i, gw, tw, width, text)
		}
		for _, seg := range sgrRE.Split(l, -1) {
			if !cellwidth.Sure(seg) {
				t.Errorf("line %d holds %q, whose width terminals disagree about", i, seg)
			}
		}
	}
}

// Every line of the console, panes and rows, takes exactly the window's
// width whatever the agents wrote, on their screens and in the inbox.
func TestWideCharactersStayInTheirPanes(t *testing.T) {
	for _, name := range []string{"raw", "emulated"} {
		for _, size := range [][2]int{{160, 45}, {100, 30}} {
			t.Run(fmt.Sprintf("%s-%dx%d", name, size[0], size[1]), func(t *testing.T) {
				f := newFake()
				f.inbox = append(f.inbox,
					lead.InboxItem{ID: "m-1", From: "dev", Type: "blocker", Task: "T-1", Body: jamoLine, Since: t0},
					lead.InboxItem{ID: "m-2", From: "dev", Type: "blocker", Task: "T-2", Body: heartLine, Since: t0},
					lead.InboxItem{ID: "m-3", From: "dev", Type: "blocker", Task: "T-3", Body: mixedLine, Since: t0})
				for i := range f.agents {
					f.agents[i].Role += " " + strings.Repeat("\u1100", 8)
				}
				mm, _ := newModel(f).Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
				m := mm.(Model)
				var src screen.Source = rawScreen{}
				if name == "emulated" {
					// The agent's terminal, the size of the screen pane.
					cols, rows := m.screen.Size()
					term := vt.New(cols, rows, vt.Options{Scrollback: 50})
					for _, l := range []string{jamoLine, heartLine, mixedLine} {
						term.Write([]byte(l + "\r\n"))
					}
					src = term
				}
				m.con = wideConsole{f, src}
				m.refreshAgents()
				view := m.View()
				assertFits(t, view, size[0], size[1])
				if !strings.Contains(view, "Agents (3)") || !strings.Contains(view, "╭─ Inbox (") {
					t.Errorf("a pane's top border is missing:\n%s", view)
				}
				if t.Failed() {
					t.Logf("view:\n%s", ansi.Strip(view))
				}
			})
		}
	}
}
