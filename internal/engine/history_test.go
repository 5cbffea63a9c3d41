package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/vt"
)

// What an agent printed in one run is shown above the next run's screen,
// after a line saying the earlier run ended, and is kept across runs up to
// the agent's scrollback.
func TestHistoryOutlivesTheConsole(t *testing.T) {
	dir := t.TempDir()
	term := vt.New(30, 5, vt.Options{Scrollback: 100})
	defer term.Close()
	h := loadHistory(dir, "dev", 100)
	if len(h.lines) != 0 {
		t.Fatalf("a first run has history: %q", h.lines)
	}
	for i := 0; i < 20; i++ {
		fmt.Fprintf(term, "run one, line %d\r\n", i)
	}
	h.save(term, 1)
	fmt.Fprintf(term, "last words")
	h.save(term, 2)
	h.close() // the console is killed: nothing more is saved

	h2 := loadHistory(dir, "dev", 100)
	defer h2.close()
	got := strings.Join(h2.lines, "\n")
	for i := 0; i < 20; i++ {
		if !strings.Contains(got, fmt.Sprintf("run one, line %d\n", i)) {
			t.Fatalf("line %d missing from\n%s", i, got)
		}
	}
	if !strings.Contains(got, "last words\n── earlier run of dev, until ") {
		t.Fatalf("no screen or separator at the end:\n%s", got)
	}

	// Shown above the new emulator's own lines.
	term2 := vt.New(30, 5, vt.Options{Scrollback: 100})
	defer term2.Close()
	fmt.Fprintf(term2, "run two\r\n")
	s := &withHistory{term: term2, lines: h2.lines}
	if n := s.ScrollbackLen(); n != len(h2.lines)+term2.ScrollbackLen() {
		t.Fatalf("ScrollbackLen %d", n)
	}
	view := ansi.Strip(s.Render(3, 30, 5))
	if rows := strings.Split(view, "\n"); len(rows) != 5 || !strings.HasPrefix(rows[2], "── earlier run of dev") || !strings.HasPrefix(rows[3], "run two") {
		t.Fatalf("scrolled back 3:\n%s", view)
	}
	for _, row := range strings.Split(s.Render(s.ScrollbackLen(), 30, 5), "\n") {
		if w := ansi.StringWidth(row); w != 30 {
			t.Fatalf("row %q is %d wide", row, w)
		}
	}

	// A third run keeps both earlier ones, up to the scrollback.
	for i := 0; i < 10; i++ {
		fmt.Fprintf(term2, "run two, line %d\r\n", i)
	}
	h2.save(term2, 1)
	h2.close()
	h3 := loadHistory(dir, "dev", 25)
	defer h3.close()
	if len(h3.lines) != 25 || !strings.Contains(strings.Join(h3.lines, "\n"), "run two, line 9") {
		t.Fatalf("third run: %d lines\n%s", len(h3.lines), strings.Join(h3.lines, "\n"))
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "dev.log")); strings.Count(string(b), "\n") != 25 {
		t.Fatalf("the log holds %d lines, want the 25 kept", strings.Count(string(b), "\n"))
	}
}
