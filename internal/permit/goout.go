package permit

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// goImplicitOutputs returns the files go build (with no -o) and go test
// -c (with no -o) write without naming them: the binary of a single main
// package, named after the last element of its import path (the module
// path's for the module's root folder, a file's name for go build f.go),
// and PKG.test, in the folder the command runs in. cd .git/hooks; go
// build example.com/proj/pre-commit wrote a hook (red team 11b, finding 2).
// Which package is main is not looked at: every package named counts, and
// a pattern with ... counts every folder under it.
func goImplicitOutputs(args []Word, cwds cwdSet, env Env) []Word {
	args = singleDash(args)
	if c, ok := goChdir(args); ok { // the binary lands in -C's folder (red team 19a, finding 1)
		if c.Dynamic || c.Tilde || cwds.unknown {
			return []Word{unknownWord}
		}
		cwds = cwdSet{env: env, dirs: rebase(cwds.dirs, c.Value)}
	}
	for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") { // go -C dir build: -C is judged elsewhere
		if args[0].Value == "-C" {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 || args[0].Value != "build" && args[0].Value != "test" {
		return nil
	}
	sub := args[0].Value
	var pkgs []Word
	compile := sub == "build"
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a.Value == "--" {
			break
		}
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			n, v, glued := strings.Cut(a.Value[1:], "=")
			switch {
			case n == "o":
				return nil // named: judged as an output option
			case n == "c" && (!glued || v == "true"):
				compile = true
			case !glued && goValueFlags[n]:
				i++
			}
			continue
		}
		pkgs = append(pkgs, a)
	}
	if !compile {
		return nil
	}
	if len(pkgs) == 0 {
		pkgs = []Word{{Raw: ".", Value: "."}}
	}
	suffix := ""
	if sub == "test" {
		suffix = ".test"
	}
	if cwds.unknown || len(cwds.dirs) == 0 {
		return []Word{unknownWord}
	}
	var out []Word
	for _, d := range cwds.dirs {
		for _, p := range pkgs {
			names, ok := goOutputNames(p, d, env)
			if !ok {
				return []Word{unknownWord}
			}
			for _, n := range names {
				f := path.Join(d, n+suffix)
				if fi, err := statFS(env, f); err == nil && fi.IsDir() {
					continue // go refuses to write over a folder
				}
				out = append(out, pathWord(f))
			}
		}
	}
	return out
}

// goChdir returns the folder of go build -C DIR (or -C=DIR; go takes it
// as the subcommand's first flag, and before it here too): go changes into
// it first, so the files it writes are relative to it.
func goChdir(args []Word) (Word, bool) {
	sub := false
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") {
			if sub || a == "--" {
				break
			}
			sub = true // the subcommand
			continue
		}
		if c, ok := strings.CutPrefix(a, "-C="); ok {
			return Word{Raw: c, Value: c, Dynamic: args[i].Dynamic, Tilde: strings.HasPrefix(c, "~")}, true
		}
		if a == "-C" {
			if i+1 < len(args) {
				return args[i+1], true
			}
			return unknownWord, true
		}
		if n, _, glued := strings.Cut(a[1:], "="); !glued && goValueFlags[n] {
			i++
		}
	}
	return Word{}, false
}

// rebase joins sub to each folder (sub itself when absolute).
func rebase(dirs []string, sub string) []string {
	out := make([]string, len(dirs))
	for i, d := range dirs {
		out[i] = path.Join(d, sub)
		if path.IsAbs(sub) {
			out[i] = path.Clean(sub)
		}
	}
	return out
}

// goUnderChdir puts the files go writes (-o, profiles) under -C's folder:
// go build -C .git/hooks -o pre-commit wrote a hook (red team 19a, finding 1).
func goUnderChdir(args []Word, out []Word) []Word {
	c, ok := goChdir(singleDash(args))
	if !ok || len(out) == 0 {
		return out
	}
	res := make([]Word, 0, len(out))
	for _, w := range out {
		switch {
		case c.Dynamic || c.Tilde:
			w = unknownWord
		case !w.Dynamic && !w.Tilde && !path.IsAbs(w.Value):
			w = pathWord(path.Join(c.Value, w.Value))
		}
		res = append(res, w)
	}
	return res
}

