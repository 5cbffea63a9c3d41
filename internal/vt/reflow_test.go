package vt

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
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
	var kinds []wrapKind
	for i := range term.sb.n {
		kinds = append(kinds, term.sb.get(i).kind())
	}
	term.mu.Unlock()
	if want := []wrapKind{softWrap, noWrap, padWrap, noWrap}; !slices.Equal(kinds, want) {
		t.Errorf("wrap kinds %v, want %v", kinds, want)
	}
}

// lcell is a cell of a logical line, as the tests compare them.
type lcell struct {
	s  string
	st Style
}

// logicalLines returns the lines of the scrollback and the main screen,
// rows joined where they were soft-wrapped, as cells: right halves of wide
// characters and blank cells at the end of a line left out, as are empty
// lines at the end.
func logicalLines(term *Terminal) [][]lcell {
	term.mu.Lock()
	defer term.mu.Unlock()
	var lines [][]lcell
	var cur []lcell
	add := func(cells []lcell, kind wrapKind) {
		cur = append(cur, cells...)
		if kind == noWrap {
			lines = append(lines, trimBlanks(cur))
			cur = nil
		}
	}
	for i := range term.sb.n {
		l := term.sb.get(i)
		var cells []lcell
		for _, c := range l.decode(nil) {
			if s := c.s; c.w > 0 {
				if s == "" {
					s = string(c.r)
				}
				cells = append(cells, lcell{s, c.st})
			}
		}
		add(cells, l.kind())
	}
	s := &term.main
	for y, row := range s.lines {
		var cells []lcell
		for _, c := range term.rowContent(row, s.wrapped[y]) {
			if c.width() > 0 {
				cells = append(cells, lcell{term.content(c), term.styles[c.sid()]})
			}
		}
		add(cells, s.wrapped[y])
	}
	if cur != nil {
		lines = append(lines, trimBlanks(cur))
	}
	for len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func trimBlanks(cells []lcell) []lcell {
	for len(cells) > 0 && cells[len(cells)-1].s == " " {
		cells = cells[:len(cells)-1]
	}
	return cells
}

// lineText returns a logical line as text, a style change shown as
// {FG BG Attrs}.
func lineText(cells []lcell) string {
	var b strings.Builder
	var st Style
	for _, c := range cells {
		if c.st != st {
			fmt.Fprintf(&b, "{%x %x %x}", uint32(c.st.FG), uint32(c.st.BG), uint16(c.st.Attrs))
			st = c.st
		}
		b.WriteString(c.s)
	}
	return b.String()
}

// diffLines describes how two lists of logical lines differ, or "".
func diffLines(got, want [][]lcell) string {
	var b strings.Builder
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = lineText(got[i])
		}
		if i < len(want) {
			w = lineText(want[i])
		}
		if g != w || i >= len(got) || i >= len(want) {
			fmt.Fprintf(&b, "line %d:\n  got  %q\n  want %q\n", i, g, w)
			if b.Len() > 2000 {
				break
			}
		}
	}
	return b.String()
}

// cursorInLine returns the logical line the main screen's cursor is in
// and its offset there in cells (one past the last column when a wrap is
// pending).
func cursorInLine(term *Terminal) (line, off int) {
	term.mu.Lock()
	defer term.mu.Unlock()
	var kinds []wrapKind
	var widths []int
	for i := range term.sb.n {
		l := term.sb.get(i)
		kinds, widths = append(kinds, l.kind()), append(widths, len(l.decode(nil)))
	}
	s := &term.main
	for y, row := range s.lines {
		kinds, widths = append(kinds, s.wrapped[y]), append(widths, len(term.rowContent(row, s.wrapped[y])))
	}
	at := term.sb.n + term.y
	for i := range at {
		off += widths[i]
		if kinds[i] == noWrap {
			line, off = line+1, 0
		}
	}
	return line, off + term.x + btoi(term.wrapNext)
}

