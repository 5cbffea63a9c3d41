package engine

import (
	"time"

	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/worktree"
)

// worktreeEvery is how often the agents' worktrees are looked at (each
// look runs a few git commands per agent).
const worktreeEvery = 5 * time.Second

// watchWorktrees keeps each agent's worktree status (branch, ahead,
// behind, uncommitted work) for the agent list, until the engine stops.
func (e *Engine) watchWorktrees() {
	var specs []worktree.Spec
	for _, a := range e.opts.Team.Agents {
		if a.Branch != "" {
			specs = append(specs, e.opts.Team.WorktreeOf(a))
		}
	}
	if len(specs) == 0 {
		return
	}
	t := time.NewTicker(worktreeEvery)
	defer t.Stop()
	for {
		for _, s := range specs {
			e.sinks[s.Agent].tree.Store(lookAtWorktree(s))
		}
		select {
		case <-e.quit:
			return
		case <-t.C:
		}
	}
}

func lookAtWorktree(s worktree.Spec) *readmodel.Worktree {
	w := &readmodel.Worktree{Branch: s.Branch}
	t, err := worktree.Open(s)
	if err != nil {
		w.Err = err.Error()
		return w
	}
	info, err := worktree.Status(t)
	if err != nil {
		w.Err = err.Error()
		return w
	}
	w.Branch, w.Ahead, w.Behind, w.Dirty, w.InProgress = info.Branch, info.Ahead, info.Behind, info.Dirty, info.InProgress
	return w
}
