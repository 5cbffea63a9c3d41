package worktree

import (
	"errors"
	"fmt"
	"strings"
)

// ErrConflict: the agent's branch does not merge cleanly into the user's
// checkout; nothing was changed.
var ErrConflict = errors.New("the branch does not merge cleanly")

// Merged is what Merge did.
type Merged struct {
	Into   string // the user's branch
	Commit string // the merge commit ("" when there was nothing to merge)
	Files  int    // files the merge changed
}

// Merge merges the agent's branch into the user's checkout (t.Repo) with a
// merge commit. It changes nothing and says why when the checkout is on no
// branch or has uncommitted changes, or when the branch would conflict:
// git merge-tree tries the merge first, outside the checkout, and names the
// files in conflict (ErrConflict). The user's hooks do not run (an agent
// could have written them: the repository's .git is shared with its
// worktree); the merge checks files out with the user's own filters.
//
// at is the commit the human was shown (Changes.Head): that commit is
// merged, not whatever the branch holds by the time they said yes (the
// ninth red team's agent committed a CI workflow while the prompt waited);
// "" merges the branch as it stands.
func Merge(t Tree, at string) (Merged, error) {
	into, err := git(t.Repo, "symbolic-ref", "--quiet", "--short", "HEAD")
	if errors.Is(err, ErrForeignCommonDir) {
		return Merged{}, err
	}
	if err != nil {
		return Merged{}, fmt.Errorf("%w: %s is on no branch; check out the branch to merge into (git switch <branch>), then merge again", ErrDetachedHead, t.Repo)
	}
	m := Merged{Into: line(into)}
	out, err := git(t.Repo, "status", "--porcelain", "-z", "--untracked-files=no", "--ignore-submodules=dirty")
	if err != nil {
		return m, err
	}
	if changed := parseStatus(out); len(changed) > 0 {
		return m, fmt.Errorf("%w: %s has uncommitted changes (%s); commit or stash them, then merge again", ErrDirtyCheckout, t.Repo, summary(changed))
	}
	branch := "refs/heads/" + t.Branch
	if at != "" {
		if !isCommitID(at) {
			return m, fmt.Errorf("%q is not a commit id", at)
		}
		if _, err := git(t.Repo, "cat-file", "-e", at+"^{commit}"); err != nil {
			return m, fmt.Errorf("commit %.12s of %s is not in %s: %w", at, t.Branch, t.Repo, err)
		}
		branch = at
	}
	if _, err := git(t.Repo, "merge-base", "--is-ancestor", branch, "HEAD"); err == nil {
		return m, nil // already in: nothing to do
	}
	out, err = runner{dir: t.Repo}.runOK([]int{1}, "merge-tree", "--write-tree", "--name-only", "--no-messages", "HEAD", branch)
	if err != nil {
		return m, err
	}
	if lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n"); len(lines) > 1 {
		return m, fmt.Errorf("%w: %s into %s conflicts in %s; nothing was changed: merge it yourself (git merge %s) or ask the agent to rebase", ErrConflict, t.Branch, m.Into, strings.Join(lines[1:], ", "), t.Branch)
	}
	before, err := git(t.Repo, "rev-parse", "HEAD")
	if err != nil {
		return m, err
	}
	msg := fmt.Sprintf("Merge %s (agent %s's work) into %s", t.Branch, strings.TrimPrefix(t.Branch, "teamlead/"), m.Into)
	if at != "" {
		msg = fmt.Sprintf("Merge %s at %.12s (agent %s's work) into %s", t.Branch, at, strings.TrimPrefix(t.Branch, "teamlead/"), m.Into)
	}
	if _, err := git(t.Repo, "merge", "--no-ff", "--no-edit", "-m", msg, branch); err != nil {
		return m, err
	}
	head, err := git(t.Repo, "rev-parse", "HEAD")
	if err != nil {
		return m, err
	}
	m.Commit = line(head)
	out, err = git(t.Repo, "diff", "--name-only", "-z", "--no-ext-diff", "--no-textconv", line(before), m.Commit)
	if err != nil {
		return m, err
	}
	m.Files = len(parseNUL(out))
	return m, nil
}

// isCommitID reports a full or abbreviated hexadecimal object id.
func isCommitID(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