// agentScreen writes what an agent's screen holds: numbered paragraphs of
// styled prose, long enough to wrap at 160 columns, with wide characters
// (界) and a combining mark, a row of wide characters only, then a prompt
// with the cursor after it.
func agentScreen(w io.Writer, paragraphs int) {
	for i := range paragraphs {
		fmt.Fprintf(w, "\x1b[1;38;5;%dm%3d\x1b[m ", 16+i%200, i)
		for j := range 12 + i%9 {
			switch j % 4 {
			case 0:
				io.WriteString(w, "the agent \x1b[31mis waiting\x1b[m for approval to run a ")
			case 1:
				fmt.Fprintf(w, "\x1b[38;2;200;100;%dm界面\x1b[m recursive delete of 世界 ", j)
			case 2:
				io.WriteString(w, "\x1b[4mcafe\u0301\x1b[24m and ")
			default:
				io.WriteString(w, "\x1b[44mon a blue ground\x1b[m; ")
			}
		}
		io.WriteString(w, "end.\r\n")
		if i%7 == 3 {
			io.WriteString(w, strings.Repeat("界", 97)+"\r\n")
		}
	}
	io.WriteString(w, "\x1b[32m>\x1b[m ask me")
}

// TestReflowRoundTrip resizes an agent's screen 160→100→60→160 columns:
// every character, with its style, is in its line in order at each width
// and the screen and the cursor are back as they were at the end.
func TestReflowRoundTrip(t *testing.T) {
	term := New(160, 40, Options{})
	agentScreen(term, 60)
	want := logicalLines(term)
	wantScreen, wantRender := term.ScreenText(), term.Render(0, 160, 40)
	wantX, wantY, _ := term.Cursor()
	wantLine, wantOff := cursorInLine(term)
	for _, cols := range []int{100, 60, 160} {
		term.Resize(cols, 40)
		if err := checkInvariants(term); err != nil {
			t.Fatalf("at %d columns: %v", cols, err)
		}
		if d := diffLines(logicalLines(term), want); d != "" {
			t.Fatalf("at %d columns the lines differ:\n%s", cols, d)
		}
		if line, off := cursorInLine(term); line != wantLine || off != wantOff {
			t.Errorf("at %d columns the cursor is in line %d at %d, want %d at %d", cols, line, off, wantLine, wantOff)
		}
	}
	if got := term.ScreenText(); got != wantScreen {
		t.Errorf("screen after the round trip:\n%s\nwant\n%s", got, wantScreen)
	}
	if got := term.Render(0, 160, 40); got != wantRender {
		t.Error("the screen's styles differ after the round trip")
	}
	if x, y, _ := term.Cursor(); x != wantX || y != wantY {
		t.Errorf("cursor %d,%d after the round trip, want %d,%d", x, y, wantX, wantY)
	}
}

// cellAtCursor returns the content of the cell under the cursor.
func cellAtCursor(term *Terminal) string {
	x, y, _ := term.Cursor()
	return term.Row(y)[x].Content
}

