package worktree

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, wrapped with a message that says what to do; match them
// with errors.Is.
var (
	// ErrNotRepository: Spec.Repo is not inside a git work tree.
	ErrNotRepository = errors.New("not a git repository")
	// ErrNoCommits: the repository has no commit to branch from.
	ErrNoCommits = errors.New("the repository has no commit yet")
	// ErrDetachedHead: the user's checkout is on no branch, so there is
	// nothing to compare the agent's branch against.
	ErrDetachedHead = errors.New("detached HEAD")
	// ErrDirtyCheckout: the user's checkout has uncommitted changes that
	// a new branch would not carry.
	ErrDirtyCheckout = errors.New("uncommitted changes in the checkout")
	// ErrBranchCheckedOut: the agent's branch is checked out in another
	// worktree, and git allows a branch in one worktree only.
	ErrBranchCheckedOut = errors.New("branch checked out in another worktree")
	// ErrPathTaken: the agent's path exists but is not a worktree of
	// this repository.
	ErrPathTaken = errors.New("path exists and is not a worktree of this repository")
	// ErrOtherBranch: the agent's path is a worktree of this repository
	// but on another branch (or none).
	ErrOtherBranch = errors.New("worktree is on another branch")
	// ErrSubmodule: a submodule could not be initialised in a new worktree.
	ErrSubmodule = errors.New("submodule update failed")
	// ErrNoWorktree: Open found no worktree for the agent.
	ErrNoWorktree = errors.New("no worktree for this agent")
	// ErrTampered: a file by which git finds the repository from the
	// worktree points elsewhere or is not a file.
	ErrTampered = errors.New("the worktree's git files were changed")
	// ErrUncommitted: Remove refused a worktree with uncommitted changes
	// or untracked files.
	ErrUncommitted = errors.New("worktree has uncommitted changes")
	// ErrHasSubmodules: git removes a worktree with checked-out
	// submodules only when forced.
	ErrHasSubmodules = errors.New("worktree has submodules")
	// ErrBadName: the agent or branch name cannot name a folder or branch.
	ErrBadName = errors.New("invalid name")
	// ErrForeignGitFile: the worktree's .git file no longer points at its
	// own git dir (something rewrote it).
	ErrForeignGitFile = errors.New("worktree .git file points elsewhere")
)

// GitError is a git command that failed: what ran, where, and what git
// said on stderr.
type GitError struct {
	Dir    string   // the folder given to -C
	Args   []string // the arguments after the safety options
	Stderr string   // git's message, trimmed
	Err    error    // the exec error (usually *exec.ExitError)
}

func (e *GitError) Error() string {
	msg := strings.TrimSpace(e.Stderr)
	if msg == "" {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s (in %s): %s", strings.Join(e.Args, " "), e.Dir, msg)
}

func (e *GitError) Unwrap() error { return e.Err }
