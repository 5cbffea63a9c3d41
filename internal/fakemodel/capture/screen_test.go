package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScreen(t *testing.T) {
	cases := []struct {
		name, in, want string
	}{
		{"text and CR LF", "ab\r\ncd", "ab\ncd\n"},
		{"column jumps leave blanks", "to:\x1b[7Gx", "to:   x\n"},
		{"relative moves", "\x1b[H\r\x1b[2C\x1b[1Bx\r\x1b[1C\x1b[1By", "\n  x\n y\n"},
		{"absolute moves", "\x1b[2;3Hb\x1b[1;1Ha", "a\n  b\n"},
		{"erase line", "hello\x1b[3G\x1b[K", "he\n"},
		{"erase up", "x\r\ny\x1b[2K\x1b[1A\x1b[2K", "\n"},
		{"SGR and OSC ignored", "\x1b[38;5;174ma\x1b]0;title\x07b\x1b[0m", "ab\n"},
		{"wrap at the margin", strings.Repeat("x", 12) + "y", "xxxxxxxxxxxx\ny\n"},
		{"pending wrap then CR", strings.Repeat("x", 12) + "\rz", "zxxxxxxxxxxx\n"},
		{"scroll", "1\r\n2\r\n3\r\n4\r\n5", "2\n3\n4\n5\n"},
		{"scroll region", "\x1b[1;1Htop\x1b[2;1Ha\x1b[3;1Hb\x1b[4;1Hc\x1b[2;4r\x1b[4;1H\nz", "top\nb\nc\nz\n"},
		{"alternate screen", "main\x1b[?1049halt\x1b[?1049l", "main\n"},
		{"UTF-8", "● ❯ é", "● ❯ é\n"},
	}
	for _, c := range cases {
		s := newScreen(12, 4)
		s.Write([]byte(c.in))
		if got := s.Text(); got != c.want {
			t.Errorf("%s: screen %q, want %q", c.name, got, c.want)
		}
	}
	s := newScreen(12, 4)
	s.Write([]byte("\x1b[?2004h"))
	if !s.bracketed {
		t.Error("ESC[?2004h not seen")
	}
}

// TestScreenFixtures replays every captured fixture and compares the
// screen with the one saved at capture time (checked against tmux 3.3a's
// capture-pane when they were made).
func TestScreenFixtures(t *testing.T) {
	dir := filepath.Join("..", "..", "protocol", "testdata", "real")
	bins, _ := filepath.Glob(filepath.Join(dir, "*.bin"))
	if len(bins) == 0 {
		t.Skip("no fixtures")
	}
	for _, b := range bins {
		raw, err := os.ReadFile(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(strings.TrimSuffix(b, ".bin") + ".screen.txt")
		if err != nil {
			t.Fatal(err)
		}
		s := newScreen(120, 40)
		s.Write(raw)
		if got := s.Text(); got != string(want) {
			t.Errorf("%s: replayed screen differs:\n%s", filepath.Base(b), got)
		}
	}
}
