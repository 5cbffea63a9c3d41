package permit

import (
	"encoding/json"
	"io/fs"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// pkgConfigKeys are the keys of package.json under which a JavaScript
// tool takes its configuration when it has no file of its own: prettier's
// plugins and eslint's plugins, parsers and formatters are code it loads.
// package.json itself is not protected (agents edit it all the time), so
// a run of such a tool with its key there asks (red team 12b, finding 4:
// "prettier": {"plugins": ["./p.mjs"]} ran p.mjs under prettier --check).
// jest takes its own "jest" key and babel-jest babel's "babel" key; mocha
// and ava their own (red team 13b, finding 13).
var pkgConfigKeys = map[string][]string{"prettier": {"prettier"}, "eslint": {"eslintConfig"}, "jest": {"jest", "babel"},
	"mocha": {"mocha"}, "ava": {"ava", "babel"}}

// pkgConfigCascade are the tools that look for their configuration from
// each file's own folder up, not only where they run (prettier; eslint
// in its eslintrc mode), and the files that can hold it there: a
// package.json or package.yaml under a folder they are given counts too
// (red team 14b, finding 6: src/package.json's "prettier" plugins ran
// under prettier --check .).
var pkgConfigCascade = map[string][]string{"prettier": {"package.json", "package.yaml"}, "eslint": {"package.json"}}

// maxPkgConfigWalk bounds the entries a folder given to such a tool is
// walked for; more ask.
const maxPkgConfigWalk = 50000

// pkgConfigHits: the tool v runs takes configuration from a package.json
// of the folders it runs in, or of their parents inside the working
// directory, or (prettier, eslint) of the files and folders it is given.
func pkgConfigHits(v view, cwds cwdSet, env Env) []hit {
	strs := make([]string, len(v.args))
	for i, a := range v.args {
		strs[i] = a.Value
	}
	tool, args := v.name, v.args
	if jsRunners[v.name] {
		var rest []string
		tool, rest = jsTool(v.name, strs)
		args = args[len(args)-len(rest):]
	}
	keys, ok := pkgConfigKeys[tool]
	if !ok || env.FS == nil {
		return nil
	}
	key := keys[0]
	if cwds.unknown {
		return []hit{{id: FloorCodeExec, detail: tool + " runs in a folder known only when it runs, whose package.json can hold its configuration (\"" + key + "\": plugins are code it runs)"}}
	}
	names := pkgConfigCascade[tool]
	if names == nil {
		names = []string{"package.json"}
	}
	for _, d := range cwds.dirs {
		if hs := pkgConfigUp(d, tool, names, keys, env); hs != nil {
			return hs
		}
	}
	if pkgConfigCascade[tool] == nil {
		return nil
	}
	for _, op := range toolOperands(tool, args) {
		if op.Glob || strings.ContainsAny(op.Value, "*?[{") {
			op = pathWord(globBase(op.Value)) // the tool's own globs too: the folder they search
		}
		abs, ok := cwds.resolve(op)
		if !ok {
			return []hit{{id: FloorCodeExec, detail: tool + " " + op.Raw + ": the files it formats are known only when it runs, and a package.json beside them can hold its configuration (plugins are code it runs)"}}
		}
		for _, a := range abs {
			if hs := pkgConfigUnder(a, tool, names, keys, env); hs != nil {
				return hs
			}
		}
	}
	return nil
}

// pkgConfigUp judges the manifests of dir and its parents inside the
// working directory.
func pkgConfigUp(dir, tool string, names, keys []string, env Env) []hit {
	for ; env.inside(dir); dir = path.Dir(dir) {
		for _, n := range names {
			if hs := pkgConfigFile(path.Join(dir, n), tool, keys, env); hs != nil {
				return hs
			}
		}
		if dir == env.Workdir || dir == "/" {
			break
		}
	}
	return nil
}

// pkgConfigUnder judges what a file or folder given to the tool takes
// its configuration from: the folders up from it, and every manifest
// under a folder.
func pkgConfigUnder(abs, tool string, names, keys []string, env Env) []hit {
	fi, err := env.FS.Lstat(abs)
	if err != nil || !fi.IsDir() {
		return pkgConfigUp(path.Dir(abs), tool, names, keys, env)
	}
	if hs := pkgConfigUp(abs, tool, names, keys, env); hs != nil {
		return hs
	}
	found, complete := pkgManifestUnder(env, abs, names)
	if !complete {
		return []hit{{id: FloorCodeExec, detail: tool + " is given " + abs + ", a tree larger than the policy looks through for package.json files holding its configuration (plugins are code it runs)"}}
	}
	for _, f := range found {
		if hs := pkgConfigFile(f, tool, keys, env); hs != nil {
			return hs
		}
	}
	return nil
}

// pkgManifestUnder lists the files so named under dir, in the folders
// prettier and eslint walk (all but node_modules and version control's),
// not through links; false when there were more than maxPkgConfigWalk
// entries.
func pkgManifestUnder(env Env, dir string, names []string) ([]string, bool) {
	var found []string
	complete := walkTree(env, dir, maxPkgConfigWalk, func(full string, e fs.DirEntry) (string, bool) {
		switch n := e.Name(); {
		case e.IsDir() && !formatterSkips[n]:
			return full, false
		case e.Type().IsRegular() && slices.Contains(names, n):
			found = append(found, full)
		}
		return "", false
	})
	if !complete {
		return nil, false
	}
	return found, true
}

// formatterSkips are the folders prettier and eslint do not walk into.
var formatterSkips = setOf("node_modules", ".git", ".hg", ".svn", ".jj", ".sl")

// pkgConfigFile judges one package.json or package.yaml.
func pkgConfigFile(file, tool string, keys []string, env Env) []hit {
	body, err := env.FS.ReadFile(file)
	if err != nil {
		return nil
	}
	var fields map[string]any
	if strings.HasSuffix(file, ".yaml") {
		err = yaml.Unmarshal(body, &fields)
	} else {
		var raw map[string]json.RawMessage
		err = json.Unmarshal(body, &raw)
		fields = map[string]any{}
		for k := range raw {
			fields[k] = true
		}
	}
	if err != nil {
		return []hit{{id: FloorCodeExec, detail: tool + " reads " + file + ", which teamlead cannot read: its \"" + keys[0] + "\" key could load plugins"}}
	}
	for _, key := range keys {
		if _, has := fields[key]; has {
			return []hit{{id: FloorCodeExec, detail: tool + " takes its configuration from the \"" + key + "\" key of " + file + " (plugins are code it runs), and " + path.Base(file) + " is not protected"}}
		}
	}
	return nil
}

// globBase is the folder before a pattern's first glob segment.
func globBase(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if !strings.ContainsAny(seg, "*?[{") {
			continue
		}
		switch b := strings.Join(segs[:i], "/"); {
		case b == "" && strings.HasPrefix(p, "/"):
			return "/"
		case b == "":
			return "."
		default:
			return b
		}
	}
	return p
}

// toolOperands are the files and folders a formatter or linter is given.
func toolOperands(tool string, args []Word) []Word {
	values := fixers[tool].values
	var ops []Word
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			return append(ops, args[i+1:]...)
		case args[i].Dynamic || !strings.HasPrefix(v, "-") || v == "-":
			ops = append(ops, args[i])
		case !strings.Contains(v, "=") && values[v]:
			i++
		}
	}
	return ops
}
