package vt

import (
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/teamlead/teamlead/internal/protocol"
)

func TestScrollbackRing(t *testing.T) {
	term := New(10, 2, Options{Scrollback: 3})
	for i := range 10 {
		fmt.Fprintf(term, "line %d\r\n", i)
	}
	if n := term.ScrollbackLen(); n != 3 {
		t.Fatalf("scrollback holds %d lines, want 3", n)
	}
	for i, want := range []string{"line 6", "line 7", "line 8"} {
		if got := term.ScrollbackText(i); got != want {
			t.Errorf("scrollback %d = %q, want %q", i, got, want)
		}
	}
	if got := term.ScrolledOff(); got != 9 {
		t.Errorf("scrolled off %d, want 9", got)
	}
	if got := ourLines(term); !reflect.DeepEqual(got, []string{"line 9"}) {
		t.Errorf("screen %q", got)
	}
	if term.ScrollbackText(-1) != "" || term.ScrollbackText(3) != "" || term.ScrollbackWrapped(5) {
		t.Error("out of range lines should be empty")
	}
}

func TestNoScrollback(t *testing.T) {
	term := New(10, 2, Options{Scrollback: -1})
	term.Write([]byte("a\r\nb\r\nc\r\n"))
	if term.ScrollbackLen() != 0 || term.ScrolledOff() != 2 {
		t.Errorf("scrollback %d, scrolled off %d", term.ScrollbackLen(), term.ScrolledOff())
	}
}

func TestSnapshot(t *testing.T) {
	term := New(5, 2, Options{})
	term.Write([]byte("one\r\ntwo\r\nthree+x\r\n"))
	s := term.Snapshot()
	want := Snapshot{
		Scrollback:  []Line{{"one", false}, {"two", false}, {"three", true}},
		Screen:      []Line{{"+x", false}, {"", false}},
		ScrolledOff: 3, CursorX: 0, CursorY: 1,
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("snapshot\n got %+v\nwant %+v", s, want)
	}
	term.Write([]byte("four\r\nfive"))
	s2 := term.SnapshotSince(s.ScrolledOff)
	if !reflect.DeepEqual(s2.Scrollback, []Line{{"+x", false}}) || s2.ScrolledOff != 4 {
		t.Errorf("new lines %+v (scrolled off %d)", s2.Scrollback, s2.ScrolledOff)
	}
	if s3 := term.SnapshotSince(99); len(s3.Scrollback) != 0 {
		t.Errorf("nothing new: %+v", s3.Scrollback)
	}
	if s4 := term.SnapshotTail(2); !reflect.DeepEqual(s4.Scrollback, []Line{{"three", true}, {"+x", false}}) ||
		!reflect.DeepEqual(s4.Screen, []Line{{"four", false}, {"five", false}}) {
		t.Errorf("tail %+v", s4)
	}
	if s5 := term.SnapshotTail(0); len(s5.Scrollback) != 0 {
		t.Errorf("tail 0: %+v", s5.Scrollback)
	}
}

// TestScrollbackKeepsCells checks that a line reads the same, cell for
// cell and in Render, before and after it scrolls into the scrollback.
func TestScrollbackKeepsCells(t *testing.T) {
	lines := []string{
		"plain text",
		"\x1b[1;31mbold red\x1b[m and \x1b[38;2;1;2;3mtrue\x1b[48;5;200mcolour\x1b[m",
		"wide 中文 and 😀 emoji",
		"marks e\u0301 a\u0308\u0301 and zwj 👨\u200d👩\u200d👧 x",
		"\x1b[44mblue background to the end\x1b[K\x1b[m",
		"\x1b[7mreverse\x1b[m trailing   ",
		"\x1b(0lqqk\x1b(B box",
		"",
	}
	for _, l := range lines {
		term := New(40, 3, Options{})
		term.Write([]byte(l))
		before := term.Render(0, 40, 1)
		beforeText := term.Text(0)
		term.Write([]byte("\r\n\r\n\r\n"))
		if term.ScrollbackLen() != 1 {
			t.Fatalf("%q: scrollback %d", l, term.ScrollbackLen())
		}
		if got := term.ScrollbackText(0); got != beforeText {
			t.Errorf("%q: scrollback text %q, screen text was %q", l, got, beforeText)
		}
		if after := term.Render(3, 40, 1); after != before {
			t.Errorf("%q: rendered\n on screen  %q\n scrollback %q", l, before, after)
		}
	}
}

