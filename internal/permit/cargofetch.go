package permit

import (
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// A crate cargo does not hold yet is downloaded and built, its build.rs
// and proc macros run: an Edit of Cargo.toml adding a dependency, then an
// allowed cargo build, ran code from crates.io nobody here chose (red team
// 22a, finding 6), as go's fetch of a module the cache lacks asks
// (gomodcache.go). So cargo's resolving subcommands ask, unless --offline
// or --frozen, when the lock file is missing while the manifest names
// dependencies, names one the lock does not hold, or locks a registry or
// git package whose download the cargo home does not hold.

// cargoFetchHits judges what the cargo command would download.
func cargoFetchHits(v view, cwds cwdSet, env Env) []hit {
	if v.name != "cargo" || env.FS == nil || cwds.unknown {
		return nil
	}
	sub := ""
	for _, a := range v.args {
		switch {
		case a.Value == "--offline" || a.Value == "--frozen":
			return nil
		case sub == "" && !strings.HasPrefix(a.Value, "-") && !strings.HasPrefix(a.Value, "+"):
			sub = a.Value
		}
	}
	if !cargoResolves[sub] || sub == "install" || sub == "publish" {
		return nil // install and publish ask by the rules already
	}
	if v, set, _ := env.envValue("CARGO_NET_OFFLINE"); set && v == "true" {
		return nil
	}
	home := env.Home + "/.cargo"
	if h, set, _ := env.envValue("CARGO_HOME"); set && path.IsAbs(h) {
		home = h
	}
	for _, d := range cwds.dirs {
		for dir := d; env.inside(dir); dir = path.Dir(dir) {
			file := path.Join(dir, "Cargo.toml")
			if body, err := env.FS.ReadFile(env.realPath(file)); err == nil {
				return cargoMissing(file, dir, string(body), home, env)
			}
			if dir == env.Workdir || dir == "/" {
				break
			}
		}
	}
	return nil
}

// cargoMissing judges one manifest against its lock file and the cargo home.
func cargoMissing(file, dir, body, home string, env Env) []hit {
	var doc map[string]any
	if _, err := toml.Decode(body, &doc); err != nil {
		return nil // cargoHits says so
	}
	deps := cargoDeps(doc)
	if len(deps) == 0 {
		return nil
	}
	lock, lockFile := cargoLock(dir, env)
	if lock == nil {
		return cargoFetchHit(file, "its dependencies ("+strings.Join(deps, ", ")+") with no Cargo.lock to pin them")
	}
	locked := map[string]bool{}
	for _, p := range lock {
		locked[p.Name] = true
	}
	for _, d := range deps {
		if !locked[d] {
			return cargoFetchHit(file, d+", which "+lockFile+" does not hold")
		}
	}
	caches, _ := env.FS.ReadDir(home + "/registry/cache")
	for _, p := range lock {
		switch {
		case strings.HasPrefix(p.Source, "registry+"), strings.HasPrefix(p.Source, "sparse+"):
			held := false
			for _, c := range caches {
				if _, err := env.FS.Lstat(home + "/registry/cache/" + c.Name() + "/" + p.Name + "-" + p.Version + ".crate"); err == nil {
					held = true
					break
				}
			}
			if !held {
				return cargoFetchHit(lockFile, p.Name+" "+p.Version+", which the cargo home ("+home+") does not hold")
			}
		case strings.HasPrefix(p.Source, "git+"):
			if !cargoGitHeld(home, p.Name, env) {
				return cargoFetchHit(lockFile, "the git package "+p.Name+" ("+p.Source+"), which the cargo home does not hold")
			}
		}
	}
	return nil
}

func cargoFetchHit(file, what string) []hit {
	return []hit{{id: FloorURLData, detail: file + " makes cargo download " + what + ": it builds them and runs their build scripts and proc macros; run it with --offline, or approve it once"}}
}

// cargoPackage is one [[package]] of a Cargo.lock.
type cargoPackage struct {
	Name, Version, Source string
}

// cargoLock reads the Cargo.lock of the workspace dir is in (from dir up
// to the working directory).
func cargoLock(dir string, env Env) ([]cargoPackage, string) {
	for d := dir; env.inside(d); d = path.Dir(d) {
		file := path.Join(d, "Cargo.lock")
		if body, err := env.FS.ReadFile(env.realPath(file)); err == nil {
			var lock struct {
				Package []cargoPackage `toml:"package"`
			}
			if _, err := toml.Decode(string(body), &lock); err != nil {
				return nil, file
			}
			return lock.Package, file
		}
		if d == env.Workdir || d == "/" {
			break
		}
	}
	return nil, ""
}

// cargoDeps are the names of the dependencies a manifest takes from a
// registry or git (path dependencies are the project's own), of every
// kind and target, and its workspace's.
func cargoDeps(doc map[string]any) []string {
	seen := map[string]bool{}
	take := func(t any) {
		m, _ := t.(map[string]any)
		for name, spec := range m {
			s, _ := spec.(map[string]any)
			if _, local := s["path"]; local && s["git"] == nil {
				continue
			}
			if pkg, ok := s["package"].(string); ok {
				name = pkg // a renamed dependency is locked by its package's name
			}
			seen[name] = true
		}
	}
	kinds := []string{"dependencies", "dev-dependencies", "build-dependencies", "dev_dependencies", "build_dependencies"}
	for _, k := range kinds {
		take(doc[k])
	}
	if targets, ok := doc["target"].(map[string]any); ok {
		for _, t := range targets {
			tm, _ := t.(map[string]any)
			for _, k := range kinds {
				take(tm[k])
			}
		}
	}
	if ws, ok := doc["workspace"].(map[string]any); ok {
		take(ws["dependencies"])
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// cargoGitHeld reports a checkout of the git package name in the cargo
// home (git/checkouts/<name>-<hash>).
func cargoGitHeld(home, name string, env Env) bool {
	ents, err := env.FS.ReadDir(home + "/git/checkouts")
	if err != nil {
		return false
	}
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), name+"-") {
			return true
		}
	}
	return false
}