// TestReflowCursor checks the cursor stays on its character, or just past
// the line's end, as the width changes.
func TestReflowCursor(t *testing.T) {
	t.Run("on a character of a wrapped line", func(t *testing.T) {
		term := New(10, 5, Options{})
		term.Write([]byte("0123456789abcdefghij\x1b[2;5H"))
		for _, c := range []struct{ cols, x, y int }{{7, 0, 2}, {25, 14, 0}, {3, 2, 2}, {10, 4, 1}} {
			term.Resize(c.cols, 5)
			if x, y, _ := term.Cursor(); x != c.x || y != c.y || cellAtCursor(term) != "e" {
				t.Errorf("at %d columns: cursor %d,%d on %q, want %d,%d on e", c.cols, x, y, cellAtCursor(term), c.x, c.y)
			}
		}
	})
	t.Run("pending wrap at the end of a full row", func(t *testing.T) {
		term := New(10, 3, Options{})
		term.Write([]byte("0123456789"))
		term.Resize(5, 3)
		if x, y, _ := term.Cursor(); x != 4 || y != 1 {
			t.Errorf("cursor %d,%d, want 4,1 with the wrap pending", x, y)
		}
		term.Write([]byte("X"))
		term.Resize(20, 3)
		if got := term.Text(0); got != "0123456789X" {
			t.Errorf("row 0 %q", got)
		}
		if x, y, _ := term.Cursor(); x != 11 || y != 0 {
			t.Errorf("cursor %d,%d, want 11,0", x, y)
		}
	})
	t.Run("after a prompt's trailing space", func(t *testing.T) {
		term := New(20, 3, Options{})
		term.Write([]byte("$ "))
		term.Resize(10, 3)
		if x, y, _ := term.Cursor(); x != 2 || y != 0 {
			t.Errorf("cursor %d,%d, want 2,0", x, y)
		}
	})
	t.Run("on an empty line below the text", func(t *testing.T) {
		term := New(10, 4, Options{})
		term.Write([]byte("0123456789abcde\r\n"))
		term.Resize(5, 4)
		if x, y, _ := term.Cursor(); x != 0 || y != 3 {
			t.Errorf("cursor %d,%d, want 0,3", x, y)
		}
	})
	t.Run("past the end of a line, on the blanks after it", func(t *testing.T) {
		// As if typed: the blanks up to the cursor wrap with the line.
		term := New(20, 2, Options{})
		term.Write([]byte("ab\x1b[1;16H"))
		term.Resize(8, 2)
		if x, y, _ := term.Cursor(); x != 7 || y != 1 || !term.Wrapped(0) {
			t.Errorf("cursor %d,%d, want 7,1 after a wrapped row", x, y)
		}
	})
	t.Run("on the right half of a wide character", func(t *testing.T) {
		term := New(7, 3, Options{})
		term.Write([]byte("ab界界界\x1b[1;6H"))
		term.Resize(4, 3)
		// 界 at columns 4 and 5 of the line goes to row 1 of "ab界", "界界".
		if x, y, _ := term.Cursor(); x != 1 || y != 1 || term.Row(1)[0].Content != "界" {
			t.Errorf("cursor %d,%d, row 1 %q", x, y, term.Text(1))
		}
	})
	t.Run("saved cursor", func(t *testing.T) {
		term := New(10, 3, Options{})
		term.Write([]byte("0123456789abcdefghij\x1b[2;4H\x1b7\x1b[3;1H"))
		term.Resize(4, 6)
		term.Write([]byte("\x1b8"))
		if cellAtCursor(term) != "d" {
			t.Errorf("restored cursor on %q, want d", cellAtCursor(term))
		}
	})
	t.Run("main screen's under the alternate screen", func(t *testing.T) {
		term := New(10, 3, Options{})
		term.Write([]byte("0123456789abcdefghij\x1b[2;4H\x1b[?1049h\x1b[2;2Halt"))
		term.Resize(6, 3)
		if x, y, _ := term.Cursor(); x != 4 || y != 1 {
			t.Errorf("alternate screen's cursor %d,%d, want 4,1", x, y)
		}
		term.Write([]byte("\x1b[?1049l"))
		if cellAtCursor(term) != "d" {
			t.Errorf("restored cursor on %q, want d", cellAtCursor(term))
		}
	})
}

