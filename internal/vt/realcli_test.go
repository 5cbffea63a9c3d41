package vt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// realCLIDir holds captures of Claude Code, Codex and Gemini CLI answering
// with a [ROUTE] envelope (made by internal/fakemodel/capture; see the
// README there): the PTY bytes, the offset of every read, and the final
// screen as text.
const realCLIDir = "../protocol/testdata/real"

type realCLI struct {
	name       string
	cols, rows int
	data       []byte
	reads      []int // end offsets of the reads
	screen     []string
}

func loadRealCLIs(t *testing.T) []realCLI {
	t.Helper()
	bins, _ := filepath.Glob(filepath.Join(realCLIDir, "*.bin"))
	if len(bins) == 0 {
		t.Fatalf("no captures of the real CLIs in %s", realCLIDir)
	}
	var out []realCLI
	for _, bin := range bins {
		base := strings.TrimSuffix(bin, ".bin")
		var hdr struct{ Cols, Rows int }
		b, err := os.ReadFile(base + ".json")
		if err == nil {
			err = json.Unmarshal(b, &hdr)
		}
		if err != nil {
			t.Fatalf("%s.json: %v", base, err)
		}
		c := realCLI{name: filepath.Base(base), cols: hdr.Cols, rows: hdr.Rows}
		if c.data, err = os.ReadFile(bin); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(base + ".reads"); err == nil {
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				if end, err := strconv.Atoi(strings.Fields(l)[0]); err == nil {
					c.reads = append(c.reads, end)
				}
			}
		}
		if b, err := os.ReadFile(base + ".screen.txt"); err == nil {
			c.screen = trimLines(strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"))
		}
		out = append(out, c)
	}
	return out
}

// TestRealCLIs replays each capture in the reads it was made of, and byte
// by byte: the final screen must be the one recorded, and the same both
// ways.
func TestRealCLIs(t *testing.T) {
	for _, c := range loadRealCLIs(t) {
		t.Run(c.name, func(t *testing.T) {
			term := New(c.cols, c.rows, Options{})
			prev := 0
			for _, end := range c.reads {
				term.Write(c.data[prev:end])
				prev = end
			}
			term.Write(c.data[prev:])
			if err := checkInvariants(term); err != nil {
				t.Fatal(err)
			}
			if c.screen != nil {
				if got := ourLines(term); strings.Join(got, "\n") != strings.Join(c.screen, "\n") {
					t.Errorf("final screen\n got %q\nwant %q", got, c.screen)
				}
			}
			byByte := New(c.cols, c.rows, Options{})
			for _, ch := range bytewise(c.data) {
				byByte.Write(ch)
			}
			if a, b := dump(term), dump(byByte); a != b {
				t.Errorf("byte by byte differs:\n%s\n---\n%s", b, a)
			}
		})
	}
}

// TestRealCLIsMatchTmux compares the screen with tmux's at the end of each
// capture and at a few of its reads on the way (frames half drawn
// included).
func TestRealCLIsMatchTmux(t *testing.T) {
	clis := loadRealCLIs(t)
	tm := newTmux(t)
	for _, c := range clis {
		points := []int{len(c.data)}
		for _, k := range []int{4, 2} {
			if n := len(c.reads); n > k {
				points = append(points, c.reads[n/k])
			}
		}
		for _, at := range points {
			t.Run(fmt.Sprintf("%s@%d", c.name, at), func(t *testing.T) {
				term := New(c.cols, c.rows, Options{})
				term.Write(c.data[:at])
				theirs := tm.screen(t, c.data[:at], c.cols, c.rows)
				cx, cy := tmuxCursorX(term)
				if d := diffScreens(ourLines(term), theirs, cx, cy, term.AltScreen()); d != "" {
					t.Errorf("differs from tmux after %d bytes:\n%s", at, d)
				}
			})
		}
	}
}
