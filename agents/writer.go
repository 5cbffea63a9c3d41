package agents

import (
	"errors"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// Bracketed paste delimiters (xterm): the program reads everything between
// them as pasted text, newlines included, instead of as typed keys.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// message is one text queued by Type.
type message struct {
	text string
	done func(error)
	// resubmit marks a submit key pressed again by checkSubmit: tracked
	// until read, never typed again into a next process.
	resubmit bool
	// settled is closed once done(nil) has returned for a read message.
	settled chan struct{}
	// notice marks a short word from the console (Notice): notices
	// waiting side by side are typed as one message.
	notice bool
	// ack marks an acknowledgement (Ack): with Preset.AcksWithNext it
	// waits for the next message and goes in with it.
	ack bool
	// parts are the notices (and the message they went in with) a merged
	// message carries.
	parts []*message
	// urgent goes in even during the program's turn (TypeUrgent).
	urgent bool
}

// Notices waiting side by side are joined into one message of at most
// MaxMergedNotices of them and maxMergedBytes of text: a burst of
// acknowledgements costs the agent one read (and a CLI one prompt)
// instead of one each.
const (
	MaxMergedNotices = 16
	maxMergedBytes   = 8 << 10
)

// Type enqueues text to be typed into the agent as one message and returns
// at once. The writer goroutine types messages one at a time in enqueue
// order: the text is sanitized (see Sanitize; trailing newlines dropped),
// then sent as one bracketed paste when the preset says so (or, in auto
// mode, the program enabled it), else line by line joined with the preset's
// Newline and LineDelay apart; then, after SubmitDelay, the Submit key.
//
// done (may be nil) is called on another goroutine, never the caller's,
// once the program has read the whole message including Submit from its
// terminal (see confirm.go); the next message is typed only after done
// returns, so a done that returns once the delivery is recorded leaves at
// most one message per agent read but unrecorded at any moment, or with an error wrapping ErrGone if the agent
// is stopped or done first (ErrWrite if the PTY refused a write while the
// program still ran). While the agent restarts, messages wait for the new
// process; a message cut short by the process exiting, or typed but not
// read when it exited, is typed again, whole, into the next one.
func (a *Agent) Type(text string, done func(error)) { a.enqueue(text, done, false, false) }

// TypeUrgent is Type for what may not wait for the end of the program's
// turn (the human's words, a blocker): typed even while it is busy.
func (a *Agent) TypeUrgent(text string, done func(error)) {
	a.enqueueMessage(&message{text: text, done: done, urgent: true})
}

// Notice is Type for a short word from the console (an acknowledgement, a
// refusal): notices that wait next to each other in the queue are typed as
// one message, their texts a blank line apart, and each one's done is
// called in order once it is read. Up to MaxMergedNotices may so be read
// before the first is recorded.
func (a *Agent) Notice(text string, done func(error)) { a.enqueue(text, done, true, false) }

// Ack is Notice for a relay acknowledgement. With Preset.AcksWithNext it is
// not typed as a message of its own: it waits for the next text typed into
// the agent (a message, a notice, the human's words) and goes in with it,
// so that an acknowledgement costs a CLI no model turn of its own.
func (a *Agent) Ack(text string, done func(error)) { a.enqueue(text, done, true, true) }

// TypeAs types text the way wire.Delivery.Typing names: wire.TypeMessage
// (Type), TypeUrgent, TypeNotice or TypeAck.
func (a *Agent) TypeAs(way, text string, done func(error)) {
	switch way {
	case wire.TypeUrgent:
		a.TypeUrgent(text, done)
	case wire.TypeNotice:
		a.Notice(text, done)
	case wire.TypeAck:
		a.Ack(text, done)
	default:
		a.Type(text, done)
	}
}

func (a *Agent) enqueue(text string, done func(error), notice, ack bool) {
	a.enqueueMessage(&message{text: text, done: done, notice: notice, ack: ack})
}

func (a *Agent) enqueueMessage(m *message) {
	if m.done == nil {
		m.done = func(error) {}
	}
	m.settled = make(chan struct{})
	done := m.done
	a.mu.Lock()
	if a.final {
		a.mu.Unlock()
		go done(a.gone())
		return
	}
	a.queue = append(a.queue, m)
	a.mu.Unlock()
	select {
	case a.queueSig <- struct{}{}:
	default:
	}
}

// writer types queued messages until the agent is done, then fails what is
// left with ErrGone.
func (a *Agent) writer() {
	for {
		m := a.next()
		if m == nil {
			return
		}
		for {
			read := a.watchRead(m)
			p, err := a.deliver(m)
			if err != nil {
				m.done(err)
				break
			}
			// done is called once the program has read the message.
			if taken, ok := p.confirm.add(m, p.written.Load()); ok {
				a.checkSubmit(p, m.text, read, taken)
				// One message in flight: the next is typed only once this
				// one was read and its done returned (the engine returns
				// once the delivery is on disk). So a crash finds at most
				// one message per agent read but not recorded delivered.
				flushed := false
				select {
				case <-m.settled:
				case <-taken:
					flushed = true // flushed unread with a dialog key: again
				case <-p.exited:
				case <-a.stopCh:
				}
				// Read, so every byte of it went through the terminal
				// with echo off: the program's own echo comes back.
				p.restoreEcho()
				if !flushed {
					break
				}
				continue
			}
			p.restoreEcho()
			// The process ended before the message could be tracked:
			// whether it read it is unknown, so type it again.
		}
	}
}

// maxBusyHold bounds how long messages wait for the end of the program's
// turn: a turn whose end was never told (a hook that did not run) must not
// keep them for ever. After it they are typed, and the CLI queues them.
const maxBusyHold = 2 * time.Minute

// Busy tells the writer the program is in a turn (true: its CLI's hook
// said so) or between turns (false). During a turn messages wait for its
// end — a CLI takes text typed then as an interruption or a queued prompt
// of its own — and go in together after it, as one prompt (notices and
// messages alike: mergeableAfterTurn). Urgent messages (TypeUrgent) do
// not wait, nor does anything after maxBusyHold.
func (a *Agent) Busy(on bool) {
	a.mu.Lock()
	was := !a.busySince.IsZero()
	if on && !was {
		a.busySince = time.Now()
		time.AfterFunc(maxBusyHold+10*time.Millisecond, a.wake)
	} else if !on {
		a.busySince = time.Time{}
	}
	a.mu.Unlock()
	if !on && was {
		a.wake()
	}
}

// wake tells the writer to look at the queue again.
func (a *Agent) wake() {
	select {
	case a.queueSig <- struct{}{}:
	default:
	}
}

// firstUrgent is the index of the first urgent message queued, -1 for
// none. a.mu is held.
func (a *Agent) firstUrgent() int {
	for i, m := range a.queue {
		if m.urgent {
			return i
		}
	}
	return -1
}

// waitsForTurn reports whether the head of the queue waits for the end of
// the program's turn. a.mu is held.
func (a *Agent) waitsForTurn() bool {
	return !a.busySince.IsZero() && time.Since(a.busySince) < maxBusyHold && len(a.queue) > 0 && !a.queue[0].urgent
}

// Hold stops (true) or resumes (false) typing: while the program shows a
// permission dialog, text typed into it would answer the dialog instead of
// reaching the program as a message. Messages keep their order.
func (a *Agent) Hold(on bool) {
	a.mu.Lock()
	a.held = on
	a.mu.Unlock()
	if !on {
		select {
		case a.queueSig <- struct{}{}:
		default:
		}
	}
}

// next returns the next queued message, waiting for one (and while the
// agent is held); nil once the agent is done and the queue is empty.
func (a *Agent) next() *message {
	for {
		a.mu.Lock()
		if n := a.typeable(); n > 0 && !a.held && !a.waitsForTurn() {
			if a.afterTurn {
				// What waited for the turn goes in as one prompt: one
				// model turn for all of it, not one each.
				n = max(n, mergeableAfterTurn(a.queue))
				a.afterTurn = false
			}
			m := merge(a.queue[:n])
			clear(a.queue[:n])
			a.queue = a.queue[n:]
			a.mu.Unlock()
			a.ackWait.Store(false)
			a.turnWait.Store(false)
			return m
		}
		if i := a.firstUrgent(); i >= 0 && !a.held && a.waitsForTurn() {
			// It goes in now; what waits for the turn's end keeps its order.
			m := a.queue[i]
			a.queue = append(a.queue[:i], a.queue[i+1:]...)
			a.mu.Unlock()
			return m
		}
		a.ackWait.Store(len(a.queue) > 0 && !a.held && !a.waitsForTurn())
		a.turnWait.Store(a.waitsForTurn())
		a.afterTurn = a.afterTurn || a.waitsForTurn()
		final := a.final
		a.mu.Unlock()
		if final {
			return nil
		}
		select {
		case <-a.queueSig:
		case <-a.done:
		}
	}
}

// typeable returns how many queued messages go next as one (0: none yet).
// With AcksWithNext, notices at the head that are all acknowledgements wait
// for a message to go in with, unless they fill a merged message; a
// message after them goes in with them. a.mu is held.
func (a *Agent) typeable() int {
	q := a.queue
	if len(q) == 0 {
		return 0
	}
	n := mergeable(q)
	if !a.spec.Preset.AcksWithNext || !q[0].notice {
		return n
	}
	onlyAcks := true
	for _, m := range q[:n] {
		onlyAcks = onlyAcks && m.isAck()
	}
	switch {
	case !onlyAcks:
		return n // a notice that needs reading now: the acks go with it
	case n == len(q):
		return 0 // acknowledgements alone: they wait
	case !q[n].notice:
		return n + 1 // the next message takes them along
	}
	return n // as many as a merged message holds
}

// isAck reports whether m is an acknowledgement, or a merge of them only.
func (m *message) isAck() bool {
	if m.parts == nil {
		return m.ack
	}
	for _, p := range m.parts {
		if !p.ack {
			return false
		}
	}
	return true
}

// mergeable returns how many messages at the head of q go as one: the
// notices there, within the bounds (a merged message typed again after a
// restart counts as its parts); otherwise one.
func mergeable(q []*message) int {
	n, count, size := 1, q[0].count(), len(q[0].text)
	for q[0].notice && n < len(q) && q[n].notice && count+q[n].count() <= MaxMergedNotices && size+len(q[n].text) <= maxMergedBytes {
		count += q[n].count()
		size += len(q[n].text)
		n++
	}
	return n
}

// mergeableAfterTurn returns how many messages at the head of q go as one
// when they waited for the end of the program's turn: every kind (messages
// too, not only notices), up to the first urgent one, within the bounds of
// a merged message. A crash while the program reads it may type them all
// again, as for merged notices: at most MaxMergedNotices duplicates.
func mergeableAfterTurn(q []*message) int {
	n, count, size := 1, q[0].count(), len(q[0].text)
	for n < len(q) && !q[n].urgent && count+q[n].count() <= MaxMergedNotices && size+len(q[n].text) <= maxMergedBytes {
		count += q[n].count()
		size += len(q[n].text)
		n++
	}
	return n
}

// count is how many notices m carries.
func (m *message) count() int { return max(1, len(m.parts)) }

// merge makes one message of ms: their texts a blank line apart, their
// dones called in order.
func merge(ms []*message) *message {
	if len(ms) == 1 {
		return ms[0]
	}
	texts := make([]string, len(ms))
	var parts []*message
	for i, m := range ms {
		texts[i] = strings.TrimRight(m.text, "\r\n")
		if m.parts != nil {
			parts = append(parts, m.parts...)
		} else {
			parts = append(parts, m)
		}
	}
	last := ms[len(ms)-1]
	return &message{text: strings.Join(texts, "\n\n"), settled: make(chan struct{}), notice: last.notice, parts: parts,
		done: func(err error) {
			for _, m := range parts {
				m.done(err)
			}
		}}
}

// deliver types m into the running process, waiting for one, and retries
// in the next process if the current one exits mid-message. It returns the
// process m was typed into.
func (a *Agent) deliver(m *message) (*proc, error) {
	for {
		p, err := a.waitProc()
		if err != nil {
			return nil, err
		}
		a.waitReady(p)
		err = a.waitNoDialog(p)
		if err == nil {
			err = a.typeInto(p, m.text)
		}
		if err == nil {
			return p, nil
		}
		if a.stopping() {
			return nil, a.gone()
		}
		if !p.isExited() {
			return nil, err
		}
		// The process exited mid-message: type it whole into the next one
		// (waitProc returns ErrGone if there will be none).
	}
}

// waitProc returns the running process, waiting while the agent starts or
// restarts; ErrGone once it is stopped or done.
func (a *Agent) waitProc() (*proc, error) {
	for {
		a.mu.Lock()
		p, final, ch := a.cur, a.final, a.changed
		a.mu.Unlock()
		if final || a.stopping() {
			return nil, a.gone()
		}
		if p != nil && !p.isExited() {
			return p, nil
		}
		select {
		case <-ch:
		case <-a.stopCh:
		}
	}
}

// waitReady waits until p has printed something, or until the preset's
// ReadyTimeout has passed since p started, or until p exits or the agent
// stops (typing then fails by itself). The timeout counts from the
// process's start, not from the message: a program that has run silently
// for longer is typed into at once, and so is every later message.
func (a *Agent) waitReady(p *proc) {
	select {
	case <-p.spoke:
		return
	default:
	}
	a.mu.Lock()
	started, cur := a.startedAt, a.cur
	a.mu.Unlock()
	if cur != p {
		started = time.Now() // p is no longer current: typing into it fails anyway
	}
	wait := a.spec.Preset.ReadyTimeout - time.Since(started)
	if wait <= 0 {
		return
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.spoke:
	case <-t.C:
	case <-p.exited:
	case <-a.stopCh:
	}
}

// errInterrupted means a pause was cut short by an exit or Stop.
var errInterrupted = errors.New("agents: typing interrupted")

// pause sleeps d unless p exits or the agent is stopped first.
func (a *Agent) pause(p *proc, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-p.exited:
		return errInterrupted
	case <-a.stopCh:
		return errInterrupted
	}
}

