package screenscan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/vt"
)

// fixtures are the real CLIs' terminal output (internal/protocol/testdata/real).
const fixtures = "../protocol/testdata/real"

type meta struct {
	Cols  int    `json:"cols"`
	Rows  int    `json:"rows"`
	Reply string `json:"model_reply"`
}

// read is one read of the capture: its end offset and arrival time.
type read struct {
	end int
	at  time.Duration
}

// readReads loads the capture's read timing (the .reads file).
func readReads(t *testing.T, bin string) []read {
	t.Helper()
	data, err := os.ReadFile(strings.TrimSuffix(bin, ".bin") + ".reads")
	if err != nil {
		t.Fatalf("read timing: %v (recapture: see %s/README.md)", err, fixtures)
	}
	var out []read
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r read
		var ns int64
		if _, err := fmt.Sscan(line, &r.end, &ns); err != nil {
			t.Fatalf("bad .reads line %q", line)
		}
		r.at = time.Duration(ns)
		out = append(out, r)
	}
	return out
}

// replay feeds a capture to a terminal read by read, at the times the reads
// really arrived, each read cut further into pieces of at most chunk bytes
// (a kernel may split a frame anywhere), scanning after every piece as the
// console does after output, and returns every block emitted.
func replay(t *testing.T, raw []byte, reads []read, m meta, chunk int) []protocol.Event {
	t.Helper()
	term := vt.New(m.Cols, m.Rows, vt.Options{Scrollback: 2000})
	defer term.Close()
	sc := New()
	var out []protocol.Event
	emit := func(ev protocol.Event) { out = append(out, ev) }
	start := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	now, off := start, 0
	for _, r := range reads {
		for off < r.end {
			n := min(chunk, r.end-off)
			term.Write(raw[off : off+n])
			off += n
			now = start.Add(r.at + time.Duration(off)) // pieces of one read: a nanosecond a byte
			if term.Modes().SyncOutput {
				continue // the program is in the middle of a frame
			}
			sc.Scan(term.Snapshot(), m.Cols, now, emit)
		}
	}
	// The agent went quiet: scan again while blocks wait to be confirmed.
	for i := 0; i < 3 && sc.Scan(term.Snapshot(), m.Cols, now.Add(time.Duration(i+1)*Settle), emit); i++ {
	}
	return out
}

// TestRealCLIsOnScreen: every capture of Claude Code, Codex and Gemini CLI
// yields exactly the envelope the model wrote, once, however the CLI drew,
// redrew, wrapped and scrolled it, and whatever the read sizes.
func TestRealCLIsOnScreen(t *testing.T) {
	bins, err := filepath.Glob(filepath.Join(fixtures, "*.bin"))
	if err != nil || len(bins) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, bin := range bins {
		name := strings.TrimSuffix(filepath.Base(bin), ".bin")
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(bin)
			if err != nil {
				t.Fatal(err)
			}
			var m meta
			js, err := os.ReadFile(strings.TrimSuffix(bin, ".bin") + ".json")
			if err != nil || json.Unmarshal(js, &m) != nil {
				t.Fatalf("metadata: %v", err)
			}
			want := protocol.Parse(m.Reply)
			if len(want) != 1 || want[0].Kind != protocol.KindEnvelope {
				t.Fatalf("the model's reply itself does not parse to one envelope: %+v", want)
			}
			reads := readReads(t, bin)
			chunks := []int{64, 1 << 20}
			if len(raw) <= 16<<10 {
				chunks = append(chunks, 1) // a scan per byte costs a full scan per byte: the small captures
			}
			for _, chunk := range chunks {
				got := replay(t, raw, reads, m, chunk)
				if len(got) != 1 || got[0].Kind != protocol.KindEnvelope {
					t.Fatalf("chunks of %d: %d events, want 1 envelope: %+v", chunk, len(got), got)
				}
				g, w := got[0].Envelope, want[0].Envelope
				if !reflect.DeepEqual(g.Headers, w.Headers) || collapse(g.Body) != collapse(w.Body) {
					t.Errorf("chunks of %d:\n got %q %q\nwant %q %q", chunk, g.Headers, g.Body, w.Headers, w.Body)
				}
				if strings.Contains(g.Body, "\n") && !strings.Contains(w.Body, "\n") {
					t.Errorf("chunks of %d: a soft wrap was left in the body: %q", chunk, g.Body)
				}
			}
		})
	}
}

func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }
