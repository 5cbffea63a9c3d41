package agents

import (
	"strings"
	"sync/atomic"
)

// Text typed into a CLI can be read by it and still not be submitted: an
// Enter right after a paste taken as a newline (Gemini CLI), or one dropped
// while the CLI redraws. With Preset.SubmitRetries, once the program has
// read a message the writer asks Spec.SubmitCheck whether the text still
// waits in the input box (the engine reads the screen at the cursor) and,
// while it does, presses the submit key again. The writer types the next
// message only after that, so a retry never lands in someone else's text.

// watchRead returns a channel closed when the program has read m (nil when
// no submit check runs): m.done is wrapped to close it.
func (a *Agent) watchRead(m *message) <-chan struct{} {
	if a.spec.Preset.SubmitRetries <= 0 || a.spec.SubmitCheck == nil {
		return nil
	}
	read := make(chan struct{})
	done := m.done
	m.done = func(err error) {
		done(err)
		if err == nil {
			close(read)
		}
	}
	return read
}

// checkSubmit waits until p has read the message (read, from watchRead),
// then presses the submit key again while the text waits in the input box,
// up to the preset's SubmitRetries times. It gives up when taken closes:
// the message was flushed unread with a dialog key (dialogkey.go).
func (a *Agent) checkSubmit(p *proc, raw string, read, taken <-chan struct{}) {
	text := strings.TrimRight(Sanitize(raw), "\n")
	if read == nil || strings.TrimSpace(text) == "" || !a.waitFor(p, read, taken) {
		return
	}
	presses := 0
	for a.spec.SubmitCheck(text) {
		if presses == a.spec.Preset.SubmitRetries {
			a.reportResubmit(text, presses, false)
			return
		}
		if a.isHeld() || a.dialogShown() || a.write(p, a.spec.Preset.Submit) != nil {
			// A dialog came up (its keys are the human's), or the process
			// is going: leave the text where it is.
			if f := submitLeft.Load(); f != nil {
				(*f)()
			}
			return
		}
		presses++
		keyRead := make(chan struct{})
		keyTaken, ok := p.confirm.add(&message{resubmit: true, done: func(error) { close(keyRead) }}, p.written.Load())
		if !ok || !a.waitFor(p, keyRead, keyTaken) {
			return
		}
	}
	if presses > 0 {
		a.reportResubmit(text, presses, true)
	}
}

// submitLeft, when set (by tests), is called when checkSubmit leaves a
// text unsubmitted: a hold released before that look would have let the
// key go (TestSubmitNotPressedWhileHeld released it too soon, at times).
var submitLeft atomic.Pointer[func()]

// waitFor waits until ch is closed; false if abort (nil: never) is closed,
// p exits or the agent stops first.
func (a *Agent) waitFor(p *proc, ch, abort <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	case <-abort:
		return false
	case <-p.exited:
		return false
	case <-a.stopCh:
		return false
	}
}

func (a *Agent) isHeld() bool {
	if a.keyWait.Load() > 0 {
		return true // a dialog key waits to be read: nothing goes after it
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held
}

func (a *Agent) reportResubmit(text string, presses int, taken bool) {
	if a.spec.OnResubmit != nil {
		a.spec.OnResubmit(text, presses, taken)
	}
}
