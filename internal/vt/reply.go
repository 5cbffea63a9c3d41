package vt

import (
	"io"
	"sync"
)

// maxReplyBacklog bounds the replies waiting for a slow reader; replies
// beyond it are dropped rather than held (a program that stops reading its
// input for that long is not waiting for the answers).
const maxReplyBacklog = 64 << 10

// replier hands replies to the program's queries to Options.Reply on its own
// goroutine, so that Terminal.Write never waits for the PTY.
type replier struct {
	w      io.Writer
	mu     sync.Mutex
	cond   *sync.Cond
	buf    []byte
	closed bool
	done   chan struct{}
}

func newReplier(w io.Writer) *replier {
	r := &replier{w: w, done: make(chan struct{})}
	r.cond = sync.NewCond(&r.mu)
	go r.loop()
	return r
}

// send queues b; it never blocks on the writer.
func (r *replier) send(b []byte) {
	r.mu.Lock()
	if !r.closed && len(r.buf)+len(b) <= maxReplyBacklog {
		r.buf = append(r.buf, b...)
		r.cond.Signal()
	}
	r.mu.Unlock()
}

func (r *replier) loop() {
	defer close(r.done)
	var out []byte
	for {
		r.mu.Lock()
		for len(r.buf) == 0 && !r.closed {
			r.cond.Wait()
		}
		if r.closed {
			r.mu.Unlock()
			return
		}
		out, r.buf = r.buf, out[:0]
		r.mu.Unlock()
		if _, err := r.w.Write(out); err != nil {
			r.close()
			return
		}
	}
}

// close discards queued replies and ends the goroutine once any write in
// progress returns.
func (r *replier) close() {
	r.mu.Lock()
	r.closed = true
	r.buf = nil
	r.cond.Broadcast()
	r.mu.Unlock()
}
