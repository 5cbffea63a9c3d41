package bench

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"strconv"

	"github.com/teamlead/teamlead/internal/vt"
)

// MemoryResult is the heap an agent's terminal emulator holds once its
// scrollback is full.
type MemoryResult struct {
	// Terminals is how many terminals of Cols x Rows were measured together.
	Terminals, Cols, Rows int
	// Scrollback is the lines each keeps; Lines how many coloured lines of
	// Cols columns each was fed (more than it keeps: the ring has wrapped).
	Scrollback, Lines int
	// InputBytes is what each terminal was fed, escape sequences included.
	InputBytes int
	// TextBytes is the text of a full scrollback: Scrollback x Cols.
	TextBytes int
	// PerTerminal is the heap in use per terminal, in bytes: (HeapInuse
	// with the terminals - HeapInuse before) / Terminals, both after GC.
	PerTerminal float64
	// PerTerminalBare is the same for terminals keeping no scrollback, fed
	// the same lines: the screens and tables alone.
	PerTerminalBare float64
	// Problem says what is wrong ("" if nothing): a scrollback that did
	// not hold the lines it should.
	Problem string
}

// TextRatio is PerTerminal over TextBytes.
func (r *MemoryResult) TextRatio() float64 {
	if r.TextBytes == 0 {
		return 0
	}
	return r.PerTerminal / float64(r.TextBytes)
}

// MeasureMemory creates terminals emulators of cols x rows keeping
// scrollback lines, as the engine makes them (vt.New with a reply writer),
// feeds each scrollback*3/2 + rows coloured lines of cols columns (see
// appendColoredLines) in ptyChunk writes, and measures the heap they hold
// after a GC; then the same with terminals keeping no scrollback.
func MeasureMemory(terminals, cols, rows, scrollback int, seed int64) (*MemoryResult, error) {
	if terminals < 1 || cols < 1 || rows < 1 || scrollback < 1 {
		return nil, errors.New("memory: need terminals, cols, rows and scrollback >= 1")
	}
	lines := scrollback*3/2 + rows
	data := appendColoredLines(nil, lines, cols, seed)
	res := &MemoryResult{Terminals: terminals, Cols: cols, Rows: rows, Scrollback: scrollback, Lines: lines,
		InputBytes: len(data), TextBytes: scrollback * cols}
	measure := func(sb int) float64 {
		before := heapInuse()
		ts := make([]*vt.Terminal, terminals)
		for i := range ts {
			ts[i] = vt.New(cols, rows, vt.Options{Scrollback: sb, Reply: io.Discard})
			for p := data; len(p) > 0; {
				n := min(len(p), ptyChunk)
				_, _ = ts[i].Write(p[:n])
				p = p[n:]
			}
		}
		after := heapInuse()
		for i, t := range ts {
			if want := max(sb, 0); t.ScrollbackLen() != want && res.Problem == "" {
				res.Problem = fmt.Sprintf("terminal %d holds %d lines of scrollback, want %d", i, t.ScrollbackLen(), want)
			}
			if got := t.ScrollbackText(0); sb > 0 && len(got) != cols && res.Problem == "" {
				res.Problem = fmt.Sprintf("terminal %d: the oldest scrollback line is %d bytes, want %d: %q", i, len(got), cols, got)
			}
			t.Close()
		}
		runtime.KeepAlive(ts)
		return float64(int64(after)-int64(before)) / float64(terminals)
	}
	res.PerTerminal = measure(scrollback)
	res.PerTerminalBare = measure(-1)
	runtime.KeepAlive(data) // live through both, or a "before" counts it and an "after" not
	return res, nil
}

// heapInuse returns runtime.MemStats.HeapInuse after a full collection.
func heapInuse() uint64 {
	runtime.GC()
	runtime.GC() // and the finalizers the first one ran
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// coloredWords are the words of appendColoredLines: ASCII, so that a
// column is a byte.
var coloredWords = []string{"build", "test", "ok", "file", "return", "error", "value", "config", "server",
	"request", "cache", "index", "schema", "commit", "merge", "deploy", "PASS", "FAIL", "--", "=>", "src/main.go:42"}

// appendColoredLines appends n lines of exactly cols columns of printable
// ASCII, each ending in CRLF, as a build or test log prints them: words in
// runs of 256-colour or 24-bit foregrounds, some bold, some on a
// background, back to the default at the end of the line. The same seed
// gives the same lines.
func appendColoredLines(dst []byte, n, cols int, seed int64) []byte {
	r := rand.New(rand.NewPCG(uint64(seed), 0xc0105))
	for range n {
		col := 0
		for col < cols {
			switch r.IntN(4) {
			case 0:
				dst = append(dst, "\x1b[38;5;"...)
				dst = strconv.AppendInt(dst, int64(r.IntN(256)), 10)
				dst = append(dst, 'm')
			case 1:
				dst = append(dst, "\x1b[38;2;"...)
				dst = strconv.AppendInt(dst, int64(r.IntN(256)), 10)
				dst = append(dst, ';')
				dst = strconv.AppendInt(dst, int64(r.IntN(256)), 10)
				dst = append(dst, ';')
				dst = strconv.AppendInt(dst, int64(r.IntN(256)), 10)
				dst = append(dst, 'm')
			case 2:
				dst = append(dst, "\x1b[1;3"...)
				dst = strconv.AppendInt(dst, int64(1+r.IntN(6)), 10)
				dst = append(dst, 'm')
			default:
				dst = append(dst, "\x1b[0;48;5;"...)
				dst = strconv.AppendInt(dst, int64(232+r.IntN(24)), 10)
				dst = append(dst, 'm')
			}
			// A run of 1 to 4 words, cut at the end of the line.
			for w := 1 + r.IntN(4); w > 0 && col < cols; w-- {
				word := coloredWords[r.IntN(len(coloredWords))]
				if col > 0 {
					word = " " + word
				}
				if room := cols - col; len(word) > room {
					word = word[:room]
					if room == 1 {
						word = "." // not a blank at the end of the line
					}
				}
				dst = append(dst, word...)
				col += len(word)
			}
			if r.IntN(3) == 0 {
				dst = append(dst, "\x1b[m"...)
			}
		}
		dst = append(dst, "\x1b[m\r\n"...)
	}
	return dst
}
