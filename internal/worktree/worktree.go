package worktree

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// baseFile, in a worktree's own git dir, holds the commit the worktree was
// created from, so diffs compare against it after a restart. A file and
// not `git config --worktree`, which needs extensions.worktreeConfig.
const baseFile = "teamlead-base"

// Spec says which agent needs a worktree of which repository.
type Spec struct {
	Repo   string // the agent's configured folder: a repository or a folder in one
	Agent  string // the agent's name; also the worktree's folder name
	Branch string // "" means teamlead/<agent>
	Root   string // where worktrees live; "" means <repo top>/../<repo name>-worktrees
}

// Tree is an agent's linked worktree.
type Tree struct {
	Path   string // the worktree's top: Root/<agent>
	Dir    string // Spec.Repo's subfolder inside the worktree (Path when Repo is the top)
	Branch string // short branch name, e.g. teamlead/alice
	Base   string // the commit it was created from; diffs compare against it
	Repo   string // top of the user's checkout it was created from
	GitDir string // the worktree's own git dir (<common dir>/worktrees/<id>)
}

// Shared returns what of the repository's shared git dir makes git run
// programs — its config (filters, fsmonitor, gpg.program, aliases,
// includes), info (attributes naming filters), hooks and the submodules'
// git dirs (modules: each has a config of its own) — making the last
// three if they are missing, and the files that lead git from the
// worktree to it (links): every agent's sandbox, of every console, keeps
// them read-only (a sandbox protects only what exists). The agent still
// writes objects and refs to commit. Without this an agent set a smudge
// filter and gpg.program that teamlead merge and the console's git
// worktree add ran outside every sandbox (the ninth red team), and an
// agent with no worktree in the repository wrote a worktree's commondir,
// and the human's git status there ran its fsmonitor (red team 12a,
// finding 1).
func (t Tree) Shared() ([]string, error) {
	if t.GitDir == "" {
		return nil, nil
	}
	common := filepath.Dir(filepath.Dir(t.GitDir))
	out := []string{filepath.Join(common, "config")}
	for _, d := range []string{"info", "hooks", "modules"} {
		p := filepath.Join(common, d)
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	links, err := t.links(common)
	if err != nil {
		return nil, err
	}
	return append(out, links...), nil
}

// checkoutTop is the top of the checkout dir is in when its .git is a
// folder (not a linked worktree's file), else "".
func checkoutTop(dir string) string {
	for d := canonical(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if fi.IsDir() {
				return d
			}
			return ""
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// CheckoutGit returns what of the git folder of the checkout dir is in
// makes git run programs or leads it elsewhere, for every agent's sandbox
// to keep read-only, as Shared does for a worktree agent's repository:
// its config and config.worktree, info, hooks and modules, its commondir,
// its objects' alternates, and the files that
// lead git from each of its linked worktrees to it. An agent that works
// in the checkout itself (no worktree) wrote .git/commondir, pointing it
// at a folder whose config set core.fsmonitor, and the human's git status
// ran it (red team 13a, finding 2). The commondir is made, naming the
// folder itself, when missing. nil where dir is in no checkout with a
// .git folder.
func CheckoutGit(dir string) ([]string, error) {
	top := checkoutTop(dir)
	if top == "" {
		return linkedCheckoutGit(dir)
	}
	return gitDirFiles(filepath.Join(top, ".git"))
}

// linkedCheckoutGit is CheckoutGit for a checkout whose .git is a file: a
// linked worktree of the human's own (git worktree add), or a submodule.
// The file is in the agent's folder: pointed at a git folder of the
// agent's, the human's git status there ran its core.fsmonitor. So the
// file is kept read-only, with what leads git from that git folder to the
// repository's, and the repository's own (gitDirFiles). One that does not
// lead back (an agent that ran outside a sandbox) stops the start. nil
// where dir is in no checkout.
func linkedCheckoutGit(dir string) ([]string, error) {
	var dotGit string
	for d := canonical(dir); ; d = filepath.Dir(d) {
		if fi, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			if !fi.Mode().IsRegular() {
				return nil, nil
			}
			dotGit = filepath.Join(d, ".git")
			break
		}
		if d == filepath.Dir(d) {
			return nil, nil
		}
	}
	gitDir := recordedPath(dotGit, "gitdir: ", filepath.Dir(dotGit))
	tampered := func(why string) error {
		return fmt.Errorf("%s %s: git would take the configuration of another folder there; look at it, then `git worktree repair` there or remove the checkout (%w)", dotGit, why, ErrTampered)
	}
	if gitDir == "" {
		return nil, tampered("names no git folder")
	}
	if _, err := os.Lstat(filepath.Join(gitDir, "commondir")); errors.Is(err, fs.ErrNotExist) {
		// A submodule's: its git folder is in the repository's .git/modules.
		if !strings.Contains(canonical(gitDir)+string(filepath.Separator), string(filepath.Separator)+filepath.Join(".git", "modules")+string(filepath.Separator)) {
			return nil, tampered("names " + gitDir + ", which is neither a linked worktree's git folder nor a submodule's")
		}
		files, err := gitDirFiles(gitDir)
		return append([]string{dotGit}, files...), err
	}
	if back := recordedPath(filepath.Join(gitDir, "gitdir"), "", gitDir); back == "" || canonical(back) != canonical(dotGit) {
		return nil, tampered("names " + gitDir + ", whose gitdir does not name it back")
	}
	common := recordedPath(filepath.Join(gitDir, "commondir"), "", gitDir)
	if common == "" {
		return nil, tampered("names " + gitDir + ", whose commondir names no folder")
	}
	extra := filepath.Join(gitDir, "config.worktree")
	if f, err := os.OpenFile(extra, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644); err == nil {
		_ = f.Close()
	}
	files, err := gitDirFiles(common)
	if err != nil {
		return nil, err
	}
	return append([]string{dotGit, filepath.Join(gitDir, "commondir"), filepath.Join(gitDir, "gitdir"), extra}, files...), nil
}

// gitDirFiles is what CheckoutGit keeps read-only of gitDir, a
// repository's own git folder.
func gitDirFiles(gitDir string) ([]string, error) {
	cd := filepath.Join(gitDir, "commondir")
	if _, err := os.Lstat(cd); errors.Is(err, fs.ErrNotExist) {
		f, err := os.OpenFile(cd, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
		if err != nil {
			return nil, err
		}
		_, err = f.WriteString(selfCommonDir)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return nil, err
		}
	} else if err != nil {
		return nil, err
	}
	if !commonDirIsItself(gitDir) {
		return nil, fmt.Errorf("%w: %s names another folder: git would take that folder's configuration, hooks and attributes; look at where it points, then remove it (rm %s)", ErrForeignCommonDir, cd, cd)
	}
	// Alternates: objects of another folder standing for the repository's
	// (made empty when missing, so a sandbox can keep it read-only).
	alt := filepath.Join(gitDir, "objects", "info", "alternates")
	if err := os.MkdirAll(filepath.Dir(alt), 0o755); err != nil {
		return nil, err
	}
	if f, err := os.OpenFile(alt, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644); err == nil {
		_ = f.Close()
	}
	// config.worktree: read once extensions.worktreeConfig is on, which
	// the human's git sparse-checkout init turns on (made empty, as a
	// worktree's is).
	extra := filepath.Join(gitDir, "config.worktree")
	if f, err := os.OpenFile(extra, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644); err == nil {
		_ = f.Close()
	}
	// packed-refs holds refs of every kind, replace and remote-tracking
	// ones too (red team 14d, finding 1): made empty when missing. An
	// agent in the checkout cannot delete a branch it lists (git rewrites
	// the file for that), only a loose one.
	packed := filepath.Join(gitDir, "packed-refs")
	if f, err := os.OpenFile(packed, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644); err == nil {
		_ = f.Close()
	}
	out := []string{filepath.Join(gitDir, "config"), extra, cd, alt, packed}
	// refs/replace shows your git one object for another, which git push
	// does not send (red team 14a, finding 5), and a remote-tracking ref
	// is what you take as upstream's (finding 7): an agent in the checkout
	// cannot fetch into them (fetch yourself).
	// And the teamlead/ branches: the worktree agents' (red team 14d,
	// finding 6: an agent in the checkout moved one, and the console took
	// it for the human's move).
	for _, d := range []string{"info", "hooks", "modules", "refs/replace", "refs/remotes", "logs/refs/remotes", "refs/heads/teamlead", "logs/refs/heads/teamlead"} {
		p := filepath.Join(gitDir, filepath.FromSlash(d))
		if err := noLinkOnTheWay(gitDir, p); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(p, 0o755); err != nil {
			return nil, err
		}
		if strings.HasPrefix(d, "refs/") || strings.HasPrefix(d, "logs/") {
			if err := keepFolder(p); err != nil { // git gc removes an empty one
				return nil, err
			}
		}
		out = append(out, p)
	}
	trees, _ := os.ReadDir(filepath.Join(gitDir, "worktrees"))
	for _, e := range trees {
		wd := filepath.Join(gitDir, "worktrees", e.Name())
		if !e.IsDir() {
			continue
		}
		out = append(out, filepath.Join(wd, "commondir"), filepath.Join(wd, "gitdir"))
		// The worktree's .git file. An agent in the checkout writes
		// worktrees/: a FIFO there held the console's start.
		if to := recordedPath(filepath.Join(wd, "gitdir"), "", wd); filepath.Base(to) == ".git" {
			out = append(out, to)
		}
		if f, err := os.OpenFile(filepath.Join(wd, "config.worktree"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644); err == nil {
			_ = f.Close()
		}
		out = append(out, filepath.Join(wd, "config.worktree"))
	}
	return out, nil
}

// Bind is a folder an agent's sandbox binds over itself: read-only, with
// all it holds, or writable again inside a read-only one.
type Bind struct {
	Path     string
	From     string // what is shown at Path, when not Path itself
	Writable bool
}

// Confined returns how the agent's sandbox keeps it to its worktree: the
// human's checkout and the repository's shared git dir read-only, and
// inside them writable again what committing on its branch writes — its
// own objects (the repository's read-only behind them), its branch's
// folder of refs and of their logs when the branch has one (teamlead/<agent>
// makes the agent's commits and new teamlead/… branches), the
// remote-tracking refs, its own git dir (index, HEAD, its HEAD's log) and
// the worktree itself when it lies inside the checkout. The shared config, info and hooks stay read-only (Shared).
// Without this a worktree agent merged its branch into the human's
// checkout itself, as the human, with teamlead's merge message (red team
// 10a, finding 2). Folders git would make on first use (logs, the branch's
// folder) are made now: a sandbox binds only what exists.
func (t Tree) Confined() ([]Bind, error) {
	if t.GitDir == "" || t.Repo == "" {
		return nil, nil
	}
	common := filepath.Dir(filepath.Dir(t.GitDir))
	out := []Bind{{Path: t.Repo}}
	if !inside(common, t.Repo) {
		out = append(out, Bind{Path: common})
	}
	writable := func(p string, make bool) error {
		// No link on the way inside the git dir: an agent working in the
		// checkout can write its refs, and a .git/refs/heads made a link
		// would have this bind make a folder of its choosing writable.
		if err := noLinkOnTheWay(common, p); err != nil {
			return err
		}
		if make {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
		} else if st, err := os.Lstat(p); err != nil || !st.IsDir() {
			return nil
		}
		out = append(out, Bind{Path: p, Writable: true})
		return nil
	}
	for _, w := range []struct {
		name string
		make bool
	}{{"reftable", false}, {"rr-cache", false}, {"lfs", false}} {
		if err := writable(filepath.Join(common, filepath.FromSlash(w.name)), w.make); err != nil {
			return nil, err
		}
	}
	// Its own objects at <common>/objects, the repository's read-only
	// behind them (objects.go).
	own, err := privateObjects(common, filepath.Base(t.GitDir))
	if err != nil {
		return nil, err
	}
	out = append(out, objectBinds(common, own)...)
	if err := writable(t.GitDir, false); err != nil {
		return nil, err
	}
	links, err := t.links(common)
	if err != nil {
		return nil, err
	}
	// Of the refs and their logs only its branch's folder and the
	// remote-tracking refs are writable, each a folder of the agent's own
	// (refs.go). The rest steers your own git: refs/replace shows you one
	// object for another (red team 12a, finding 2), refs/stash is the
	// stash you pop, refs/main comes before refs/heads/main when git looks
	// up "main", and logs/HEAD is where `git checkout -` goes (red team
	// 13a, finding 4). The repository's folders at those names hold a keep
	// file, so that they outlive your git gc.
	if st, err := os.Lstat(filepath.Join(common, "reftable")); err != nil || !st.IsDir() {
		a, err := privateRefs(common, filepath.Base(t.GitDir), t.Branch)
		if err != nil {
			return nil, err
		}
		if err := copyRemotes(t.Repo, a.remotes, a.remoteLogs); err != nil {
			return nil, err
		}
		binds := [][2]string{{"refs/remotes", a.remotes}, {"logs/refs/remotes", a.remoteLogs}}
		if dir := filepath.ToSlash(filepath.Dir(t.Branch)); dir != "." {
			binds = append(binds, [2]string{"refs/heads/" + dir, a.heads}, [2]string{"logs/refs/heads/" + dir, a.logs})
		}
		for _, b := range binds {
			p := filepath.Join(common, filepath.FromSlash(b[0]))
			if err := noLinkOnTheWay(common, p); err != nil {
				return nil, err
			}
			if err := os.MkdirAll(p, 0o755); err != nil {
				return nil, err
			}
			if err := keepFolder(p); err != nil {
				return nil, err
			}
			out = append(out, Bind{Path: p, From: b[1], Writable: true})
		}
		if err := syncRefs(t); err != nil {
			return nil, err
		}
	}
	if inside(t.Path, t.Repo) {
		out = append(out, Bind{Path: t.Path, Writable: true})
	}
	for _, l := range links {
		out = append(out, Bind{Path: l})
	}
	return out, nil
}

// noLinkOnTheWay refuses p when a folder on the way from below top down to
// it is a link (to a folder an agent may have chosen): teamlead makes or
// binds nothing writable through one.
func noLinkOnTheWay(top, p string) error {
	if l := linkOnTheWay(top, p); l != "" {
		return fmt.Errorf("%s is a link (to a folder an agent may have chosen): teamlead makes no folder through it writable to the agent; look at it, then remove it (%w)", l, ErrTampered)
	}
	return nil
}

// linkOnTheWay returns the first link among the folders from below top
// down to p, "" when there is none (or p is not below top).
func linkOnTheWay(top, p string) string {
	rel, err := filepath.Rel(top, p)
	if err != nil || !inside(p, top) {
		return ""
	}
	d := top
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if part == "." {
			continue
		}
		d = filepath.Join(d, part)
		if st, err := os.Lstat(d); err == nil && st.Mode()&os.ModeSymlink != 0 {
			return d
		} else if err != nil {
			return ""
		}
	}
	return ""
}

// keepName is a file that keeps a folder of refs from being removed when
// it holds no ref: git reads no ref whose name starts with a dot.
const keepName = ".teamlead-keep"

// keepFolder keeps the folder p, bound writable in a sandbox, from being
// removed by the human's git: git gc packs the refs and removes their
// empty folders, and a folder removed takes its bind out of every mount
// namespace, so the running agent could no longer commit (red team 13d,
// finding 5). Anything else an agent left at that name is replaced.
func keepFolder(p string) error {
	keep := filepath.Join(p, keepName)
	if st, err := os.Lstat(keep); err == nil && st.Mode().IsRegular() {
		return nil
	} else if err == nil {
		if err := os.RemoveAll(keep); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(keep, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}

// Private returns what of the repository is the worktree agent's alone,
// for the sandbox of an agent without a worktree to keep read-only: its
// own git dir and its object folder.
func (t Tree) Private() []Bind {
	if t.GitDir == "" {
		return nil
	}
	// The agents' object folders whole: a mount point, which an agent in
	// the checkout cannot rename and put a folder of its own in place of
	// (red team 13d, finding 6).
	common := filepath.Dir(filepath.Dir(t.GitDir))
	out := []Bind{{Path: t.GitDir}, {Path: filepath.Join(common, objectsFolder)}}
	if st, err := os.Lstat(filepath.Join(common, refsFolder)); err == nil && st.IsDir() {
		out = append(out, Bind{Path: filepath.Join(common, refsFolder)})
	}
	return out
}

// Outside returns what an agent working in dir, outside the repository
// and its worktrees, keeps read-only of it: its objects and the worktree
// agents' (objects.go). Git does not check an object's hash when it reads
// one, so an object written over changes your history behind its id; the
// agents that work in the checkout itself still write them.
func (t Tree) Outside(dir string) []Bind {
	if t.GitDir == "" || t.Repo == "" {
		return nil
	}
	dir = canonical(dir)
	common := filepath.Dir(filepath.Dir(t.GitDir))
	for _, in := range []string{t.Repo, common, filepath.Dir(t.Path)} {
		if inside(dir, canonical(in)) || inside(canonical(in), dir) {
			return nil
		}
	}
	return []Bind{{Path: filepath.Join(common, "objects")}, {Path: filepath.Join(common, objectsFolder)}}
}

// links checks and returns the files by which git finds the repository
// from the worktree: its .git file, its git dir's commondir and gitdir,
// and config.worktree (made empty when missing: git reads it once the
// human turns extensions.worktreeConfig on). The sandbox keeps them
// read-only; git never rewrites them but in `git worktree move/repair`.
// Written by the agent, they pointed the human's own git in the worktree
// at a configuration of the agent's, and its fsmonitor ran as the human
// (red team 11a, finding 1). One that already points elsewhere (an agent
// that ran outside a sandbox) stops the start.
func (t Tree) links(common string) ([]string, error) {
	dotGit := filepath.Join(t.Path, ".git")
	for _, l := range []struct{ file, prefix, base, want string }{
		{dotGit, "gitdir: ", t.Path, t.GitDir},
		{filepath.Join(t.GitDir, "commondir"), "", t.GitDir, common},
		{filepath.Join(t.GitDir, "gitdir"), "", t.GitDir, dotGit},
	} {
		st, err := os.Lstat(l.file)
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(l.file)
		if err != nil {
			return nil, err
		}
		to, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), l.prefix)
		if !filepath.IsAbs(to) {
			to = filepath.Join(l.base, to)
		}
		if !st.Mode().IsRegular() || !ok || canonical(to) != canonical(l.want) {
			return nil, fmt.Errorf("%s does not lead git to %s (it holds %q): git would take the configuration of another folder there; "+
				"look at it, then `git worktree repair` or remove the worktree (%w)", l.file, l.want, b, ErrTampered)
		}
	}
	extra := filepath.Join(t.GitDir, "config.worktree")
	f, err := os.OpenFile(extra, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err == nil {
		err = f.Close()
	} else if errors.Is(err, fs.ErrExist) {
		if st, lerr := os.Lstat(extra); lerr != nil || !st.Mode().IsRegular() {
			err = fmt.Errorf("%s is not a file (%w)", extra, ErrTampered)
		} else {
			err = nil
		}
	}
	if err != nil {
		return nil, err
	}
	out := []string{dotGit, filepath.Join(t.GitDir, "commondir"), filepath.Join(t.GitDir, "gitdir"), extra}
	// The commit the worktree was made from is teamlead's record, not the
	// agent's: pointed elsewhere, it made teamlead diff fail (red team 13d,
	// finding 4).
	if st, err := os.Lstat(filepath.Join(t.GitDir, baseFile)); err == nil && st.Mode().IsRegular() {
		out = append(out, filepath.Join(t.GitDir, baseFile))
	}
	return out, nil
}

// Inside reports whether p is dir or lies in it, links resolved.
func Inside(p, dir string) bool { return inside(canonical(p), canonical(dir)) }

// inside reports whether p is dir or lies in it.
func inside(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// plan is a Spec resolved against the repository.
type plan struct {
	top    string // the user's checkout
	common string // the shared git dir
	prefix string // Spec.Repo relative to top, "" or ending in "/"
	branch string
	path   string
}

var agentName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Ensure returns the agent's worktree at Root/<agent>, creating it when
// missing. After a restart it returns the existing one untouched, dirty or
// not. A new worktree checks out the branch if it exists and is free, or
// creates it from the user's checkout's HEAD, which must then be on a
// branch and clean. When initialising submodules fails the error wraps
// ErrSubmodule and the returned Tree is still valid.
func Ensure(s Spec) (Tree, error) {
	p, err := resolve(s)
	if err != nil {
		return Tree{}, err
	}
	t, err := p.existing()
	if !errors.Is(err, ErrNoWorktree) {
		return t, err
	}
	return p.create()
}

// Open returns the agent's existing worktree, as Ensure would, without
// creating one: ErrNoWorktree when there is none.
func Open(s Spec) (Tree, error) {
	p, err := resolve(s)
	if err != nil {
		return Tree{}, err
	}
	return p.existing()
}

func resolve(s Spec) (plan, error) {
	if !agentName.MatchString(s.Agent) || strings.HasSuffix(s.Agent, ".lock") || strings.Contains(s.Agent, "..") {
		return plan{}, fmt.Errorf("%w: agent name %q: use letters, digits, '.', '_' and '-', starting with a letter or digit", ErrBadName, s.Agent)
	}
	if _, err := os.Stat(s.Repo); err != nil {
		return plan{}, fmt.Errorf("%w: %s: %v", ErrNotRepository, s.Repo, err)
	}
	inside, err := git(s.Repo, "rev-parse", "--is-inside-work-tree")
	if err != nil {
		return plan{}, fmt.Errorf("%w: %s: point the agent at a folder inside a git checkout, or run git init there (%v)", ErrNotRepository, s.Repo, err)
	}
	if line(inside) != "true" {
		return plan{}, fmt.Errorf("%w: %s is not inside a work tree (a bare repository or a .git folder): point the agent at a checkout", ErrNotRepository, s.Repo)
	}
	var p plan
	for _, q := range []struct {
		dst  *string
		args []string
	}{
		{&p.top, []string{"rev-parse", "--show-toplevel"}},
		{&p.common, []string{"rev-parse", "--path-format=absolute", "--git-common-dir"}},
		{&p.prefix, []string{"rev-parse", "--show-prefix"}},
	} {
		out, err := git(s.Repo, q.args...)
		if err != nil {
			return plan{}, err
		}
		*q.dst = line(out)
	}
	p.branch = s.Branch
	if p.branch == "" {
		p.branch = "teamlead/" + s.Agent
	}
	if strings.HasPrefix(p.branch, "-") {
		return plan{}, fmt.Errorf("%w: branch %q starts with '-'", ErrBadName, p.branch)
	}
	if _, err := git(p.top, "check-ref-format", "refs/heads/"+p.branch); err != nil {
		return plan{}, fmt.Errorf("%w: branch %q is not a valid git branch name (see git check-ref-format)", ErrBadName, p.branch)
	}
	root := s.Root
	if root == "" {
		root = filepath.Join(filepath.Dir(p.top), filepath.Base(p.top)+"-worktrees")
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return plan{}, err
	}
	// The agent's own folder may be a link only if it made it one: a link
	// there would take the checkout wherever it points (the ninth red team
	// pointed it at the console's hidden secrets folder).
	own := filepath.Join(root, s.Agent)
	if fi, err := os.Lstat(own); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return plan{}, fmt.Errorf("%w: %s is a symbolic link, not a folder: an agent may have made it; remove it (the next start makes the worktree again)", ErrBadName, own)
	}
	p.path = canonical(own)
	return p, nil
}

// canonical resolves symlinks in the longest existing prefix of path, so
// it compares equal to the real paths git records.
func canonical(path string) string {
	rest := ""
	for dir := path; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return path
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

func (p plan) worktrees() ([]listed, error) {
	out, err := git(p.top, "worktree", "list", "--porcelain", "-z")
	if err != nil {
		return nil, err
	}
	all := parseWorktreeList(out)
	for i := range all {
		all[i].Path = canonical(all[i].Path)
	}
	return all, nil
}

// existing finds the agent's worktree among the repository's: ErrNoWorktree
// when the path is free (or registered but its folder is gone).
func (p plan) existing() (Tree, error) {
	all, err := p.worktrees()
	if err != nil {
		return Tree{}, err
	}
	for _, w := range all {
		if w.Path != p.path {
			continue
		}
		if w.Prunable {
			return Tree{}, fmt.Errorf("%w: %s is registered but its folder is gone", ErrNoWorktree, p.path)
		}
		if w.Branch != "refs/heads/"+p.branch {
			on := "a detached HEAD"
			if w.Branch != "" {
				on = "branch " + strings.TrimPrefix(w.Branch, "refs/heads/")
			}
			return Tree{}, fmt.Errorf("%w: %s is on %s, not %s: switch it back (git -C %s switch %s) or remove it", ErrOtherBranch, p.path, on, p.branch, p.path, p.branch)
		}
		return p.tree()
	}
	if entries, err := os.ReadDir(p.path); err == nil && len(entries) == 0 {
		return Tree{}, fmt.Errorf("%w: %s", ErrNoWorktree, p.path) // git accepts an empty folder
	} else if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return Tree{}, fmt.Errorf("%w: %s: move it away or set another worktree root", ErrPathTaken, p.path)
	}
	return Tree{}, fmt.Errorf("%w: %s", ErrNoWorktree, p.path)
}

// tree builds the Tree of the registered worktree at p.path, recording
// its base if nothing did yet.
func (p plan) tree() (Tree, error) {
	gitDir, err := p.gitDir()
	if err != nil {
		return Tree{}, err
	}
	t := Tree{Path: p.path, Dir: filepath.Join(p.path, p.prefix), Branch: p.branch, Repo: p.top, GitDir: gitDir}
	recorded := false
	if b, err := os.ReadFile(filepath.Join(gitDir, baseFile)); err == nil {
		// The file is in the worktree's git dir, which the agent writes:
		// set to its own last commit, it hid every commit from the diff
		// the human merges on (red team 10a, finding 17). A base is the
		// user's commit the branch left from, so one that is not in the
		// user's history is not taken.
		t.Base = strings.TrimSpace(string(b))
		if _, err := git(p.top, "merge-base", "--is-ancestor", t.Base+"^{commit}", "HEAD"); err == nil {
			return t, nil
		}
		recorded = true
	}
	// Not made by Ensure (or made before bases were recorded): where the
	// branch left the user's HEAD is what it was created from.
	out, err := git(p.top, "merge-base", "HEAD", "refs/heads/"+p.branch)
	if err != nil {
		out, err = git(p.top, "rev-parse", "--verify", "refs/heads/"+p.branch+"^{commit}")
		if err != nil {
			return Tree{}, err
		}
	}
	t.Base = line(out)
	if recorded {
		return t, nil // the file is the agent's now: left as it is
	}
	// Made new, never through a link an agent put there.
	f, err := os.OpenFile(filepath.Join(gitDir, baseFile), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return t, nil
	}
	defer f.Close()
	_, err = f.WriteString(t.Base + "\n")
	return t, err
}

// gitDir finds the worktree's own git dir from the shared one's records
// (worktrees/<id>/gitdir holds <path>/.git), not from the .git file in
// the worktree, which the agent can rewrite. An agent that works in the
// checkout writes worktrees/ too: a record of its own there, whose gitdir
// named a file in the worktree's folder (which git takes for no
// worktree's), was taken for the worktree's, and the console wrote the
// base through its link at teamlead-base into a file of the agent's
// choosing. So the record must name <path>/.git itself, is read through
// no link nor FIFO, and where two do, the worktree's .git file (read-only
// to every agent once the worktree is made) tells which.
func (p plan) gitDir() (string, error) {
	dirs, err := os.ReadDir(filepath.Join(p.common, "worktrees"))
	if err != nil {
		return "", err
	}
	dotGit := filepath.Join(p.path, ".git")
	var found []string
	for _, d := range dirs {
		dir := filepath.Join(p.common, "worktrees", d.Name())
		if to := recordedPath(filepath.Join(dir, "gitdir"), "", dir); d.IsDir() && to != "" &&
			filepath.Base(to) == ".git" && canonical(filepath.Dir(to)) == p.path {
			found = append(found, dir)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		if to := recordedPath(dotGit, "gitdir: ", p.path); to != "" {
			for _, dir := range found {
				if canonical(to) == canonical(dir) {
					return dir, nil
				}
			}
		}
		return "", fmt.Errorf("%w: %s each say they are the git folder of %s, and its .git file names none of them: an agent working in the checkout may have made one; look at them, then remove the one that is not the worktree's", ErrTampered, strings.Join(found, " and "), p.path)
	}
	return "", fmt.Errorf("%w: %s is listed by git but %s/worktrees has no record of it", ErrNoWorktree, p.path, p.common)
}

// recordedPath is the path a file git keeps to find a folder holds (after
// prefix, relative to base), "" when it holds none. Read through no link
// nor FIFO, and no more than such a file holds: an agent may have put
// either there, or a file of gigabytes.
func recordedPath(file, prefix, base string) string {
	b, err := fsutil.ReadHead(file, 64<<10, syscall.O_NOFOLLOW)
	if err != nil {
		return ""
	}
	to, ok := strings.CutPrefix(strings.TrimRight(string(b), "\r\n"), prefix)
	if !ok || to == "" {
		return ""
	}
	if !filepath.IsAbs(to) {
		to = filepath.Join(base, to)
	}
	return filepath.Clean(to)
}
