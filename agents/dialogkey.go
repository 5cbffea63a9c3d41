package agents

import "time"

// A key typed into a permission dialog answers that dialog only once the
// program has read it (the same "delivered means read" as messages,
// confirm.go). A key nobody reads stays in the terminal's input queue and
// would answer whatever reads it next: a later, different dialog (red team
// 18b, finding 1). So PressKey watches the key until it is read, and takes
// it back — flushes the unread input — when the dialog leaves or changes
// first, or when KeyReadWait passes.

// KeyReadWait is how long a dialog key may wait unread before it is taken
// back.
const KeyReadWait = 3 * time.Second

// KeyOutcome is what became of a dialog key.
type KeyOutcome int

// The outcomes of PressKey.
const (
	KeyRead      KeyOutcome = iota // the program read it
	KeyTakenBack                   // unread: flushed from the input queue
	KeyLost                        // not typed, or the process ended before it was read
	KeyNotShown                    // not typed: the dialog it answers was not on the screen
)

// KeyShowWait is how long PressKey waits for the dialog the keys answer to
// be on the screen before it types them.
const KeyShowWait = time.Second

// PressKey types keys into the running process for a dialog and calls done
// (on another goroutine) with what became of them: read by the program,
// or taken back unread once shown reports the dialog is no longer the one
// the keys answer, or after wait (KeyReadWait when 0). While the keys wait,
// the writer types nothing.
func (a *Agent) PressKey(keys string, wait time.Duration, shown func() bool, done func(KeyOutcome)) {
	if wait <= 0 {
		wait = KeyReadWait
	}
	a.mu.Lock()
	p := a.cur
	a.mu.Unlock()
	if p == nil || p.isExited() {
		go done(KeyLost)
		return
	}
	a.keyWait.Add(1)
	go func() {
		out := a.typeKey(p, keys, wait, shown)
		a.keyWait.Add(-1)
		a.wake()
		done(out)
	}()
}

// typeKey types keys once the dialog they answer is on the screen (a key
// typed into another dialog is read at once, before any watch could take
// it back: red team 21b, finding 1), then watches them.
func (a *Agent) typeKey(p *proc, keys string, wait time.Duration, shown func() bool) KeyOutcome {
	if shown != nil && !shown() {
		deadline := time.Now().Add(KeyShowWait)
		for !shown() {
			if time.Now().After(deadline) || p.isExited() {
				return KeyNotShown
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	p.wmu.Lock()
	_, err := p.writeLocked([]byte(keys))
	end := p.written.Load()
	p.wmu.Unlock()
	if err != nil {
		return KeyLost
	}
	return a.watchKey(p, end, wait, shown)
}

// watchKey waits until p has read its input up to end, or takes it back.
func (a *Agent) watchKey(p *proc, end int64, wait time.Duration, shown func() bool) KeyOutcome {
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(confirmPoll)
	defer tick.Stop()
	for {
		if n, ok, err := p.consumed(); err == nil && ok && n >= end {
			return KeyRead
		}
		if p.isExited() {
			return KeyLost
		}
		if time.Now().After(deadline) || (shown != nil && !shown()) {
			if a.takeBack(p, end) {
				return KeyTakenBack
			}
			return KeyRead // read at the last moment
		}
		select {
		case <-tick.C:
		case <-p.exited:
		}
	}
}

// takeBack flushes the input p has not read, unless it read up to end
// meanwhile (false then). Under the write lock, so nothing is typed
// between the look and the flush. On Linux, TCFLSH with TCIFLUSH on the
// slave side discards what the master wrote and the program did not read
// (the flip buffer and the line discipline's buffer); on the master it
// leaves them waiting (checked: TestDialogKeyUnreadIsTakenBack fails with
// the flush on the master, and without it). A message typed before the
// key and not read yet goes with it: it is taken from the confirmer under
// its lock before the flush (else the next look would find everything
// read and confirm it), and its writer types it again; one that cannot be
// told read is typed again too, a duplicate rather than a loss.
func (a *Agent) takeBack(p *proc, end int64) bool {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	n, ok, err := p.consumed()
	if err == nil && ok && n >= end {
		return false
	}
	c := p.confirm
	c.mu.Lock()
	var read, left []sent
	for _, s := range c.pending {
		if err == nil && ok && s.end <= n {
			read = append(read, s)
		} else {
			left = append(left, s)
		}
	}
	c.pending = nil
	p.withTTY(func(fd int) { _ = flushInput(fd) })
	// Everything written so far is read or gone: nothing is left waiting,
	// not even an unfinished line.
	p.lineEnd.Store(p.written.Load())
	c.mu.Unlock()
	confirmed(read)
	for _, s := range left {
		if a.spec.OnRetype != nil && !s.m.resubmit {
			a.spec.OnRetype(s.m.text)
		}
		close(s.taken)
	}
	return true
}
