package engine

import (
	"errors"
	"fmt"
	"time"

	"github.com/teamlead/teamlead/agents"

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
	if s := e.sinks[agent]; s != nil {
		ev := protocol.Event{Kind: protocol.KindEnvelope, Envelope: env}
		s.stampHandoff(&ev) // a handoff names its worktree's branch and commit, as a printed one
		env = ev.Envelope
		s.task.set(env.Get("task"))
	}
	err = e.do(func(now time.Time) (lead.Output, error) {
		// Flood control holds printed blocks; a call has its answer at
		// once, so one over the agent's rate is refused, to be made again.
		if f := e.floodOf(agent); f != nil && (len(f.held) > 0 || !f.lim.AllowN(now, 1)) {
			answers, refused = []string{fmt.Sprintf("slow down: you send more than %g messages a second (lead.relay_rate); nothing was sent, call again in a moment", e.opts.Team.Lead.RelayRate)}, true
			return lead.Output{}, nil
		}
		var out lead.Output
		out, answers, refused = e.lead.ToolBlock(agent, env, now)
		return out, nil
	})
	return answers, refused, err
}

// protector is an agent that can protect more in its sandbox
// (agents.Agent; an agent on a node cannot yet).
type protector interface {
	ProtectMore(protect, hide []string) error
}

// ProtectMore makes protect read-only and hides hide in the sandbox of
// every agent of this console, running or started later: another console
// started after them asks it so for its state folder, team files and
// secrets before it writes them (red team 9a, finding 5). It returns
// once every running sandbox has done it, with what could not be.
func (e *Engine) ProtectMore(protect, hide []string) error {
	e.startMu.Lock()
	e.moreMu.Lock()
	e.moreProtect = append(e.moreProtect, protect...)
	e.moreMu.Unlock()
	agents.KeepSecret(hide...) // hidden in every sandbox started from now on (an agent on a node too, when it can)
	// The agents started so far; those started after have it in their spec.
	started := map[string]protector{}
	for name, s := range e.sinks {
		if p, ok := s.runner().(protector); ok {
			started[name] = p
		}
	}
	e.startMu.Unlock()
	var errs []error
	for name, p := range started {
		if err := p.ProtectMore(protect, hide); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// protected is what every agent's sandbox keeps read-only: the console's
// list and what other consoles asked for since (ProtectMore).
func (e *Engine) protected() []string {
	e.moreMu.Lock()
	defer e.moreMu.Unlock()
	return append(append([]string(nil), e.opts.Protect...), e.moreProtect...)
}
