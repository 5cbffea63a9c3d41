package screenscan

import (
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/vt"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

func screen(rows ...string) vt.Snapshot {
	var s vt.Snapshot
	for _, r := range rows {
		s.Screen = append(s.Screen, vt.Line{Text: r})
	}
	return s
}

var block = []string{"● I'll ask.", "", "  [ROUTE]", "  to: architect", "  type: question", "  task: T-12", "  body: Which transport?", "  [/ROUTE]"}

// scanAt scans snap at t0+ms and returns what was emitted.
func scanAt(sc *Scanner, snap vt.Snapshot, ms int) ([]protocol.Event, bool) {
	var out []protocol.Event
	unsettled := sc.Scan(snap, 80, t0.Add(time.Duration(ms)*time.Millisecond), func(ev protocol.Event) { out = append(out, ev) })
	return out, unsettled
}

func TestBlockEmittedOnceWhenStable(t *testing.T) {
	sc := New()
	snap := screen(block...)
	if out, unsettled := scanAt(sc, snap, 0); len(out) != 0 || !unsettled {
		t.Fatalf("first sight: %v %v (must wait to be stable)", out, unsettled)
	}
	out, unsettled := scanAt(sc, snap, 25)
	if len(out) != 1 || unsettled || out[0].Envelope.Get("to") != "architect" || out[0].Envelope.Body != "Which transport?" {
		t.Fatalf("stable: %+v %v", out, unsettled)
	}
	// Redrawn, scrolled up, and shown twice mid-scroll: never again.
	moved := screen(append(append([]string{"more output"}, block...), block...)...)
	for ms := 30; ms < 200; ms += 20 {
		if out, _ := scanAt(sc, moved, ms); len(out) != 0 {
			t.Fatalf("redraw emitted again at %dms: %+v", ms, out)
		}
	}
}

func TestHalfDrawnBlockIsNotRead(t *testing.T) {
	sc := New()
	half := screen("  [ROUTE]", "  to: architect", "  type: ques", "  task: T-12", "  body: Which transport?", "  [/ROUTE]")
	scanAt(sc, half, 0)
	full := screen(block...)
	if out, _ := scanAt(sc, full, 1); len(out) != 0 {
		t.Fatalf("emitted before stable: %+v", out)
	}
	out, _ := scanAt(sc, full, 30)
	if len(out) != 1 || out[0].Envelope.Get("type") != "question" {
		t.Fatalf("%+v", out)
	}
	// A frame that repaints the block with a leftover row is not a message.
	leftover := screen("  [ROUTE]", "  to: architect", "  to: architect", "  type: question", "  task: T-9", "  body: x", "  [/ROUTE]")
	for ms := 40; ms < 200; ms += 20 {
		if out, _ := scanAt(sc, leftover, ms); len(out) != 0 {
			t.Fatalf("leftover row read as a message: %+v", out)
		}
	}
	// An unterminated block is still being drawn: nothing, no reformat.
	open := screen("  [ROUTE]", "  to: architect", "  type: status")
	for ms := 200; ms < 300; ms += 20 {
		if out, _ := scanAt(sc, open, ms); len(out) != 0 {
			t.Fatalf("unterminated block emitted: %+v", out)
		}
	}
}

func TestCompleteButInvalidBlockIsEmitted(t *testing.T) {
	// Missing task: the lead answers it with a reformat request.
	sc := New()
	snap := screen("[ROUTE]", "to: qa", "type: status", "body: done", "[/ROUTE]")
	scanAt(sc, snap, 0)
	out, _ := scanAt(sc, snap, 25)
	if len(out) != 1 || out[0].Kind != protocol.KindEnvelope || len(protocol.Problems(&out[0].Envelope, out[0].HasBody)) == 0 {
		t.Fatalf("%+v", out)
	}
}

func TestSameMessageAgainAfterItLeftCounts(t *testing.T) {
	sc := New()
	snap := screen(block...)
	scanAt(sc, snap, 0)
	if out, _ := scanAt(sc, snap, 25); len(out) != 1 {
		t.Fatal("first copy not emitted")
	}
	scanAt(sc, screen("cleared"), 100)
	// Redrawn soon after: the same block, not a new message.
	scanAt(sc, snap, 200)
	if out, _ := scanAt(sc, snap, 230); len(out) != 0 {
		t.Fatalf("redrawn block emitted again: %+v", out)
	}
	scanAt(sc, screen("cleared"), 300)
	// Out of sight for longer than forgetAfter: a new message.
	later := int((forgetAfter + time.Second) / time.Millisecond)
	scanAt(sc, snap, 300+later)
	if out, _ := scanAt(sc, snap, 330+later); len(out) != 1 {
		t.Fatalf("a message sent again much later was not read: %+v", out)
	}
}

func TestScrollbackWindowReadsBlockWhoseTopScrolledOff(t *testing.T) {
	sc := New()
	var snap vt.Snapshot
	for _, r := range block[:4] {
		snap.Scrollback = append(snap.Scrollback, vt.Line{Text: r})
	}
	for _, r := range block[4:] {
		snap.Screen = append(snap.Screen, vt.Line{Text: r})
	}
	scanAt(sc, snap, 0)
	if out, _ := scanAt(sc, snap, 25); len(out) != 1 || out[0].Envelope.Get("to") != "architect" {
		t.Fatalf("%+v", out)
	}
}

func TestJoin(t *testing.T) {
	cases := []struct {
		name  string
		rows  []vt.Line
		width int
		want  string
	}{
		{"terminal autowrap continues directly", []vt.Line{{Text: "body: abcdefghij", Wrapped: true}, {Text: "klm"}}, 16, "body: abcdefghijklm"},
		{"program wrap at a word joins with a space", []vt.Line{{Text: "  body: The spec says real-time updates but not"}, {Text: "  the transport."}}, 50, "  body: The spec says real-time updates but not the transport."},
		{"a short row is a real line break", []vt.Line{{Text: "  body: short"}, {Text: "  second line"}}, 50, "  body: short\n  second line"},
		{"never join into a marker", []vt.Line{{Text: "  body: The spec says real-time updates but not."}, {Text: "  [/ROUTE]"}}, 50, "  body: The spec says real-time updates but not.\n  [/ROUTE]"},
		{"never join a header row", []vt.Line{{Text: "  to: architect and a very long value that nearly fills"}, {Text: "  type: question"}}, 60, "  to: architect and a very long value that nearly fills\n  type: question"},
		{"bullet counts as indentation", []vt.Line{{Text: "● I will ask the architect about the transport that we"}, {Text: "  should use."}}, 58, "● I will ask the architect about the transport that we should use."},
		{"unindented rows stay apart", []vt.Line{{Text: "a long line of plain program output that reaches edge"}, {Text: "next"}}, 54, "a long line of plain program output that reaches edge\nnext"},
	}
	for _, c := range cases {
		if got := Join(c.rows, c.width); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

func TestForgetBoundsMemory(t *testing.T) {
	sc := New()
	for i := 0; i < maxRemembered+50; i++ {
		snap := screen("[ROUTE]", "to: qa", "type: status", "task: T", "body: message "+strings.Repeat("x", i%7)+string(rune('a'+i%26))+itoa(i), "[/ROUTE]")
		scanAt(sc, snap, i)
	}
	if len(sc.seen) > maxRemembered {
		t.Errorf("remembers %d blocks", len(sc.seen))
	}
}

func itoa(i int) string {
	s := ""
	for {
		s = string(rune('0'+i%10)) + s
		i /= 10
		if i == 0 {
			return s
		}
	}
}

// TestJoinKeepsTheBlankAtAWrap: a line the terminal wrapped right after a
// blank reads with its blank, and the same after the screen was resized
// and the line laid out again at other wraps; trimmed, "hello " and
// "world" read "helloworld", and a block read again after a reflow looked
// like a new one.
func TestJoinKeepsTheBlankAtAWrap(t *testing.T) {
	const line = "body: please check the reconnects on the staging box tonight"
	term := vt.New(20, 10, vt.Options{})
	term.Write([]byte(line + "\r\n"))
	join := func() string {
		var rows []vt.Line
		for _, r := range term.Snapshot().Screen {
			rows = append(rows, r)
			if !r.Wrapped {
				break
			}
		}
		return Join(rows, 20)
	}
	if got := join(); got != line {
		t.Fatalf("at 20 columns: %q", got)
	}
	for _, cols := range []int{27, 13, 40} {
		term.Resize(cols, 10)
		if got := join(); got != line {
			t.Fatalf("after a resize to %d columns: %q", cols, got)
		}
	}
}

// A row drawn inside a box keeps its text, not the box's padding and
// right border (Copilot CLI frames the prompt it echoes so).
func TestUnboxed(t *testing.T) {
	for in, want := range map[string]string{
		"┃ [ROUTE]                 ┃": "┃ [ROUTE]",
		"  │ type: question  │   ":    "  │ type: question",
		"plain text │":                "plain text │",
		"┃":                           "┃",
		// No left border (the prompt's first row), the right one at
		// the screen's edge (27 columns).
		"❯ task: T-2               ┃": "❯ task: T-2",
		"a table cell │":              "a table cell │",
	} {
		if got := unboxed(in, 27); got != want {
			t.Errorf("unboxed(%q) = %q, want %q", in, got, want)
		}
	}
}
