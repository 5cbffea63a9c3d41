package vt

import (
	"flag"
	"os"
	"testing"
	"unicode/utf8"
)

// TestMain turns on the check of row logs against the cells' encoding for
// the tests (not for benchmarks and TestSpeedReport, which would measure
// it).
func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.bench"); (f == nil || f.Value.String() == "") && os.Getenv("VT_SPEED") == "" {
		checkRowLogs = true
	}
	os.Exit(m.Run())
}

// TestDecodeRune compares decodeRune with utf8.DecodeRune on every
// sequence its callers can pass (a lead byte utf8Len accepts and
// continuation bytes).
func TestDecodeRune(t *testing.T) {
	conts := []byte{0x80, 0x81, 0x8f, 0x90, 0x9f, 0xa0, 0xbf}
	for lead := 0xc0; lead <= 0xff; lead++ {
		n := utf8Len(byte(lead))
		if n == 0 {
			continue
		}
		var rec func(p []byte)
		rec = func(p []byte) {
			if len(p) == n {
				want, size := utf8.DecodeRune(p)
				if size != n {
					want = utf8.RuneError
				}
				if got := decodeRune(p); got != want {
					t.Fatalf("% x: got %U, want %U", p, got, want)
				}
				return
			}
			for _, c := range conts {
				rec(append(p, c))
			}
		}
		rec([]byte{byte(lead)})
	}
}
