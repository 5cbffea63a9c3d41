package vt

import (
	"slices"
	"testing"
)

// sbCells returns scrollback line i's cells as text, one string per cell
// ("" for the right half of a wide character).
func sbCells(term *Terminal, i int) []string {
	term.mu.Lock()
	defer term.mu.Unlock()
	var out []string
	for _, c := range term.sb.get(i).decode(nil) {
		switch {
		case c.w == 0:
			out = append(out, "")
		case c.s != "":
			out = append(out, c.s)
		default:
			out = append(out, string(c.r))
		}
	}
	return out
}

// TestScrollbackKeepsWrappedRows checks the scrollback keeps all of a
// wrapped row's cells, a space at its end included, but not the column a
// wide character that didn't fit left as padding: reflow reads the line
// back from them.
func TestScrollbackKeepsWrappedRows(t *testing.T) {
	term := New(6, 2, Options{})
	term.Write([]byte("hello world\r\nabcde界\r\n\r\n"))
	if n := term.ScrollbackLen(); n != 4 {
		t.Fatalf("scrollback holds %d lines", n)
	}
	for i, want := range [][]string{
		{"h", "e", "l", "l", "o", " "},
		{"w", "o", "r", "l", "d"},
		{"a", "b", "c", "d", "e"},
		{"界", ""},
	} {
		if got := sbCells(term, i); !slices.Equal(got, want) {
			t.Errorf("line %d: cells %q, want %q", i, got, want)
		}
	}
	term.mu.Lock()
	kinds := []wrapKind{}
	for i := range term.sb.n {
		_, _, k := term.sb.get(i).parts()
		kinds = append(kinds, k)
	}
	term.mu.Unlock()
	if want := []wrapKind{softWrap, noWrap, padWrap, noWrap}; !slices.Equal(kinds, want) {
		t.Errorf("wrap kinds %v, want %v", kinds, want)
	}
}
