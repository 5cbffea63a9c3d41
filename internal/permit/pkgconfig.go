package permit

import (
	"encoding/json"
	"path"
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

// pkgConfigHits: the tool v runs takes configuration from a package.json
// of the folders it runs in, or of their parents inside the working
// directory.
func pkgConfigHits(v view, cwds cwdSet, env Env) []hit {
	strs := make([]string, len(v.args))
	for i, a := range v.args {
		strs[i] = a.Value
	}
	tool := v.name
	if jsRunners[v.name] {
		tool, _ = jsTool(v.name, strs)
	}
	keys, ok := pkgConfigKeys[tool]
	if !ok || env.FS == nil {
		return nil
	}
	key := keys[0]
	if cwds.unknown {
		return []hit{{id: FloorCodeExec, detail: tool + " runs in a folder known only when it runs, whose package.json can hold its configuration (\"" + key + "\": plugins are code it runs)"}}
	}
	for _, d := range cwds.dirs {
		for dir := d; env.inside(dir); dir = path.Dir(dir) {
			file := path.Join(dir, "package.json")
			body, err := env.FS.ReadFile(file)
			if err == nil {
				var fields map[string]json.RawMessage
				if json.Unmarshal(body, &fields) != nil {
					return []hit{{id: FloorCodeExec, detail: tool + " reads " + file + ", which is not JSON teamlead can read: its \"" + key + "\" key could load plugins"}}
				}
				for _, key := range keys {
					if _, has := fields[key]; has {
						return []hit{{id: FloorCodeExec, detail: tool + " takes its configuration from the \"" + key + "\" key of " + file + " (plugins are code it runs), and package.json is not protected"}}
					}
				}
			}
			if dir == env.Workdir || dir == "/" {
				break
			}
		}
	}
	return nil
}
