package permit

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// A request's parts are judged on the files as they are when it is asked,
// but they run one after the other: printf '' > .gitignore && git add -A
// && git diff --cached empties the ignore file the second part was judged
// on, and prints the .env it no longer ignores (red team 12b, finding 7).
// So each part's judgement records what it read of the files (recorder),
// and a part that read what an earlier part writes or removes is asked:
// its floor saw the file before that part ran.

// readKind is how a judgement looked at a path.
type readKind int

const (
	readContent readKind = iota // its bytes, or where a link leads
	readListing                 // the names in a folder
	readPending                 // what git add would stage under a work tree: its ignore files and names
)

type fileRead struct {
	kind readKind
	path string
	// names, for a folder a judgement looked into by name (python -m's
	// modules), tells the entries whose writing changes that judgement.
	names func(entry string) bool
	// tree, with names, marks a folder git looks in to find its
	// repository: a part that writes the folder itself or one above it
	// (mkdir, cp -r, mv, an unpacked archive) makes the repository too.
	tree bool
}

// recorder is the policy's FS with every read it passes on noted.
type recorder struct {
	FS
	reads []fileRead
}

func (r *recorder) note(k readKind, name string) {
	r.reads = append(r.reads, fileRead{kind: k, path: path.Clean(name)})
}

func (r *recorder) Readlink(name string) (string, error) {
	r.note(readContent, name)
	return r.FS.Readlink(name)
}

func (r *recorder) ReadDir(name string) ([]fs.DirEntry, error) {
	r.note(readListing, name)
	return r.FS.ReadDir(name)
}

func (r *recorder) ReadFile(name string) ([]byte, error) {
	r.note(readContent, name)
	return r.FS.ReadFile(name)
}

func (r *recorder) ReadHead(name string, n int) ([]byte, error) {
	r.note(readContent, name)
	if h, ok := r.FS.(headReader); ok {
		return h.ReadHead(name, n)
	}
	b, err := r.FS.ReadFile(name)
	return b[:min(len(b), n)], err
}

func (r *recorder) HistoryNames(gitDir string) ([]string, error) {
	hl, ok := r.FS.(historyLister)
	if !ok {
		return nil, fs.ErrInvalid
	}
	r.note(readContent, gitDir)
	return hl.HistoryNames(gitDir)
}

func (r *recorder) Pending(workTree string, tracked bool, scope []string) ([]string, error) {
	hl, ok := r.FS.(historyLister)
	if !ok {
		return nil, fs.ErrInvalid
	}
	r.note(readPending, workTree)
	return hl.Pending(workTree, tracked, scope)
}

func (r *recorder) HistorySecrets(gitDir string) ([]string, error) {
	hl, ok := r.FS.(historyContentLister)
	if !ok {
		return nil, fs.ErrInvalid
	}
	r.note(readContent, gitDir)
	return hl.HistorySecrets(gitDir)
}

func (r *recorder) StagedSecrets(gitDir, workTree string) ([]string, error) {
	hl, ok := r.FS.(historyContentLister)
	if !ok {
		return nil, fs.ErrInvalid
	}
	r.note(readPending, workTree)
	return hl.StagedSecrets(gitDir, workTree)
}

// noteNamed notes, when fsys records reads, that a judgement looked for
// the entries of dir names accepts: an earlier part that writes one (or
// below one) changes it.
func noteNamed(fsys FS, dir string, names func(entry string) bool) {
	if r, ok := fsys.(*recorder); ok {
		r.reads = append(r.reads, fileRead{kind: readListing, path: path.Clean(dir), names: names})
	}
}

// noteRepoSearch notes, when fsys records reads, the folders git looks
// in to find its repository when it starts in dir: each from dir up, for
// HEAD, objects and refs (a bare repository), .git and commondir, in any
// case. An earlier part that makes one of those, or a folder at or above
// them, makes the repository the later git part uses, which its floor did
// not see (red team 18a, finding 1: mkdir -p ev/objects ev/refs && echo
// 'ref: ...' > ev/HEAD && printf '[diff]...' > ev/config && cd ev && git
// diff ran diff.external).
func noteRepoSearch(fsys FS, dir string) {
	r, ok := fsys.(*recorder)
	if !ok {
		return
	}
	for d := path.Clean(dir); ; d = path.Dir(d) {
		r.reads = append(r.reads, fileRead{kind: readListing, path: d, names: repoSearchName, tree: true})
		if d == "/" || d == "." || path.Dir(d) == d {
			return
		}
	}
}

