package agents

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A message counts as delivered only once the program has read it from its
// terminal. Written to the PTY master is not enough: bytes the program has
// not read yet sit in the terminal's input buffer and vanish with the PTY
// if the console dies, so reporting them delivered would lose messages the
// console already acknowledged.
//
// The console keeps its own descriptor of the terminal's slave side and
// asks the kernel (TIOCINQ) how many input bytes are still unread:
// everything written minus that is what the program has consumed. The
// kernel moves bytes from the master to the slave's buffer asynchronously
// (a work queue), so an unread count of zero right after a write can be a
// lie; a message is confirmed only when it has been consumed and at least
// confirmSettle has passed since its last byte was written.
const (
	confirmSettle = 20 * time.Millisecond
	confirmPoll   = 2 * time.Millisecond
)

// sent is a message fully typed into a process, awaiting confirmation.
type sent struct {
	m   *message
	end int64     // p.written after its last byte
	at  time.Time // when its last byte was written
}

// confirmer tracks one process's typed-but-unconfirmed messages.
type confirmer struct {
	mu      sync.Mutex
	pending []sent
	wake    chan struct{} // capacity 1
	closed  bool
}

func newConfirmer() *confirmer { return &confirmer{wake: make(chan struct{}, 1)} }

// add queues m, typed up to byte offset end, for confirmation; false if
// the process already ended.
func (c *confirmer) add(m *message, end int64) bool {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return false
	}
	c.pending = append(c.pending, sent{m: m, end: end, at: time.Now()})
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return true
}

// unread is how many bytes typed into p the program has not read yet.
func (p *proc) unread() (int64, error) {
	rc, err := p.tty.SyscallConn()
	if err != nil {
		return 0, err
	}
	var n int
	var ierr error
	if err := rc.Control(func(fd uintptr) { n, ierr = unix.IoctlGetInt(int(fd), ioctlUnread) }); err != nil {
		return 0, err
	}
	return int64(n), ierr
}

// confirmRead calls done for every pending message the program has read.
// final skips the settle time (the process is gone; nothing more moves).
func (a *Agent) confirmRead(p *proc, final bool) {
	unread, err := p.unread()
	if err != nil {
		return
	}
	consumed := p.written.Load() - unread
	now := time.Now()
	c := p.confirm
	c.mu.Lock()
	n := 0
	for _, s := range c.pending {
		if s.end > consumed || (!final && now.Sub(s.at) < confirmSettle) {
			break
		}
		n++
	}
	done := append([]sent(nil), c.pending[:n]...)
	c.pending = c.pending[n:]
	c.mu.Unlock()
	for _, s := range done {
		s.m.done(nil)
	}
}

// confirmLoop confirms p's messages as the program reads them, until p
// exits.
func (a *Agent) confirmLoop(p *proc) {
	tick := time.NewTicker(confirmPoll)
	defer tick.Stop()
	for {
		p.confirm.mu.Lock()
		idle := len(p.confirm.pending) == 0
		p.confirm.mu.Unlock()
		if idle {
			select {
			case <-p.confirm.wake:
			case <-p.exited:
				return
			}
		}
		select {
		case <-tick.C:
			a.confirmRead(p, false)
		case <-p.exited:
			return
		}
	}
}

// endConfirm runs when p has exited: it confirms what the program read and
// puts every message it did not read back at the front of the queue, in
// order, to be typed into the next process (or failed with ErrGone when
// there will be none). Then it closes the console's slave descriptor, so
// the master reads EIO once the program's own copies are closed.
func (a *Agent) endConfirm(p *proc) {
	a.confirmRead(p, true)
	c := p.confirm
	c.mu.Lock()
	left := c.pending
	c.pending = nil
	c.closed = true
	c.mu.Unlock()
	closeTTY(p.tty)
	if len(left) == 0 {
		return
	}
	a.mu.Lock()
	requeue := make([]*message, 0, len(left)+len(a.queue))
	for _, s := range left {
		if !s.m.resubmit {
			requeue = append(requeue, s.m)
		}
	}
	a.queue = append(requeue, a.queue...)
	a.mu.Unlock()
	select {
	case a.queueSig <- struct{}{}:
	default:
	}
}

func closeTTY(f *os.File) {
	if f != nil {
		_ = f.Close()
	}
}
