package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/teamlead/teamlead/internal/fsutil"
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
			// Never a FIFO (it held the console's look at every worktree)
			// nor a file of gigabytes; through a link, as git reads it.
			b, _ := fsutil.ReadHead(todo, 16<<20)
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
// git folder is not one git checked out in the repository's .git/modules,
// as "path → folder": a .git file leading elsewhere, or a .git folder of
// the submodule's own, or a link. git status enters a submodule and takes its git
// folder's configuration: an agent that works in the checkout added a
// gitlink leading to a folder of its own, and the human's git status ran
// its fsmonitor (red team 13d, finding 1); a repository made in place
// (git init, then its commit added as a gitlink) does the same. One the
// human made by hand is named too.
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
		st, err := os.Lstat(dotGit)
		if err != nil {
			continue // not checked out
		}
		if st.IsDir() {
			found = append(found, textsafe.Line(path)+" → "+textsafe.Line(dotGit))
			continue
		}
		if st.Mode()&os.ModeSymlink != 0 { // git follows it (red team 14a, finding 3)
			to, _ := filepath.EvalSymlinks(dotGit)
			found = append(found, textsafe.Line(path)+" → "+textsafe.Line(to))
			continue
		}
		// Never a FIFO nor past what such a file holds.
		b, err := fsutil.ReadHead(dotGit, 64<<10)
		if err != nil {
			continue
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

// CheckoutTodo names an operation under way in the checkout dir is in
// whose todo runs commands (exec lines), "" when there is none: an agent
// that works in the checkout can leave a rebase's todo in its .git, and
// the human's git rebase --continue runs those commands outside every
// sandbox (red team 12a, finding 5, for a worktree).
func CheckoutTodo(dir string) string {
	top := checkoutTop(dir)
	if top == "" {
		return ""
	}
	if what := inProgress(filepath.Join(top, ".git")); strings.Contains(what, "its todo runs") {
		return what
	}
	return ""
}

// OtherTips maps the checkout's branches and tags, but the branch checked
// out and the teamlead/ ones the console moves, to their commits: an agent
// working in the checkout can move any of them (red team 15a, finding 5:
// it pointed release at a commit of its own, with another's name).
func OtherTips(dir string) (map[string]string, error) {
	top := checkoutTop(dir)
	if top == "" {
		return nil, nil
	}
	out, err := git(top, "for-each-ref", "--format=%(refname) %(objectname)", "refs/heads/", "refs/tags/")
	if err != nil {
		return nil, err
	}
	head, _ := (runner{dir: top}).runOK([]int{1}, "symbolic-ref", "--quiet", "HEAD")
	tips := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		name, id, ok := strings.Cut(l, " ")
		if ok && name != line(head) && !strings.HasPrefix(name, "refs/heads/teamlead/") {
			tips[name] = id
		}
	}
	return tips, nil
}

// hiddenBuildNames are files git status must not hide: a .gitignore that
// ignores itself hides what it lists, and make reads GNUmakefile and
// makefile before Makefile (red team 15a, finding 3: git status was clean
// while make ran an ignored GNUmakefile).
var hiddenBuildNames = map[string]bool{".gitignore": true, "GNUmakefile": true, "makefile": true, "Makefile": true}

// IgnoredBuildFiles lists the files of the checkout dir is in that git
// ignores though they change what the human's git status or make does.
func IgnoredBuildFiles(dir string) ([]string, error) {
	top := checkoutTop(dir)
	if top == "" {
		return nil, nil
	}
	out, err := git(top, "ls-files", "--others", "--ignored", "--exclude-standard", "--directory", "-z", "--",
		":(glob)**/.gitignore", ":(glob)**/GNUmakefile", ":(glob)**/makefile", ":(glob)**/Makefile")
	if err != nil {
		return nil, err
	}
	var found []string
	for _, p := range strings.Split(string(out), "\x00") {
		if hiddenBuildNames[path.Base(p)] {
			found = append(found, textsafe.Line(p))
		}
	}
	return found, nil
}

// HiddenChanges lists the files of the checkout dir is in that git status
// and git diff do not look at: marked assume-unchanged, or skip-worktree
// outside a sparse checkout. An agent that works in the checkout can set
// either bit on a file it changed (git update-index), and the human's git
// status then says the checkout is clean while make runs the change.
func HiddenChanges(dir string) ([]string, error) {
	top := checkoutTop(dir)
	if top == "" {
		return nil, nil
	}
	out, err := git(top, "ls-files", "-v", "-z")
	if err != nil {
		return nil, err
	}
	sparse := false
	if b, err := git(top, "config", "--type=bool", "core.sparseCheckout"); err == nil {
		sparse = line(b) == "true"
	}
	var found []string
	for _, e := range strings.Split(string(out), "\x00") {
		tag, path, ok := strings.Cut(e, " ")
		if !ok || tag == "" {
			continue
		}
		assumed := tag != strings.ToUpper(tag) // lower case: assume-unchanged
		if assumed || (strings.EqualFold(tag, "S") && !sparse) {
			found = append(found, textsafe.Line(path))
		}
	}
	return found, nil
}

// checkoutStateFiles are the files of a checkout's git dir that the
// human's next git commit, log or pull takes in, named with what each
// does: an agent in the checkout that left one has the human commit its
// merge, message or cut history (red team 16a, finding 9).
var checkoutStateFiles = []struct{ file, what string }{
	{"MERGE_HEAD", "your next git commit makes a merge with the commit it names"},
	{"CHERRY_PICK_HEAD", "your next git commit records a cherry-pick of the commit it names"},
	{"REVERT_HEAD", "your next git commit records a revert of the commit it names"},
	{"MERGE_MSG", "your next git commit starts with its message"},
	{"shallow", "it cuts your history at the commits it names: git log and blame stop there"},
}

// CheckoutStateFiles returns the checkoutStateFiles of the checkout dir
// is in that exist, as paths, each with what it does.
func CheckoutStateFiles(dir string) map[string]string {
	top := checkoutTop(dir)
	if top == "" {
		return nil
	}
	out := map[string]string{}
	for _, f := range checkoutStateFiles {
		if p := filepath.Join(top, ".git", f.file); fileThere(p) {
			out[p] = f.what
		}
	}
	return out
}

func fileThere(p string) bool { _, err := os.Lstat(p); return err == nil }

// NestedGits returns the folders below the top of the worktree (or
// checkout) dir is in that hold a .git of their own: git status shows
// such a folder as untracked at most, and the human's git in it runs its
// configuration (red team 16a, finding 10: an agent's git init docs with
// core.fsmonitor ran at the human's git status there). Folders git lists
// collapsed (an ignored node_modules/) are not looked into.
func NestedGits(dir string) ([]string, error) {
	top := canonical(dir)
	out, err := git(top, "ls-files", "--others", "--directory", "-z")
	if err != nil {
		return nil, err
	}
	var found []string
	for _, p := range strings.Split(string(out), "\x00") {
		if strings.HasSuffix(p, "/") && fileThere(filepath.Join(top, filepath.FromSlash(p), ".git")) {
			found = append(found, strings.TrimSuffix(p, "/"))
		}
	}
	return found, nil
}
