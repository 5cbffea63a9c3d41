// Package listview is what the console's boards (consultations, tasks,
// permissions) share: the rows as given and as shown (filtered, ordered),
// the selection kept on the same row across updates, the detail of the
// selected row and its scroll, the keys that move them, and the cut of a
// board's lines to the pane's height. Each board keeps its own rendering.
package listview

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// KeyMap are the keys a board handles itself: moving and the detail.
type KeyMap struct {
	// Up and Down move the selection (or scroll the detail).
	Up, Down key.Binding
	// PageUp and PageDown move by a page.
	PageUp, PageDown key.Binding
	// Detail opens (and closes) the selected row's detail.
	Detail key.Binding
	// Back leaves the detail.
	Back key.Binding
}

// List is a board's rows of T, the selected one and its detail. Boards
// embed it and add their rendering.
type List[T any] struct {
	all     []T // as given
	rows    []T // shown: filtered and ordered
	filter  string
	sel     int
	detail  bool
	offset  int // the detail's scroll
	width   int
	height  int
	focused bool
	keys    KeyMap
	id      func(T) string
	match   func(T, string) bool
	order   func([]T)
}

// New returns an empty list: id names a row (the selection follows it),
// match reports whether a row passes the filter text, order sorts the
// shown rows in place (nil: as given).
func New[T any](keys KeyMap, id func(T) string, match func(T, string) bool, order func([]T)) List[T] {
	return List[T]{keys: keys, id: id, match: match, order: order}
}

// Set replaces the rows, keeping the selection on the same one.
func (l *List[T]) Set(all []T) {
	l.all = append([]T(nil), all...)
	l.refilter()
}

// SetFilter shows only the rows that match text (trimmed).
func (l *List[T]) SetFilter(text string) {
	l.filter = strings.TrimSpace(text)
	l.refilter()
}

// Filter is the current filter text.
func (l List[T]) Filter() string { return l.filter }

// refilter rebuilds the shown rows; the selection stays on the row it was
// on, or goes to the top and closes the detail when that row is gone.
func (l *List[T]) refilter() {
	cur, _ := l.Selected()
	l.rows = l.rows[:0]
	for _, r := range l.all {
		if l.match(r, l.filter) {
			l.rows = append(l.rows, r)
		}
	}
	if l.order != nil {
		l.order(l.rows)
	}
	l.sel = 0
	found := false
	for i, r := range l.rows {
		if l.id(r) == l.id(cur) {
			l.sel, found = i, true
		}
	}
	if !found {
		l.detail = false // its subject is gone: never show another's
	}
}

// All is every row as given, filter or not (not to be changed).
func (l List[T]) All() []T { return l.all }

// Rows are the rows shown, in order (not to be changed).
func (l List[T]) Rows() []T { return l.rows }

// Len is the number of rows shown.
func (l List[T]) Len() int { return len(l.rows) }

// Index is the position of the selected row among those shown.
func (l List[T]) Index() int { return l.sel }

// Selected is the selected row (false when none is shown).
func (l List[T]) Selected() (T, bool) {
	if l.sel < len(l.rows) {
		return l.rows[l.sel], true
	}
	var zero T
	return zero, false
}

// Select selects the row named id if it is shown.
func (l *List[T]) Select(id string) bool {
	return l.SelectFunc(func(r T) bool { return l.id(r) == id })
}

// OpenDetail selects the row named id and opens its detail; false (nothing
// changed) if it is not shown.
func (l *List[T]) OpenDetail(id string) bool {
	if !l.Select(id) {
		return false
	}
	l.ShowDetail(true)
	return true
}

// SelectFunc selects the first shown row for which is reports true.
func (l *List[T]) SelectFunc(is func(T) bool) bool {
	for i, r := range l.rows {
		if is(r) {
			l.sel = i
			return true
		}
	}
	return false
}

// SelectFirst selects the top row and closes the detail.
func (l *List[T]) SelectFirst() {
	l.sel, l.detail = 0, false
}

// Move moves the selection by delta.
func (l *List[T]) Move(delta int) {
	if n := len(l.rows); n > 0 {
		l.sel = min(max(l.sel+delta, 0), n-1)
	}
}

// InDetail reports whether the detail of the selected row is shown.
func (l List[T]) InDetail() bool { return l.detail }

// ShowDetail opens (true) or closes the detail of the selected row.
func (l *List[T]) ShowDetail(on bool) {
	_, ok := l.Selected()
	l.detail, l.offset = on && ok, 0
}

// SetSize sets the pane's inner size.
func (l *List[T]) SetSize(w, h int) { l.width, l.height = w, h }

// Width is the pane's inner width.
func (l List[T]) Width() int { return l.width }

// SetFocused marks the pane focused.
func (l *List[T]) SetFocused(f bool) { l.focused = f }

// Focused reports whether the pane is focused.
func (l List[T]) Focused() bool { return l.focused }

// Update moves the selection, scrolls the detail, opens and closes it.
func (l List[T]) Update(msg tea.Msg) (List[T], tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return l, nil
	}
	page := max(l.height-1, 1)
	if l.detail {
		switch {
		case key.Matches(k, l.keys.Back), key.Matches(k, l.keys.Detail):
			l.detail = false
		case key.Matches(k, l.keys.Up):
			l.offset = max(l.offset-1, 0)
		case key.Matches(k, l.keys.Down):
			l.offset++
		case key.Matches(k, l.keys.PageUp):
			l.offset = max(l.offset-page, 0)
		case key.Matches(k, l.keys.PageDown):
			l.offset += page
		}
		return l, nil
	}
	switch {
	case key.Matches(k, l.keys.Up):
		l.Move(-1)
	case key.Matches(k, l.keys.Down):
		l.Move(1)
	case key.Matches(k, l.keys.PageUp):
		l.Move(-page)
	case key.Matches(k, l.keys.PageDown):
		l.Move(page)
	case key.Matches(k, l.keys.Detail):
		l.ShowDetail(true)
	}
	return l, nil
}

// Mark is what row i starts with: "▶ " when it is selected in a focused
// pane, "› " when selected in one not focused, two spaces otherwise.
func (l List[T]) Mark(i int) string {
	switch {
	case i != l.sel:
		return "  "
	case l.focused:
		return "▶ "
	}
	return "› "
}

// Window cuts a board's lines to the pane's height, keeping lines from
// up to to (the selected row's) in view.
func (l List[T]) Window(lines []string, from, to int) []string {
	if l.height > 0 && len(lines) > l.height {
		start := 0
		if to > l.height {
			start = min(to-l.height, from)
		}
		lines = lines[start:min(start+l.height, len(lines))]
	}
	return lines
}

// Scroll cuts a detail's lines to the pane's height from its scroll.
func (l List[T]) Scroll(lines []string) []string {
	if l.height > 0 && len(lines) > l.height {
		off := min(l.offset, len(lines)-l.height)
		lines = lines[off : off+l.height]
	}
	return lines
}
