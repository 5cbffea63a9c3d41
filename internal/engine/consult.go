package engine

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/tasks"
)

// Tasks lists every task, newest updated first.
func (e *Engine) Tasks() []tasks.Task {
	var ts []tasks.Task
	_ = e.do(func(time.Time) (lead.Output, error) {
		ts = e.lead.Tasks()
		return lead.Output{}, nil
	})
	return readmodel.WithSpend(ts, e.taskTotals())
}

// Consultations lists every consultation, newest first.
func (e *Engine) Consultations() []consult.Consultation {
	var cs []consult.Consultation
	_ = e.do(func(time.Time) (lead.Output, error) {
		cs = e.lead.Consultations()
		return lead.Output{}, nil
	})
	return cs
}

// Acknowledge is the human accepting the concerns raised on consultation id.
func (e *Engine) Acknowledge(id string) error {
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.Acknowledge(id, now) })
}

func isConsultID(id string) bool { return strings.HasPrefix(id, "c-") }

// ConsultVerdict is the human's word on consultation id, as typed in the
// inbox or given to teamlead answer. For a query file's question it is
// the answer; otherwise the first word says what
// (approve, concerns, reject, or acknowledge the concerns raised), the rest
// is the reasons or conditions.
func (e *Engine) ConsultVerdict(id, text string) error {
	return e.do(func(now time.Time) (lead.Output, error) {
		if e.lead.IsQuery(id) { // a query file's question: the text is the answer
			return e.lead.HumanAnswer(id, text, now)
		}
		word, body, _ := strings.Cut(strings.TrimSpace(text), " ")
		body = strings.TrimSpace(body)
		var v consult.Status
		switch strings.ToLower(strings.Trim(word, ".,:;!")) {
		case "approve", "approved", "yes", "ok":
			v = consult.Approved
		case "concerns", "concerns-raised", "concern":
			v = consult.ConcernsRaised
		case "reject", "rejected", "no":
			v = consult.Rejected
		case "acknowledge", "acknowledged", "ack":
			return e.lead.Acknowledge(id, now)
		default:
			return lead.Output{}, fmt.Errorf("%w: start the answer to %s with approve, concerns, reject or acknowledge, then the reasons", ErrBadVerdictText, id)
		}
		return e.lead.HumanVerdict(id, v, body, now)
	})
}

// ErrBadVerdictText is returned for a human verdict that does not say what it is.
var ErrBadVerdictText = errors.New("not a verdict")
