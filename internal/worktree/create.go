package worktree

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// create adds the agent's worktree at p.path: on the existing branch when
// it is free, else on a new branch from the user's HEAD.
func (p plan) create() (Tree, error) {
	all, err := p.worktrees()
	if err != nil {
		return Tree{}, err
	}
	for _, w := range all {
		if w.Path == p.path && w.Prunable {
			// Its folder was deleted by hand; git refuses the path until
			// the stale record goes.
			if _, err := git(p.top, "worktree", "prune"); err != nil {
				return Tree{}, err
			}
		}
	}
	if err := os.MkdirAll(filepath.Dir(p.path), 0o755); err != nil {
		return Tree{}, err
	}
	ref := "refs/heads/" + p.branch
	var base string
	if _, err := git(p.top, "show-ref", "--verify", "--quiet", ref); err == nil {
		for _, w := range all {
			if w.Branch == ref && !w.Prunable {
				return Tree{}, fmt.Errorf("%w: %s is checked out in %s: switch that worktree to another branch, or give the agent another branch", ErrBranchCheckedOut, p.branch, w.Path)
			}
		}
		if _, err := git(p.top, "worktree", "add", "--", p.path, p.branch); err != nil {
			return Tree{}, err
		}
	} else {
		if base, err = p.startPoint(); err != nil {
			return Tree{}, err
		}
		if _, err := git(p.top, "worktree", "add", "-b", p.branch, "--", p.path, base); err != nil {
			return Tree{}, err
		}
	}
	if base != "" {
		gitDir, err := p.gitDir()
		if err != nil {
			return Tree{}, err
		}
		// Made new, never through a link: git made the folder just now,
		// and an agent working in the checkout writes worktrees/ too.
		f, err := os.OpenFile(filepath.Join(gitDir, baseFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return Tree{}, err
		}
		_, err = f.WriteString(base + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return Tree{}, err
		}
	}
	t, err := p.tree()
	if err != nil {
		return Tree{}, err
	}
	return t, initSubmodules(t.Path)
}

// startPoint is the commit a new branch starts from: the user's HEAD,
// which must be a branch with no uncommitted changes.
func (p plan) startPoint() (string, error) {
	out, err := git(p.top, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil {
		return "", fmt.Errorf("%w: %s: make a first commit, then start the agent", ErrNoCommits, p.top)
	}
	head := line(out)
	if _, err := git(p.top, "symbolic-ref", "--quiet", "HEAD"); err != nil {
		return "", fmt.Errorf("%w: %s is at commit %.12s on no branch; the agent's branch %s needs one to compare against: check out a branch there (git switch <branch>)", ErrDetachedHead, p.top, head, p.branch)
	}
	// Untracked files do not count: they are usually build output, and
	// git stash leaves them behind too.
	out, err = git(p.top, "status", "--porcelain", "-z", "--untracked-files=no", "--ignore-submodules=dirty")
	if err != nil {
		return "", err
	}
	if changed := parseStatus(out); len(changed) > 0 {
		return "", fmt.Errorf("%w: %s has uncommitted changes (%s) that would not be in the agent's new worktree: commit or stash them first", ErrDirtyCheckout, p.top, summary(changed))
	}
	return head, nil
}

// initSubmodules checks out the new worktree's submodules one by one, so
// a failure names the submodule.
func initSubmodules(path string) error {
	if _, err := os.Stat(filepath.Join(path, ".gitmodules")); err != nil {
		return nil
	}
	out, err := runner{dir: path}.runOK([]int{1}, "config", "-z", "--file", ".gitmodules", "--get-regexp", `^submodule\..*\.path$`)
	if err != nil {
		return fmt.Errorf("%w: reading .gitmodules in %s: %v", ErrSubmodule, path, err)
	}
	for _, kv := range parseNUL(out) {
		key, sub, _ := strings.Cut(kv, "\n")
		name := strings.TrimSuffix(strings.TrimPrefix(key, "submodule."), ".path")
		// Default protocol settings: local submodules (file://) must work.
		// --checkout ignores a configured "update = !command".
		if _, err := (runner{dir: path, contain: true}).run("submodule", "update", "--init", "--recursive", "--checkout", "--", sub); err != nil {
			var ge *GitError
			msg := err.Error()
			if errors.As(err, &ge) {
				msg = strings.TrimSpace(ge.Stderr)
			}
			return fmt.Errorf("%w: submodule %q (%s) in %s: %s; the worktree is ready without it: fix access to it and run git submodule update --init there", ErrSubmodule, name, sub, path, msg)
		}
	}
	return nil
}
