package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/guard"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/worktree"
)

// worktreeEvery is how often the agents' worktrees are looked at (each
// look runs a few git commands per agent).
const worktreeEvery = 5 * time.Second

// checkoutEvery is how often what the agents that work in a checkout
// itself wrote is copied into its objects (a few stats when nothing
// changed).
const checkoutEvery = time.Second

// watchWorktrees keeps each agent's worktree status (branch, ahead,
// behind, uncommitted work) for the agent list, until the engine stops.
// It returns once it has looked at the checkouts as they are before any
// agent starts (what changes after is told), and goes on on a goroutine.
func (e *Engine) watchWorktrees() {
	var specs []worktree.Spec
	var checkouts []string // the folders of the agents that work in a checkout itself
	inCheckout := map[string]*worktree.Looked{}
	for _, a := range e.opts.Team.Agents {
		if a.Branch != "" {
			specs = append(specs, e.opts.Team.WorktreeOf(a))
			continue
		}
		inCheckout[a.Name] = &worktree.Looked{}
		if !slices.Contains(checkouts, a.Dir) {
			checkouts = append(checkouts, a.Dir)
		}
	}
	if len(specs) == 0 && len(checkouts) == 0 {
		return
	}
	forged := map[string]*worktree.Forged{}
	seen := map[string]*checkoutSeen{}
	for _, dir := range checkouts {
		forged[dir] = &worktree.Forged{}
		_, _ = forged[dir].Look(dir) // from now on
		tips, _ := worktree.OtherTips(dir)
		seen[dir] = &checkoutSeen{tips: tips, state: worktree.CheckoutStateFiles(dir)}
	}
	go e.lookAtWorktrees(specs, checkouts, inCheckout, forged, seen)
}

// checkoutSeen is what a checkout held when last looked at (when the
// console started, for state): its branches and tags but the one checked
// out, and the git files its next commit takes in.
type checkoutSeen struct {
	tips  map[string]string
	state map[string]string
}

func (e *Engine) lookAtWorktrees(specs []worktree.Spec, checkouts []string, inCheckout map[string]*worktree.Looked, forged map[string]*worktree.Forged, seen map[string]*checkoutSeen) {
	told := map[string]bool{}
	tellOnce := func(key, msg string) {
		if !told[key] {
			told[key] = true
			e.Warn(msg)
		}
	}
	t := time.NewTicker(checkoutEvery)
	defer t.Stop()
	for n := 0; ; n++ {
		// What an agent in the checkout committed reaches your git
		// within a second (worktree.ImportCheckout).
		for _, a := range e.opts.Team.Agents {
			if looked := inCheckout[a.Name]; looked != nil {
				if err := worktree.ImportCheckout(a.Dir, a.Name, looked); err != nil {
					tellOnce("import "+err.Error(), err.Error())
				}
				e.recordCheckoutCommits(a.Name, a.Dir, looked)
			}
		}
		if n%int(worktreeEvery/checkoutEvery) == 0 {
			for _, s := range specs {
				e.sinks[s.Agent].tree.Store(lookAtWorktree(s))
				e.lookForNestedGits(s.Agent, tellOnce)
			}
			for _, dir := range checkouts {
				e.lookAtCheckout(dir, forged[dir], seen[dir], tellOnce)
			}
		}
		select {
		case <-e.quit:
			return
		case <-t.C:
		}
	}
}

// lookAtCheckout tells what an agent working in the checkout of dir could
// have done there to have the human's git run its code or hide a change
// from git status, each once; seen holds what it held before.
func (e *Engine) lookAtCheckout(dir string, forged *worktree.Forged, seen *checkoutSeen, tellOnce func(key, msg string)) {
	subs, _ := worktree.ForeignSubmodules(dir)
	for _, sub := range subs {
		tellOnce(sub, "submodule "+sub+" lies outside the repository's .git/modules: your own git status there runs that folder's configuration (its fsmonitor, hooks), and an agent working in the checkout could have made it: look at it before you run git there (git -c diff.ignoreSubmodules=all status skips it)")
	}
	if todo := worktree.CheckoutTodo(dir); todo != "" {
		tellOnce("todo "+todo, "in the checkout of "+dir+", "+todo+" (an agent working in the checkout could have left it; git status names the operation)")
	}
	lied, _ := forged.Look(dir)
	for _, f := range lied {
		tellOnce("forged "+f, "file "+f+" in the checkout of "+dir+" is not what your index says it is, yet git status shows it unchanged: an agent working in the checkout could have written its index entry back; to see it, touch "+f+" and run git status")
	}
	if now, err := worktree.OtherTips(dir); err == nil {
		for ref, id := range now {
			was, ok := seen.tips[ref]
			switch {
			case ok && was != id:
				e.Warn(ref + " in the checkout of " + dir + " moved from " + was[:min(12, len(was))] + " to " + id[:min(12, len(id))] + " while agents ran, and it is not the branch checked out: an agent working in the checkout could have moved it; look at it (git log " + ref + ") before you use it")
			case !ok && seen.tips != nil:
				// A new one too (red team 16a, finding 9: refs/tags/v9.9
				// on an agent's commit).
				e.Warn(ref + " in the checkout of " + dir + " appeared while agents ran, at " + id[:min(12, len(id))] + ": an agent working in the checkout could have made it; look at it (git log " + ref + ") before you use it")
			}
		}
		seen.tips = now
	}
	for p, what := range worktree.CheckoutStateFiles(dir) {
		if _, before := seen.state[p]; !before {
			tellOnce("state "+p, p+" appeared while agents ran: "+what+", and an agent working in the checkout could have left it; look at it (cat "+p+") and remove it if it is not yours")
		}
	}
	ignored, _ := worktree.IgnoredBuildFiles(dir)
	for _, f := range ignored {
		tellOnce("ignored "+f, "file "+f+" in the checkout of "+dir+" is ignored by git: your git status does not show it, yet make or git reads it; an agent working in the checkout could have made it: look at it (git status --ignored)")
	}
	hidden, _ := worktree.HiddenChanges(dir)
	for _, f := range hidden {
		tellOnce("hidden "+f, "file "+f+" is marked assume-unchanged or skip-worktree: your git status and git diff do not show what changed in it, and an agent working in the checkout could have marked it: to see it, run git update-index --no-assume-unchanged --no-skip-worktree "+f+", then git status")
	}
}

