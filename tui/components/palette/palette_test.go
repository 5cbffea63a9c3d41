package palette

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

var entries = []Entry{
	{Name: "/send", Usage: "<agent> <text>", Desc: "type text into an agent"},
	{Name: "/answer", Usage: "<id> <text>", Desc: "answer an item of the inbox"},
	{Name: "show-inbox", Usage: "2", Desc: "inbox"},
	{Name: "quit", Usage: "q", Desc: "quit"},
}

func typeText(m Model, s string) Model {
	for _, r := range s {
		m, _ = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return m
}

func TestFilterAndRun(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true), entries)
	m.SetWidth(70)
	m.Open()
	golden.Assert(t, "open", m.View())
	m = typeText(m, "inb")
	golden.Assert(t, "filtered", m.View())
	if r, ok := m.Enter(); !ok || r.Name != "show-inbox" {
		t.Errorf("enter: %+v %v", r, ok)
	}
	m.Open()
	m = typeText(m, "/send dev hello there")
	if r, ok := m.Enter(); !ok || r.Name != "/send" || r.Args != "dev hello there" {
		t.Errorf("command: %+v", r)
	}
}

func TestFuzzy(t *testing.T) {
	if _, ok := Fuzzy("shin", "show-inbox"); !ok {
		t.Error("subsequence not matched")
	}
	if _, ok := Fuzzy("xq", "show-inbox"); ok {
		t.Error("non-subsequence matched")
	}
	a, _ := Fuzzy("sho", "show-inbox")
	b, _ := Fuzzy("sho", "a-show")
	if a <= b {
		t.Errorf("prefix match should score higher: %d vs %d", a, b)
	}
}

// TestLongUsageKeepsColumns: a usage longer than its column is cut, and
// every description starts in the same column.
func TestLongUsageKeepsColumns(t *testing.T) {
	th, _ := themes.Load("dark")
	long := append([]Entry{{Name: "/reassign", Usage: "<q-id> <kind/name> | <c-id> <agent> and more words", Desc: "DESC give it away"}}, entries...)
	for i := range long {
		long[i].Desc = "DESC " + long[i].Desc
	}
	m := New(style.New(th, true), long)
	m.SetWidth(90)
	col := -1
	for _, line := range strings.Split(m.View(), "\n")[1:] {
		i := strings.Index(line, "DESC")
		if i < 0 {
			t.Fatalf("a description is cut off: %q", line)
		}
		if i = len([]rune(line[:i])); col == -1 {
			col = i
		} else if i != col {
			t.Errorf("description at column %d, not %d: %q", i, col, line)
		}
	}
}
