package bench

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/vt"
)

func TestAppendColoredLines(t *testing.T) {
	const n, cols = 300, 120
	data := appendColoredLines(nil, n, cols, 7)
	if !bytes.Equal(data, appendColoredLines(nil, n, cols, 7)) {
		t.Fatal("the same seed gave different lines")
	}
	if bytes.Equal(data, appendColoredLines(nil, n, cols, 8)) {
		t.Fatal("another seed gave the same lines")
	}
	if !bytes.Contains(data, []byte("\x1b[38;2;")) || !bytes.Contains(data, []byte("\x1b[38;5;")) {
		t.Error("no 24-bit or 256-colour runs")
	}
	lines := strings.Split(string(data), "\r\n")
	if len(lines) != n+1 || lines[n] != "" {
		t.Fatalf("%d CRLF-ended lines, want %d", len(lines)-1, n)
	}
	var text []string
	for i, l := range lines[:n] {
		s := ansi.Strip(l)
		if len(s) != cols || strings.HasSuffix(s, " ") || strings.HasPrefix(s, " ") {
			t.Fatalf("line %d is %d columns, want %d with no blank at either end: %q", i, len(s), cols, s)
		}
		for _, c := range []byte(s) {
			if c < 0x20 || c > 0x7e {
				t.Fatalf("line %d has byte %#x", i, c)
			}
		}
		if !strings.HasSuffix(l, "\x1b[m") {
			t.Fatalf("line %d does not end in the default style: %q", i, l)
		}
		text = append(text, s)
	}
	// A terminal as wide as the lines keeps each as one line, unwrapped.
	term := vt.New(cols, 10, vt.Options{Scrollback: n})
	_, _ = term.Write(data)
	if got := term.ScrollbackLen(); got != n-9 {
		t.Fatalf("scrollback holds %d lines, want %d", got, n-9)
	}
	for i := range n - 9 {
		if got := term.ScrollbackText(i); got != text[i] || term.ScrollbackWrapped(i) {
			t.Fatalf("scrollback line %d = %q (wrapped %v), want %q", i, got, term.ScrollbackWrapped(i), text[i])
		}
	}
}

func TestMemoryTextRatio(t *testing.T) {
	r := &MemoryResult{PerTerminal: 3e6, TextBytes: 1.2e6}
	if got := r.TextRatio(); got != 2.5 {
		t.Errorf("ratio %v, want 2.5", got)
	}
	if (&MemoryResult{PerTerminal: 1}).TextRatio() != 0 {
		t.Error("a ratio without text")
	}
}

func TestSmokeMemory(t *testing.T) {
	res, err := MeasureMemory(4, 80, 24, 1000, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" {
		t.Fatal(res.Problem)
	}
	if res.Lines != 1524 || res.TextBytes != 80000 || res.InputBytes == 0 {
		t.Errorf("result %+v", res)
	}
	// 1000 lines of 80 columns are 80 kB of text: far above what the
	// heap's page granularity could hide.
	if res.PerTerminal < float64(res.TextBytes)/2 || res.PerTerminal > 50*float64(res.TextBytes) {
		t.Errorf("implausible %.0f bytes per terminal for %d bytes of text", res.PerTerminal, res.TextBytes)
	}
	if _, err := MeasureMemory(0, 80, 24, 1000, 1); err == nil {
		t.Error("no terminals accepted")
	}
}
