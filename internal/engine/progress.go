package engine

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/teamlead/teamlead/internal/fsutil"
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

// othersProgress are the progress files of the agents other than name,
// which name's sandbox keeps read-only: the console takes what a progress
// file says (a handoff, a finished step) as said by the agent it belongs
// to, and an agent wrote another's file in the folder they shared to hand
// off in its name (red team 9a, finding 17). The folder of each is made
// if missing (inside its agent's folder only), so that the sandbox can
// watch for the file and pin it when it appears. The file itself is made,
// empty (no workflow yet), if missing: a file that exists is read-only to
// the others from their start, where one still to be made could be made
// first by another agent (red team 10a, finding 4) — except in an agent's
// own worktree, whose checkout it would leave an untracked file in (the
// folder is its own there; another agent still reaches it, a race left).
func (e *Engine) othersProgress(name string) []string {
	dirs := e.opts.Team.AgentDirs()
	remote, inWorktree := map[string]bool{}, map[string]bool{}
	for _, a := range e.opts.Team.Agents {
		remote[a.Name] = a.Host != "" // its folder is on another machine
		inWorktree[a.Name] = a.Repo != ""
	}
	var out []string
	for agent, file := range progress.Paths(dirs) {
		if agent == name || remote[agent] {
			continue
		}
		if real, err := fsutil.Within(dirs[agent], filepath.Dir(file)); err == nil && makeProgressFolder(real) == nil &&
			!inWorktree[agent] {
			if f, err := os.OpenFile(filepath.Join(real, filepath.Base(file)), os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644); err == nil {
				f.Close()
			}
		}
		out = append(out, file)
	}
	return out
}

// makeProgressFolder makes the folder of a progress file (.claude/state)
// when missing, with a .gitignore that ignores all it holds: otherwise
// git status shows the folder teamlead made, ?? .claude/, and what an
// agent adds beside it (a .claude/settings.json whose hooks the human's
// claude runs) hides behind that line (red team 16a, finding 8). What is
// added outside the folder shows as before.
func makeProgressFolder(dir string) error {
	if _, err := os.Lstat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_CREATE|os.O_EXCL|os.O_WRONLY|syscall.O_NOFOLLOW, 0o644)
	if err == nil {
		_, err = f.WriteString("# made by teamlead with this folder: the progress files are not the project's\n*\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
