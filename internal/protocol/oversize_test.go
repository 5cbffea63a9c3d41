package protocol

import (
	"strings"
	"testing"
)

// Issue 12 item 6: a one-line [ROUTE] block over 64 KiB was dropped without
// a trace (the line passed the parser's line cap, and a line that long
// never started a block). It is refused like a multi-line one: one
// malformed event naming the limit.
func TestOneLineBlockOverLimitIsRefused(t *testing.T) {
	for _, size := range []int{MaxBlockBytes + 100, lineCap + 10, 3 * MaxBlockBytes} {
		for _, chunk := range []int{0, 1000, 4096} {
			body := strings.Repeat("x", size)
			line := "⏺ [ROUTE] to: qa type: status task: T-1 body: " + body + " [/ROUTE]\r\n"
			input := line + "[ROUTE] to: qa type: status task: T-2 body: after [/ROUTE]\n"
			var evs []Event
			p := NewParser()
			emit := func(e Event) { evs = append(evs, e) }
			if chunk == 0 {
				p.Feed([]byte(input), emit)
			} else {
				for i := 0; i < len(input); i += chunk {
					p.Feed([]byte(input[i:min(i+chunk, len(input))]), emit)
				}
			}
			p.Flush(emit)
			if len(evs) != 2 {
				t.Fatalf("size %d chunk %d: %d events, want the refusal and the next block: %+v", size, chunk, len(evs), kinds(evs))
			}
			if evs[0].Kind != KindMalformed || evs[0].Block != "route" || !strings.Contains(evs[0].Reason, "64 KiB") {
				t.Errorf("size %d chunk %d: first event %v %q, want a refusal naming the 64 KiB limit", size, chunk, evs[0].Kind, evs[0].Reason)
			}
			if evs[0].Envelope.Get("task") != "T-1" {
				t.Errorf("size %d chunk %d: the refusal lost the task header: %+v", size, chunk, evs[0].Envelope.Headers)
			}
			if len(evs[0].Raw) > rawCap {
				t.Errorf("raw kept %d bytes", len(evs[0].Raw))
			}
			if evs[1].Kind != KindEnvelope || evs[1].Envelope.Body != "after" {
				t.Errorf("size %d chunk %d: second event %v %+v", size, chunk, evs[1].Kind, evs[1].Envelope)
			}
		}
	}
}

// A one-line block that stays open past the line (its end marker on a
// later line) is refused too, once it ends.
func TestOverlongOpeningLineThenEndMarker(t *testing.T) {
	input := "[ROUTE] to: qa type: status task: T-1 body: " + strings.Repeat("y", lineCap+5000) + "\nmore\n[/ROUTE]\nplain text\n"
	evs := Parse(input)
	if len(evs) != 1 || evs[0].Kind != KindMalformed || !strings.Contains(evs[0].Reason, "64 KiB") {
		t.Fatalf("events %+v", kinds(evs))
	}
}

// The end marker straddling the kept start of the line and its tail
// still ends the block.
func TestOverlongEndMarkerAcrossTheCap(t *testing.T) {
	head := "[ROUTE] to: qa type: status task: T-1 body: "
	for cut := 1; cut < len("[/ROUTE]"); cut++ {
		body := strings.Repeat("w", lineCap-len(head)-cut)
		evs := Parse(head + body + "[/ROUTE] trailing words\nplain\n[ROUTE] to: qa type: status task: T-2 body: next [/ROUTE]\n")
		if len(evs) != 2 || evs[0].Kind != KindMalformed || evs[1].Envelope.Body != "next" {
			t.Fatalf("cut %d: events %+v", cut, kinds(evs))
		}
	}
}

// A long line of plain text is still no block, and costs no memory.
func TestOverlongPlainLineStartsNoBlock(t *testing.T) {
	p := NewParser()
	var evs []Event
	p.Feed([]byte(strings.Repeat("z", 3*MaxBlockBytes)+"[ROUTE] to: qa type: status task: T-1 body: hi [/ROUTE]\n"), func(e Event) { evs = append(evs, e) })
	if len(evs) != 0 {
		t.Fatalf("events %+v", kinds(evs))
	}
	if p.retained() > 64<<10 {
		t.Errorf("retained %d bytes", p.retained())
	}
}

func kinds(evs []Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Kind.String()+":"+e.Reason)
	}
	return out
}