// TestReflowScrollback checks lines in the scrollback, and a line
// split between it and the screen, are rewrapped with the screen's.
func TestReflowScrollback(t *testing.T) {
	term := New(20, 4, Options{Scrollback: 1000})
	var want []string
	for i := range 30 {
		line := fmt.Sprintf("%02d:%s", i, strings.Repeat(string(rune('a'+i%26)), i*3%50))
		want = append(want, line)
		term.Write([]byte(line + "\r\n"))
	}
	// The last line is split: the screen holds its end.
	long := strings.Repeat("0123456789", 9)
	want = append(want, long)
	term.Write([]byte(long))
	check := func(cols int) {
		t.Helper()
		var got []string
		for _, l := range logicalLines(term) {
			got = append(got, lineText(l))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("at %d columns the lines are\n%q\nwant\n%q", cols, got, want)
		}
		for i := range term.ScrollbackLen() {
			if n := len(term.ScrollbackText(i)); term.ScrollbackWrapped(i) && n != cols || n > cols {
				t.Fatalf("at %d columns scrollback line %d is %d long (wrapped %v)", cols, i, n, term.ScrollbackWrapped(i))
			}
		}
	}
	for _, cols := range []int{7, 33, 20, 50, 3, 20} {
		term.Resize(cols, 4)
		check(cols)
	}
}

// TestReflowScrollbackLimit checks a reflow that makes more rows than the
// scrollback holds keeps the newest, and counts the others as scrolled off.
func TestReflowScrollbackLimit(t *testing.T) {
	term := New(40, 5, Options{Scrollback: 20})
	for i := range 50 {
		fmt.Fprintf(term, "%02d %s\r\n", i, strings.Repeat("x", 30))
	}
	before := term.ScrolledOff()
	term.Resize(10, 5)
	if n := term.ScrollbackLen(); n != 20 {
		t.Fatalf("scrollback holds %d rows", n)
	}
	if got := term.ScrollbackText(19); got != "xxx" || term.ScrollbackWrapped(19) || term.ScrolledOff() < before {
		t.Errorf("newest scrollback row %q, scrolled off %d then %d", got, before, term.ScrolledOff())
	}
	snap := term.Snapshot()
	if snap.ScrolledOff < uint64(len(snap.Scrollback)) {
		t.Errorf("scrolled off %d with %d lines kept", snap.ScrolledOff, len(snap.Scrollback))
	}
	// The screen's lines are whole.
	lines := logicalLines(term)
	if got := lineText(lines[len(lines)-1]); got != "49 "+strings.Repeat("x", 30) {
		t.Errorf("last line %q", got)
	}
}

// TestReflowAltScreen checks the alternate screen is cut, not reflowed,
// while the main screen under it is.
func TestReflowAltScreen(t *testing.T) {
	term := New(12, 4, Options{})
	term.Write([]byte("main line that wraps\r\n$ \x1b[?1049h\x1b[1;1Halternate 12\x1b[2;1Hand a line that wraps"))
	term.Resize(6, 4)
	if got := ourLines(term); !slices.Equal(got, []string{"altern", "and a", "hat wr"}) {
		t.Errorf("alternate screen %q", got)
	}
	term.Write([]byte("\x1b[?1049l"))
	if got := ourLines(term); !slices.Equal(got, []string{"ine th", "at wra", "ps", "$"}) || term.ScrollbackText(0) != "main l" {
		t.Errorf("main screen %q", got)
	}
	if x, y, _ := term.Cursor(); x != 2 || term.Text(y) != "$" {
		t.Errorf("cursor %d,%d on row %q", x, y, term.Text(y))
	}
}

// TestReflowTrailingBlanks checks the blank cells that end a line make no
// rows of their own when the screen gets narrower, and that a coloured
// ground to the end of a row keeps its colour as far as the row goes.
func TestReflowTrailingBlanks(t *testing.T) {
	term := New(20, 4, Options{})
	term.Write([]byte("xyz      \r\n\x1b[41mred\x1b[K\x1b[m\r\nend"))
	term.Resize(4, 4)
	if got := ourLines(term); !slices.Equal(got, []string{"xyz", "red", "end"}) {
		t.Errorf("screen %q", got)
	}
	if term.Wrapped(0) || term.Wrapped(1) {
		t.Error("a line's trailing blanks were wrapped")
	}
	if c := term.Row(1)[3]; c.Style.BG != red {
		t.Errorf("the red ground ends before the row: %+v", c)
	}
}

