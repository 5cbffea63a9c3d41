package worktree

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/teamlead/teamlead/internal/textsafe"
)

// ErrConflict: the agent's branch does not merge cleanly into the user's
// checkout; nothing was changed.
var ErrConflict = errors.New("the branch does not merge cleanly")

// ErrHeadMoved: the user's branch moved after the merge was shown; nothing
// was changed.
var ErrHeadMoved = errors.New("your branch moved since the merge was shown")

// ErrOldGit: the git installed cannot compute a merge outside the checkout
// (git merge-tree --write-tree, git 2.38).
var ErrOldGit = errors.New("git is older than 2.38")

// Merged is what Merge did.
type Merged struct {
	Into   string // the user's branch
	Commit string // the merge commit ("" when there was nothing to merge)
	Files  int    // files the merge changed
}

// Preview is what merging an agent's branch would do to the user's
// branch, computed outside the checkout (git merge-tree --write-tree): the
// tree shown is the tree Merge commits.
type Preview struct {
	Into      string   // the user's branch ("" when the checkout is on none)
	Head      string   // the user's HEAD the merge was computed on
	At        string   // the agent's commit merged
	Tree      string   // the merge's result ("" on a conflict or with nothing to merge)
	UpToDate  bool     // At is in Head already: nothing to merge
	Conflicts []string // the files that would conflict
	Changes   Part     // Head → Tree: exactly what the merge commit changes in Into
	// Unseen are the files whose change in the merge the agent's diff
	// since its base (Base..At) does not show as merged, and why.
	Unseen []Unseen
	Err    string // why there is no preview (set by Diff only)
}

// Unseen is a file the merge changes otherwise than the agent's diff shows.
type Unseen struct {
	Path string
	Why  string
}

// Same says whether the merge changes exactly what the agent's committed
// diff shows, so a view can leave its patch out.
func (p Preview) Same(committed Part) bool {
	return p.Changes.Patch == committed.Patch && len(p.Unseen) == 0
}

