package permit

import (
	"path"
	"strings"
)

// gitSwitchHits: git checkout and git switch write the whole tree of the
// commit they go to, and overwrite untracked ignored files (.env) in its
// way. A local branch, or HEAD, holds the project's own commits; anything
// else (FETCH_HEAD, origin/x, a tag, a commit, a name git would guess
// from a remote) can hold files nobody here wrote: hooks in
// .claude/settings.json, .vscode/tasks.json, CI workflows, links out of
// the working directory.
func gitSwitchHits(v view, cwds cwdSet, env Env) []hit {
	g := parseGit(v.args)
	switch g.sub {
	case "merge", "rebase", "cherry-pick", "worktree", "pull":
		return gitBringHits(g, v, cwds, env)
	case "branch":
		return gitBranchHits(g, v, cwds, env)
	case "push":
		return gitPushHereHits(g, v, cwds, env)
	case "reset":
		return gitKeepHits(g, v, cwds, env)
	case "checkout", "switch":
	default:
		return nil
	}
	for _, a := range g.args {
		if a.Value == "--" {
			return nil // paths: gitPathHits
		}
	}
	ops, opts := operands(g.args)
	var refs []Word
	create := hasLong(opts, "--orphan")
	if g.sub == "checkout" {
		create = create || hasShort(opts, "bB")
	} else {
		create = create || hasShort(opts, "cC") || hasLong(opts, "--create", "--force-create")
	}
	switch {
	case create && len(ops) > 1:
		refs = ops[1:2]
	case create:
	case g.sub == "checkout" && (len(ops) > 1 || len(ops) == 1 && pathExists(ops[0], cwds, env)):
		return nil // paths: gitPathHits
	case len(ops) > 0:
		refs = ops[:1]
	}
	if len(refs) == 0 {
		return nil
	}
	dirs, ok := gitStartDirs(v.args, cwds, env)
	for _, r := range refs {
		if ok && env.ownRef(r, dirs) {
			continue
		}
		what := r.Raw
		if r.Value == "-" || strings.Contains(r.Value, "@{-") {
			what = "the previous branch (" + r.Raw + ", not looked up here)"
		}
		return []hit{{id: FloorProtectedFile, detail: "git " + g.sub + " " + joinValues(g.args) + " writes the whole tree of " + what +
			", which is not known to be a local branch: files the project did not write (agent and editor settings, CI, hooks, links out of the folder) land unseen, and untracked ignored files such as .env in its way are overwritten"}}
	}
	if ok {
		return ignoredOverwriteHits(g, refs, dirs, env)
	}
	return nil
}

// gitKeepHits: git reset --keep REV writes REV's tree over the work tree
// as a checkout does, ignored files in its way too.
func gitKeepHits(g gitInfo, v view, cwds cwdSet, env Env) []hit {
	ops, opts := operands(g.args)
	if !hasLong(opts, "--keep") || len(ops) == 0 || ops[0].Value == "--" {
		return nil
	}
	if dirs, ok := gitStartDirs(v.args, cwds, env); ok {
		return ignoredOverwriteHits(g, ops[:1], dirs, env)
	}
	return nil
}

// gitBranchHits: git branch NAME START makes a local branch of START,
// and checking out a local branch is the project's own tree to the
// switch rule above: started from anything but a local branch or HEAD
// (origin/evil, FETCH_HEAD), the next git switch NAME would write a tree
// nobody here wrote (the eighth red team's git branch -v x origin/evil:
// -v lists only when git branch is in list mode, and a name makes it
// create). Setting the upstream and the description write .git/config.
func gitBranchHits(g gitInfo, v view, cwds cwdSet, env Env) []hit {
	var ops []Word
	var opts []string
	for i := 0; i < len(g.args); i++ {
		a := g.args[i]
		switch {
		case a.Value == "--":
			ops = append(ops, g.args[i+1:]...)
			i = len(g.args)
		case strings.HasPrefix(a.Value, "-") && !a.Dynamic:
			opts = append(opts, a.Value)
			if gitBranchValues[a.Value] {
				i++ // the value: a revision or a format, not a branch to make
			}
		default:
			ops = append(ops, a)
		}
	}
	by := "git branch " + joinValues(g.args)
	if hasShort(opts, "u") || hasLong(opts, "--set-upstream-to", "--unset-upstream", "--edit-description", "--set-upstream") {
		return []hit{{id: FloorProtectedFile, detail: by + " writes .git/config (the branch's upstream, where a plain git push or pull goes, or its description through an editor)"}}
	}
	list := len(ops) == 0 || hasShort(opts, "lar") || hasLong(opts, "--list", "--all", "--remotes", "--contains", "--no-contains",
		"--merged", "--no-merged", "--points-at", "--show-current")
	if list || hasShort(opts, "dDmMcC") || hasLong(opts, "--delete", "--move", "--copy") {
		return nil // listing; deleting, renaming and copying a local branch keep its commits (forced ones: gitHits)
	}
	if len(ops) < 2 {
		return nil // from HEAD
	}
	dirs, ok := gitStartDirs(v.args, cwds, env)
	if ok && env.ownRef(ops[1], dirs) {
		return nil
	}
	return []hit{{id: FloorProtectedFile, detail: by + " makes a local branch of " + ops[1].Raw +
		", which is not known to be a local branch: switching to it then writes files nobody here wrote (agent and editor settings, CI, hooks) as the project's own"}}
}

