package vt

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// vtCase is one table test: bytes in, screen out.
type vtCase struct {
	name       string
	cols, rows int // 10x4 if zero
	in         string
	want       []string // screen rows as text, trailing empty rows left out
	cursor     *[2]int  // expected cursor (x, y), if set
	check      func(t *testing.T, term *Terminal)
	// tmux says why tmux shows something else for this input; empty means
	// TestTableMatchesTmux compares the screen and cursor with tmux's.
	tmux string
}

func at(x, y int) *[2]int { return &[2]int{x, y} }

func (c vtCase) size() (int, int) {
	cols, rows := c.cols, c.rows
	if cols == 0 {
		cols = 10
	}
	if rows == 0 {
		rows = 4
	}
	return cols, rows
}

const (
	xtermEL    = "xterm's EL erases the cell under the cursor and cancels the deferred wrap; tmux does neither when the wrap is pending"
	xtermBS    = "with the deferred wrap pending, BS moves left of the last column in xterm; tmux leaves the cursor on it"
	tmuxHalf   = "tmux keeps a wide character whose right half is overwritten in its grid (capture-pane shows 中x); xterm blanks it"
	tmuxNoFFFD = "tmux drops invalid UTF-8; this emulator shows U+FFFD as xterm does"
	tmuxEmoji  = "tmux 3.3a keeps ❤️ one cell wide and 👍🏽 four; tmux 3.4, current terminals and the agents' width tables make them two (tmux 3.3a's capture-pane shows them without the gap)"
)

// wantCell checks the content and width of the cell at x, y.
func wantCell(x, y int, content string, width int8) func(*testing.T, *Terminal) {
	return func(t *testing.T, term *Terminal) {
		t.Helper()
		if c := term.Row(y)[x]; c.Content != content || c.Width != width {
			t.Errorf("cell %d,%d = %+v, want %q %d wide", x, y, c, content, width)
		}
	}
}

func cellStyle(t *testing.T, term *Terminal, x, y int) Style {
	t.Helper()
	row := term.Row(y)
	if x >= len(row) {
		t.Fatalf("no cell %d,%d", x, y)
	}
	return row[x].Style
}

func wantStyle(x, y int, want Style) func(*testing.T, *Terminal) {
	return func(t *testing.T, term *Terminal) {
		t.Helper()
		if got := cellStyle(t, term, x, y); got != want {
			t.Errorf("style of %d,%d = %+v, want %+v", x, y, got, want)
		}
	}
}

var red = IndexedColor(1)