// recordCheckoutCommits records in the audit each commit that the agent
// working in the checkout of dir wrote and the last copy took in (looked):
// the human's git log shows it under whatever author the agent set (red
// team 16a, finding 9).
func (e *Engine) recordCheckoutCommits(agent, dir string, looked *worktree.Looked) {
	for _, c := range looked.Commits {
		e.record(wire.Record{Kind: wire.KindWorktree, Subject: "agent." + agent + ".worktree", Agent: agent, From: "team-lead",
			Body:   "committed " + c.ID[:min(12, len(c.ID))] + " in the checkout of " + dir + ": " + c.Subject,
			Fields: map[string]string{"commit": c.ID, "dir": dir}}, nil, nil)
	}
	looked.Commits = nil
}

// lookForNestedGits tells, once each, a folder with a .git of its own below
// agent's worktree: the human's git there runs its configuration (red
// team 16a, finding 10).
func (e *Engine) lookForNestedGits(agent string, tellOnce func(key, msg string)) {
	dir := e.opts.Team.AgentDirs()[agent]
	nested, _ := worktree.NestedGits(dir)
	for _, n := range nested {
		p := filepath.Join(dir, filepath.FromSlash(n))
		tellOnce("nested "+p, p+" in agent "+agent+"'s worktree holds a .git of its own: your git there runs its configuration (its fsmonitor, hooks) and not the worktree's; an agent could have made it: look at "+filepath.Join(p, ".git", "config")+" before you run git there")
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

// startupEvery is how often the human's missing start-up files, and the
// files the console tells of when changed, are looked at.
const startupEvery = 2 * time.Second

// homeLook is what the console looks at in the human's home while agents
// run, instead of protecting it: the start-up files that did not exist
// when it started (guard.StartupMissing: a sandbox binds only what
// exists), and the agent CLIs' own files (guard.HomeTold: read-only, they
// would break the CLIs that write them).
type homeLook struct {
	files []lookedAt
}

// lookedAt is one file of homeLook's: its content's hash when the console
// started ("" when missing) and what to check in it.
type lookedAt struct {
	path, sum, check string
	bookkeeping      func([]byte) ([]byte, bool) // guard.Told's
}

// newHomeLook notes the files as they are now.
func newHomeLook(missing []string, told []guard.Told) *homeLook {
	h := &homeLook{}
	for _, p := range missing {
		h.files = append(h.files, lookedAt{path: p, check: "your shell or login runs it as you; look at it (cat " + p + ") and remove it if it is not yours"})
	}
	for _, t := range told {
		h.files = append(h.files, lookedAt{path: t.Path, sum: contentSum(t.Path, t.Bookkeeping), check: t.Check + "; look at it (cat " + t.Path + ") before you run it",
			bookkeeping: t.Bookkeeping})
	}
	return h
}

// contentSum is the hash of path's content, "" when it cannot be read,
// "?" when it is not a file (a folder that appeared where the file was);
// of its content without bookkeeping (guard.Told's), when that is set and
// the content parses.
func contentSum(path string, bookkeeping func([]byte) ([]byte, bool)) string {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ""
		}
		return "?"
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 64<<20))
	if err != nil {
		return "?"
	}
	if bookkeeping != nil {
		if kept, ok := bookkeeping(data); ok {
			data = kept
		}
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// look returns, once each, what appeared or changed since: an agent could
// have written it, and a program of the human's runs what it names.
func (h *homeLook) look() []string {
	var out []string
	left := h.files[:0]
	for _, f := range h.files {
		now := contentSum(f.path, f.bookkeeping)
		switch {
		case now == f.sum:
			left = append(left, f)
			continue
		case f.sum == "":
			out = append(out, f.path+" appeared while agents ran: an agent could have written it, and "+f.check)
		default:
			out = append(out, f.path+" changed while agents ran: an agent could have written it, and "+f.check)
		}
	}
	h.files = left
	return out
}

// watchHome tells in Activity what h finds, until the console stops (red
// team 14d, finding 3: an agent's ~/.bash_profile ran at the human's bash
// -l; 16a, finding 8: ~/.claude.json's MCP servers).
func (e *Engine) watchHome(h *homeLook) {
	if len(h.files) == 0 {
		return
	}
	t := time.NewTicker(startupEvery)
	defer t.Stop()
	for {
		select {
		case <-e.quit:
			return
		case <-t.C:
		}
		for _, w := range h.look() {
			e.Warn(w)
		}
	}
}
