package engine

import (
	"slices"
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
	var checkouts []string // the folders of the agents that work in a checkout itself
	for _, a := range e.opts.Team.Agents {
		if a.Branch != "" {
			specs = append(specs, e.opts.Team.WorktreeOf(a))
		} else if !slices.Contains(checkouts, a.Dir) {
			checkouts = append(checkouts, a.Dir)
		}
	}
	if len(specs) == 0 && len(checkouts) == 0 {
		return
	}
	told := map[string]bool{}
	t := time.NewTicker(worktreeEvery)
	defer t.Stop()
	for {
		for _, s := range specs {
			e.sinks[s.Agent].tree.Store(lookAtWorktree(s))
		}
		for _, dir := range checkouts {
			subs, _ := worktree.ForeignSubmodules(dir)
			for _, sub := range subs {
				if !told[sub] {
					told[sub] = true
					e.Warn("submodule " + sub + " lies outside the repository's .git/modules: your own git status there runs that folder's configuration (its fsmonitor, hooks), and an agent working in the checkout could have made it: look at it before you run git there (git -c diff.ignoreSubmodules=all status skips it)")
				}
			}
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
