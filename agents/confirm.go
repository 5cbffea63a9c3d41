package agents

import (
	"os"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// A message counts as delivered only once the program has read it from its
// terminal. Written to the PTY master is not enough: bytes the program has
// not read yet sit in the terminal's input buffers and vanish with the PTY
// if the console dies, so reporting them delivered would lose messages the
// console already acknowledged.
//
// What the kernel can tell (Linux drivers/tty: pty.c, tty_buffer.c,
// n_tty.c). Bytes written to the master land in the slave's flip buffer
// (tty_buffer.c, up to 64 KiB) and a work item later moves them into the
// line discipline's read buffer (n_tty, 4 KiB). TIOCINQ counts only the
// line discipline's buffer, and in canonical mode only its complete lines
// (inq_canon): bytes still in the flip buffer, bytes the line discipline
// could not take because its buffer is full (a program not reading, 4 KiB
// behind), and an unfinished line are all invisible to it. So "written
// minus TIOCINQ" is only an upper bound of what the program read, and the
// first version, which trusted it after 20 ms, confirmed messages the
// program never read whenever it was more than 4 KiB behind or the machine
// was slow to run the work item.
//
// n_tty_poll: when no input is available it calls tty_buffer_flush_work,
// which waits until the flip buffer has been moved into the line
// discipline, then looks again. So a zero-timeout poll of the console's own
// slave descriptor that reports "not readable" means: the flip buffer is
// empty (everything reached the line discipline, which had room, since it
// holds no available input), and the line discipline holds no complete
// line (canonical) or fewer than VMIN bytes (non-canonical). Only then is
// the count exact: in non-canonical mode TIOCINQ is what is left, in
// canonical mode the left-over is at most the unfinished line after the last
// line end the console typed, which the console knows. A check that finds
// input available confirms nothing: the program is behind, and the next
// check after it has read will see it.
const confirmPoll = 2 * time.Millisecond

// sent is a message fully typed into a process, awaiting confirmation.
type sent struct {
	m     *message
	end   int64         // p.written after its last byte
	taken chan struct{} // closed when it was flushed unread with a dialog key (dialogkey.go)
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
// the process already ended. taken is closed if m is flushed unread
// instead (it is then to be typed again).
func (c *confirmer) add(m *message, end int64) (taken <-chan struct{}, ok bool) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil, false
	}
	ch := make(chan struct{})
	c.pending = append(c.pending, sent{m: m, end: end, taken: ch})
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return ch, true
}

// consumed returns how many bytes typed into p the program has certainly
// read; ok is false when that cannot be told exactly now (input is still
// waiting for the program).
func (p *proc) consumed() (n int64, ok bool, err error) {
	rc, err := p.tty.SyscallConn()
	if err != nil {
		return 0, false, err
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		// Order matters: the last line end is loaded before the byte
		// count, so it never lies beyond it.
		lineEnd := p.lineEnd.Load()
		written := p.written.Load()
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		var r int
		for {
			r, ierr = unix.Poll(pfd, 0)
			if ierr != unix.EINTR {
				break
			}
		}
		if ierr != nil {
			return
		}
		if r > 0 && pfd[0].Revents&unix.POLLIN != 0 {
			return // input available: the flip buffer may hold more
		}
		var tio *unix.Termios
		if tio, ierr = unix.IoctlGetTermios(int(fd), ioctlGetTermios); ierr != nil {
			return
		}
		var inq int
		if inq, ierr = unix.IoctlGetInt(int(fd), ioctlUnread); ierr != nil {
			return
		}
		n = written - int64(inq)
		if tio.Lflag&unix.ICANON != 0 {
			n = min(n, lineEnd) // an unfinished line is not counted by TIOCINQ
		}
		ok = true
	}); err != nil {
		return 0, false, err
	}
	return n, ok, ierr
}

// confirmRead calls done for every pending message the program has read.
// final: the process is gone; what it left unread is not confirmed.
func (a *Agent) confirmRead(p *proc, final bool) {
	consumed, ok, err := p.consumed()
	if err != nil || !ok {
		return
	}
	c := p.confirm
	c.mu.Lock()
	n := 0
	for _, s := range c.pending {
		if s.end > consumed {
			break
		}
		n++
	}
	done := append([]sent(nil), c.pending[:n]...)
	c.pending = c.pending[n:]
	c.mu.Unlock()
	confirmed(done)
}

// confirmed tells each of read that the program read it.
func confirmed(read []sent) {
	for _, s := range read {
		s.m.done(nil)
		if s.m.settled != nil {
			close(s.m.settled)
		}
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
	a.retype(left)
}

// retype puts messages typed but not read back at the front of the queue,
// in order, to be typed again (resubmitted ones are not: their text was
// taken).
func (a *Agent) retype(left []sent) {
	if len(left) == 0 {
		return
	}
	if a.spec.OnRetype != nil {
		for _, s := range left {
			if !s.m.resubmit {
				a.spec.OnRetype(s.m.text)
			}
		}
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
