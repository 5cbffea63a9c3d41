package vt

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/protocol"
)

// bestRate feeds data to a fresh terminal runs times and returns the best
// throughput in MB/s (the best run is the one least disturbed by other
// work on the machine).
func bestRate(data []byte, chunk, runs int) float64 {
	best := time.Duration(1 << 62)
	for range runs {
		term := New(120, 40, Options{})
		start := time.Now()
		for p := data; len(p) > 0; {
			n := min(len(p), chunk)
			term.Write(p[:n])
			p = p[n:]
		}
		best = min(best, time.Since(start))
	}
	return float64(len(data)) / best.Seconds() / 1e6
}

// TestSpeedReport prints the best throughput of several runs, which is
// steadier than a benchmark's mean on a busy machine:
//
//	VT_SPEED=1 go test -run TestSpeedReport -v ./internal/vt
func TestSpeedReport(t *testing.T) {
	if os.Getenv("VT_SPEED") == "" {
		t.Skip("set VT_SPEED=1 to measure")
	}
	log, _ := protocol.GenerateLog(4<<20, 1)
	var buf bytes.Buffer
	for i := 0; buf.Len() < 4<<20; i++ {
		fmt.Fprintf(&buf, "\x1b[38;5;%dm%5d\x1b[m %s\x1b[1mdone\x1b[22m\r\n", i%256, i, strings.Repeat("lorem ipsum ", 8))
	}
	t.Logf("log 4K chunks: %.0f MB/s", bestRate(log, 4<<10, 15))
	t.Logf("log 32K chunks: %.0f MB/s", bestRate(log, 32<<10, 15))
	t.Logf("plain: %.0f MB/s", bestRate(buf.Bytes(), 32<<10, 15))
}

func TestPrintableRun(t *testing.T) {
	for n := 0; n < 20; n++ {
		for _, bad := range []byte{0x00, 0x1b, 0x1f, 0x7f, 0x80, 0xc3, 0xff} {
			p := append(bytes.Repeat([]byte{'a'}, n), bad, 'b', 'c')
			if got := printableRun(p); got != n {
				t.Errorf("run of %d then %#x: got %d", n, bad, got)
			}
		}
		for _, good := range []byte{0x20, 0x7e, 'z', '~'} {
			p := bytes.Repeat([]byte{good}, n)
			if got := printableRun(p); got != n {
				t.Errorf("%d of %#x: got %d", n, good, got)
			}
		}
	}
}