var vtCases = []vtCase{
	// Text and C0 controls.
	{name: "plain", in: "hello", want: []string{"hello"}, cursor: at(5, 0)},
	{name: "crlf", in: "ab\r\ncd", want: []string{"ab", "cd"}, cursor: at(2, 1)},
	{name: "lf keeps the column", in: "ab\ncd", want: []string{"ab", "  cd"}},
	{name: "vt and ff are lf", in: "a\vb\fc", want: []string{"a", " b", "  c"}},
	{name: "backspace", in: "abc\bX", want: []string{"abX"}, cursor: at(3, 0)},
	{name: "backspace at column 0", in: "\b\bX", want: []string{"X"}},
	{name: "bell and nul ignored", in: "a\x07\x00b", want: []string{"ab"},
		check: func(t *testing.T, term *Terminal) {
			if term.Bells() != 1 {
				t.Errorf("bells = %d", term.Bells())
			}
		}},
	{name: "del ignored", in: "a\x7fb", want: []string{"ab"}},
	{name: "tab", cols: 20, in: "a\tb\tc", want: []string{"a       b       c"}},
	{name: "tab stops at the last column", in: "\t\t\tX", want: []string{"         X"}, cursor: at(9, 0)},
	{name: "tab clear all", in: "\x1b[3g\tX", want: []string{"         X"}},
	{name: "tab set", cols: 20, in: "\x1b[3gabc\x1bH\r\tX", want: []string{"abcX"}},
	{name: "cht", cols: 20, in: "\x1b[2IX\x1b[5IY", want: []string{"                X  Y"}, cursor: at(19, 0),
		tmux: "tmux 3.3a ignores CHT"},
	{name: "tab clear one", cols: 20, in: "\x1b[9G\x1b[g\r\tX", want: []string{"                X"}},
	{name: "back tab", cols: 20, in: "\x1b[15G\x1b[ZX\x1b[2ZY", want: []string{"Y       X"}},

	// Autowrap and the deferred wrap.
	{name: "deferred wrap", cols: 5, in: "abcde", want: []string{"abcde"}, cursor: at(4, 0)},
	{name: "wrap on the next character", cols: 5, in: "abcdef", want: []string{"abcde", "f"}, cursor: at(1, 1),
		check: func(t *testing.T, term *Terminal) {
			if !term.Wrapped(0) || term.Wrapped(1) {
				t.Error("row 0 should be soft-wrapped into row 1")
			}
		}},
	{name: "cr cancels the wrap", cols: 5, in: "abcde\rX", want: []string{"Xbcde"},
		check: func(t *testing.T, term *Terminal) {
			if term.Wrapped(0) {
				t.Error("not wrapped")
			}
		}},
	{name: "crlf after a full line", cols: 5, in: "abcde\r\nf", want: []string{"abcde", "f"},
		check: func(t *testing.T, term *Terminal) {
			if term.Wrapped(0) {
				t.Error("a full line ended by CRLF is not soft-wrapped")
			}
		}},
	{name: "no autowrap", cols: 5, in: "\x1b[?7labcdefg", want: []string{"abcdg"}, cursor: at(4, 0)},
	{name: "wrap scrolls", cols: 3, rows: 2, in: "abcdefg", want: []string{"def", "g"},
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 1 || term.ScrollbackText(0) != "abc" || !term.ScrollbackWrapped(0) {
				t.Errorf("scrollback %d %q %v", term.ScrollbackLen(), term.ScrollbackText(0), term.ScrollbackWrapped(0))
			}
		}},
	{name: "el at the pending wrap", cols: 5, in: "abcde\x1b[KX", want: []string{"abcdX"}, tmux: xtermEL},
	{name: "bs at the pending wrap", cols: 5, in: "abcde\bX", want: []string{"abcXe"}, tmux: xtermBS},

	// Wide and combining characters.
	{name: "wide", in: "中文x", want: []string{"中文x"}, cursor: at(5, 0),
		check: func(t *testing.T, term *Terminal) {
			row := term.Row(0)
			if row[0].Content != "中" || row[0].Width != 2 || row[1].Content != "" || row[1].Width != 0 {
				t.Errorf("cells %+v %+v", row[0], row[1])
			}
		}},
	{name: "wide at the last column wraps", cols: 5, in: "abcd中", want: []string{"abcd", "中"}, cursor: at(2, 1),
		check: func(t *testing.T, term *Terminal) {
			if !term.Wrapped(0) {
				t.Error("row 0 should be wrapped")
			}
		}},
	{name: "wide fills the line", cols: 4, in: "中文x", want: []string{"中文", "x"}},
	{name: "wide without autowrap is dropped at the edge", cols: 5, in: "\x1b[?7labcd中", want: []string{"abcd"}},
	{name: "overwrite the right half", in: "中文\x1b[2Gx", want: []string{" x文"}, tmux: tmuxHalf},
	{name: "overwrite the left half", in: "中文\x1b[3Gx", want: []string{"中x"}},
	{name: "wide over wide shifted", in: "中文\x1b[2G日", want: []string{" 日"}},
	{name: "combining mark", in: "e\u0301x", want: []string{"e\u0301x"}, cursor: at(2, 0),
		check: func(t *testing.T, term *Terminal) {
			if c := term.Row(0)[0]; c.Content != "e\u0301" || c.Width != 1 {
				t.Errorf("cell %+v", c)
			}
		}},
	{name: "combining on a wide character", in: "中\u0301x", want: []string{"中\u0301x"}},
	{name: "combining at the pending wrap", cols: 3, in: "abc\u0301", want: []string{"abc\u0301"}},
	{name: "combining at column 0 is dropped", in: "\u0301x", want: []string{"x"}},
	{name: "zwj sequence is one cell", in: "👨\u200d👩x", want: []string{"👨\u200d👩x"}, cursor: at(3, 0),
		check: func(t *testing.T, term *Terminal) {
			if c := term.Row(0)[0]; c.Content != "👨\u200d👩" || c.Width != 2 {
				t.Errorf("cell %+v", c)
			}
		}},
	{name: "emoji", in: "😀x✅", want: []string{"😀x✅"}, cursor: at(5, 0)},
	{name: "ambiguous width is narrow", in: "●⎿❯─✳", want: []string{"●⎿❯─✳"}, cursor: at(5, 0)},
	{name: "variation selector", in: "✳\ufe0fx", want: []string{"✳\ufe0fx"}, cursor: at(3, 0), tmux: tmuxEmoji, check: wantCell(0, 0, "✳\ufe0f", 2)},
	{name: "variation selector widens over the next cell", in: "ab\x1b[Gx\ufe0fy", want: []string{"x\ufe0fy"}, cursor: at(3, 0), tmux: tmuxEmoji},
	{name: "variation selector on a wide character", in: "⌚\ufe0fx", want: []string{"⌚\ufe0fx"}, cursor: at(3, 0), check: wantCell(0, 0, "⌚\ufe0f", 2)},
	{name: "variation selector at the last column", cols: 3, in: "ab❤\ufe0f", want: []string{"ab❤\ufe0f"}, cursor: at(2, 0), check: wantCell(2, 0, "❤\ufe0f", 1)},
	{name: "variation selector fills the line", cols: 3, in: "a❤\ufe0fx", want: []string{"a❤\ufe0f", "x"}, tmux: tmuxEmoji},
	{name: "text presentation selector", in: "☔\ufe0ex", want: []string{"☔\ufe0ex"}, cursor: at(3, 0)},
	{name: "skin-tone modifier joins the emoji", in: "👍\U0001F3FDx", want: []string{"👍\U0001F3FDx"}, cursor: at(3, 0), tmux: tmuxEmoji,
		check: wantCell(0, 0, "👍\U0001F3FD", 2)},
	{name: "skin-tone modifier after ASCII stands alone", in: "a\U0001F3FDx", want: []string{"a\U0001F3FDx"}, cursor: at(4, 0)},
	{name: "hangul leading consonants are wide", in: "\u1100\u1100x", want: []string{"\u1100\u1100x"}, cursor: at(5, 0)},
	{name: "hangul syllable in jamo is one cell", in: "\u1112\u1161\u11abx", want: []string{"\u1112\u1161\u11abx"}, cursor: at(3, 0),
		check: wantCell(0, 0, "\u1112\u1161\u11ab", 2)},
	{name: "invalid utf-8", in: "a\xffb\xc3", want: []string{"a\ufffdb"}, tmux: tmuxNoFFFD},
	{name: "interrupted utf-8", in: "\xe4\xb8\x1b[31mX", want: []string{"\ufffdX"}, tmux: tmuxNoFFFD,
		check: wantStyle(1, 0, Style{FG: red})},
	{name: "c1 bytes are not controls", in: "\x9b31mX", want: []string{"\ufffd31mX"}, tmux: tmuxNoFFFD},
	{name: "line drawing set", in: "\x1b(0lqk\x1b(Bq", want: []string{"┌─┐q"}},
	{name: "shift out", in: "\x1b)0\x0eqx\x0fq", want: []string{"─│q"}},

	// Cursor movement.
	{name: "cup", in: "\x1b[3;5HX", want: []string{"", "", "    X"}, cursor: at(5, 2)},
	{name: "cup defaults", in: "abc\x1b[HX", want: []string{"Xbc"}},
	{name: "cup clamps", in: "\x1b[99;99HX", want: []string{"", "", "", "         X"}},
	{name: "hvp", in: "\x1b[2;2fX", want: []string{"", " X"}},
	{name: "cuu cud cuf cub", in: "\x1b[3;5H\x1b[2AU\x1b[BD\x1b[3CF\x1b[2DB", want: []string{"    U", "     D B F"}, tmux: xtermBS},
	{name: "movement clamps", in: "\x1b[5A\x1b[5DX\x1b[20C\x1b[20BY", want: []string{"X", "", "", "         Y"}},
	{name: "zero counts are one", in: "\x1b[3;3H\x1b[0AX", want: []string{"", "  X"}},
	{name: "cnl cpl", in: "\x1b[1;5H\x1b[2EX\x1b[FY", want: []string{"", "Y", "X"}},
	{name: "cha hpa", in: "\x1b[5GX\x1b[2`Y", want: []string{" Y  X"}},
	{name: "hpr vpr", in: "\x1b[2aX\x1b[2eY", want: []string{"  X", "", "   Y"}, tmux: "tmux 3.3a ignores HPR and VPR"},
	{name: "vpa", in: "ab\x1b[3dX", want: []string{"ab", "", "  X"}},
	{name: "decsc decrc", in: "\x1b[2;3H\x1b[31m\x1b7\x1b[m\x1b[HX\x1b8Y", want: []string{"X", "  Y"},
		check: wantStyle(2, 1, Style{FG: red})},
	{name: "scosc scorc", in: "\x1b[2;3H\x1b[s\x1b[HX\x1b[uY", want: []string{"X", "  Y"}},
	{name: "decrc without save", in: "\x1b[3;3H\x1b[1m\x1b8X", want: []string{"X"}, check: wantStyle(0, 0, Style{})},

	// Erasing.
	{name: "el 0", in: "abcdef\x1b[4G\x1b[K", want: []string{"abc"}},
	{name: "el 1", in: "abcdef\x1b[4G\x1b[1K", want: []string{"    ef"}},
	{name: "el 2", in: "abcdef\x1b[2K", want: nil},
	{name: "ed 0", in: "ab\r\ncd\r\nef\x1b[2;2H\x1b[J", want: []string{"ab", "c"}},
	{name: "ed 1", in: "ab\r\ncd\r\nef\x1b[2;1H\x1b[1J", want: []string{"", " d", "ef"}},
	{name: "ed 2", in: "ab\r\ncd\x1b[2J", want: nil, cursor: at(2, 1)},
	{name: "ed 3 clears the scrollback", rows: 2, in: "a\r\nb\r\nc\x1b[3J", want: []string{"b", "c"},
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 0 || term.ScrolledOff() != 1 {
				t.Errorf("scrollback %d, scrolled off %d", term.ScrollbackLen(), term.ScrolledOff())
			}
		}},
	{name: "ech", in: "abcdef\x1b[2G\x1b[3X", want: []string{"a   ef"}, cursor: at(1, 0)},
	{name: "ech past the end", in: "abcdef\x1b[5G\x1b[99X", want: []string{"abcd"}},
	{name: "erase splits a wide character", in: "中文\x1b[2G\x1b[1K", want: []string{"  文"}},
	{name: "erase uses the background colour", in: "ab\x1b[41m\x1b[K\x1b[m", want: []string{"ab"},
		check: wantStyle(5, 0, Style{BG: red})},
	{name: "decaln", cols: 3, rows: 2, in: "\x1b#8", want: []string{"EEE", "EEE"}, cursor: at(0, 0)},

	// Scroll regions, index, insert and delete.
	{name: "decstbm scrolls the region", in: "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[3;1H\nX",
		want: []string{"1", "3", "X", "4"},
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 0 {
				t.Error("a region below the top saves nothing")
			}
		}},
	{name: "decstbm homes the cursor", in: "\x1b[3;3H\x1b[2;3rX", want: []string{"X"}},
	{name: "region at the top feeds the scrollback", in: "1\r\n2\r\n3\r\n4\x1b[1;2r\x1b[2;1H\nX",
		want: []string{"2", "X", "3", "4"},
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 1 || term.ScrollbackText(0) != "1" {
				t.Errorf("scrollback %d %q", term.ScrollbackLen(), term.ScrollbackText(0))
			}
		}},
	{name: "lf below the region", in: "\x1b[1;2r\x1b[4;1H\n\nX", want: []string{"", "", "", "X"}},
	{name: "ri at the top", in: "1\r\n2\r\n3\x1b[H\x1bMX", want: []string{"X", "1", "2", "3"}},
	{name: "ri in a region", in: "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[2;1H\x1bMX", want: []string{"1", "X", "2", "4"}},
	{name: "ind", in: "ab\x1bDc", want: []string{"ab", "  c"}},
	{name: "nel", in: "ab\x1bEc", want: []string{"ab", "c"}},
	{name: "su sd", in: "1\r\n2\r\n3\r\n4\x1b[2S", want: []string{"3", "4"},
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 2 {
				t.Errorf("scrollback %d", term.ScrollbackLen())
			}
		}},
	{name: "sd", in: "1\r\n2\r\n3\r\n4\x1b[2T", want: []string{"", "", "1", "2"}},
	{name: "su in a region", in: "1\r\n2\r\n3\r\n4\x1b[2;3r\x1b[S", want: []string{"1", "3", "", "4"}},
	{name: "il", in: "1\r\n2\r\n3\r\n4\x1b[2;2H\x1b[LX", want: []string{"1", " X", "2", "3"}, cursor: at(2, 1)},
	{name: "dl", in: "1\r\n2\r\n3\r\n4\x1b[2;2H\x1b[2M", want: []string{"1", "4"}, cursor: at(1, 1),
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 0 {
				t.Error("deleted lines don't go to the scrollback")
			}
		}},
	{name: "il in a region", in: "1\r\n2\r\n3\r\n4\x1b[1;3r\x1b[2;1H\x1b[L", want: []string{"1", "", "2", "4"}},
	{name: "il outside the region", in: "1\r\n2\r\n3\r\n4\x1b[1;2r\x1b[3;1H\x1b[L", want: []string{"1", "2", "3", "4"},
		tmux: "tmux inserts lines below the scroll region down to the bottom of the screen; xterm ignores IL there"},
	{name: "ich", in: "abcdef\x1b[2G\x1b[2@", want: []string{"a  bcdef"}, cursor: at(1, 0)},
	{name: "ich pushes off the end", in: "abcdefghij\x1b[2G\x1b[3@", want: []string{"a   bcdefg"}},
	{name: "dch", in: "abcdef\x1b[2G\x1b[2P", want: []string{"adef"}},
	{name: "dch splits a wide character", in: "a中b\x1b[2G\x1b[P", want: []string{"a b"},
		tmux: "xterm blanks the whole wide character then deletes one cell; tmux deletes the character"},
	{name: "rep", in: "ab\x1b[3b", want: []string{"abbbb"}},
	{name: "rep wraps", cols: 4, in: "a\x1b[5b", want: []string{"aaaa", "aa"},
		tmux: "tmux stops REP at the end of the line; xterm repeats as if the characters were typed"},

	// Modes.
	{name: "origin mode", in: "\x1b[2;3r\x1b[?6h\x1b[HX\x1b[5;1HY", want: []string{"", "X", "Y"}},
	{name: "origin mode off homes", in: "\x1b[2;3r\x1b[?6h\x1b[?6lX", want: []string{"X"}},
	{name: "insert mode", in: "abc\r\x1b[4hX\x1b[4lY", want: []string{"XYbc"}},
	{name: "insert mode wide", in: "abc\r\x1b[4h中", want: []string{"中abc"}},
	{name: "line feed mode", in: "\x1b[20hab\ncd", want: []string{"ab", "cd"}, tmux: "tmux 3.3a has no LNM"},
	{name: "alternate screen 1049", in: "main\x1b[?1049h\x1b[2;2Halt", want: []string{"", " alt"}, cursor: at(4, 1),
		check: func(t *testing.T, term *Terminal) {
			if !term.AltScreen() {
				t.Error("alt screen off")
			}
		}},
	{name: "leave 1049 restores", in: "main\x1b[?1049h\x1b[2;2Halt\x1b[?1049l", want: []string{"main"}, cursor: at(4, 0)},
	{name: "1049 twice", in: "a\x1b[?1049hb\x1b[?1049hc\x1b[?1049l", want: []string{"a"}, cursor: at(1, 0)},
	{name: "alternate screen 47", in: "main\x1b[?47hx\x1b[?47l", want: []string{"main"}, cursor: at(5, 0)},
	{name: "alternate screen 1047", in: "main\x1b[?1047hx\x1b[?1047lY", want: []string{"main Y"}},
	{name: "alternate screen is cleared on entry", in: "\x1b[?1049hold\x1b[?1049l\x1b[?1049h", want: nil},
	{name: "no scrollback on the alternate screen", rows: 2, in: "\x1b[?1049h1\r\n2\r\n3", want: []string{"2", "3"},
		check: func(t *testing.T, term *Terminal) {
			if term.ScrollbackLen() != 0 {
				t.Error("alt screen lines in the scrollback")
			}
		}},
	{name: "cursor visibility", in: "\x1b[?25l",
		check: func(t *testing.T, term *Terminal) {
			if _, _, v := term.Cursor(); v {
				t.Error("cursor visible")
			}
		}},
	{name: "bracketed paste", in: "\x1b[?2004h",
		check: func(t *testing.T, term *Terminal) {
			if !term.BracketedPaste() {
				t.Error("bracketed paste off")
			}
		}},
	{name: "modes", in: "\x1b[?1h\x1b=\x1b[?1004h\x1b[?1002h\x1b[?1006h\x1b[?2026h\x1b[5 q\x1b[>1u",
		check: func(t *testing.T, term *Terminal) {
			m := term.Modes()
			want := Modes{AppCursorKeys: true, AppKeypad: true, Autowrap: true, CursorVisible: true,
				FocusEvents: true, Mouse: MouseButton, MouseSGR: true, SyncOutput: true, CursorStyle: 5, KittyKeyboard: 1}
			if m != want {
				t.Errorf("modes\n got %+v\nwant %+v", m, want)
			}
		}},
	{name: "kitty flags pop", in: "\x1b[>1u\x1b[>3u\x1b[<u",
		check: func(t *testing.T, term *Terminal) {
			if k := term.Modes().KittyKeyboard; k != 1 {
				t.Errorf("kitty flags %d", k)
			}
		}},

	// SGR.
	{name: "sgr basic", in: "\x1b[1;3;4;31;42mX", check: wantStyle(0, 0, Style{FG: red, BG: IndexedColor(2), Attrs: Bold | Italic | Underline})},
	{name: "sgr bright", in: "\x1b[91;102mX", check: wantStyle(0, 0, Style{FG: IndexedColor(9), BG: IndexedColor(10)})},
	{name: "sgr reset", in: "\x1b[1;31mA\x1b[mB\x1b[1;31mC\x1b[0mD", check: func(t *testing.T, term *Terminal) {
		wantStyle(1, 0, Style{})(t, term)
		wantStyle(3, 0, Style{})(t, term)
	}},
	{name: "sgr 256", in: "\x1b[38;5;208;48;5;17mX", check: wantStyle(0, 0, Style{FG: IndexedColor(208), BG: IndexedColor(17)})},
	{name: "sgr truecolor", in: "\x1b[38;2;1;2;3;48;2;4;5;6mX", check: wantStyle(0, 0, Style{FG: RGBColor(1, 2, 3), BG: RGBColor(4, 5, 6)})},
	{name: "sgr colon 256", in: "\x1b[38:5:208mX", check: wantStyle(0, 0, Style{FG: IndexedColor(208)})},
	{name: "sgr colon truecolor", in: "\x1b[38:2::1:2:3;1mX", check: wantStyle(0, 0, Style{FG: RGBColor(1, 2, 3), Attrs: Bold})},
	{name: "sgr colon truecolor without space", in: "\x1b[48:2:1:2:3mX", check: wantStyle(0, 0, Style{BG: RGBColor(1, 2, 3)})},
	{name: "sgr underline styles", in: "\x1b[4:3mA\x1b[4:0mB\x1b[21mC", check: func(t *testing.T, term *Terminal) {
		wantStyle(0, 0, Style{Attrs: Underline})(t, term)
		wantStyle(1, 0, Style{})(t, term)
		wantStyle(2, 0, Style{Attrs: Underline})(t, term)
	}},
	{name: "sgr underline colour ignored", in: "\x1b[58:2::9:9:9;1mX\x1b[58;5;3;3mY", check: func(t *testing.T, term *Terminal) {
		wantStyle(0, 0, Style{Attrs: Bold})(t, term)
		wantStyle(1, 0, Style{Attrs: Bold | Italic})(t, term)
	}},
	{name: "sgr attributes off", in: "\x1b[1;2;3;4;5;7;8;9mA\x1b[22;23;24;25;27;28;29mB", check: func(t *testing.T, term *Terminal) {
		wantStyle(0, 0, Style{Attrs: Bold | Faint | Italic | Underline | Blink | Reverse | Hidden | Strike})(t, term)
		wantStyle(1, 0, Style{})(t, term)
	}},
	{name: "sgr default colours", in: "\x1b[31;41m\x1b[39;49mX", check: wantStyle(0, 0, Style{})},
	{name: "sgr bad colour is ignored", in: "\x1b[38;5;300mX\x1b[38;2;1mY", check: wantStyle(0, 0, Style{})},
	{name: "modify other keys is not sgr", in: "\x1b[>4;2mX", check: wantStyle(0, 0, Style{})},
	{name: "reverse", in: "\x1b[7mX\x1b[27mY", check: func(t *testing.T, term *Terminal) {
		wantStyle(0, 0, Style{Attrs: Reverse})(t, term)
		wantStyle(1, 0, Style{})(t, term)
	}},

	// Strings and unknown sequences.
	{name: "osc title bel", in: "\x1b]0;✳ claude\x07ok", want: []string{"ok"},
		check: func(t *testing.T, term *Terminal) {
			if term.Title() != "✳ claude" {
				t.Errorf("title %q", term.Title())
			}
		}},
	{name: "osc title st", in: "\x1b]2;hi\x1b\\ok", want: []string{"ok"},
		check: func(t *testing.T, term *Terminal) {
			if term.Title() != "hi" {
				t.Errorf("title %q", term.Title())
			}
		}},
	{name: "osc 1 is the icon", in: "\x1b]2;a\x07\x1b]1;b\x07", check: func(t *testing.T, term *Terminal) {
		if term.Title() != "a" {
			t.Errorf("title %q", term.Title())
		}
	}},
	{name: "title stack", in: "\x1b]2;a\x07\x1b[22;0t\x1b]2;b\x07\x1b[23;0t", check: func(t *testing.T, term *Terminal) {
		if term.Title() != "a" {
			t.Errorf("title %q", term.Title())
		}
	}},
	{name: "hyperlink", in: "\x1b]8;;https://example.com\x1b\\link\x1b]8;;\x1b\\!", want: []string{"link!"}},
	{name: "osc cancelled", in: "\x1b]2;abc\x18ok", want: []string{"ok"}},
	{name: "dcs ignored", in: "\x1bPzz\x1b\\\x1bP+q544e\x1b\\ok", want: []string{"ok"}},
	{name: "apc pm sos ignored", in: "\x1b_Gf=1;AAAA\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\ok", want: []string{"ok"}},
	{name: "unknown csi", in: "\x1b[?1;2;3zA\x1b[0%mB\x1b[>0qC\x1b[=5uD", want: []string{"ABCD"}},
	{name: "unknown esc", in: "\x1bNA\x1b%GB\x1b#3C", want: []string{"ABC"}},
	{name: "control inside csi", in: "\x1b[2\r;3HX", want: []string{"", "  X"}},
	{name: "esc restarts a sequence", in: "\x1b[31\x1b[32mX", check: wantStyle(0, 0, Style{FG: IndexedColor(2)})},
	{name: "can aborts a sequence", in: "\x1b[31\x18mX", want: []string{"mX"}, check: wantStyle(0, 0, Style{})},
	{name: "huge parameters", in: "\x1b[99999999999999999999;99999999999999999999HX\x1b[99999999999999999999@Y", want: []string{"", "", "", "         Y"},
		tmux: "tmux ignores a sequence whose parameters overflow; this emulator clamps them"},
	{name: "many parameters", in: "\x1b[" + strings.Repeat("1;", 100) + "31mX", check: wantStyle(0, 0, Style{Attrs: Bold})},

	// Resets.
	{name: "ris", in: "\x1b[2;3r\x1b[?6h\x1b[4h\x1b[31mabc\x1b]2;t\x07\x1bcX", want: []string{"X"},
		check: func(t *testing.T, term *Terminal) {
			wantStyle(0, 0, Style{})(t, term)
			if m := term.Modes(); m.Origin || m.Insert {
				t.Errorf("modes %+v", m)
			}
		}},
	{name: "decstr", tmux: "tmux 3.3a has no DECSTR", in: "abc\x1b[2;3r\x1b[?6h\x1b[4h\x1b[31m\x1b[?25l\x1b[!p\x1b[HX", want: []string{"Xbc"},
		check: func(t *testing.T, term *Terminal) {
			wantStyle(0, 0, Style{})(t, term)
			if m := term.Modes(); m.Origin || m.Insert || !m.CursorVisible {
				t.Errorf("modes %+v", m)
			}
		}},
}

