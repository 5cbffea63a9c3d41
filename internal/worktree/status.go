package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/teamlead/teamlead/internal/textsafe"
)

// Info is a worktree's state against the user's checkout.
type Info struct {
	Branch  string // the worktree's branch, "" when detached
	Head    string // the worktree's HEAD commit
	Against string // what Ahead and Behind compare with: the user's branch, or its commit when detached
	Ahead   int    // commits on the worktree's HEAD not in Against
	Behind  int    // commits in Against not in the worktree's HEAD
	Dirty   bool   // uncommitted changes or untracked files
	// InProgress names a rebase, merge, cherry-pick, revert or bisect
	// that git in the worktree would continue ("" for none).
	InProgress string
}

// Status reports the worktree's branch, HEAD, ahead/behind counts against
// the user's checkout's current branch, and whether it has uncommitted
// changes.
func Status(t Tree) (Info, error) {
	// The agent's new objects first: the repository reads no other
	// (objects.go). The console looks every few seconds.
	if err := ImportObjects(t); err != nil {
		return Info{}, err
	}
	r, err := reader(t)
	if err != nil {
		return Info{}, err
	}
	var info Info
	head, err := r.run("rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return Info{}, err
	}
	info.Head = line(head)
	// Full refs: --short turns a name shared with a tag into heads/<name>.
	branch, err := r.runOK([]int{1}, "symbolic-ref", "--quiet", "HEAD") // 1: detached
	if err != nil {
		return Info{}, err
	}
	info.Branch = strings.TrimPrefix(line(branch), "refs/heads/")
	against := "HEAD"
	if out, err := git(t.Repo, "symbolic-ref", "--quiet", "HEAD"); err == nil {
		against = line(out)
		info.Against = strings.TrimPrefix(against, "refs/heads/")
	}
	out, err := git(t.Repo, "rev-parse", "--verify", against+"^{commit}")
	if err != nil {
		return Info{}, err
	}
	if info.Against == "" {
		info.Against = line(out)
	}
	counts, err := git(t.Repo, "rev-list", "--left-right", "--count", line(out)+"..."+info.Head)
	if err != nil {
		return Info{}, err
	}
	if f := strings.Fields(string(counts)); len(f) == 2 {
		info.Behind, _ = strconv.Atoi(f[0])
		info.Ahead, _ = strconv.Atoi(f[1])
	}
	changed, err := changes(r)
	if err != nil {
		return Info{}, err
	}
	info.Dirty = len(changed) > 0
	info.InProgress = inProgress(t.GitDir)
	return info, nil
}

// inProgress names the operation the worktree's own git dir says is
// under way, by the files git keeps for it. The agent writes that folder:
// a rebase it left, or planted, runs the exec lines of its todo as you
// when you run git rebase --continue there (red team 12a, finding 5), so
// the worktree's listing says so, with those lines counted.
func inProgress(gitDir string) string {
	for _, op := range []struct{ file, what string }{
		{"rebase-merge", "a rebase"}, {"rebase-apply", "a rebase or git am"}, {"sequencer", "a cherry-pick or revert"},
		{"MERGE_HEAD", "a merge"}, {"CHERRY_PICK_HEAD", "a cherry-pick"}, {"REVERT_HEAD", "a revert"}, {"BISECT_LOG", "a bisect"},
	} {
		p := filepath.Join(gitDir, op.file)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		n := 0
		for _, todo := range []string{filepath.Join(p, "git-rebase-todo"), filepath.Join(p, "todo")} {
			b, _ := os.ReadFile(todo)
			for _, l := range strings.Split(string(b), "\n") {
				if f := strings.Fields(l); len(f) > 0 && (f[0] == "exec" || f[0] == "x") {
					n++
				}
			}
		}
		if n > 0 {
			return fmt.Sprintf("%s is in progress, its todo runs %d %s: look at it before you continue it", op.what, n, plural(n, "command", "commands"))
		}
		return op.what + " is in progress"
	}
	return ""
}

// changes lists the worktree's uncommitted and untracked paths.
func changes(r runner) ([]string, error) {
	out, err := r.run("status", "--porcelain", "-z", "--untracked-files=normal", "--ignore-submodules=dirty")
	if err != nil {
		return nil, err
	}
	return parseStatus(out), nil
}

