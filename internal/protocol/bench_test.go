package protocol

import "testing"

// BenchmarkParser feeds a generated agent log in 32 KiB chunks, the size of
// a large PTY read.
func BenchmarkParser(b *testing.B) {
	log, want := GenerateLog(8<<20, 1)
	const chunk = 32 << 10
	p := NewParser()
	got := 0
	emit := func(e Event) {
		if e.Kind == KindEnvelope {
			got++
		}
	}
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		got = 0
		for i := 0; i < len(log); i += chunk {
			p.Feed(log[i:min(len(log), i+chunk)], emit)
		}
		p.Flush(emit)
		if got != want {
			b.Fatalf("%d envelopes, want %d", got, want)
		}
	}
}

// BenchmarkStripANSI measures the sanitizer on a coloured log.
func BenchmarkStripANSI(b *testing.B) {
	log, _ := GenerateLog(1<<20, 2)
	s := string(log)
	b.SetBytes(int64(len(s)))
	for range b.N {
		_ = StripANSI(s)
	}
}
