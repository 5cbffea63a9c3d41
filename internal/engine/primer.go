package engine

import (
	"time"

	"github.com/teamlead/teamlead/internal/launch"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/primer"
)

// typePrimer types a message-mode agent's primer as its first message,
// each time a process of it starts running: through the outbox, recorded,
// and guarded against its echo (the primer holds [ROUTE] and <gap>
// examples).
func (e *Engine) typePrimer(agent string) {
	p := e.opts.Team.Resolved[agent].Primer
	if p == nil || !p.Message {
		return
	}
	text, err := primer.Text(e.opts.Team, agent)
	if err != nil {
		e.primerFailed(agent, err)
		return
	}
	if err := e.do(func(now time.Time) (lead.Output, error) { return e.lead.Primer(agent, text, now), nil }); err != nil {
		e.primerFailed(agent, err)
	}
}

func (e *Engine) primerFailed(agent string, err error) {
	if e.opts.OnError != nil {
		e.opts.OnError(launch.PrimerError(agent, err))
	}
}
