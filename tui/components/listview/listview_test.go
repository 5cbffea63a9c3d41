package listview

import (
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

func newList() List[string] {
	keys := KeyMap{
		Up: key.NewBinding(key.WithKeys("up")), Down: key.NewBinding(key.WithKeys("down")),
		PageUp: key.NewBinding(key.WithKeys("pgup")), PageDown: key.NewBinding(key.WithKeys("pgdown")),
		Detail: key.NewBinding(key.WithKeys("enter")), Back: key.NewBinding(key.WithKeys("esc")),
	}
	id := func(s string) string { return s }
	match := func(s, filter string) bool { return strings.Contains(s, filter) }
	return New(keys, id, match, slices.Sort[[]string])
}

func press(l List[string], k tea.KeyType) List[string] {
	l, _ = l.Update(tea.KeyMsg{Type: k})
	return l
}

func TestSelectionFollowsTheRow(t *testing.T) {
	l := newList()
	l.Set([]string{"c", "a", "b"})
	if got := strings.Join(l.Rows(), " "); got != "a b c" {
		t.Fatalf("rows %q", got)
	}
	l.Select("b")
	l.ShowDetail(true)
	l.Set([]string{"b", "0"}) // b moves down a row
	if s, _ := l.Selected(); s != "b" || !l.InDetail() {
		t.Errorf("selected %q, detail %v; want b, open", s, l.InDetail())
	}
	l.SetFilter(" 0 ") // b is filtered out: the top row, detail closed
	if s, _ := l.Selected(); s != "0" || l.InDetail() || l.Filter() != "0" {
		t.Errorf("selected %q, detail %v, filter %q", s, l.InDetail(), l.Filter())
	}
	if len(l.All()) != 2 {
		t.Errorf("all %v", l.All())
	}
	l.SetFilter("nothing")
	if _, ok := l.Selected(); ok || l.Len() != 0 {
		t.Errorf("selected from none")
	}
	l.ShowDetail(true)
	if l.InDetail() {
		t.Errorf("detail of nothing")
	}
}

func TestKeys(t *testing.T) {
	l := newList()
	l.Set([]string{"a", "b", "c", "d", "e"})
	l.SetSize(20, 3) // a page is 2 rows
	for _, c := range []struct {
		key  tea.KeyType
		want int
	}{
		{tea.KeyDown, 1}, {tea.KeyPgDown, 3}, {tea.KeyPgDown, 4}, {tea.KeyUp, 3}, {tea.KeyPgUp, 1}, {tea.KeyPgUp, 0},
	} {
		if l = press(l, c.key); l.Index() != c.want {
			t.Errorf("after %v at %d, want %d", c.key, l.Index(), c.want)
		}
	}
	l = press(l, tea.KeyEnter)
	if !l.InDetail() {
		t.Fatal("enter: no detail")
	}
	lines := []string{"1", "2", "3", "4", "5"}
	for _, c := range []struct {
		key  tea.KeyType
		want string
	}{
		{tea.KeyDown, "2 3 4"}, {tea.KeyPgDown, "3 4 5"}, {tea.KeyPgUp, "2 3 4"}, {tea.KeyUp, "1 2 3"}, {tea.KeyUp, "1 2 3"},
	} {
		if l = press(l, c.key); strings.Join(l.Scroll(lines), " ") != c.want {
			t.Errorf("after %v scrolled to %v, want %s", c.key, l.Scroll(lines), c.want)
		}
	}
	if l.Index() != 0 {
		t.Errorf("scrolling the detail moved the selection to %d", l.Index())
	}
	if l = press(l, tea.KeyEsc); l.InDetail() {
		t.Error("esc: detail still open")
	}
}

func TestMarkAndWindow(t *testing.T) {
	l := newList()
	l.Set([]string{"a", "b"})
	l.Select("b")
	if got := l.Mark(0) + "|" + l.Mark(1); got != "  |› " {
		t.Errorf("unfocused marks %q", got)
	}
	l.SetFocused(true)
	if got := l.Mark(1); got != "▶ " || !l.Focused() {
		t.Errorf("focused mark %q", got)
	}
	lines := []string{"h", "1", "2", "3a", "3b", "4"}
	l.SetSize(10, 3)
	for _, c := range []struct {
		from, to int
		want     string
	}{
		{1, 2, "h 1 2"}, {3, 5, "2 3a 3b"}, {5, 6, "3a 3b 4"}, {3, 7, "3a 3b 4"},
	} {
		if got := strings.Join(l.Window(lines, c.from, c.to), " "); got != c.want {
			t.Errorf("window %d-%d: %s, want %s", c.from, c.to, got, c.want)
		}
	}
	l.SetSize(10, 0)
	if got := l.Window(lines, 5, 6); len(got) != len(lines) || l.Width() != 10 {
		t.Errorf("no height cut to %v", got)
	}
}

func TestOpenDetail(t *testing.T) {
	l := New[string](KeyMap{}, func(s string) string { return s }, func(string, string) bool { return true }, nil)
	l.Set([]string{"a", "b"})
	if l.OpenDetail("zz") || l.InDetail() {
		t.Fatal("opened a row that is not shown")
	}
	if !l.OpenDetail("b") || !l.InDetail() {
		t.Fatal("b not opened")
	}
	if r, _ := l.Selected(); r != "b" {
		t.Fatalf("selected %q", r)
	}
}