// gitPushHereHits: git push . SRC:DST moves the repository's own branch
// DST to SRC, as git branch DST SRC does.
func gitPushHereHits(g gitInfo, v view, cwds cwdSet, env Env) []hit {
	ops, _ := operands(g.args)
	if len(ops) < 2 || ops[0].Value != "." && ops[0].Value != "./" {
		return nil
	}
	dirs, ok := gitStartDirs(v.args, cwds, env)
	for _, r := range ops[1:] {
		src, _, _ := strings.Cut(strings.TrimPrefix(r.Value, "+"), ":")
		if ok && src != "" && env.ownRef(Word{Raw: src, Value: src}, dirs) {
			continue
		}
		return []hit{{id: FloorProtectedFile, detail: "git push . " + r.Raw + " sets a local branch to " + src +
			", which is not known to be a local branch: switching to it then writes files nobody here wrote as the project's own"}}
	}
	return nil
}

// gitBranchValues are git branch's options whose value is the next word.
var gitBranchValues = setOf("-u", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format")

// gitRefValues are the options of merge, rebase, cherry-pick and
// worktree add that take the next word as a value that is not a commit.
var gitRefValues = map[string]map[string]bool{
	"merge":       setOf("-m", "-F", "-s", "-X", "--message", "--file", "--strategy", "--strategy-option", "--into-name", "--cleanup"),
	"rebase":      setOf("-s", "-X", "-x", "--exec", "--strategy", "--strategy-option", "--whitespace", "-C"),
	"cherry-pick": setOf("-m", "--mainline", "-X", "--strategy", "--strategy-option", "--cleanup"),
	"worktree":    setOf("-b", "-B", "--reason"),
}

// gitBringHits: merge, rebase and cherry-pick of anything but a local
// branch (or HEAD), a worktree made from one, and a pull from an address
// rather than a remote, write files nobody here wrote, as a checkout does.
func gitBringHits(g gitInfo, v view, cwds cwdSet, env Env) []hit {
	var refs []Word
	args := g.args
	if g.sub == "worktree" {
		if len(args) == 0 || args[0].Value != "add" {
			return nil
		}
		args = args[1:]
	}
	var ops []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a.Value == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case a.Value == "--onto" && i+1 < len(args):
			refs = append(refs, args[i+1])
			i++
		case strings.HasPrefix(a.Value, "--onto="):
			refs = append(refs, pathWord(strings.TrimPrefix(a.Value, "--onto=")))
		case strings.HasPrefix(a.Value, "-") && !a.Dynamic:
			if gitRefValues[g.sub][a.Value] {
				i++
			}
		default:
			ops = append(ops, a)
		}
	}
	switch g.sub {
	case "pull":
		if _, opts := operands(g.args); hasLong(opts, "--help") || hasLong(opts, "-h") || hasLong(opts, "--dry-run") {
			return nil
		}
		// A pull is a fetch and a merge of what came: git merge origin/x
		// is asked, and so is the pull that does the same (the eighth red
		// team's git pull origin evil brought .claude/settings.json).
		from := "the remote's branch"
		if len(ops) > 0 {
			from = ops[0].Raw
			if len(ops) > 1 {
				from += " " + joinValues(ops[1:])
			}
		}
		return []hit{{id: FloorProtectedFile, detail: "git pull merges the tree of " + from + ", which is not a local branch: files the project did not write (agent and editor settings, CI, hooks) land unseen"}}
	case "worktree": // add PATH [COMMIT]
		if len(ops) > 0 {
			if out := targetsOutside(ops[:1], cwds, env, true); len(out) > 0 {
				return []hit{{id: FloorWriteOutside, detail: "git worktree add checks out a whole tree at " + out[0]}}
			}
		}
		if len(ops) > 1 {
			refs = append(refs, ops[1])
		}
	default:
		refs = append(refs, ops...)
	}
	dirs, ok := gitStartDirs(v.args, cwds, env)
	for _, r := range refs {
		if ok && env.ownRef(r, dirs) {
			continue
		}
		return []hit{{id: FloorProtectedFile, detail: "git " + g.sub + " " + joinValues(g.args) + " brings in the tree of " + r.Raw +
			", which is not a local branch: files the project did not write (agent and editor settings, CI, hooks) land unseen"}}
	}
	if ok && g.sub != "worktree" {
		return ignoredOverwriteHits(g, refs, dirs, env)
	}
	return nil
}

