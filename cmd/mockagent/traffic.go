package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/teamlead/teamlead/agents"
)

// Traffic mode (--traffic-log): the agent sends mixed [ROUTE] traffic to
// its peers at a given rate and logs, one line per event, everything it
// sends and every envelope it receives with its id, so that a soak test
// can check from outside that nothing acknowledged was lost. The log is
// appended to across restarts; each line is written with one write(2),
// and a message is logged as sent before it is printed.
//
// Log lines (fields separated by one blank; quoted fields in Go syntax):
//
//	start inc=N pid=P                 this process began (N counts the starts in the log)
//	sent KEY to=TO type=TYPE          printed an envelope whose body is "soak KEY"
//	recv ID from=F key=KEY type=TYPE  received a relayed soak message (ID is its id: header, "-" if none)
//	ack ID to=A,B                     team-lead said "relayed ID to A, B"
//	ackl ID                           team-lead said "received ID" (a message to team-lead)
//	notice TASK "BODY"                any other envelope from team-lead
//	other ID from=F "BODY"            a relayed envelope that is not soak traffic
//	stopped                           the stop file appeared: no more sends
//	kill forced                       SIGUSR1 came while a read was not logged for 2 s
//
// SIGUSR1 makes the agent SIGKILL itself, at a moment when every byte it
// has read is recorded and logged (see selfKill).
// A received `type: question` is answered at once with a status message
// to its sender (a soak message of its own, "soak KEY re QKEY").

// trafficOptions are the --traffic-* flags.
type trafficOptions struct {
	log   string        // the event log (traffic mode is on when set)
	rate  float64       // messages per second this agent starts (0: none)
	peers []string      // agents to send to
	roles []string      // roles to address as role:R
	seed  uint64        // seeds the choices (with the start count)
	stop  string        // sending ends once this file exists
	every time.Duration // derived: the mean pause between sends
}

// trafficMix lists the kinds of message a traffic agent sends, with their
// weights out of 100.
var trafficMix = []struct {
	kind   string
	weight int
}{
	{"one", 35},      // status to one peer
	{"question", 15}, // question to one peer, who answers
	{"list", 15},     // status to two or three peers: to: a, b, c
	{"role", 15},     // status to role:R
	{"oneline", 12},  // status to one peer, one-line form
	{"lead", 8},      // status to team-lead (acknowledged "received m-N")
}

// traffic is one agent's traffic generator and receive log.
type traffic struct {
	o    trafficOptions
	name string
	task string
	inc  int

	outMu sync.Mutex
	out   io.Writer // the terminal

	logMu sync.Mutex
	log   *os.File

	rngMu sync.Mutex
	rng   *rand.Rand
	n     int // messages sent by this process

	rx envelopeReader // touched only by the terminal reader goroutine

	// readMu is held over each read(2) of the terminal (made once poll(2)
	// says input is there) until what it read is recorded and logged, so
	// that a kill by SIGUSR1 (selfKill) never lands between reading a
	// message and logging it.
	readMu sync.Mutex
}

// waitInput waits until fd has input to read (or has hung up), so that
// the read which follows does not block while holding readMu.
func (t *traffic) waitInput(fd int) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		_, err := unix.Poll(fds, -1)
		if err != unix.EINTR {
			return // ready, hung up, or an error the read will report
		}
	}
}

// selfKillWait bounds how long a kill waits for the read in hand to be
// logged (it could be stuck printing an answer to a console that stopped
// reading); then the agent kills itself anyway and says so in the log.
const selfKillWait = 2 * time.Second

// selfKill makes the agent SIGKILL itself on SIGUSR1 once no byte it read
// is left unlogged: a soak kills agents this way, so that a message the
// console confirmed delivered and the agent never logged is the console's
// loss, not a kill between read(2) and the log's write(2).
func (t *traffic) selfKill() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGUSR1)
	go func() {
		<-sig
		deadline := time.Now().Add(selfKillWait)
		for !t.readMu.TryLock() {
			if time.Now().After(deadline) {
				t.logf("kill forced")
				break
			}
			time.Sleep(time.Millisecond)
		}
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}()
}

