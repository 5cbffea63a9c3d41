package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// bodyPrefix starts every benchmark body, so a receiver can tell a relayed
// benchmark message from the acknowledgements and notices the engine types.
const bodyPrefix = "tlbench "

// Body is what one benchmark message carries: its sender, its sequence
// number from that sender, and the sender's clock (Unix nanoseconds) taken
// just before the write that printed it.
type Body struct {
	From string
	Seq  int
	Sent int64
}

// String encodes b as a one-line envelope body, e.g.
// "tlbench from=agent-00 seq=17 sent=1732197000123456789". The words are
// chosen so that the Team Lead's coding-request rules never match.
func (b Body) String() string {
	return string(b.appendTo(nil))
}

func (b Body) appendTo(dst []byte) []byte {
	dst = append(dst, bodyPrefix+"from="...)
	dst = append(dst, b.From...)
	dst = append(dst, " seq="...)
	dst = strconv.AppendInt(dst, int64(b.Seq), 10)
	dst = append(dst, " sent="...)
	return strconv.AppendInt(dst, b.Sent, 10)
}

// ParseBody decodes a body made by Body.String; surrounding blanks are
// ignored. ok is false for anything else (an acknowledgement, say).
func ParseBody(s string) (b Body, ok bool) {
	rest, found := strings.CutPrefix(strings.TrimSpace(s), bodyPrefix)
	if !found {
		return Body{}, false
	}
	f := strings.Fields(rest)
	if len(f) != 3 {
		return Body{}, false
	}
	from, ok1 := strings.CutPrefix(f[0], "from=")
	seq, ok2 := strings.CutPrefix(f[1], "seq=")
	sent, ok3 := strings.CutPrefix(f[2], "sent=")
	if !ok1 || !ok2 || !ok3 || from == "" {
		return Body{}, false
	}
	var err error
	if b.Seq, err = strconv.Atoi(seq); err != nil || b.Seq < 0 {
		return Body{}, false
	}
	if b.Sent, err = strconv.ParseInt(sent, 10, 64); err != nil {
		return Body{}, false
	}
	b.From = from
	return b, true
}

// AppendEnvelope appends the envelope an agent prints to send b to agent
// to: one [ROUTE] block, lines ending in "\n" (the terminal turns them into
// CRLF).
func AppendEnvelope(dst []byte, to string, b Body) []byte {
	dst = append(dst, "[ROUTE]\nto: "...)
	dst = append(dst, to...)
	dst = append(dst, "\ntype: status\ntask: bench\nbody: "...)
	dst = b.appendTo(dst)
	return append(dst, "\n[/ROUTE]\n"...)
}

// LineScanner splits a terminal byte stream into lines. A line ends at CR
// or LF (so CRLF, and the CR the console types for Enter, both end one);
// empty lines are dropped. The zero value is ready to use.
type LineScanner struct {
	partial []byte
}

// maxLine bounds a pending line, so a peer that never ends one cannot
// grow the buffer without limit; the excess is dropped.
const maxLine = 64 << 10

// Feed splits data and calls fn for every completed line, in order. The
// line is valid only during the call.
func (s *LineScanner) Feed(data []byte, fn func(line []byte)) {
	for len(data) > 0 {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			if room := maxLine - len(s.partial); room > 0 {
				s.partial = append(s.partial, data[:min(len(data), room)]...)
			}
			return
		}
		line := data[:i]
		if len(s.partial) > 0 {
			s.partial = append(s.partial, line...)
			line = s.partial
		}
		if len(line) > 0 {
			fn(line)
		}
		s.partial = s.partial[:0]
		data = data[i+1:]
	}
}

// Arrival is one benchmark message as its receiver saw it.
type Arrival struct {
	Body
	// Arrived is the receiver's clock (Unix nanoseconds) right after the
	// read that completed the body line.
	Arrived int64
	// ID is the message id the engine assigned (the delivered id: header),
	// or "-" when there was none (the bare relay).
	ID string
}

// Latency is the time from the sender's write to the receiver's read.
func (a Arrival) Latency() int64 { return a.Arrived - a.Sent }

// AgentResult is what one benchmark agent wrote to its result file.
type AgentResult struct {
	// Sent is how many messages the agent sent.
	Sent int
	// Acks is how many relay acknowledgements it received.
	Acks int
	// Arrivals are the benchmark messages it received, in order.
	Arrivals []Arrival
	// Complete is true when the agent finished on its own (sent all,
	// received all it expected) rather than being stopped early.
	Complete bool
	// Notices is how many envelopes from team-lead other than relay
	// acknowledgements it received.
	Notices int
}

// Result file lines:
//
//	r FROM SEQ SENT ARRIVED ID   one received message
//	s SENT ACKS COMPLETE NOTICES the totals, last (NOTICES may be absent: 0)
func writeArrival(w *bufio.Writer, a Arrival) {
	fmt.Fprintf(w, "r %s %d %d %d %s\n", a.From, a.Seq, a.Sent, a.Arrived, a.ID)
}

func writeTotals(w *bufio.Writer, sent, acks int, complete bool, notices int) {
	fmt.Fprintf(w, "s %d %d %t %d\n", sent, acks, complete, notices)
}

// ReadAgentResult parses a result file written by a benchmark agent.
func ReadAgentResult(r io.Reader) (AgentResult, error) {
	var res AgentResult
	sc := bufio.NewScanner(r)
	totals := false
	for n := 1; sc.Scan(); n++ {
		f := strings.Fields(sc.Text())
		bad := func() (AgentResult, error) { return res, fmt.Errorf("result line %d: cannot parse %q", n, sc.Text()) }
		switch {
		case len(f) == 6 && f[0] == "r":
			var a Arrival
			var err1, err2, err3 error
			a.From, a.ID = f[1], f[5]
			a.Seq, err1 = strconv.Atoi(f[2])
			a.Sent, err2 = strconv.ParseInt(f[3], 10, 64)
			a.Arrived, err3 = strconv.ParseInt(f[4], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil {
				return bad()
			}
			res.Arrivals = append(res.Arrivals, a)
		case (len(f) == 4 || len(f) == 5) && f[0] == "s":
			var err1, err2, err3, err4 error
			res.Sent, err1 = strconv.Atoi(f[1])
			res.Acks, err2 = strconv.Atoi(f[2])
			res.Complete, err3 = strconv.ParseBool(f[3])
			if len(f) == 5 {
				res.Notices, err4 = strconv.Atoi(f[4])
			}
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				return bad()
			}
			totals = true
		default:
			return bad()
		}
	}
	if err := sc.Err(); err != nil {
		return res, err
	}
	if !totals {
		return res, fmt.Errorf("result file has no totals line (the agent did not finish writing it)")
	}
	return res, nil
}
