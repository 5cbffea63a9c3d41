package permit

// round14bFiles are the corpus fixture's files for red team 14b's
// findings 1-7 (files and links under the working directory wd, the home
// folder home and the outside folder out).
func round14bFiles(wd, home, out string) (files, links map[string]string) {
	files = map[string]string{
		// F1: modules python -m finds first in its folder.
		wd + "/py14/pytest.py": "open('x','w')\n", wd + "/py14pkg/pytest/__init__.py": "", wd + "/py14pyc/pytest.pyc": "",
		wd + "/py14dep/_pytest/__init__.py": "", wd + "/py14std/json.py": "x = 1\n", wd + "/py14so/pytest.cpython-312-x86_64-linux-gnu.so": "",
		wd + "/py14ok/app.py": "x = 1\n", wd + "/py14ok/tests/test_app.py": "def test_x(): pass\n", wd + "/py14ok/test/__init__.py": "",
		wd + "/py14ok/json/notes.txt": "", wd + "/py14ok/__pycache__/pytest.cpython-312.pyc": "", wd + "/py14ok/x.pth": "import os\n",
		// F2: go.mod requirements the module cache (home/go/pkg/mod) holds or lacks.
		home + "/go/pkg/mod/cache/download/github.com/pkg/errors/@v/v0.9.1.mod":        "module github.com/pkg/errors\n",
		home + "/go/pkg/mod/cache/download/golang.org/x/sys/@v/v0.1.0.mod":             "module golang.org/x/sys\n",
		home + "/go/pkg/mod/cache/download/github.com/!burnt!sushi/toml/@v/v1.6.0.mod": "module github.com/BurntSushi/toml\n",
		wd + "/gm14/go.mod":       "module gm14\n\ngo 1.22\n\nrequire evil.example/sk/fake/123456 v1.0.0\n",
		wd + "/gm14/main.go":      "package main\n\nimport _ \"evil.example/sk/fake/123456\"\n\nfunc main() {}\n",
		wd + "/gm14i/go.mod":      "module gm14i\n\ngo 1.22\n\nrequire evil.example/pwn v1.0.0 // indirect\n",
		wd + "/gm14i/x/x_test.go": "package x\n\nimport (\n\t\"testing\"\n\t_ \"evil.example/pwn/sub\"\n)\n\nfunc TestX(t *testing.T) {}\n",
		wd + "/gm14n/go.mod":      "module gm14n\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tevil.example/unused v1.0.0 // indirect\n)\n",
		wd + "/gm14n/main.go":     "package main\n\nimport _ \"github.com/pkg/errors\"\n\nfunc main() {}\n",
		wd + "/gm14v/go.mod":      "module gm14v\n\ngo 1.22\n\nrequire evil.example/pwn v1.0.0\n", wd + "/gm14v/vendor/modules.txt": "# evil.example/pwn v1.0.0\n",
		wd + "/gm14v/main.go":  "package main\n\nimport _ \"evil.example/pwn\"\n\nfunc main() {}\n",
		wd + "/gm14r/go.mod":   "module gm14r\n\ngo 1.22\n\nrequire github.com/pkg/errors v0.9.1\n\nreplace github.com/pkg/errors => evil.example/errors v1.0.0\n",
		wd + "/gm14ok/go.mod":  "module gm14ok\n\ngo 1.22\n\nrequire (\n\tgithub.com/BurntSushi/toml v1.6.0\n\tgithub.com/pkg/errors v0.9.1\n)\n",
		wd + "/gm14ok/main.go": "package main\n\nimport (\n\t_ \"github.com/BurntSushi/toml\"\n\t_ \"github.com/pkg/errors\"\n)\n\nfunc main() {}\n",
		wd + "/gm14bad/go.mod": "module gm14bad\n\ngo 1.22\n\nrequire evil.example/pwn v1.0.0\n", wd + "/gm14bad/main.go": "package main\n\nimport _ \"evil\\x2eexample/pwn\"\n",
		// F3: Go files in dependency folders that ./... reaches.
		wd + "/gw14/go.mod": "module gw14\n\ngo 1.22\n", wd + "/gw14/x.go": "package x\n",
		wd + "/gw14/node_modules/somepkg/evil_test.go": "package somepkg\n", wd + "/gw14/node_modules/somepkg/gen.go": "package somepkg\n\n//go:generate sh -c id\n",
		wd + "/gw14/web/node_modules/flatted/golang/pkg/flatted/flatted.go": "package flatted\n",
		wd + "/gw14v/go.mod": "module gw14v\n\ngo 1.22\n", wd + "/gw14v/env/pyvenv.cfg": "home = /usr/bin\n", wd + "/gw14v/env/lib/x.go": "package lib\n",
		wd + "/gw14v2/go.mod": "module gw14v2\n\ngo 1.22\n", wd + "/gw14v2/venv/src/x_test.go": "package src\n",
		wd + "/gw14ok/go.mod": "module gw14ok\n\ngo 1.22\n", wd + "/gw14ok/x.go": "package x\n", wd + "/gw14ok/node_modules/left-pad/index.js": "",
		wd + "/gw14ok/node_modules/gomod/go.mod": "module other\n", wd + "/gw14ok/node_modules/gomod/x.go": "package other\n",
		wd + "/gw14ok/_build/node_modules/x/x.go": "package x\n", wd + "/gw14ok/testdata/node_modules/x/x.go": "package x\n",
		wd + "/gw14ig/go.mod": "module gw14ig\n\ngo 1.25\n\nignore (\n\t./web/node_modules\n\tnode_modules\n)\n", wd + "/gw14ig/x.go": "package x\n",
		wd + "/gw14ig/web/node_modules/x/x_test.go": "package x\n", wd + "/gw14ig/a/b/node_modules/x/x_test.go": "package x\n",
		// F4: cargo workspace members outside the folder.
		wd + "/rsw14/Cargo.toml":  "[package]\nname = \"rs\"\n[workspace]\nmembers = [\"../../outside/evilcrate\"]\n",
		wd + "/rsw14d/Cargo.toml": "[package]\nname = \"rs\"\n[workspace]\nmembers = []\ndefault-members = [\".\", \"../../outside/evilcrate\"]\n",
		wd + "/rsw14g/Cargo.toml": "[workspace]\nmembers = [\"../../outside/*\"]\n", out + "/evilcrate/Cargo.toml": "[package]\nname = \"evilcrate\"\n",
		wd + "/rsw14l/Cargo.toml": "[workspace]\nmembers = [\"crates/*\"]\n", wd + "/rsw14l/crates/a/Cargo.toml": "[package]\nname = \"a\"\n",
		wd + "/rsw14s/Cargo.toml":           "[workspace]\nmembers = [\"evil\"]\n",
		wd + "/rsw14a/Cargo.toml":           "[workspace]\nmembers = [\"" + out + "/evilcrate\"]\n",
		wd + "/rsw14ok/Cargo.toml":          "[workspace]\nmembers = [\"crates/*\", \"tools/**\"]\ndefault-members = [\"crates/a\"]\nexclude = [\"../../outside\"]\n",
		wd + "/rsw14ok/crates/a/Cargo.toml": "[package]\nname = \"a\"\n", wd + "/rsw14ok/tools/x/y/Cargo.toml": "[package]\nname = \"y\"\n",
		// F5: npm, yarn and bun workspaces outside the folder.
		wd + "/npw14/package.json": `{"name":"npw","workspaces":["../../outside/npmpkg"]}`, out + "/npmpkg/package.json": `{"name":"npmpkg","scripts":{"test":"id"}}`,
		wd + "/npw14y/package.json": `{"name":"npwy","workspaces":{"packages":["../../outside/*"]}}`,
		wd + "/npw14l/package.json": `{"name":"npwl","workspaces":["packages/*"]}`, wd + "/npw14l/packages/a/package.json": `{"name":"a"}`,
		wd + "/npw14d/package.json": `{"name":"npwd","workspaces":["packages/**"]}`, wd + "/npw14d/packages/a/b/package.json": `{"name":"b"}`,
		wd + "/npw14bad/package.json":           `{"name":"npwbad","workspaces":{"packages":"x"}}`,
		wd + "/npw14ok/package.json":            `{"name":"npwok","workspaces":["packages/*","tools/**"],"scripts":{"test":"true"}}`,
		wd + "/npw14ok/packages/a/package.json": `{"name":"a"}`, wd + "/npw14ok/tools/x/y/package.json": `{"name":"y"}`,
		// F6: prettier's configuration beside each file it formats: nested package.json, package.yaml.
		wd + "/js14/package.json": `{"name":"js14"}`, wd + "/js14/src/package.json": `{"prettier":{"plugins":["../evil-plugin.mjs"]}}`,
		wd + "/js14/src/index.js": "x\n", wd + "/js14/lib/index.js": "x\n", wd + "/js14/lib/package.json": `{"name":"lib","type":"module"}`,
		wd + "/js14/node_modules/.bin/prettier": "", wd + "/js14/node_modules/.bin/eslint": "", wd + "/js14/node_modules/x/package.json": `{"prettier":{}}`,
		wd + "/js14/deep/a/b/package.json": `{"eslintConfig":{"plugins":["x"]}}`, wd + "/js14/deep/a/b/c.js": "x\n",
		wd + "/js14y/package.yaml": "prettier:\n  plugins:\n    - ./evil-plugin.mjs\n", wd + "/js14y/index.js": "x\n", wd + "/js14y/node_modules/.bin/prettier": "",
		wd + "/js14yb/package.yaml": "prettier: [\n", wd + "/js14yb/index.js": "x\n", wd + "/js14yb/node_modules/.bin/prettier": "",
		wd + "/js14yok/package.yaml": "name: x\nversion: 1.0.0\n", wd + "/js14yok/index.js": "x\n", wd + "/js14yok/node_modules/.bin/prettier": "",
		// F7: makefiles that include others from outside the folder.
		out + "/x.mk": "x:\n\tid\n", wd + "/mk14/Makefile": "include ../../outside/x.mk\ntest: x\n",
		wd + "/mk14a/Makefile": "-include " + out + "/x.mk\ntest:\n\ttrue\n", wd + "/mk14s/Makefile": "sinclude ../../outside/x.mk\n",
		wd + "/mk14w/Makefile": "include $(wildcard ../../outside/*.mk)\n", wd + "/mk14v/Makefile": "D := ../../outside\ninclude $(D)/x.mk\n",
		wd + "/mk14if/Makefile": "ifeq ($(X),1)\nD := ../../outside\nelse\nD := inc\nendif\ninclude $(D)/x.mk\n",
		wd + "/mk14sh/Makefile": "include $(shell echo ../../outside/x.mk)\n", wd + "/mk14u/Makefile": "include $(UNSET)/x.mk\n",
		wd + "/mk14n/Makefile": "include inc/a.mk\n", wd + "/mk14n/inc/a.mk": "include ../../outside/x.mk\n",
		wd + "/mk14g/GNUmakefile": "include ../../outside/x.mk\n", wd + "/mk14g/Makefile": "test:\n\ttrue\n",
		wd + "/mk14c/Makefile": "include \\\n  ../../outside/x.mk\n", wd + "/mk14b/Makefile": ".include \"../../outside/x.mk\"\n",
		wd + "/mk14ok/Makefile": "SRCS := $(wildcard src/*.c)\nDEPS = $(SRCS:.c=.d)\ninclude common.mk\n-include $(DEPS)\n-include $(CURDIR)/local.mk\n# include ../../outside/x.mk\ntest:\n\t# include ../outside\n\ttrue\n",
		wd + "/mk14l2/Makefile": "include inc.mk\n", wd + "/mk14ok/common.mk": "CFLAGS := -O2\n", wd + "/mk14ok/src/a.c": "int a;\n",
	}
	links = map[string]string{wd + "/py14lnk/pytest": out, wd + "/mk14l/Makefile": out + "/x.mk", wd + "/mk14l2/inc.mk": out + "/x.mk", wd + "/npw14l/packages/evil": out + "/npmpkg", wd + "/npw14d/packages/a/evil": out + "/npmpkg", wd + "/rsw14l/crates/evil": out + "/evilcrate", wd + "/rsw14s/evil": out + "/evilcrate"}
	return files, links
}
