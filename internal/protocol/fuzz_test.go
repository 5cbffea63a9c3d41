package protocol

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// maxByteByByte bounds the inputs FuzzParser also feeds one byte at a time.
const maxByteByByte = 4 << 10

// FuzzParser feeds arbitrary bytes in arbitrary chunks. It must not panic,
// must hold no more than maxRetained bytes after any Feed, and must emit the
// same events as for the whole input fed at once and fed byte by byte.
func FuzzParser(f *testing.F) {
	for _, tc := range parseCases() {
		if len(tc.in) <= 8<<10 {
			f.Add([]byte(tc.in), uint64(len(tc.in)))
		}
	}
	log, _ := GenerateLog(4<<10, 3)
	f.Add(log, uint64(7))
	f.Fuzz(func(t *testing.T, in []byte, seed uint64) {
		whole := fuzzFeed(t, in, []int{len(in)})
		r := rand.New(rand.NewPCG(seed, seed>>32))
		var sizes []int
		for n := 0; n < len(in); {
			k := 1 + r.IntN(1+r.IntN(300))
			sizes = append(sizes, k)
			n += k
		}
		if got := fuzzFeed(t, in, sizes); !reflect.DeepEqual(got, whole) {
			t.Fatalf("chunks %v:\n got: %s\nwant: %s", sizes, dump(got), dump(whole))
		}
		// Byte by byte costs a Feed per byte: keep each execution quick so
		// the fuzzer can stop on time (TestSplitInvariance covers big inputs).
		if len(in) <= maxByteByByte {
			ones := make([]int, len(in))
			for i := range ones {
				ones[i] = 1
			}
			if got := fuzzFeed(t, in, ones); !reflect.DeepEqual(got, whole) {
				t.Fatalf("byte by byte:\n got: %s\nwant: %s", dump(got), dump(whole))
			}
		}
		for _, e := range whole {
			checkInvariants(t, e)
		}
	})
}

// fuzzFeed feeds in in chunks of the given sizes, checking the retained
// memory after each Feed.
func fuzzFeed(t *testing.T, in []byte, sizes []int) []Event {
	t.Helper()
	var out []Event
	emit := func(e Event) { out = append(out, e) }
	p := NewParser()
	for _, k := range sizes {
		k = min(k, len(in))
		p.Feed(in[:k], emit)
		in = in[k:]
		if r := p.retained(); r > maxRetained {
			t.Fatalf("the parser holds %d bytes", r)
		}
	}
	p.Flush(emit)
	return out
}

// checkInvariants checks what holds for every event.
func checkInvariants(t *testing.T, e Event) {
	t.Helper()
	switch {
	case e.Kind < KindEnvelope || e.Kind > KindMalformed:
		t.Fatalf("bad kind: %+v", e)
	case e.Block != "route" && e.Block != "gap":
		t.Fatalf("bad block: %+v", e)
	case (e.Kind == KindMalformed) != (e.Reason != ""):
		t.Fatalf("reason iff malformed: %+v", e)
	case len(e.Raw) > rawCap:
		t.Fatalf("Raw has %d bytes", len(e.Raw))
	case e.Kind == KindEnvelope && len(e.Envelope.Body) > MaxBlockBytes:
		t.Fatalf("body has %d bytes", len(e.Envelope.Body))
	case e.Kind == KindGap && (e.Gap.Topic == "" || e.Gap.Question == "" || e.Gap.Urgency == ""):
		t.Fatalf("incomplete gap: %+v", e)
	}
	if strings.ContainsAny(e.Raw, "\x1b\r\x00") {
		t.Fatalf("escape or control in Raw: %q", e.Raw)
	}
	for _, h := range e.Envelope.Headers {
		if h.Key != strings.ToLower(h.Key) || strings.ContainsAny(h.Key+h.Value, "\n\x1b") {
			t.Fatalf("bad header %q", h)
		}
	}
}

// FuzzStripANSI checks that the sanitizer leaves no escape or control
// character but \n and \t, never grows its input, and keeps valid UTF-8
// valid.
func FuzzStripANSI(f *testing.F) {
	for _, tc := range parseCases() {
		if len(tc.in) <= 8<<10 {
			f.Add(tc.in)
		}
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := StripANSI(in)
		if len(out) > len(in) {
			t.Fatalf("output longer than input: %q", out)
		}
		for i := 0; i < len(out); i++ {
			if c := out[i]; (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				t.Fatalf("control byte %#x left in %q", c, out)
			}
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("valid UTF-8 %q became invalid %q", in, out)
		}
	})
}