// majorSuffix is a module path's major version element (/v2).
var majorSuffix = regexp.MustCompile(`^v[0-9]+$`)

// goOutputNames returns the names go gives the binary of package p when
// it runs in folder dir (false when it cannot tell).
func goOutputNames(p Word, dir string, env Env) ([]string, bool) {
	n := p.Value
	if p.Dynamic || n == "" {
		return nil, false
	}
	if strings.HasSuffix(n, ".go") {
		return []string{strings.TrimSuffix(path.Base(n), ".go")}, true
	}
	local := n == "." || n == ".." || strings.HasPrefix(n, "./") || strings.HasPrefix(n, "../") || path.IsAbs(n)
	if !local {
		if strings.Contains(n, "...") {
			mod, root, ok := env.moduleRoot(dir)
			rest, under := strings.CutPrefix(n, mod)
			if !ok || !under || rest != "" && rest[0] != '/' {
				return nil, false // another module's packages: not known here
			}
			n = root + rest
			local = true
		} else {
			return importLast(n), true
		}
	}
	base, pattern := strings.CutSuffix(n, "/...")
	if !pattern && strings.Contains(base, "...") {
		return nil, false
	}
	if base == "..." {
		base, pattern = ".", true
	}
	root := base
	if !path.IsAbs(root) {
		root = path.Join(dir, root)
	}
	if !pattern {
		return env.dirImportNames(root), true
	}
	return env.dirTreeNames(root)
}

// importLast returns the last element of an import path, and the one
// before it when the last is a major version (example.com/x/v2 builds x).
func importLast(ip string) []string {
	ip = strings.TrimSuffix(ip, "/")
	names := []string{path.Base(ip)}
	if majorSuffix.MatchString(names[0]) && strings.Contains(ip, "/") {
		names = append(names, path.Base(path.Dir(ip)))
	}
	return names
}

// dirImportNames returns the names of the binary of the package in
// folder dir: the module path's last element at a module's root.
func (e Env) dirImportNames(dir string) []string {
	if mod, root, ok := e.moduleRoot(dir); ok && root == dir {
		return importLast(mod)
	}
	return []string{path.Base(dir)}
}

// dirTreeNames returns the binary names of every package folder (one
// holding a .go file) under dir (go skips folders starting with . or _
// and testdata); false when there are too many to look through.
func (e Env) dirTreeNames(dir string) ([]string, bool) {
	if e.FS == nil {
		return nil, true // no files to look at: nothing is known to be there
	}
	const maxDirs = 5000
	var names []string
	if e.holdsGo(dir) {
		names = e.dirImportNames(dir)
	}
	queue := []string{dir}
	for seen := 0; len(queue) > 0; {
		d := queue[0]
		queue = queue[1:]
		ents, err := e.FS.ReadDir(d)
		if err != nil {
			continue
		}
		for _, ent := range ents {
			n := ent.Name()
			if !ent.IsDir() || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" {
				continue
			}
			if seen++; seen > maxDirs {
				return nil, false
			}
			if e.holdsGo(path.Join(d, n)) {
				names = append(names, n)
			}
			queue = append(queue, path.Join(d, n))
		}
	}
	return names, true
}

// moduleRoot returns the module path and folder of the go.mod the go
// command finds from dir upward inside the working directory.
func (e Env) moduleRoot(dir string) (string, string, bool) {
	if e.FS == nil {
		return "", "", false
	}
	for d := dir; e.inside(d); d = path.Dir(d) {
		if _, err := e.FS.Lstat(path.Join(d, "go.mod")); err == nil {
			mod, ok := e.modulePath(d)
			return mod, d, ok
		}
		if d == e.Workdir || d == "/" {
			break
		}
	}
	return "", "", false
}

// holdsGo reports a folder with a .go file in it.
func (e Env) holdsGo(dir string) bool {
	ents, err := e.FS.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, ent := range ents {
		if !ent.IsDir() && strings.HasSuffix(ent.Name(), ".go") {
			return true
		}
	}
	return false
}

// statFS is Lstat through the policy's FS (an error without one).
func statFS(env Env, p string) (fs.FileInfo, error) {
	if env.FS == nil {
		return nil, fs.ErrNotExist
	}
	return env.FS.Lstat(p)
}
