package engine

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/primer"
)

// primerArgs are the arguments a flag-mode preset appends to the agent's
// command (its primer as a system prompt); nil for the other modes.
func (e *Engine) primerArgs(a config.Agent) []string {
	p := e.opts.Team.Resolved[a.Name].Primer
	if p == nil || len(p.Flag) == 0 {
		return nil
	}
	text, err := primer.Text(e.opts.Team, a.Name)
	if err == nil {
		var args []string
		if args, err = primer.FlagArgs(text, p.Flag); err == nil {
			return args
		}
	}
	e.primerFailed(a.Name, err)
	return nil
}

// writePrimerFile writes a file-mode agent's primer into its instructions
// file (between markers, the user's own text kept) before it starts.
func (e *Engine) writePrimerFile(a config.Agent) {
	p := e.opts.Team.Resolved[a.Name].Primer
	if p == nil || p.File == "" {
		return
	}
	text, err := primer.Text(e.opts.Team, a.Name)
	if err == nil {
		path := p.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.Dir, path)
		}
		err = primer.WriteFile(a.Dir, path, text)
	}
	if err != nil {
		e.primerFailed(a.Name, err)
	}
}

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
		e.opts.OnError(fmt.Errorf("agent %s: the protocol primer was not handed over: %w (it can still be typed: teamlead primer %s | teamlead send %s -)", agent, err, agent, agent))
	}
}