// newTraffic opens the log and writes the start line.
func newTraffic(o trafficOptions, name string, out io.Writer) (*traffic, error) {
	inc := 1
	if b, err := os.ReadFile(o.log); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "start ") {
				inc++
			}
		}
	}
	f, err := os.OpenFile(o.log, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("--traffic-log: %w", err)
	}
	t := &traffic{o: o, name: name, task: "T-" + name, inc: inc, out: out, log: f,
		rng: rand.New(rand.NewPCG(o.seed, uint64(inc)))}
	t.logf("start inc=%d pid=%d", inc, os.Getpid())
	return t, nil
}

// logf appends one line to the log in one write.
func (t *traffic) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...) + "\n"
	t.logMu.Lock()
	defer t.logMu.Unlock()
	if _, err := t.log.WriteString(line); err != nil {
		fmt.Fprintln(os.Stderr, "mockagent: --traffic-log:", err)
		os.Exit(exitIOError)
	}
}

// emit prints one envelope in one write; a dead terminal ends the agent.
func (t *traffic) emit(s string) {
	t.outMu.Lock()
	defer t.outMu.Unlock()
	if _, err := io.WriteString(t.out, s); err != nil {
		os.Exit(exitIOError)
	}
}

// nextKey names this process's next message: NAME.INC.N.
func (t *traffic) nextKey() string {
	t.n++
	return t.name + "." + strconv.Itoa(t.inc) + "." + strconv.Itoa(t.n)
}

// send logs and prints one message.
func (t *traffic) send(to, typ, body string, oneLine bool) {
	t.rngMu.Lock()
	key := t.nextKey()
	t.rngMu.Unlock()
	if body != "" {
		body = " " + body
	}
	t.logf("sent %s to=%s type=%s", key, strings.ReplaceAll(to, " ", ""), typ)
	if oneLine {
		t.emit(fmt.Sprintf("[ROUTE] to: %s type: %s task: %s body: soak %s%s [/ROUTE]\n", to, typ, t.task, key, body))
		return
	}
	t.emit(fmt.Sprintf("[ROUTE]\nto: %s\ntype: %s\ntask: %s\nbody: soak %s%s\n[/ROUTE]\n", to, typ, t.task, key, body))
}

// pick chooses the next message: its kind and recipient.
func (t *traffic) pick() (kind, to string) {
	t.rngMu.Lock()
	defer t.rngMu.Unlock()
	r := t.rng.IntN(100)
	for _, m := range trafficMix {
		if r < m.weight {
			kind = m.kind
			break
		}
		r -= m.weight
	}
	peer := func() string { return t.o.peers[t.rng.IntN(len(t.o.peers))] }
	switch {
	case kind == "lead":
		return kind, "team-lead"
	case kind == "role" && len(t.o.roles) > 0:
		return kind, "role:" + t.o.roles[t.rng.IntN(len(t.o.roles))]
	case kind == "list" && len(t.o.peers) >= 2:
		p := t.rng.Perm(len(t.o.peers))[:min(len(t.o.peers), 2+t.rng.IntN(2))]
		names := make([]string, len(p))
		for i, j := range p {
			names[i] = t.o.peers[j]
		}
		return kind, strings.Join(names, ", ")
	case kind == "role", kind == "list":
		kind = "one"
	}
	return kind, peer()
}

// pause is the time to the next send: uniform in [0.5, 1.5) of the mean.
func (t *traffic) pause() time.Duration {
	t.rngMu.Lock()
	defer t.rngMu.Unlock()
	return time.Duration(float64(t.o.every) * (0.5 + t.rng.Float64()))
}

// run sends until the stop file exists. It returns at once if the rate is 0
// or there is nobody to send to.
func (t *traffic) run() {
	if t.o.rate <= 0 || len(t.o.peers) == 0 {
		return
	}
	next := time.Now().Add(t.pause())
	for {
		time.Sleep(time.Until(next))
		if t.o.stop != "" {
			if _, err := os.Stat(t.o.stop); err == nil {
				t.logf("stopped")
				return
			}
		}
		kind, to := t.pick()
		switch kind {
		case "question":
			t.send(to, "question", "", false)
		case "oneline":
			t.send(to, "status", "", true)
		default:
			t.send(to, "status", "", false)
		}
		next = next.Add(t.pause())
		if late := time.Since(next); late > 5*t.o.every {
			next = time.Now() // after a stall (a stopped process), no catch-up burst
		}
	}
}

