package permit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree writes files under a new folder and returns an Env working in it.
func tree(t *testing.T, files map[string]string) Env {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for p, body := range files {
		f := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Env{Workdir: root, Home: filepath.Join(root, "home"), FS: OSFS{}}
}

// floorCheck checks actions under a policy that allows every tool: what
// is not allowed is held by the floor.
func floorCheck(t *testing.T, env Env, want map[string]string) {
	t.Helper()
	p := mustParse(t, permissive)
	for action, floor := range want {
		d := p.Check(action, "dev", env)
		switch {
		case floor == "" && d.Decide != Allow:
			t.Errorf("%s: %s by %s (%s), want allow", action, d.Decide, d.Rule, d.Why)
		case floor != "" && (d.Decide == Allow || !strings.Contains(d.Rule.Text+" "+strings.Join(d.Floor, " "), floor)):
			t.Errorf("%s: %s by %s (%s), want the floor's %s", action, d.Decide, d.Rule, d.Why, floor)
		}
	}
}

// TestSedScriptFiles: sed -f's script is read and judged like -e's; a
// script with none of e, w, r passes the floor (red team 12b, finding 10).
func TestSedScriptFiles(t *testing.T) {
	env := tree(t, map[string]string{"ok.sed": "s/foo/bar/g\n/x/d\n", "e.sed": "s/x/y/\n$e ./evil.sh\n",
		"se.sed": "s/x/id/e\n", "w.sed": "/k/w .git/hooks/pre-commit\n", "r.sed": "1r .env\n", "big.sed": strings.Repeat("p\n", 9<<20),
		"README.md": "x\n", ".env": "API_KEY=sk-test-123\n"})
	floorCheck(t, env, map[string]string{
		"Bash(sed -f ok.sed README.md)":          "",
		"Bash(sed -n -f ok.sed README.md)":       "",
		"Bash(sed -f e.sed README.md)":           FloorDynamicCommand,
		"Bash(sed -f se.sed README.md)":          FloorDynamicCommand,
		"Bash(sed --file=w.sed README.md)":       FloorProtectedFile,
		"Bash(sed -f r.sed README.md)":           FloorCredentialRead,
		"Bash(sed -f big.sed README.md)":         FloorDynamicCommand,
		"Bash(sed -f missing.sed README.md)":     FloorDynamicCommand,
		"Bash(printf p | sed -f - README.md)":    FloorDynamicCommand,
		"Bash(sed -f - README.md < ok.sed)":      "",
		"Bash(sed -f ok.sed -f e.sed README.md)": FloorDynamicCommand,
	})
}

// TestBlackOverridesWalk: black with --include/--exclude rewrites the
// files they select, .git's and protected ones included, and reads the
// credential files among them (red team 12b, findings 5 and 6).
func TestBlackOverridesWalk(t *testing.T) {
	env := tree(t, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.py": "x=1\n", "pkg/b.py": "y=2\n",
		".claude/settings.local.json": "{}\n", "sec/.env": "API_KEY=sk-test-123\n"})
	floorCheck(t, env, map[string]string{
		"Bash(black --include '.*' --exclude '^$' .)":            FloorProtectedFile,
		"Bash(black --include 'HEAD' --exclude '^$' .)":          FloorProtectedFile,
		"Bash(black --include '\\.json$' pkg .claude)":           FloorProtectedFile,
		"Bash(black --diff --include 'e..$' --exclude '^$' sec)": FloorCredentialRead,
		"Bash(black --include '.*' --exclude '^$' pkg)":          "",
		"Bash(black --check --include '.*' --exclude '^$' .)":    FloorCredentialRead,
		"Bash(black --check --include '.*' --exclude '^$' pkg)":  "",
		"Bash(black --exclude 'migrations' .)":                   "",
		"Bash(black .)":                                          "",
	})
}

// TestCgoBounds: a Go file too large to read for its preamble asks, and a
// preamble hidden in a large comment is still read (red team 12b, finding 8).
func TestCgoBounds(t *testing.T) {
	env := tree(t, map[string]string{"go.mod": "module m\n",
		"big/c.go":  "package big\n\n/*\n" + strings.Repeat("// padding\n", (cgoMaxBytes/11)+10) + "#include \".env\"\n*/\nimport \"C\"\n",
		"long/c.go": "package long\n\n/*\n" + strings.Repeat("int a;\n", 20000) + "#include \"../.env\"\n*/\nimport \"C\"\n",
		"ok/c.go":   "package ok\n\n// #include <stdio.h>\nimport \"C\"\n", ".env": "API_KEY=sk-test-123\n"})
	floorCheck(t, env, map[string]string{
		"Bash(go build ./big)":   FloorCredentialRead,
		"Bash(go vet ./long)":    FloorCredentialRead,
		"Bash(go build ./ok)":    "",
		"Bash(go test ./ok/...)": "",
	})
}
