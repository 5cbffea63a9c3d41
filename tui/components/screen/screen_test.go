package screen

import (
	"fmt"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

type src struct{}

func (src) ScrollbackLen() int { return 10 }
func (src) Render(offset, w, h int) string {
	var lines []string
	for i := 0; i < h; i++ {
		lines = append(lines, fmt.Sprintf("\x1b[32mline %d\x1b[0m", 10+i-offset))
	}
	return strings.Join(lines, "\n")
}

func TestViewAndScrolling(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	golden.Assert(t, "no-source", m.View())
	m.SetSize(20, 4)
	m.SetSource(src{})
	golden.Assert(t, "live", m.View())
	m.PageUp()
	golden.Assert(t, "page-up", m.View())
	m.PageUp()
	m.PageUp()
	m.PageUp()
	if m.Offset() != 10 {
		t.Errorf("offset %d, want clamped to the scrollback (10)", m.Offset())
	}
	m.PageDown()
	if m.Offset() != 7 {
		t.Errorf("offset after page down %d", m.Offset())
	}
	m.Follow()
	if m.Offset() != 0 {
		t.Errorf("follow: %d", m.Offset())
	}
}