func runCase(c vtCase, chunks func([]byte) [][]byte) *Terminal {
	cols, rows := c.size()
	term := New(cols, rows, Options{Scrollback: 100})
	for _, ch := range chunks([]byte(c.in)) {
		term.Write(ch)
	}
	return term
}

func whole(b []byte) [][]byte { return [][]byte{b} }

func bytewise(b []byte) [][]byte {
	out := make([][]byte, len(b))
	for i := range b {
		out[i] = b[i : i+1]
	}
	return out
}

func TestTable(t *testing.T) {
	for _, c := range vtCases {
		t.Run(c.name, func(t *testing.T) {
			term := runCase(c, whole)
			defer term.Close()
			if c.want != nil || c.check == nil {
				if got := ourLines(term); !reflect.DeepEqual(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
					t.Errorf("screen\n got %q\nwant %q", got, c.want)
				}
			}
			if c.cursor != nil {
				if x, y, _ := term.Cursor(); x != c.cursor[0] || y != c.cursor[1] {
					t.Errorf("cursor %d,%d, want %d,%d", x, y, c.cursor[0], c.cursor[1])
				}
			}
			if c.check != nil {
				c.check(t, term)
			}
		})
	}
}

// dump is everything observable about a terminal, for comparing two.
func dump(term *Terminal) string {
	var b strings.Builder
	cols, rows := term.Size()
	x, y, vis := term.Cursor()
	fmt.Fprintf(&b, "%dx%d cursor %d,%d %v alt %v title %q modes %+v\n", cols, rows, x, y, vis, term.AltScreen(), term.Title(), term.Modes())
	for i := range term.ScrollbackLen() {
		fmt.Fprintf(&b, "sb %q %v\n", term.ScrollbackText(i), term.ScrollbackWrapped(i))
	}
	for y := range rows {
		fmt.Fprintf(&b, "%v %+v\n", term.Wrapped(y), term.Row(y))
	}
	b.WriteString(term.Render(term.ScrollbackLen(), cols, rows+term.ScrollbackLen()))
	return b.String()
}

