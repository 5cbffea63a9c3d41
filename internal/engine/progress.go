package engine

import (
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/progresswatch"
)

// watchProgress watches every agent's progress file and the extra paths.
// The states found now are read before the lead hears that start-up is
// over, so that unfinished workflows are offered for resumption rather
// than reported as new.
func (e *Engine) watchProgress() error {
	w, err := progresswatch.NewWatcher(func(st progress.State) { e.send(input{kind: inProgress, progress: st}) })
	if err != nil {
		return err
	}
	e.watcher = w
	files := progress.Paths(e.opts.Team.AgentDirs())
	for _, a := range e.opts.Team.Agents {
		if err := w.Add(a.Name, files[a.Name]); err != nil {
			return err
		}
	}
	for _, p := range e.opts.Team.Progress.Paths {
		if err := w.Add("", p); err != nil {
			return err
		}
	}
	// The files as they are now, before the loop runs (the watcher's own
	// first reports of them arrive later and change nothing).
	var initial []input
	for _, st := range w.States() {
		initial = append(initial, input{kind: inProgress, progress: st})
	}
	if len(initial) > 0 {
		if err := e.step(initial); err != nil {
			return err
		}
	}
	e.lead.Started()
	return nil
}

// checkStalls flags in_progress workflows whose file has not changed for
// the configured time (the lead reports each stall once).
func (e *Engine) checkStalls() {
	if e.watcher == nil {
		return
	}
	now := e.now()
	for _, st := range e.watcher.States() {
		if progress.Stalled(st, now, e.opts.Team.Progress.Stall) {
			if err := e.step([]input{{kind: inStalled, progress: st}}); err != nil {
				e.fail(err)
			}
		}
	}
}

// Progress lists the state of every watched progress file.
func (e *Engine) Progress() []progress.State {
	if e.watcher == nil {
		return nil
	}
	return e.watcher.States()
}