// feed takes bytes read from the terminal; the caller holds readMu from
// the read on.
func (t *traffic) feed(b []byte) {
	t.rx.feed(b, t.received)
}

// received handles one complete envelope read from the terminal.
func (t *traffic) received(e map[string]string) {
	from, id, body := e["from"], e["id"], e["body"]
	if id == "" {
		id = "-"
	}
	if from == "team-lead" {
		if rest, ok := strings.CutPrefix(body, "relayed "); ok {
			if mid, to, ok := strings.Cut(rest, " to "); ok && !strings.ContainsAny(mid, " \t") {
				t.logf("ack %s to=%s", mid, strings.ReplaceAll(to, " ", ""))
				return
			}
		}
		if rest, ok := strings.CutPrefix(body, "received "); ok && !strings.ContainsAny(rest, " \t") {
			t.logf("ackl %s", rest)
			return
		}
		t.logf("notice %s %s", orDash(e["task"]), strconv.Quote(body))
		return
	}
	rest, ok := strings.CutPrefix(body, "soak ")
	key, _, _ := strings.Cut(rest, " ")
	if !ok || key == "" {
		t.logf("other %s from=%s %s", id, orDash(from), strconv.Quote(body))
		return
	}
	typ := orDash(e["type"])
	t.logf("recv %s from=%s key=%s type=%s", id, orDash(from), key, typ)
	if typ == "question" && from != "" && t.o.rate > 0 {
		t.send(from, "status", "re "+key, false)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// envelopeReader assembles [ROUTE] envelopes from typed lines (ended by CR
// or LF, escape sequences and control characters removed), multi-line or
// one-line form, as the console types them.
type envelopeReader struct {
	partial []byte
	in      bool
	inBody  bool
	cur     map[string]string
}

// maxTypedLine bounds a pending line; the excess is dropped.
const maxTypedLine = 64 << 10

// feed splits b into lines and calls fn for each complete envelope.
func (r *envelopeReader) feed(b []byte, fn func(map[string]string)) {
	for len(b) > 0 {
		i := bytes.IndexAny(b, "\r\n")
		if i < 0 {
			if room := maxTypedLine - len(r.partial); room > 0 {
				r.partial = append(r.partial, b[:min(len(b), room)]...)
			}
			return
		}
		r.partial = append(r.partial, b[:i]...)
		line := strings.TrimSpace(agents.Sanitize(string(r.partial)))
		r.partial = r.partial[:0]
		b = b[i+1:]
		r.line(line, fn)
	}
}

func (r *envelopeReader) line(line string, fn func(map[string]string)) {
	if strings.HasPrefix(line, "[ROUTE]") && strings.HasSuffix(line, "[/ROUTE]") && len(line) > len("[ROUTE][/ROUTE]") {
		fn(parseOneLine(strings.TrimSuffix(strings.TrimPrefix(line, "[ROUTE]"), "[/ROUTE]")))
		r.in = false
		return
	}
	switch {
	case line == "[ROUTE]":
		r.in, r.inBody, r.cur = true, false, map[string]string{}
	case !r.in:
	case line == "[/ROUTE]":
		r.in = false
		fn(r.cur)
	case r.inBody:
		r.cur["body"] += "\n" + line
	default:
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			return
		}
		k = strings.ToLower(strings.TrimSpace(k))
		r.cur[k] = strings.TrimSpace(v)
		r.inBody = k == "body"
	}
}

// parseOneLine reads " from: a to: b type: t task: x body: text" (the
// one-line form); body is last and runs to the end.
func parseOneLine(s string) map[string]string {
	e := map[string]string{}
	s = strings.TrimSpace(s)
	if k, v, ok := strings.Cut(s, "body:"); ok {
		e["body"] = strings.TrimSpace(v)
		s = k
	}
	f := strings.Fields(s)
	for i := 0; i+1 < len(f); i++ {
		if k, ok := strings.CutSuffix(f[i], ":"); ok {
			v := f[i+1]
			for i+2 < len(f) && !strings.HasSuffix(f[i+2], ":") {
				v += " " + f[i+2]
				i++
			}
			e[strings.ToLower(k)] = v
			i++
		}
	}
	return e
}

// parseList splits a comma-separated flag value, dropping blanks.
func parseList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// logLines returns the lines of the log at path (for tests).
func logLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		out = append(out, sc.Text())
	}
	return out, sc.Err()
}