func repoSearchName(entry string) bool {
	for _, n := range []string{"HEAD", "objects", "refs", ".git", "commondir", "gitdir", "config"} {
		if strings.EqualFold(entry, n) {
			return true
		}
	}
	return false
}

func (r *recorder) HistoryMessages(gitDir string) (string, error) {
	ml, ok := r.FS.(historyMessageLister)
	if !ok {
		return "", fs.ErrInvalid
	}
	r.note(readContent, gitDir)
	return ml.HistoryMessages(gitDir)
}

// take returns the reads noted since the last take.
func (r *recorder) take() []fileRead {
	out := r.reads
	r.reads = nil
	return out
}

// removers are commands whose operands they delete or move away.
var removers = setOf("rm", "unlink", "rmdir", "mv", "shred")

// changes are the files a part writes (what its floor's write checks
// resolved) and those it removes or moves away (rm's and mv's operands,
// git rm's and git mv's).
type changes struct {
	written, removed []string
}

func changedBy(pt part, written []string) changes {
	c := changes{written: written}
	var ops []Word
	switch v := pt.view; {
	case removers[v.name]:
		ops, _ = operands(v.args)
	case v.name == "git" && len(v.args) > 0:
		g := parseGit(v.args)
		if g.sub == "rm" || g.sub == "mv" {
			ops, _ = operands(g.args)
		}
		c.removed = append(c.removed, gitChanges(v, g, pt.cwds)...)
	}
	for _, w := range ops {
		if got, ok := pt.cwds.resolve(w); ok {
			c.removed = append(c.removed, got...)
		}
	}
	return c
}

// gitChanges are what a git part changes besides the operands of git rm
// and git mv, as folders everything below which may change: a checkout,
// switch, stash, hard reset, merge or pull puts other files in the work
// tree, .gitignore among them, so a later git add -A stages the .env the
// ignore file no longer hides (red team 18a, finding 2: git checkout -q b1
// && git add -A && git commit && git show HEAD printed it); a reset,
// update-ref, symbolic-ref or replace moves what HEAD and the refs name,
// so a later git show prints a commit it was not judged on. A git told
// where its repository is (-C, --git-dir, --work-tree) may change anything
// in the working directory.
func gitChanges(v view, g gitInfo, cwds cwdSet) []string {
	tree, refs := gitChangeKind(g)
	if !tree && !refs {
		return nil
	}
	env := cwds.env
	for _, a := range v.args {
		if n, _, _ := strings.Cut(a.Value, "="); n == "-C" || n == "--git-dir" || n == "--work-tree" || a.Dynamic {
			return []string{env.Workdir}
		}
		if !strings.HasPrefix(a.Value, "-") {
			break
		}
	}
	var out []string
	for _, d := range cwds.dirs {
		top, cfg, ok := env.repoAt(d)
		switch {
		case !ok: // a repository above the working directory, or none: git fails
			out = append(out, env.Workdir)
		case tree && top != "":
			out = append(out, top)
		default:
			out = append(out, path.Dir(cfg))
		}
	}
	if cwds.unknown {
		out = append(out, env.Workdir)
	}
	return out
}

// gitChangeKind says whether a git command changes files of the work
// tree (and with them the index and refs), or only what the refs and the
// index name. Making a branch at HEAD (checkout -b x, switch -c x, branch
// x) changes neither: what HEAD shows is the same.
func gitChangeKind(g gitInfo) (tree, refs bool) {
	ops, opts := operands(g.args)
	switch g.sub {
	case "checkout", "switch":
		creates := hasShort(opts, "bBcC") || hasLong(opts, "--orphan", "--create", "--force-create")
		return len(ops) > 1 || len(ops) == 1 && !creates || hasShort(opts, "f") || hasLong(opts, "--force", "--discard-changes", "--merge"), false
	case "stash":
		if len(g.args) == 0 || strings.HasPrefix(g.args[0].Value, "-") {
			return true, true
		}
		switch g.args[0].Value {
		case "list", "show", "create":
			return false, false
		case "drop", "clear", "store":
			return false, true
		}
		return true, true
	case "reset":
		return hasLong(opts, "--hard", "--merge", "--keep"), true
	case "restore":
		return !hasShort(opts, "S") && !hasLong(opts, "--staged") || hasShort(opts, "W") || hasLong(opts, "--worktree"), true
	case "apply":
		return !hasLong(opts, "--cached", "--check", "--stat", "--numstat", "--summary") || hasLong(opts, "--index"), true
	case "merge", "rebase", "pull", "cherry-pick", "revert", "am", "bisect", "mergetool", "clean", "read-tree",
		"checkout-index", "sparse-checkout", "submodule", "worktree", "filter-branch", "merge-file", "rerere":
		return true, true
	case "update-ref", "symbolic-ref", "replace", "update-index", "notes":
		return false, true
	case "branch", "tag":
		return false, hasShort(opts, "fmMcCdD") || hasLong(opts, "--force", "--move", "--copy", "--delete")
	}
	return false, false
}

