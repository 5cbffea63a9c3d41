package permit

import (
	"path"
	"regexp"
	"strings"
)

// A build reads its manifest, which an agent may have edited a moment
// before (Edit(Cargo.toml) is ordinary work): cargo build fetched a git
// dependency from any address and ran its build.rs, and go list -m all
// asked the module proxy for a path of the agent's choosing, for the
// ninth red team. When cargo or go runs, the floor reads the manifests
// they would read (Cargo.toml, go.mod, from where they run up to the
// working directory) and judges the addresses and folders they name, as
// it judges them on the command line (git remotes, go -C, WebFetch).

// cargoGit and cargoPath find a dependency's git address and folder.
var (
	cargoGit  = regexp.MustCompile(`(?m)\bgit\s*=\s*["']([^"']+)["']`)
	cargoPath = regexp.MustCompile(`(?m)\bpath\s*=\s*["']([^"']+)["']`)
	// cargoRegistry finds another registry or source replacement.
	cargoRegistry = regexp.MustCompile(`(?m)^\s*(registry-index|replace-with|index)\s*=`)
)

// goModLine finds a go.mod require or replace target.
var goModPath = regexp.MustCompile(`(?m)^\s*(?:require\s+)?([A-Za-z0-9][^\s=>]*\.[^\s=>]*/[^\s]*)\s+v[0-9]`)
var goModReplace = regexp.MustCompile(`(?m)=>\s*(\S+)\s*$`)

// cargoResolves are cargo's subcommands that resolve dependencies.
var cargoResolves = setOf("build", "b", "check", "c", "test", "t", "run", "r", "bench", "doc", "d", "clippy", "fetch",
	"update", "tree", "metadata", "install", "package", "publish", "vendor", "generate-lockfile", "fix", "rustc", "rustdoc")

// goResolves are go's subcommands that read go.mod.
var goResolves = setOf("build", "test", "run", "list", "vet", "get", "install", "mod", "generate", "work", "doc", "fmt")

// manifestHits judges the manifests cargo and go read.
func manifestHits(v view, cwds cwdSet, env Env) []hit {
	if env.FS == nil || len(v.args) == 0 || cwds.unknown {
		return nil
	}
	sub := ""
	for _, a := range v.args {
		if !strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "+") {
			sub = a.Value
			break
		}
	}
	var name string
	switch {
	case v.name == "cargo" && cargoResolves[sub]:
		name = "Cargo.toml"
	case v.name == "go" && goResolves[sub]:
		name = "go.mod"
	default:
		return nil
	}
	for _, d := range cwds.dirs {
		for dir := d; env.inside(dir); dir = path.Dir(dir) {
			file := path.Join(dir, name)
			body, err := env.FS.ReadFile(env.realPath(file))
			if err == nil {
				if hs := manifestBodyHits(name, file, dir, string(body), cwds, env); hs != nil {
					return hs
				}
			}
			if dir == env.Workdir || dir == "/" {
				break
			}
		}
	}
	return nil
}

func manifestBodyHits(name, file, dir, body string, cwds cwdSet, env Env) []hit {
	outside := func(p string) []hit {
		if !path.IsAbs(p) {
			p = path.Join(dir, p)
		}
		if !env.inside(env.realPath(p)) {
			return []hit{{id: FloorCodeExec, detail: file + " names " + p + ", outside the working directory: its code is built and run (build scripts, generators) as the project's"}}
		}
		return nil
	}
	switch name {
	case "Cargo.toml":
		for _, m := range cargoGit.FindAllStringSubmatch(body, -1) {
			u := m[1]
			if why, ok := urlData(u); ok {
				return []hit{{id: FloorURLData, detail: file + " names the git dependency " + u + ": cargo fetches it (" + why + ") and runs its build script"}}
			}
			if h := urlHost(u); !gitHosts[strings.ToLower(h)] {
				return []hit{{id: FloorURLData, detail: file + " names the git dependency " + u + " on " + h + ", not a known code host: cargo fetches it and runs its build script"}}
			}
		}
		for _, m := range cargoPath.FindAllStringSubmatch(body, -1) {
			if hs := outside(m[1]); hs != nil {
				return hs
			}
		}
		if cargoRegistry.MatchString(body) {
			return []hit{{id: FloorURLData, detail: file + " names another registry or source for the dependencies: cargo fetches from it and runs what it gets"}}
		}
	case "go.mod":
		for _, m := range goModPath.FindAllStringSubmatch(body, -1) {
			if why, ok := urlData("https://" + m[1]); ok && !strings.Contains(why, "port") {
				return []hit{{id: FloorURLData, detail: file + " requires " + m[1] + ": the module proxy is asked for it (" + why + ")"}}
			}
		}
		for _, m := range goModReplace.FindAllStringSubmatch(body, -1) {
			p := m[1]
			if strings.HasPrefix(p, ".") || strings.HasPrefix(p, "/") {
				if hs := outside(p); hs != nil {
					return hs
				}
			}
		}
	}
	return nil
}