// Remove deletes the agent's worktree folder with git worktree remove. It
// refuses while there are uncommitted changes or untracked files, unless
// force, and git refuses one with checked-out submodules unless force
// (ErrHasSubmodules). It never deletes the branch: the agent's commits stay
// reachable, and Ensure checks the branch out again. A folder already
// deleted by hand only has git's record of it pruned.
func Remove(t Tree, force bool) error {
	if err := ImportObjects(t); err != nil {
		return err
	}
	if _, err := os.Stat(t.Path); errors.Is(err, fs.ErrNotExist) {
		// Deleted by hand: only git's record of it is left.
		_, err := git(t.Repo, "worktree", "prune")
		return err
	}
	// git worktree remove checks cleanliness through the worktree's .git
	// file: make sure it still leads to the worktree's own git dir.
	b, err := os.ReadFile(filepath.Join(t.Path, ".git"))
	if err != nil || canonical(strings.TrimSuffix(strings.TrimPrefix(string(b), "gitdir: "), "\n")) != canonical(t.GitDir) {
		return fmt.Errorf("%w: %s/.git should read \"gitdir: %s\": restore it, or delete the folder and run git worktree prune", ErrForeignGitFile, t.Path, t.GitDir)
	}
	r, err := reader(t)
	if err != nil {
		return err
	}
	args := []string{"worktree", "remove"}
	if force {
		args = append(args, "--force")
	} else {
		changed, err := changes(r)
		if err != nil {
			return err
		}
		if len(changed) > 0 {
			return fmt.Errorf("%w: %s (%s): commit them, or remove with force to lose them; the branch %s is kept either way", ErrUncommitted, t.Path, summary(changed), t.Branch)
		}
	}
	// From the user's checkout, with the filters still off for the
	// status git runs inside.
	_, err = runner{dir: t.Repo, config: r.config}.run(append(args, "--", t.Path)...)
	var ge *GitError
	if errors.As(err, &ge) && strings.Contains(ge.Stderr, "containing submodules") {
		return fmt.Errorf("%w: %s: check its submodules for uncommitted work, then remove with force; the branch %s is kept either way", ErrHasSubmodules, t.Path, t.Branch)
	}
	return err
}

// summary names up to three paths and counts the rest.
func summary(paths []string) string {
	quoted := make([]string, 0, 3)
	for _, p := range paths[:min(3, len(paths))] {
		quoted = append(quoted, strconv.Quote(p))
	}
	s := strings.Join(quoted, ", ")
	if len(paths) > 3 {
		s += fmt.Sprintf(" and %d more", len(paths)-3)
	}
	return s
}

// Head is the branch and commit checked out in dir, a worktree or any
// checkout (branch "" when detached). It runs no program the repository
// configures.
func Head(dir string) (branch, commit string, err error) {
	out, err := git(dir, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return "", "", err
	}
	commit = line(out)
	r := runner{dir: dir}
	if out, err := r.runOK([]int{1}, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil {
		branch = line(out) // "" when detached (exit 1)
	}
	return branch, commit, nil
}

// ForeignSubmodules lists the submodules of the checkout dir is in whose
// .git file leads to a git folder outside the repository's .git/modules,
// as "path → folder". git status enters a submodule and takes its git
// folder's configuration: an agent that works in the checkout added a
// gitlink leading to a folder of its own, and the human's git status ran
// its fsmonitor (red team 13d, finding 1). Submodules git checked out
// itself live in .git/modules; one elsewhere the human made by hand is
// named too.
func ForeignSubmodules(dir string) ([]string, error) {
	top := checkoutTop(dir)
	if top == "" {
		return nil, nil
	}
	out, err := git(top, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	modules := filepath.Join(top, ".git", "modules")
	var found []string
	for _, e := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		dotGit := filepath.Join(top, filepath.FromSlash(path), ".git")
		b, err := os.ReadFile(dotGit)
		if err != nil {
			continue // not checked out, or a folder of its own (an old-style submodule)
		}
		to, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), "gitdir: ")
		if !ok {
			continue
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(dotGit), to)
		}
		if !inside(canonical(to), canonical(modules)) {
			found = append(found, textsafe.Line(path)+" → "+textsafe.Line(to))
		}
	}
	return found, nil
}