// parsedFiles are files whose content a floor interprets when it judges
// another command (what git add stages, which module go builds, which
// script npm runs, which makefile make reads): written by an earlier
// part, the later one was judged on the old content. Files a judgement
// only looks into for secrets are not among them: an earlier part that
// copies a secret there is judged for that itself.
var parsedFiles = setOf(".gitignore", ".ignore", ".rgignore", ".gitattributes", ".gitmodules", "go.mod", "go.work",
	"package.json", "package.yaml", "pyproject.toml", "setup.cfg", "tox.ini", "Makefile", "makefile", "GNUmakefile",
	"Cargo.toml", "config.toml", ".npmrc", ".yarnrc", ".yarnrc.yml")

// staleRead says which file an earlier part changes that a read of this
// part's judgement depended on, if one does. text is the whole request: a
// Go file written with a cgo preamble in it is read by the cgo floor.
func staleRead(reads []fileRead, c changes, text string) (string, bool) {
	cgo := strings.Contains(text, `"C"`) || strings.Contains(text, "#include") || strings.Contains(text, "#cgo")
	for _, r := range reads {
		if r.tree {
			for _, f := range append(append([]string(nil), c.written...), c.removed...) {
				rel, under := strings.CutPrefix(f, r.path+"/")
				if f == r.path || strings.HasPrefix(r.path, f+"/") || under && r.names(strings.Split(rel, "/")[0]) {
					return f, true
				}
			}
			continue
		}
		for _, f := range c.removed {
			if f == r.path || strings.HasPrefix(r.path, f+"/") || r.kind == readListing && path.Dir(f) == r.path ||
				r.kind == readPending && strings.HasPrefix(f, r.path+"/") {
				return f, true
			}
		}
		for _, f := range c.written {
			if r.names != nil {
				if rel, ok := strings.CutPrefix(f, r.path+"/"); ok && r.names(strings.Split(rel, "/")[0]) {
					return f, true
				}
				continue
			}
			switch {
			case r.kind == readPending && strings.HasPrefix(f, r.path+"/") && pendingMatters(f):
				return f, true
			case (r.kind == readContent && f == r.path || r.kind == readListing && path.Dir(f) == r.path) &&
				(parsedFiles[path.Base(f)] || cgo && strings.HasSuffix(f, ".go")):
				return f, true
			case r.kind == readListing && path.Dir(f) == r.path && strings.HasPrefix(path.Base(f), "-"):
				return f, true // touch -- -ee && sed -n p *: a glob's match the program reads as an option
			}
		}
	}
	return "", false
}

// pendingMatters reports a file whose change changes what git add stages
// in a way a floor judges: an ignore file, git's own files, a credential.
func pendingMatters(p string) bool {
	base := path.Base(p)
	return base == ".gitignore" || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git") || isCredential(p)
}

// staleHits judges part j against what the parts before it change.
func staleHits(j int, parts []part, reads [][]fileRead, changed []changes, text string) []hit {
	for i := 0; i < j; i++ {
		if f, ok := staleRead(reads[j], changed[i], text); ok {
			return []hit{{id: FloorDynamicCommand, detail: fmt.Sprintf("an earlier part (%s) changes %s, which this part was judged on as it is now, before that part runs", parts[i].cmd.Text, f)}}
		}
	}
	return nil
}

func (r *recorder) ObjectSecret(gitDir, rev string) (string, bool, error) {
	ol, ok := r.FS.(objectLooker)
	if !ok {
		return "", false, fs.ErrInvalid
	}
	r.note(readContent, gitDir)
	return ol.ObjectSecret(gitDir, rev)
}

func (r *recorder) IgnoredOverwritten(top, rev string) ([]string, bool, error) {
	il, ok := r.FS.(ignoredLooker)
	if !ok {
		return nil, false, fs.ErrInvalid
	}
	r.note(readPending, top)
	return il.IgnoredOverwritten(top, rev)
}
