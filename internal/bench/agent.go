package bench

import (
	"bufio"
	"bytes"
	"fmt"
	"github.com/teamlead/teamlead/internal/term"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// runAgent is a benchmark agent: it sets its terminal up like an agent CLI
// (raw mode; with c.Echo it leaves it cooked, echoing), says it is ready, sends c.Count envelopes to c.To at the
// configured pace once the start file appears, and records every benchmark
// message it reads with its arrival time. It writes its result file once
// it has sent, received and been acknowledged everything (or when
// stopped), then waits for SIGTERM.
func runAgent(c agentConfig) int {
	if !c.Echo {
		restore, err := term.MakeRaw(0)
		if err != nil {
			fmt.Fprintln(os.Stderr, "tlbench agent: raw mode:", err)
			return 2
		}
		defer restore()
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	rec, err := newRecorder(c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench agent:", err)
		return 2
	}
	// The console types into an agent only after its first output.
	if _, err := fmt.Fprintf(os.Stdout, "tlbench agent %s ready\n", c.Name); err != nil {
		return 1
	}
	inputDone := make(chan struct{})
	go func() {
		defer close(inputDone)
		rec.readInput()
	}()
	if err := os.WriteFile(readyFile(c.Dir, c.Name), nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "tlbench agent:", err)
		return 2
	}
	go rec.send()
	select {
	case <-sigs:
	case <-inputDone:
	}
	if err := rec.finish(); err != nil {
		fmt.Fprintln(os.Stderr, "tlbench agent:", err)
		return 1
	}
	return 0
}

// recorder holds one agent's counts and its buffered result file.
type recorder struct {
	c    agentConfig
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
	got  int
	acks int
	sent int
	// notices counts envelopes from team-lead other than relay
	// acknowledgements (refusals, reformat requests, "not delivered").
	notices int
	done    bool
}

func newRecorder(c agentConfig) (*recorder, error) {
	// Written under a temporary name and renamed when finished, so the
	// parent sees either nothing or a whole file.
	f, err := os.Create(resultFile(c.Dir, c.Name) + ".tmp")
	if err != nil {
		return nil, err
	}
	return &recorder{c: c, f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// readInput reads what the console types, until the terminal closes.
func (r *recorder) readInput() {
	buf := make([]byte, 64<<10)
	var sc LineScanner
	id, from := "-", ""
	for {
		n, err := os.Stdin.Read(buf)
		// The arrival time is taken as soon as the read returns: what the
		// line scan costs afterwards is not the relay's.
		now := time.Now().UnixNano()
		sc.Feed(buf[:n], func(line []byte) {
			switch {
			case string(line) == "[ROUTE]":
				id, from = "-", ""
			case bytes.HasPrefix(line, []byte("from: ")):
				from = strings.TrimSpace(string(line[6:]))
			case bytes.HasPrefix(line, []byte("id: ")):
				id = strings.TrimSpace(string(line[4:]))
			case bytes.HasPrefix(line, []byte("body: ")):
				body := string(line[6:])
				if b, ok := ParseBody(body); ok {
					r.arrival(Arrival{Body: b, Arrived: now, ID: id})
				} else if strings.HasPrefix(body, "relayed ") {
					r.ack()
				} else if from == "team-lead" {
					r.notice()
				}
			}
		})
		if err != nil {
			return
		}
	}
}

// send writes the agent's envelopes at its pace, each in one write(2).
func (r *recorder) send() {
	start, err := waitStart(r.c.Dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench agent:", err)
		return
	}
	buf := make([]byte, 0, 256)
	for k := range r.c.Count {
		// Open loop: a send that fell behind goes at once, the schedule is
		// not shifted, so a slow relay cannot slow the offered load down.
		time.Sleep(time.Until(start.Add(r.c.Phase + time.Duration(k)*r.c.Period)))
		b := Body{From: r.c.Name, Seq: k}
		b.Sent = time.Now().UnixNano()
		buf = AppendEnvelope(buf[:0], r.c.To, b)
		if _, err := os.Stdout.Write(buf); err != nil {
			fmt.Fprintln(os.Stderr, "tlbench agent: write:", err)
			return
		}
		r.mu.Lock()
		r.sent++
		r.maybeDoneLocked()
		r.mu.Unlock()
	}
}

// waitStart waits for the parent's start file and returns the start time
// it holds: every agent starts its schedule from the same instant.
func waitStart(dir string) (time.Time, error) {
	for {
		b, err := os.ReadFile(startFile(dir))
		if err == nil {
			n, perr := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			if perr != nil {
				return time.Time{}, fmt.Errorf("start file: %w", perr)
			}
			return time.Unix(0, n), nil
		}
		if !os.IsNotExist(err) {
			return time.Time{}, err
		}
		time.Sleep(time.Millisecond)
	}
}

func (r *recorder) arrival(a Arrival) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done {
		return
	}
	writeArrival(r.w, a)
	r.got++
	r.maybeDoneLocked()
}

func (r *recorder) notice() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.notices++
}

func (r *recorder) ack() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.acks++
	r.maybeDoneLocked()
}

// maybeDoneLocked writes the result file once everything expected happened.
func (r *recorder) maybeDoneLocked() {
	if !r.done && r.sent >= r.c.Count && r.got >= r.c.Expect && r.acks >= r.c.Acks {
		_ = r.finishLocked(true)
	}
}

// finish writes the result file if it was not written yet (the agent is
// being stopped before it got everything).
func (r *recorder) finish() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.finishLocked(false)
}

func (r *recorder) finishLocked(complete bool) error {
	if r.done {
		return nil
	}
	r.done = true
	writeTotals(r.w, r.sent, r.acks, complete, r.notices)
	err := r.w.Flush()
	if cerr := r.f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(r.f.Name(), resultFile(r.c.Dir, r.c.Name))
}