// TestSplitInvariance feeds every table input one byte at a time and in
// random chunks: the terminal must end up the same as with one write.
func TestSplitInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(b []byte) [][]byte {
		var out [][]byte
		for len(b) > 0 {
			n := min(len(b), 1+rng.IntN(7))
			out = append(out, b[:n])
			b = b[n:]
		}
		return out
	}
	for _, c := range vtCases {
		want := dump(runCase(c, whole))
		for name, split := range map[string]func([]byte) [][]byte{"bytewise": bytewise, "random": random} {
			if got := dump(runCase(c, split)); got != want {
				t.Errorf("%s fed %s:\n got %s\nwant %s", c.name, name, got, want)
			}
		}
	}
	recs, data := loadRecordings(t)
	for _, r := range recs {
		one := New(r.Cols, r.Rows, Options{})
		one.Write(data[r.Name])
		byByte := New(r.Cols, r.Rows, Options{})
		for _, ch := range bytewise(data[r.Name]) {
			byByte.Write(ch)
		}
		if a, b := dump(one), dump(byByte); a != b {
			t.Errorf("recording %s fed byte by byte differs:\n got %s\nwant %s", r.Name, b, a)
		}
	}
}

// TestTableMatchesTmux runs the table inputs through tmux and compares the
// screens and cursors, except where a case documents why tmux differs.
func TestTableMatchesTmux(t *testing.T) {
	tm := newTmux(t)
	for _, c := range vtCases {
		if c.tmux != "" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			term := runCase(c, whole)
			cols, rows := c.size()
			theirs := tm.screen(t, []byte(c.in), cols, rows)
			cx, cy := tmuxCursorX(term)
			if d := diffScreens(ourLines(term), theirs, cx, cy, term.AltScreen()); d != "" {
				t.Errorf("differs from tmux for %q:\n%s", c.in, d)
			}
		})
	}
}
