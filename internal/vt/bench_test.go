package vt

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/protocol"
)

// BenchmarkWrite feeds a realistic coloured agent log (protocol.GenerateLog:
// prose with 256 and 24-bit colours, wide characters, long wrapped lines,
// spinners redrawn with CR, cursor moves) to a 120x40 terminal.
func BenchmarkWrite(b *testing.B) {
	log, _ := protocol.GenerateLog(4<<20, 1)
	for _, chunk := range []int{4 << 10, 32 << 10} {
		b.Run(fmt.Sprintf("log/chunk=%dK", chunk>>10), func(b *testing.B) {
			term := New(120, 40, Options{})
			b.SetBytes(int64(len(log)))
			b.ReportAllocs()
			for b.Loop() {
				for p := log; len(p) > 0; {
					n := min(len(p), chunk)
					term.Write(p[:n])
					p = p[n:]
				}
			}
		})
	}
	b.Run("plain", func(b *testing.B) {
		// Coloured text and line feeds only: the fast path.
		var buf bytes.Buffer
		for i := 0; buf.Len() < 4<<20; i++ {
			fmt.Fprintf(&buf, "\x1b[38;5;%dm%5d\x1b[m %s\x1b[1mdone\x1b[22m\r\n", i%256, i, strings.Repeat("lorem ipsum ", 8))
		}
		term := New(120, 40, Options{})
		b.SetBytes(int64(buf.Len()))
		b.ReportAllocs()
		for b.Loop() {
			term.Write(buf.Bytes())
		}
	})
}

// fillColoured writes n lines of 120 columns of coloured text.
func fillColoured(term *Terminal, n int) {
	var buf bytes.Buffer
	words := strings.Fields("the build test file function return error value type struct config server データ 测试")
	for i := range n {
		buf.Reset()
		col := 0
		for j := 0; col < 110; j++ {
			w := words[(i+j)%len(words)]
			fmt.Fprintf(&buf, "\x1b[38;5;%dm%s\x1b[m ", (i*7+j)%256, w)
			col += len(w) + 1
		}
		if i%3 == 0 {
			buf.WriteString("\x1b[38;2;200;100;50m✓\x1b[m")
		}
		buf.WriteString("\r\n")
		term.Write(buf.Bytes())
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// TestScrollbackMemory checks the product's budget: a terminal holding
// 10,000 lines of 120-column coloured text in its scrollback stays under
// 20 MB.
func TestScrollbackMemory(t *testing.T) {
	before := heapInUse()
	term := New(120, 40, Options{Scrollback: 10000})
	fillColoured(term, 10000+40)
	after := heapInUse()
	if n := term.ScrollbackLen(); n != 10000 {
		t.Fatalf("scrollback holds %d lines", n)
	}
	used := int64(after) - int64(before)
	t.Logf("10,000 lines of 120-column coloured scrollback: %.2f MB", float64(used)/(1<<20))
	if used > 20<<20 {
		t.Errorf("terminal uses %d bytes, over 20 MB", used)
	}
	runtime.KeepAlive(term)
}

// BenchmarkScrollbackMemory reports the heap used per terminal with full
// scrollback.
func BenchmarkScrollbackMemory(b *testing.B) {
	for b.Loop() {
		before := heapInUse()
		term := New(120, 40, Options{Scrollback: 10000})
		fillColoured(term, 10040)
		b.ReportMetric(float64(int64(heapInUse())-int64(before))/(1<<20), "MB/terminal")
		runtime.KeepAlive(term)
	}
}

// BenchmarkResizeReflow resizes a 120x40 terminal with 10,000 lines of
// scrollback to another width and back (a resize is half an iteration).
// Lines of 120-column coloured text (fillColoured, a style run a word)
// are all laid out again at 80 columns, where they take 20,000 rows (the
// scrollback holds as many), and back; they stay as they are at 160. A
// realistic agent log (protocol.GenerateLog) has shorter lines, fewer runs
// and long wrapped ones, in a scrollback of 10,000 rows.
func BenchmarkResizeReflow(b *testing.B) {
	log, _ := protocol.GenerateLog(4<<20, 1)
	for _, c := range []struct {
		name       string
		width, max int
		fill       func(*Terminal)
	}{
		{"coloured/120-80", 80, 20100, func(t *Terminal) { fillColoured(t, 10039) }},
		{"coloured/120-160", 160, 20100, func(t *Terminal) { fillColoured(t, 10039) }},
		{"log/120-80", 80, 10000, func(t *Terminal) { t.Write(log) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			term := New(120, 40, Options{Scrollback: c.max})
			c.fill(term)
			if n := term.ScrollbackLen(); n != 10000 {
				b.Fatalf("scrollback holds %d lines", n)
			}
			b.ReportAllocs()
			for b.Loop() {
				term.Resize(c.width, 40)
				term.Resize(120, 40)
			}
		})
	}
	b.Run("height", func(b *testing.B) {
		// The width stays: no line is laid out again.
		term := New(120, 40, Options{Scrollback: 10000})
		fillColoured(term, 10040)
		b.ReportAllocs()
		for b.Loop() {
			term.Resize(120, 30)
			term.Resize(120, 40)
		}
	})
}
