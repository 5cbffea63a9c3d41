package permit

import (
	"path"
	"strings"
)

// goPackageWriters are go subcommands that write into (or run the code
// of) the packages they are given: go generate runs their //go:generate
// lines, go fmt and go fix rewrite their files, go install writes their
// binaries (go install cmd replaces the toolchain's own).
var goPackageWriters = setOf("generate", "fmt", "fix", "install")

// goValueFlags are the go command's build flags that take the next word
// as their value when it is not glued with =.
var goValueFlags = setOf("run", "skip", "mod", "modfile", "tags", "overlay", "pgo", "gcflags", "ldflags", "asmflags",
	"gccgoflags", "p", "exec", "o", "toolexec", "buildmode", "compiler", "installsuffix", "pkgdir", "covermode",
	"coverpkg", "buildvcs", "C", "vettool", "fix")

// goForeignPackageHits: go generate, fmt, fix and install of packages
// outside the main module — std, cmd, all, a standard package (runtime)
// or a dependency's import path — run generators nobody here wrote or
// write into GOROOT or the module cache. Relative patterns (./...) and
// import paths under the module path of the go.mod found from the
// command's folder are the project's own.
func goForeignPackageHits(v view, cwds cwdSet, env Env) []hit {
	args := v.args
	for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") { // go -C dir sub: -C is judged elsewhere
		if args[0].Value == "-C" {
			args = args[1:]
		}
		args = args[1:]
	}
	if len(args) == 0 || !goPackageWriters[args[0].Value] {
		return nil
	}
	sub := args[0].Value
	var pkgs []Word
	for i := 1; i < len(args); i++ {
		a := args[i].Value
		if a == "--" {
			break // go generate's own flags end; what follows are files
		}
		if strings.HasPrefix(a, "-") && !args[i].Dynamic {
			n, _, glued := strings.Cut(strings.TrimLeft(a, "-"), "=")
			if !glued && goValueFlags[n] {
				i++
			}
			continue
		}
		pkgs = append(pkgs, args[i])
	}
	mod, modKnown := "", false
	for _, d := range cwds.dirs {
		m, ok := env.modulePath(d)
		if !ok || modKnown && m != mod {
			modKnown, mod = false, ""
			break
		}
		mod, modKnown = m, true
	}
	for _, p := range pkgs {
		n := p.Value
		switch {
		case p.Dynamic:
			return []hit{{id: FloorCodeExec, detail: "go " + sub + " " + p.Raw + ": packages known only when it runs"}}
		case n == "." || n == ".." || strings.HasPrefix(n, "./") || strings.HasPrefix(n, "../") || path.IsAbs(n) || strings.HasSuffix(n, ".go"):
			continue // a folder or file: judged as a path
		case modKnown && (n == mod || strings.HasPrefix(n, mod+"/")):
			continue
		}
		why := "a package outside the main module"
		switch {
		case n == "std" || n == "cmd" || !strings.Contains(strings.SplitN(n, "/", 2)[0], "."):
			why = "the standard library or the toolchain (GOROOT)"
		case n == "all":
			why = "every package of the build, dependencies too"
		}
		return []hit{{id: FloorCodeExec, detail: "go " + sub + " " + n + " works on " + why + ": it runs generators nobody here wrote, or writes outside the project"}}
	}
	return nil
}

// modulePath returns the module path of the go.mod the go command finds from
// dir upward inside the working directory.
func (e Env) modulePath(dir string) (string, bool) {
	if e.FS == nil {
		return "", false
	}
	for d := dir; e.inside(d); d = path.Dir(d) {
		if body, err := e.FS.ReadFile(path.Join(d, "go.mod")); err == nil {
			for _, line := range strings.Split(string(body), "\n") {
				f := strings.Fields(line)
				if len(f) >= 2 && f[0] == "module" {
					return strings.Trim(f[1], `"`+"`"), true
				}
			}
			return "", false
		}
		if d == e.Workdir || d == "/" {
			break
		}
	}
	return "", false
}
