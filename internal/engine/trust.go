package engine

import (
	"time"

	"github.com/teamlead/teamlead/internal/lead"
)

// Impersonation records that a process of agent (or of an agent no longer
// known, "") was refused op, an operation only the human may do; the
// record reaches the console's Activity and status line.
func (e *Engine) Impersonation(agent, op, why string, fields map[string]string) {
	_ = e.do(func(now time.Time) (lead.Output, error) {
		return e.lead.Impersonation(agent, op, why, fields, now), nil
	})
}

// Warn records a warning for the human (Activity, audit).
func (e *Engine) Warn(text string) {
	_ = e.do(func(now time.Time) (lead.Output, error) { return e.lead.Warning(text, now), nil })
}