func TestRender(t *testing.T) {
	for _, c := range []struct {
		name       string
		cols, rows int
		in         string
		off, w, h  int
		want       string
	}{
		{"plain", 5, 2, "ab\r\ncd", 0, 5, 2, "ab   \ncd   "},
		{"styled", 5, 1, "\x1b[31mab\x1b[mc", 0, 5, 1, "\x1b[31mab\x1b[mc  "},
		{"only changes", 6, 1, "\x1b[1;31ma\x1b[32mb\x1b[22mc\x1b[39md", 0, 6, 1, "\x1b[1;31ma\x1b[32mb\x1b[22mc\x1b[md  "},
		{"reset when shorter", 4, 1, "\x1b[1;3;4;31ma\x1b[32mb", 0, 4, 1, "\x1b[1;3;4;31ma\x1b[32mb\x1b[m  "},
		{"truecolor and 256", 4, 1, "\x1b[38;2;1;2;3;48;5;100mx", 0, 4, 1, "\x1b[38;2;1;2;3;48;5;100mx\x1b[m   "},
		{"bright", 2, 1, "\x1b[91;104mx", 0, 2, 1, "\x1b[91;104mx\x1b[m "},
		{"ends in default", 3, 1, "\x1b[41mabc", 0, 3, 1, "\x1b[41mabc\x1b[m"},
		{"cut", 6, 1, "abcdef", 0, 3, 1, "abc"},
		{"cut wide", 4, 1, "a中b", 0, 2, 1, "a "},
		{"pad", 2, 1, "ab", 0, 4, 2, "ab  \n    "},
		{"scrolled back", 3, 2, "1\r\n2\r\n3\r\n4", 1, 3, 2, "2  \n3  "},
		{"scrolled back too far", 3, 2, "1\r\n2\r\n3", 99, 3, 3, "1  \n2  \n3  "},
		{"empty", 3, 2, "x", 0, 0, 2, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			term := New(c.cols, c.rows, Options{})
			term.Write([]byte(c.in))
			if got := term.Render(c.off, c.w, c.h); got != c.want {
				t.Errorf("render\n got %q\nwant %q", got, c.want)
			}
		})
	}
}

func TestAppendSGRIsMinimal(t *testing.T) {
	for _, c := range []struct {
		from, to Style
		want     string
	}{
		{Style{}, Style{}, ""},
		{Style{FG: red}, Style{}, "\x1b[m"},
		{Style{Attrs: Bold}, Style{Attrs: Bold | Italic}, "\x1b[3m"},
		{Style{Attrs: Bold | Faint}, Style{Attrs: Faint}, "\x1b[0;2m"},
		{Style{Attrs: Bold | Faint, FG: red}, Style{Attrs: Faint, FG: red}, "\x1b[22;2m"},
		{Style{Attrs: Bold | Italic | Underline, FG: red}, Style{FG: red}, "\x1b[0;31m"},
		{Style{FG: red}, Style{FG: red, BG: IndexedColor(200)}, "\x1b[48;5;200m"},
	} {
		if got := string(appendSGR(nil, c.from, c.to)); got != c.want {
			t.Errorf("%+v -> %+v: %q, want %q", c.from, c.to, got, c.want)
		}
	}
}

