package engine

import (
	"fmt"
	"strconv"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/detect"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
)

const (
	// submitQuiet is how long an agent's screen must stay unchanged, after
	// it read a submit key, before its input box is read: time for a CLI
	// to redraw.
	submitQuiet = 300 * time.Millisecond
	// submitSettleMax bounds that wait for a CLI that keeps drawing (a
	// spinner while it works: then the text was taken anyway).
	submitSettleMax = 1500 * time.Millisecond
	// submitRecheck is how long text seen waiting must stay so before it
	// counts: a CLI busy starting up (Codex) reads the keys, draws the
	// text, and takes its Enter half a second later.
	submitRecheck = 1500 * time.Millisecond
)

// submitPending is the agent's Spec.SubmitCheck: whether text still waits
// at the cursor in its input box, seen so on its settled screen twice,
// submitRecheck apart.
func (s *sink) submitPending(text string) bool {
	if !s.pendingOnce(text) {
		return false
	}
	select {
	case <-time.After(submitRecheck):
	case <-s.e.quit:
		return false
	}
	return s.pendingOnce(text)
}

// pendingOnce waits until the agent's screen settles, then reads its input
// box once.
func (s *sink) pendingOnce(text string) bool {
	start := time.Now()
	for {
		last := max(s.lastOutput.Load(), start.UnixNano())
		wait := time.Duration(last + int64(submitQuiet) - time.Now().UnixNano())
		if wait <= 0 || time.Since(start) >= submitSettleMax {
			break
		}
		select {
		case <-time.After(min(wait, submitSettleMax-time.Since(start))):
		case <-s.e.quit:
			return false
		}
	}
	_, y, _ := s.term.Cursor()
	return detect.Pending(detect.Rows(s.term.SnapshotTail(0)), y, text, s.placeholders...)
}

// resubmitted records that an agent's submit key was pressed again for a
// message: "resubmit" when the text was then taken; "submit-stuck", told
// to the human too, when it still waits in the agent's input box.
func (e *Engine) resubmitted(agent, text string, presses int, taken bool) {
	more := "once more"
	if presses > 1 {
		more = fmt.Sprintf("%d more times", presses)
	}
	kind, reason := wire.KindResubmit, "the text still waited in the input box; the submit key was pressed "+more+" and it was taken"
	if !taken {
		kind, reason = wire.KindSubmitStuck, "the text still waits in the input box after the submit key was pressed "+more
		if e.opts.OnError != nil {
			e.opts.OnError(fmt.Errorf("agent %s: %s; focus its view and press Enter, or check its input", agent, reason))
		}
	}
	_ = e.do(func(now time.Time) (lead.Output, error) {
		return lead.Output{Records: []store.Record{{Time: now, Kind: kind, Subject: "agent." + agent + ".input", Agent: agent,
			Body: text, Reason: reason, Fields: map[string]string{"presses": strconv.Itoa(presses)}}}}, nil
	})
}
