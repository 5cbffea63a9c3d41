package lead

import "github.com/teamlead/teamlead/internal/protocol"

// echoCapacity bounds how many typed envelopes per agent are remembered as
// possible echo. The bound is not a time: every envelope queued for an agent
// is remembered until its echo is read back, however long the queue before
// it (a burst of a thousand relays into one agent is typed over seconds, and
// its echo comes only as each one is typed). Only past this many, when the
// terminal evidently echoes nothing (its ECHO flag is off, or the program
// draws its own input box), are the oldest forgotten.
const echoCapacity = 1 << 16

// echoRing remembers fingerprints of envelopes queued for one agent, as a
// multiset: each typed copy matches one echoed copy, then is forgotten.
// (The first version kept 256 in a ring, filled when the envelopes were
// queued, not typed: past 256 queued envelopes the echo of the early ones
// was read back as the agent's own message and refused as spoofed.)
type echoRing struct {
	count map[uint64]int
	fifo  []uint64 // queue order, for eviction; may hold consumed entries
	head  int
	live  int
}

func (r *echoRing) add(fp uint64) {
	if r.count == nil {
		r.count = map[uint64]int{}
	}
	for r.live >= echoCapacity && r.head < len(r.fifo) {
		old := r.fifo[r.head]
		r.head++
		if r.count[old] > 0 {
			r.dec(old)
		}
	}
	r.count[fp]++
	r.live++
	r.fifo = append(r.fifo, fp)
	if r.head > len(r.fifo)/2 && r.head > 1024 {
		r.fifo = append([]uint64(nil), r.fifo[r.head:]...)
		r.head = 0
	}
	if len(r.fifo)-r.head > 4*echoCapacity {
		r.compact()
	}
}

func (r *echoRing) dec(fp uint64) {
	r.count[fp]--
	r.live--
	if r.count[fp] == 0 {
		delete(r.count, fp)
	}
}

// compact drops consumed entries from the eviction queue (they pile up
// when echoes are consumed out of queue order).
func (r *echoRing) compact() {
	want := map[uint64]int{}
	var keep []uint64
	for i := len(r.fifo) - 1; i >= r.head; i-- {
		fp := r.fifo[i]
		if want[fp] < r.count[fp] {
			want[fp]++
			keep = append(keep, fp)
		}
	}
	for i, j := 0, len(keep)-1; i < j; i, j = i+1, j-1 {
		keep[i], keep[j] = keep[j], keep[i]
	}
	r.fifo, r.head = keep, 0
}

// consume reports whether fp was typed into the agent and forgets one copy.
func (r *echoRing) consume(fp uint64) bool {
	if r == nil || r.count[fp] == 0 {
		return false
	}
	r.dec(fp)
	return true
}

// has reports whether fp was typed into the agent and not yet echoed.
func (r *echoRing) has(fp uint64) bool { return r != nil && r.count[fp] > 0 }

// IsEcho reports whether ev, read from agent's output, is the echo of
// something the console typed into it (it is not consumed): flood control
// charges only the agent's own messages, never the echo of a burst relayed
// into it.
func (l *Lead) IsEcho(agent string, ev protocol.Event) bool {
	r := l.echo[agent]
	switch {
	case ev.Kind == protocol.KindEnvelope, ev.Kind == protocol.KindMalformed && ev.Block == "route":
		return r.has(protocol.Fingerprint(&ev.Envelope))
	case ev.Kind == protocol.KindGap:
		return r.has(protocol.GapFingerprint(&ev.Gap))
	}
	return false
}
