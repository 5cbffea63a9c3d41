package permit

import (
	"path"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"golang.org/x/mod/modfile"
)

// A build reads its manifest, which an agent may have edited a moment
// before (Edit(Cargo.toml) is ordinary work): cargo build fetched a git
// dependency from any address and ran its build.rs, and go list -m all
// asked the module proxy for a path of the agent's choosing, for the
// ninth red team. When cargo or go runs, the floor reads the manifests
// they would read (Cargo.toml, go.mod, from where they run up to the
// working directory) and judges the addresses and folders they name, as
// it judges them on the command line (git remotes, go -C, WebFetch).

// The manifests are read with real parsers (BurntSushi/toml, x/mod's
// modfile): cargo reads TOML's multi-line strings ('''…''', """…""")
// and go reads quoted module paths, which the regular expressions this
// file held missed (red team 10b, findings 9 and 11).

// cargoPathKeys are Cargo.toml keys whose value is a file or folder cargo
// builds, runs or reads a workspace from: a dependency's path, a target's
// path ([lib], [[bin]], [[test]]…), the build script, package.workspace.
var cargoPathKeys = setOf("path", "build", "workspace")

// cargoSourceKeys name another registry or source for the dependencies.
var cargoSourceKeys = setOf("registry-index", "replace-with", "index")

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
	switch name {
	case "Cargo.toml":
		return cargoHits(file, dir, body, env)
	case "go.mod":
		return goModHits(file, dir, body, env)
	}
	return nil
}

// manifestOutside: a manifest names a folder or file outside the working
// directory whose code is built and run as the project's.
func manifestOutside(file, dir, p string, env Env) []hit {
	if !path.IsAbs(p) {
		p = path.Join(dir, p)
	}
	if !env.inside(env.realPath(p)) {
		return []hit{{id: FloorCodeExec, detail: file + " names " + p + ", outside the working directory: its code is built and run (build scripts, generators) as the project's"}}
	}
	return nil
}

// cargoHits judges every git address, path and source a Cargo.toml names,
// wherever it sits (dependencies of any kind and target, [patch],
// [workspace.dependencies], [lib], [[bin]], package.build…).
func cargoHits(file, dir, body string, env Env) []hit {
	var doc map[string]any
	if _, err := toml.Decode(body, &doc); err != nil {
		return []hit{{id: FloorCodeExec, detail: file + " is not TOML the policy can read (" + firstLine(err.Error()) + "): what cargo fetches and builds from it is unknown"}}
	}
	if hs := cargoWorkspaceHits(file, dir, doc, env); hs != nil {
		return hs
	}
	var hs []hit
	var walk func(key string, v any)
	walk = func(key string, v any) {
		if hs != nil {
			return
		}
		switch x := v.(type) {
		case map[string]any:
			for _, k := range sortedKeys(x) {
				walk(k, x[k])
			}
		case []map[string]any:
			for _, m := range x {
				walk(key, m)
			}
		case []any:
			for _, e := range x {
				walk(key, e)
			}
		case string:
			switch {
			case key == "git":
				if why, ok := urlData(x); ok {
					hs = []hit{{id: FloorURLData, detail: file + " names the git dependency " + x + ": cargo fetches it (" + why + ") and runs its build script"}}
				} else if h := urlHost(x); !gitHosts[strings.ToLower(h)] {
					hs = []hit{{id: FloorURLData, detail: file + " names the git dependency " + x + " on " + h + ", not a known code host: cargo fetches it and runs its build script"}}
				}
			case cargoPathKeys[key]:
				hs = manifestOutside(file, dir, x, env)
			case cargoSourceKeys[key]:
				hs = []hit{{id: FloorURLData, detail: file + " names another registry or source for the dependencies (" + key + " = " + x + "): cargo fetches from it and runs what it gets"}}
			}
		}
	}
	walk("", doc)
	return hs
}

// cargoWorkspaceHits judges a workspace's members and default members:
// cargo builds each (and runs its build.rs), so a glob or link among them
// that reaches outside the working directory builds code nobody here
// wrote (red team 14b, finding 4: members = ["../outside/evilcrate"]).
func cargoWorkspaceHits(file, dir string, doc map[string]any, env Env) []hit {
	ws, _ := doc["workspace"].(map[string]any)
	for _, key := range []string{"members", "default-members"} {
		list, _ := ws[key].([]any)
		for _, m := range list {
			s, ok := m.(string)
			if !ok {
				continue
			}
			if out, ok := globOutside(env, dir, s); ok {
				return []hit{{id: FloorCodeExec, detail: file + " names the workspace member " + s + ", which reaches " + out +
					", outside the working directory: cargo builds it and runs its build script as the project's"}}
			}
		}
	}
	return nil
}

// goModHits judges the module paths a go.mod makes go fetch (require,
// replace targets with a version, tool) and the folders it builds from
// (replace targets without one).
func goModHits(file, dir, body string, env Env) []hit {
	f, err := modfile.Parse(file, []byte(body), nil)
	if err != nil {
		return []hit{{id: FloorURLData, detail: file + " is not a go.mod the policy can read (" + firstLine(err.Error()) + "): what go fetches for it is unknown"}}
	}
	fetched := func(p string) []hit {
		if why, ok := urlData("https://" + p); ok && !strings.Contains(why, "port") {
			return []hit{{id: FloorURLData, detail: file + " requires " + p + ": the module proxy is asked for it (" + why + ")"}}
		}
		return nil
	}
	for _, r := range f.Require {
		if hs := fetched(r.Mod.Path); hs != nil {
			return hs
		}
	}
	for _, t := range f.Tool {
		if hs := fetched(t.Path); hs != nil {
			return hs
		}
	}
	for _, r := range f.Replace {
		if r.New.Version == "" {
			if hs := manifestOutside(file, dir, r.New.Path, env); hs != nil {
				return hs
			}
			continue
		}
		if hs := fetched(r.New.Path); hs != nil {
			return hs
		}
	}
	return nil
}

// sortedKeys are a map's keys in order.
func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
