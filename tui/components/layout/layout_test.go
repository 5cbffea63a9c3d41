package layout

import (
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"
)

func TestPadAndCell(t *testing.T) {
	for _, c := range []struct{ in, pad, cell string }{
		{"ab", "ab   ", "ab   "},
		{"abcdefgh", "abcdefgh", "abcd…"},
		{"中文", "中文 ", "中文 "},
		{"\x1b[31mab\x1b[0m", "\x1b[31mab\x1b[0m   ", "\x1b[31mab\x1b[0m   "},
	} {
		if got := Pad(c.in, 5); got != c.pad {
			t.Errorf("Pad(%q) = %q, want %q", c.in, got, c.pad)
		}
		if got := Cell(c.in, 5); got != c.cell || lipgloss.Width(got) != 5 {
			t.Errorf("Cell(%q) = %q, want %q", c.in, got, c.cell)
		}
	}
}

func TestOrDash(t *testing.T) {
	if OrDash(" \t") != "-" || OrDash("x") != "x" {
		t.Error("OrDash")
	}
}

func TestWrap(t *testing.T) {
	got := Wrap("one two three four five\nsix seven", 10, "  ")
	want := []string{"one two", "  three", "  four", "  five", "  six", "  seven"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
	for _, l := range got {
		if lipgloss.Width(l) > 10 {
			t.Errorf("line %q wider than 10", l)
		}
	}
	if got := Wrap("short", 10, "  "); len(got) != 1 || got[0] != "short" {
		t.Errorf("Wrap(short) = %q", got)
	}
}
