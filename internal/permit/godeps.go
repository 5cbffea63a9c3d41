package permit

import (
	"io/fs"
	"path"
	"strings"

	"golang.org/x/mod/modfile"
)

// go's ./... skips only folders named testdata or vendor or starting with
// . or _, and nested modules: a node_modules or virtualenv folder holding
// .go files is part of the module, so go test ./... runs the tests found
// there and go generate ./... their //go:generate lines (red team 14b,
// finding 3), third-party code the policy keeps agents from writing
// (Env.dependencyCode). So go test, generate, run, fmt and fix ask when a
// package they are given, or that a pattern with ... reaches, lies in
// such a folder. go.mod's ignore directive (Go 1.25) takes a folder out
// of ./..., and the walk too. go build, vet and list compile or read
// those packages without running them.

// goRunsPackages are the go subcommands that run or rewrite the code of
// the packages they are given.
var goRunsPackages = setOf("test", "generate", "run", "fmt", "fix")

// maxGoWalk bounds the folders a pattern's walk looks at; more ask (as
// the cgo floor does above 2,000 package folders).
const maxGoWalk = 5000

// goDependencyHits: a go command that runs the code of packages in a
// dependency folder.
func goDependencyHits(v view, cwds cwdSet, env Env) []hit {
	sub, _ := goSub(v.args)
	if v.name != "go" || !goRunsPackages[sub] || env.FS == nil || cwds.unknown {
		return nil
	}
	pats := goOperands(v.args)
	if len(pats) == 0 {
		pats = []Word{{Raw: ".", Value: "."}}
	}
	budget := maxGoWalk
	for _, d := range cwds.dirs {
		mod, root, _ := env.moduleRoot(d)
		for _, p := range pats {
			dir, walk, ok := goPatternDir(p.Value, d, mod, root)
			if !ok {
				continue
			}
			if found, ok := env.goDepPackage(env.realPath(dir), walk, root, &budget); !ok || found != "" {
				return []hit{{id: FloorCodeExec, detail: goDepWhy(sub, p.Value, found, ok)}}
			}
		}
	}
	return nil
}

func goDepWhy(sub, pat, found string, ok bool) string {
	if !ok {
		return "go " + sub + " " + pat + " reaches more folders than the policy looks through, and go runs the code of dependency folders (node_modules, virtualenvs) among them; an ignore line in go.mod takes a folder out"
	}
	return "go " + sub + " " + pat + " reaches " + found + ", Go code in a dependency folder (installed packages nobody here wrote): go runs it as the project's; an ignore line in go.mod takes the folder out"
}

// goPatternDir is the folder a package pattern names from dir, and
// whether the pattern walks below it (...); false for a package outside
// the main module (std, a dependency's import path), judged elsewhere.
func goPatternDir(pat, dir, mod, root string) (string, bool, bool) {
	if strings.HasSuffix(pat, ".go") {
		return path.Dir(path.Join(dir, pat)), false, true
	}
	prefix, walk := pat, false
	if i := strings.Index(pat, "..."); i >= 0 {
		prefix, walk = strings.TrimSuffix(pat[:i], "/"), true
	}
	switch {
	case pathLike(pat) || prefix == "" && strings.HasPrefix(pat, "."):
		if prefix == "" {
			prefix = "."
		}
		if path.IsAbs(prefix) {
			return prefix, walk, true
		}
		return path.Join(dir, prefix), walk, true
	case mod != "" && (prefix == mod || strings.HasPrefix(prefix, mod+"/")):
		return path.Join(root, strings.TrimPrefix(prefix, mod)), walk, true
	}
	return "", false, false
}

// goDepPackage returns a folder holding Go files in a dependency folder
// among dir (and, with walk, the folders go's ./... reaches below it);
// false when there were more than the budget allows.
func (e Env) goDepPackage(dir string, walk bool, root string, budget *int) (string, bool) {
	inDep := func(d string) bool { _, ok := e.dependencyCode(path.Join(d, "x")); return ok }
	if !walk {
		if inDep(dir) && e.holdsGo(dir) {
			return dir, true
		}
		return "", true
	}
	ignored := e.goIgnored(root)
	type folder struct {
		dir string
		dep bool // in a dependency folder
	}
	queue := []folder{{dir, inDep(dir)}}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		ents, err := e.FS.ReadDir(f.dir)
		if err != nil {
			continue
		}
		dep := f.dep || holdsName(ents, "pyvenv.cfg")
		for _, ent := range ents {
			n, full := ent.Name(), path.Join(f.dir, ent.Name())
			if dep && !ent.IsDir() && strings.HasSuffix(n, ".go") && ent.Type()&fs.ModeSymlink == 0 {
				return f.dir, true
			}
			if !ent.IsDir() || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor" || ignored(full) {
				continue
			}
			if _, err := e.FS.Lstat(path.Join(full, "go.mod")); err == nil {
				continue // another module: ./... stops there
			}
			if *budget--; *budget < 0 {
				return "", false
			}
			l := strings.ToLower(n)
			queue = append(queue, folder{full, dep || n == "node_modules" || l == "venv"})
		}
	}
	return "", true
}

// holdsName reports an entry of that name among a folder's.
func holdsName(ents []fs.DirEntry, name string) bool {
	for _, e := range ents {
		if e.Name() == name {
			return true
		}
	}
	return false
}

// goIgnored reports the folders go.mod's ignore lines take out of ./...
// (./x: that folder of the module's root; x: any folder so named).
func (e Env) goIgnored(root string) func(string) bool {
	none := func(string) bool { return false }
	if root == "" {
		return none
	}
	body, err := e.FS.ReadFile(path.Join(root, "go.mod"))
	if err != nil {
		return none
	}
	f, err := modfile.Parse("go.mod", body, nil)
	if err != nil || len(f.Ignore) == 0 {
		return none
	}
	return func(dir string) bool {
		rel := "/" + strings.TrimPrefix(strings.TrimPrefix(dir, root), "/") + "/"
		for _, ig := range f.Ignore {
			p, relative := strings.CutPrefix(ig.Path, "./")
			p = "/" + strings.Trim(p, "/") + "/"
			if relative && strings.HasPrefix(rel, p) || !relative && strings.Contains(rel, p) {
				return true
			}
		}
		return false
	}
}