func TestResize(t *testing.T) {
	t.Run("shorter keeps the cursor row", func(t *testing.T) {
		term := New(10, 4, Options{})
		term.Write([]byte("1\r\n2\r\n3\r\n4"))
		term.Resize(10, 2)
		if got := ourLines(term); !reflect.DeepEqual(got, []string{"3", "4"}) {
			t.Errorf("screen %q", got)
		}
		if x, y, _ := term.Cursor(); x != 1 || y != 1 {
			t.Errorf("cursor %d,%d", x, y)
		}
		if term.ScrollbackLen() != 2 || term.ScrollbackText(1) != "2" {
			t.Errorf("scrollback %d", term.ScrollbackLen())
		}
	})
	t.Run("shorter drops blank rows below the cursor first", func(t *testing.T) {
		term := New(10, 4, Options{})
		term.Write([]byte("1\r\n2"))
		term.Resize(10, 2)
		if got := ourLines(term); !reflect.DeepEqual(got, []string{"1", "2"}) || term.ScrollbackLen() != 0 {
			t.Errorf("screen %q, scrollback %d", got, term.ScrollbackLen())
		}
	})
	t.Run("taller and wider", func(t *testing.T) {
		term := New(3, 2, Options{})
		term.Write([]byte("abc\r\nde"))
		term.Resize(5, 4)
		term.Write([]byte("fg\x1b[4;5HZ"))
		if got := ourLines(term); !reflect.DeepEqual(got, []string{"abc", "defg", "", "    Z"}) {
			t.Errorf("screen %q", got)
		}
	})
	t.Run("narrower moves a wide character that doesn't fit to the next row", func(t *testing.T) {
		term := New(5, 1, Options{})
		term.Write([]byte("ab中"))
		term.Resize(3, 1)
		if got := term.Row(0); got[0].Content != "中" || got[2].Content != " " || got[2].Width != 1 {
			t.Errorf("cells %+v", got)
		}
		if term.ScrollbackLen() != 1 || term.ScrollbackText(0) != "ab" || !term.ScrollbackWrapped(0) {
			t.Errorf("scrollback %d %q", term.ScrollbackLen(), term.ScrollbackText(0))
		}
	})
	t.Run("region reset and tab stops", func(t *testing.T) {
		term := New(10, 4, Options{})
		term.Write([]byte("\x1b[2;3r"))
		term.Resize(20, 6)
		term.Write([]byte("\x1b[6;1H\n\t\tX"))
		if got := ourLines(term); got[5] != "                X" || term.ScrollbackLen() != 1 {
			t.Errorf("screen %q, scrollback %d", got, term.ScrollbackLen())
		}
	})
	t.Run("alternate screen", func(t *testing.T) {
		term := New(10, 4, Options{})
		term.Write([]byte("1\r\n2\r\n3\r\n4\x1b[?1049h\x1b[4;1Halt"))
		term.Resize(8, 2)
		if got := ourLines(term); !reflect.DeepEqual(got, []string{"", "alt"}) {
			t.Errorf("alt screen %q", got)
		}
		term.Write([]byte("\x1b[?1049l"))
		if got := ourLines(term); !reflect.DeepEqual(got, []string{"3", "4"}) {
			t.Errorf("main screen %q", got)
		}
		if x, y, _ := term.Cursor(); x != 1 || y != 1 {
			t.Errorf("cursor %d,%d", x, y)
		}
	})
	t.Run("limits", func(t *testing.T) {
		term := New(0, -5, Options{})
		if c, r := term.Size(); c != 1 || r != 1 {
			t.Errorf("size %dx%d", c, r)
		}
		term.Resize(1<<20, 1<<20)
		if c, r := term.Size(); c != MaxCols || r != MaxRows {
			t.Errorf("size %dx%d", c, r)
		}
	})
}

// TestStyleTableCollection runs a long stream of distinct colours through a
// small style table, so that unused styles are collected many times, and
// checks every cell still has its colour.
func TestStyleTableCollection(t *testing.T) {
	term := New(20, 5, Options{})
	term.styleFloor, term.styleLimit = 8, 8
	term.rehashStyles()
	for i := range 5000 {
		fmt.Fprintf(term, "\x1b[38;2;%d;%d;%dm%c\x1b[4%dm\x1b[K", i%256, i/256, 7, 'a'+i%26, i%8)
		if i%17 == 0 {
			term.Write([]byte("\r\n"))
		}
	}
	// The last character written is i = 4999 at the cursor's left.
	x, y, _ := term.Cursor()
	c := term.Row(y)[x-1]
	if want := RGBColor(4999%256, 4999/256, 7); c.Style.FG != want || c.Content != string(rune('a'+4999%26)) {
		t.Errorf("last cell %+v, want FG %v", c, want)
	}
	if n := len(term.styles); n > 2*20*5+8 {
		t.Errorf("style table holds %d styles", n)
	}
}

// TestConcurrentUse writes on one goroutine while others read and resize;
// run with -race. The scrollback is short: a resize reflows it all, and
// one goroutine resizing without a pause would otherwise keep the writer
// waiting most of the time.
func TestConcurrentUse(t *testing.T) {
	log, _ := protocol.GenerateLog(1<<20, 7)
	term := New(80, 24, Options{Reply: &syncBuffer{}, Scrollback: 500})
	defer term.Close()
	var wg sync.WaitGroup
	done := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(done)
		for p := log; len(p) > 0; {
			n := min(len(p), 1000)
			term.Write(p[:n])
			p = p[n:]
		}
	}()
	for g := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				switch g {
				case 0:
					_ = term.Render(i%50, 80, 24)
					_ = term.Snapshot()
				case 1:
					_ = term.Row(i % 24)
					_ = term.Text(i % 24)
					_, _, _ = term.Cursor()
					_ = term.Modes()
				case 2:
					if i%100 == 0 {
						term.Resize(60+i%40, 20+i%10)
					}
				}
			}
		}()
	}
	wg.Wait()
	if !strings.Contains(term.Render(0, 200, 40), "") {
		t.Fatal("unreachable")
	}
}
