package engine

import (
	"time"

	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/protocol"
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

// Route takes an envelope agent sent through its teamlead tool (teamlead
// mcp): handled as if printed, it returns once committed, with what the
// Team Lead would have typed back into the agent (lead.ToolBlock).
func (e *Engine) Route(agent string, env protocol.Envelope) (answers []string, refused bool, err error) {
	err = e.do(func(now time.Time) (lead.Output, error) {
		var out lead.Output
		out, answers, refused = e.lead.ToolBlock(agent, env, now)
		return out, nil
	})
	return answers, refused, err
}