// gitStartDirs returns the folders git starts from: the command's
// folders, moved by git -C; false with --git-dir or --work-tree, or
// without an FS.
func gitStartDirs(args []Word, cwds cwdSet, env Env) ([]string, bool) {
	if env.FS == nil || !cwds.allInside() {
		return nil, false
	}
	dirs := cwds.dirs
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") {
			break
		}
		switch {
		case a == "-C" && i+1 < len(args):
			i++
			w := args[i]
			if w.Dynamic {
				return nil, false
			}
			var next []string
			for _, d := range dirs {
				p := w.Value
				if !path.IsAbs(p) {
					p = path.Join(d, p)
				}
				next = append(next, env.realPath(p))
			}
			dirs = next
		case a == "-c" || a == "--namespace" || a == "--super-prefix" || a == "--config-env" || a == "--exec-path":
			i++
		case strings.HasPrefix(a, "--git-dir") || strings.HasPrefix(a, "--work-tree") || strings.HasPrefix(a, "-C"):
			return nil, false
		}
	}
	return dirs, true
}

// ownRef reports a word that names HEAD or a local branch of the
// repository found from every one of dirs.
func (e Env) ownRef(w Word, dirs []string) bool {
	if w.Dynamic || w.Glob || w.Tilde || len(dirs) == 0 {
		return false
	}
	name := ancestorBase(w.Value)
	if name == "HEAD" || name == "@" {
		return true
	}
	name = strings.TrimPrefix(strings.TrimPrefix(name, "refs/"), "heads/")
	if !plainBranchName(name) {
		return false
	}
	for _, d := range dirs {
		if !e.localBranch(d, name) {
			return false
		}
	}
	return true
}

// ancestorBase strips what names an ancestor of a commit (~, ~N, ^, ^N,
// repeated: HEAD~1, main~3^2): an ancestor of HEAD or of a local branch is
// the project's own history, which the branch already holds, so it is
// as much the project's as the branch is (no other revision syntax: ^{…},
// @{…}, :path, ranges are kept and refused by plainBranchName).
func ancestorBase(n string) string {
	for {
		i := strings.LastIndexAny(n, "~^")
		if i <= 0 || strings.Trim(n[i+1:], "0123456789") != "" {
			return n
		}
		n = n[:i]
	}
}

// plainBranchName reports a branch name without revision syntax (~ ^ :
// @{ ..), which would name another commit than the branch's own.
func plainBranchName(n string) bool {
	if n == "" || strings.HasPrefix(n, "-") || strings.HasPrefix(n, "/") || strings.HasSuffix(n, "/") ||
		strings.Contains(n, "..") || strings.Contains(n, "@{") || strings.HasSuffix(n, ".lock") {
		return false
	}
	return !strings.ContainsAny(n, "~^:?*[\\ \t\n")
}

// localBranch reports refs/heads/NAME in the repository git finds from
// dir: a loose ref file, or a line of packed-refs.
func (e Env) localBranch(dir, name string) bool {
	cfg, ok := e.repoConfig(dir)
	if !ok {
		return false
	}
	gd := path.Dir(cfg)
	common := gd
	if b, err := e.FS.ReadFile(path.Join(gd, "commondir")); err == nil {
		c := strings.TrimSpace(string(b))
		if !path.IsAbs(c) {
			c = path.Join(gd, c)
		}
		common = path.Clean(c)
	}
	ref := path.Join(common, "refs", "heads", name)
	if fi, err := e.FS.Lstat(ref); err == nil && fi.Mode().IsRegular() {
		// A symbolic ref under refs/heads (git symbolic-ref refs/heads/x
		// refs/remotes/origin/evil) is whatever it names: not taken.
		b, err := e.FS.ReadFile(ref)
		return err == nil && !strings.HasPrefix(string(b), "ref:")
	}
	body, err := e.FS.ReadFile(path.Join(common, "packed-refs"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(body), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[1] == "refs/heads/"+name {
			return true
		}
	}
	return false
}
