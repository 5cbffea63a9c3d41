package permit

import (
	"encoding/json"
	"path"
	"strings"
)

// package.json's "workspaces" name folders whose scripts npm runs for -ws,
// --workspaces, -w NAME and --workspace=NAME (yarn's and bun's workspace
// commands alike), and whose packages install links and builds: a
// workspace outside the working directory, by path, glob or link, runs
// scripts nobody here wrote (red team 14b, finding 5: "workspaces":
// ["../outside/npmpkg"] under npm test -ws). A name on the command line
// may be any workspace's, so npm, yarn and bun ask whenever a package.json
// they read names one outside. pnpm reads pnpm-workspace.yaml, which is
// protected.

// jsWorkspaceTools are the package managers that read package.json's
// workspaces (and, through corepack's shims, its packageManager).
var jsWorkspaceTools = setOf("npm", "npx", "yarn", "bun", "bunx", "pnpm", "pnpx")

// jsWorkspaceHits: npm, yarn or bun where a package.json from the folder
// it runs in up to the working directory names a workspace outside.
func jsWorkspaceHits(v view, cwds cwdSet, env Env) []hit {
	if !jsWorkspaceTools[v.name] || env.FS == nil || cwds.unknown {
		return nil
	}
	for _, d := range cwds.dirs {
		for dir := d; env.inside(dir); dir = path.Dir(dir) {
			file := path.Join(dir, "package.json")
			if body, err := env.FS.ReadFile(file); err == nil {
				if why, ok := workspaceOutside(env, dir, body); ok {
					return []hit{{id: FloorCodeExec, detail: v.name + " reads " + file + ", " + why}}
				}
			}
			if dir == env.Workdir || dir == "/" {
				break
			}
		}
	}
	return nil
}

// workspaceOutside says which workspace of a package.json reaches
// outside the working directory, if one does.
func workspaceOutside(env Env, dir string, body []byte) (string, bool) {
	var pkg struct {
		Workspaces     json.RawMessage `json:"workspaces"`
		PackageManager string          `json:"packageManager"`
	}
	if json.Unmarshal(body, &pkg) != nil {
		return "which is not JSON the policy can read: the workspaces whose scripts it runs are unknown", true
	}
	if _, version, _ := strings.Cut(pkg.PackageManager, "@"); strings.Contains(version, ":") || strings.Contains(version, "/") {
		// corepack downloads and runs the package manager packageManager
		// names, from the URL it gives (red team 21a, finding 12)
		return "whose packageManager " + pkg.PackageManager + " names a package manager by address: corepack downloads and runs it", true
	}
	if len(pkg.Workspaces) == 0 || string(pkg.Workspaces) == "null" {
		return "", false
	}
	var globs []string
	if json.Unmarshal(pkg.Workspaces, &globs) != nil {
		var yarn struct {
			Packages []string `json:"packages"`
		}
		if json.Unmarshal(pkg.Workspaces, &yarn) != nil {
			return "whose \"workspaces\" the policy cannot read: the folders whose scripts it runs are unknown", true
		}
		globs = yarn.Packages
	}
	for _, g := range globs {
		if out, ok := globOutside(env, dir, g); ok {
			return "whose workspace " + g + " reaches " + out + ", outside the working directory: its scripts and packages run as the project's", true
		}
	}
	return "", false
}
