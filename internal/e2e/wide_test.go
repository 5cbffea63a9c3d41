package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/cellwidth"
)

// The ninth red team's finding 15: an agent printed a line of Hangul
// leading consonants (two cells each for tmux, one two-cell cluster for
// lipgloss) and lines of ❤️ (one cell for tmux 3.3a, two for lipgloss);
// the screen pane's line was wider on the screen than the console counted,
// tmux wrapped it, the whole console scrolled a row, the Agents pane lost
// its top border, the Inbox's was drawn twice, and an item's text showed
// under another item's id. The same text in the inbox did the same.
//
// The real console runs in tmux with such an agent and such questions; at
// 160x45 and at 100x30 every row stays in place: the Agents pane's top
// border is the first row, each pane's border is drawn once, every row is
// exactly the window's width and ends in a border, and no inbox id shows
// twice.
func TestWideCharactersKeepTheConsoleInPlace(t *testing.T) {
	jamo := strings.Repeat("\u1100", 46)
	hearts := strings.Repeat("\u2764\ufe0f", 60)
	mixed := "\U0001F44D\U0001F3FD \U0001F468\u200d\U0001F469 \U0001F1FA\U0001F1F8 \U0001F3FD a\u1161 \u1112\u1161\u11ab end"
	fake := "│p-4 permission from qa · T-1             1m││"
	dev := hearts + " first row\n" + strings.Repeat("say \n", 17) +
		"say " + jamo + "filler" + fake + "\nsay " + hearts + " hearts\nsay " + mixed + "\nsay dev-wide-done\n"
	qa := fmt.Sprintf("route to=team-lead type=question task=T-1 body=\"%s%s\"\n", jamo, fake) +
		fmt.Sprintf("route to=team-lead type=question task=T-2 body=\"%s\"\n", hearts) +
		fmt.Sprintf("route to=team-lead type=question task=T-3 body=\"%s\"\n", mixed) +
		"route to=team-lead type=question task=T-4 body=\"the last question\"\n"
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", flags: []string{"--raw"}, script: "write \\e[2J\\e[H\nsay " + dev},
		agentDef{name: "qa", flags: []string{"--raw"}, script: qa},
	)
	c := tm.startInTmux(160, 45)
	c.waitScreen("dev's wide text and qa's questions", "dev-wide-done", "q-0004", "the last question")
	for _, size := range [][2]int{{160, 45}, {100, 30}} {
		if size[0] != 160 {
			c.tmux("resize-window", "-t", "main", "-x", fmt.Sprint(size[0]), "-y", fmt.Sprint(size[1]))
		}
		var s, problem string
		waitFor(t, 20*time.Second, fmt.Sprintf("the console in place at %dx%d", size[0], size[1]), func() bool {
			s = c.screen()
			problem = misplaced(s, size[0], size[1])
			return problem == ""
		}, func() string { return problem + "\nscreen:\n" + s })
	}
}

// misplaced says what is out of place on a capture of the console at
// cols x rows, or "" if nothing is.
func misplaced(s string, cols, rows int) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) != rows {
		return fmt.Sprintf("%d rows, want %d", len(lines), rows)
	}
	if !strings.HasPrefix(lines[0], "╭─ Agents (2)") {
		return "the first row is not the Agents pane's top border"
	}
	for _, border := range []string{"╭─ Agents (", "╭─ Inbox (", "╭─ Activity", "╭─ dev — developer"} {
		if n := strings.Count(s, border); n != 1 {
			return fmt.Sprintf("%q is drawn %d times", border, n)
		}
	}
	for _, id := range []string{"q-0001", "q-0002", "q-0003", "q-0004"} {
		if n := strings.Count(s, id+" "); n != 1 {
			return fmt.Sprintf("%s is shown %d times", id, n)
		}
	}
	for i, l := range lines[:rows-1] { // the status bar is not framed
		if w := cellwidth.String(l); w != cols {
			return fmt.Sprintf("row %d is %d cells wide, want %d: %q", i, w, cols, l)
		}
		if !strings.HasSuffix(l, "│") && !strings.HasSuffix(l, "╮") && !strings.HasSuffix(l, "╯") {
			return fmt.Sprintf("row %d does not end in a border: %q", i, l)
		}
	}
	return ""
}