// TestReflowHeightRoundTrip checks a screen made shorter and taller again
// takes back the rows it pushed into the scrollback.
func TestReflowHeightRoundTrip(t *testing.T) {
	term := New(10, 6, Options{})
	term.Write([]byte("old\r\n\x1b[2J\x1b[H1\r\n2\r\n3\r\n4\r\n5\r\n6"))
	sb := term.ScrollbackLen()
	want := term.ScreenText()
	term.Resize(10, 2)
	if got := ourLines(term); !slices.Equal(got, []string{"5", "6"}) || term.ScrollbackLen() != sb+4 {
		t.Errorf("shorter: screen %q, scrollback %d", got, term.ScrollbackLen())
	}
	term.Resize(10, 6)
	if got := term.ScreenText(); got != want || term.ScrollbackLen() != sb {
		t.Errorf("taller again: screen %q, scrollback %d, want %q and %d", got, term.ScrollbackLen(), want, sb)
	}
	if x, y, _ := term.Cursor(); x != 1 || y != 5 {
		t.Errorf("cursor %d,%d", x, y)
	}
	// Only what resizes lent comes back.
	term.Resize(10, 8)
	if got := ourLines(term); len(got) != 6 || term.ScrollbackLen() != sb {
		t.Errorf("taller still: screen %q, scrollback %d", got, term.ScrollbackLen())
	}
}

// reflowTokens are what randomLines makes lines of.
var reflowTokens = []string{
	"word", "a", "reflow", "the", "agent", "x",
	" ", "  ", "    ",
	"界", "中文", "😀", "e\u0301", "👨\u200d👩", "界界界界界界界界", "❤\ufe0f", "👍\U0001F3FD", "\u1100\u1100",
	"\x1b[31m", "\x1b[1;44m", "\x1b[m", "\x1b[38;2;1;2;3m", "\x1b[4m", "\x1b[24;49m",
}

// randomLines returns lines of random words, blanks, wide characters,
// combining marks, clusters and style changes, each up to some 300
// columns.
func randomLines(r *rand.Rand, lines int) string {
	var b strings.Builder
	for i := range lines {
		for range r.IntN(r.IntN(80) + 1) {
			b.WriteString(reflowTokens[r.IntN(len(reflowTokens))])
		}
		if i < lines-1 || r.IntN(2) == 0 {
			b.WriteString("\r\n")
		}
	}
	return b.String()
}

// TestReflowProperty writes random text at a random size, resizes through
// random sizes and back, and checks the lines (characters and styles in
// order) and the cursor's place in them never change.
func TestReflowProperty(t *testing.T) {
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 7))
		cols, rows := 2+r.IntN(120), 1+r.IntN(30)
		term := New(cols, rows, Options{Scrollback: 100000})
		term.Write([]byte(randomLines(r, 1+r.IntN(40))))
		want := logicalLines(term)
		wantLine, wantOff := cursorInLine(term)
		sizes := [][2]int{}
		for range 1 + r.IntN(6) {
			sizes = append(sizes, [2]int{2 + r.IntN(130), 1 + r.IntN(30)})
		}
		sizes = append(sizes, [2]int{cols, rows})
		for _, size := range sizes {
			term.Resize(size[0], size[1])
			if err := checkInvariants(term); err != nil {
				t.Fatalf("seed %d, %dx%d then %v: %v", seed, cols, rows, sizes, err)
			}
			if d := diffLines(logicalLines(term), want); d != "" {
				t.Fatalf("seed %d, %dx%d then %v: at %v the lines differ:\n%s", seed, cols, rows, sizes, size, d)
			}
			if line, off := cursorInLine(term); line != wantLine || off != wantOff {
				t.Fatalf("seed %d, %dx%d then %v: at %v the cursor is in line %d at %d, want %d at %d",
					seed, cols, rows, sizes, size, line, off, wantLine, wantOff)
			}
		}
	}
}