// write writes b to p under p's write lock.
func (a *Agent) write(p *proc, b string) error {
	if a.stopping() || p.isExited() {
		return errInterrupted
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	_, err := p.writeLocked([]byte(b))
	return err
}

// typeInto types one message into p.
func (a *Agent) typeInto(p *proc, raw string) error {
	pr := a.spec.Preset
	text := strings.TrimRight(Sanitize(raw), "\n")
	paste := pr.Paste == PasteAlways || (pr.Paste == PasteAuto && p.bracketed.Load())
	var typed string // what goes out before the submit key
	// The kernel's echo would mix with the program's output: the console
	// draws it instead (echo.go), until the program has read the message.
	p.wmu.Lock()
	p.quietEchoLocked()
	p.wmu.Unlock()
	switch {
	case text == "":
	case paste:
		// One write (in chunks, under the lock, so no raw key from the
		// human lands inside the paste).
		typed = pasteStart + text + pasteEnd
	case pr.LineDelay > 0:
		lines := strings.Split(text, "\n")
		for _, line := range lines[:len(lines)-1] {
			if err := a.write(p, line+pr.Newline); err != nil {
				return err
			}
			if err := a.pause(p, pr.LineDelay); err != nil {
				return err
			}
		}
		typed = lines[len(lines)-1]
	default:
		// No pause between lines: one write, not one per line.
		typed = strings.ReplaceAll(text, "\n", pr.Newline)
	}
	if pr.SubmitDelay <= 0 {
		return a.write(p, typed+pr.Submit)
	}
	if typed != "" {
		if err := a.write(p, typed); err != nil {
			return err
		}
	}
	if err := a.pause(p, pr.SubmitDelay); err != nil {
		return err
	}
	// A dialog that came up while the text went in would take the submit
	// key as its answer: the key waits until it is gone.
	if err := a.waitNoDialog(p); err != nil {
		return err
	}
	return a.write(p, pr.Submit)
}

// dialogShown reports whether the program's screen shows a permission
// dialog now (Spec.DialogShown).
func (a *Agent) dialogShown() bool { return a.spec.DialogShown != nil && a.spec.DialogShown() }

// dialogLook is how often a screen showing a dialog is looked at again
// (the engine's hold usually wakes the writer first).
const dialogLook = 100 * time.Millisecond

// waitNoDialog waits while the agent is held (the engine saw a dialog) or
// its screen shows a permission dialog now (Spec.DialogShown: a dialog
// drawn since the engine last looked), so that no key of a message
// answers it; errInterrupted if p exits or the agent stops first.
func (a *Agent) waitNoDialog(p *proc) error {
	for a.isHeld() || a.dialogShown() {
		t := time.NewTimer(dialogLook)
		select {
		case <-a.queueSig: // Hold(false), or a message queued
		case <-t.C:
		case <-p.exited:
			t.Stop()
			return errInterrupted
		case <-a.stopCh:
			t.Stop()
			return errInterrupted
		}
		t.Stop()
	}
	return nil
}