// PreviewMerge computes the merge of the agent's commit at ("" for the
// branch as it stands) into the user's checkout (t.Repo): the result tree,
// its diff from HEAD, the files in conflict, and the files whose change
// the agent's diff since its base does not show (a file the branch set
// back to its base content after merging the user's later fix; red team
// 12a, finding 3). Nothing in the checkout changes.
func PreviewMerge(t Tree, at string) (Preview, error) {
	if err := mergeTreeWorks(t.Repo); err != nil {
		return Preview{}, err
	}
	// What is shown, and merged, is read from the repository's own
	// objects, each of the agent's checked against its id (red team 12a,
	// finding 2); merge-tree writes the merge's there too (13c, finding 2).
	if err := ImportObjects(t); err != nil {
		return Preview{}, err
	}
	var p Preview
	into, err := git(t.Repo, "symbolic-ref", "--quiet", "--short", "HEAD")
	if errors.Is(err, ErrForeignCommonDir) {
		return p, err
	}
	if err == nil {
		p.Into = line(into)
	}
	out, err := git(t.Repo, "rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return p, err
	}
	p.Head = line(out)
	rev := "refs/heads/" + t.Branch
	if at != "" {
		if !isCommitID(at) {
			return p, fmt.Errorf("%q is not a commit id", at)
		}
		if _, err := git(t.Repo, "cat-file", "-e", at+"^{commit}"); err != nil {
			return p, fmt.Errorf("commit %.12s of %s is not in %s: %w", at, t.Branch, t.Repo, err)
		}
		rev = at
	}
	if out, err = git(t.Repo, "rev-parse", "--verify", rev+"^{commit}"); err != nil {
		return p, err
	}
	p.At = line(out)
	if _, err := git(t.Repo, "merge-base", "--is-ancestor", p.At, p.Head); err == nil {
		p.UpToDate = true
		return p, nil
	}
	out, err = runner{dir: t.Repo}.runOK([]int{1}, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", p.Head, p.At)
	if err != nil {
		return p, err
	}
	names := parseNUL(out)
	if len(names) == 0 || !isCommitID(names[0]) {
		return p, fmt.Errorf("git merge-tree in %s gave no tree", t.Repo)
	}
	if len(names) > 1 {
		seen := map[string]bool{}
		for _, n := range names[1:] {
			if !seen[n] {
				seen[n] = true
				p.Conflicts = append(p.Conflicts, n)
			}
		}
		return p, nil
	}
	p.Tree = names[0]
	if p.Changes, err = diffPart(runner{dir: t.Repo}, nil, p.Head, p.Tree); err != nil {
		return p, err
	}
	base, err := baseOf(t)
	if err != nil {
		return p, err
	}
	p.Unseen, err = unseen(t.Repo, base, p)
	return p, err
}

// unseen are the files of p.Changes whose change the agent's diff since
// base does not show as the merge makes it: those the branch has as at
// base while the user's branch changed them since, and those both changed.
func unseen(repo, base string, p Preview) ([]Unseen, error) {
	changed := func(from, to string) (map[string]bool, error) {
		out, err := git(repo, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", "--no-textconv", from, to, "--")
		if err != nil {
			return nil, err
		}
		set := map[string]bool{}
		for _, n := range parseNUL(out) {
			set[n] = true
		}
		return set, nil
	}
	byAgent, err := changed(base, p.At)
	if err != nil {
		return nil, err
	}
	byUser, err := changed(base, p.Head)
	if err != nil {
		return nil, err
	}
	into := p.Into
	if into == "" {
		into = "your checkout"
	}
	var out []Unseen
	for _, f := range p.Changes.Files {
		if u, ok := unseenFile(f, byAgent, byUser, into); ok {
			out = append(out, u)
		}
	}
	return out, nil
}

// unseenFile says why f's change in the merge is not the agent's diff's,
// if it is not: of a rename, either path.
func unseenFile(f File, byAgent, byUser map[string]bool, into string) (Unseen, bool) {
	for _, path := range []string{f.Path, f.OldPath} {
		if filepath.Base(path) == ".gitattributes" {
			// The diff shows what is stored; attributes decide what the
			// checkout writes (working-tree-encoding, eol, ident): a
			// Makefile shown as mojibake ran as a command (red team 13d,
			// finding 2).
			return Unseen{path, fmt.Sprintf("merging changes %s, which decides how files are written when checked out (working-tree-encoding, eol, filters): the files it names may not read as the diff shows them", textsafe.Line(path))}, true
		}
	}
	for _, path := range []string{f.Path, f.OldPath} {
		switch shown := textsafe.Line(path); {
		case path == "":
		case !byAgent[path]:
			return Unseen{path, fmt.Sprintf("merging also changes %s: %s changed it after the worktree was made, the branch has it as before", shown, into)}, true
		case byUser[path]:
			return Unseen{path, fmt.Sprintf("merging changes %s otherwise than the agent's diff shows: %s changed it too after the worktree was made", shown, into)}, true
		}
	}
	return Unseen{}, false
}

// Merge merges the agent's commit p.At into the user's checkout (t.Repo)
// with a merge commit of exactly p.Tree, the tree the human was shown
// (parents p.Head and p.At), and moves the checkout to it. It changes
// nothing and says why when the checkout is on no branch or another one
// than shown, has uncommitted changes, or when HEAD is no longer p.Head
// (ErrHeadMoved), or the merge conflicts (ErrConflict: the files named).
// The user's hooks do not run (an agent could have written them: the
// repository's .git is shared with its worktree); the checkout is updated
// with the user's own filters.
//
// p.At is the commit the human was shown (Changes.Head), not whatever the
// branch holds by the time they said yes (the ninth red team's agent
// committed a CI workflow while the prompt waited).
func Merge(t Tree, p Preview) (Merged, error) {
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
	if out, err = git(t.Repo, "rev-parse", "--verify", "HEAD^{commit}"); err != nil {
		return m, err
	}
	if head := line(out); head != p.Head || m.Into != p.Into {
		return m, fmt.Errorf("%w: %s is at %.12s on %s, the merge shown was computed on %.12s of %s; nothing was changed: look at the merge again", ErrHeadMoved, t.Repo, head, m.Into, p.Head, p.Into)
	}
	if len(p.Conflicts) > 0 {
		return m, fmt.Errorf("%w: %s into %s conflicts in %s; nothing was changed: merge it yourself (git merge %s) or ask the agent to rebase", ErrConflict, t.Branch, m.Into, textsafe.Line(strings.Join(p.Conflicts, ", ")), t.Branch)
	}
	if p.UpToDate {
		return m, nil // already in: nothing to do
	}
	if !isCommitID(p.Tree) || !isCommitID(p.At) {
		return m, fmt.Errorf("no merge to make: the preview names no tree")
	}
	msg := fmt.Sprintf("Merge %s at %.12s (agent %s's work) into %s", t.Branch, p.At, strings.TrimPrefix(t.Branch, "teamlead/"), m.Into)
	out, err = git(t.Repo, "commit-tree", p.Tree, "-p", p.Head, "-p", p.At, "-m", msg)
	if err != nil {
		return m, err
	}
	commit := line(out)
	// A fast-forward to the commit just made: git moves the branch, the
	// index and the files, refusing (and changing nothing) if HEAD moved
	// off its first parent meanwhile.
	if _, err := git(t.Repo, "merge", "--ff-only", "--no-edit", "--no-stat", commit); err != nil {
		return m, err
	}
	if out, err = git(t.Repo, "rev-parse", "--verify", "HEAD^{commit}"); err != nil {
		return m, err
	}
	if line(out) != commit {
		return m, fmt.Errorf("%w: %s is at %.12s, not at the merge %.12s", ErrHeadMoved, t.Repo, line(out), commit)
	}
	m.Commit, m.Files = commit, len(p.Changes.Files)
	return m, nil
}

var gitVersion struct {
	sync.Mutex
	read string // the version git gave, once it gave one
}

// mergeTreeWorks refuses a git without merge-tree --write-tree (2.38).
func mergeTreeWorks(dir string) error {
	gitVersion.Lock()
	defer gitVersion.Unlock()
	if gitVersion.read == "" {
		out, err := git(dir, "version")
		if err != nil {
			return err
		}
		gitVersion.read = line(out)
	}
	if !versionAtLeast(gitVersion.read, 2, 38) {
		return fmt.Errorf("%w: %s is %s; teamlead computes a merge before it asks you with git merge-tree --write-tree: install git 2.38 or later", ErrOldGit, GitPath(), gitVersion.read)
	}
	return nil
}

var versionRE = regexp.MustCompile(`^git version (\d+)\.(\d+)`)

// versionAtLeast reads "git version 2.39.5" and compares it with
// major.minor.
func versionAtLeast(v string, major, minor int) bool {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return false
	}
	a, _ := strconv.Atoi(m[1])
	b, _ := strconv.Atoi(m[2])
	return a > major || a == major && b >= minor
}

// isCommitID reports a full or abbreviated hexadecimal object id.
func isCommitID(s string) bool {
	if len(s) < 7 || len(s) > 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
