package permit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestPackageJSONConfiguration: prettier and eslint take their
// configuration from package.json's "prettier" and "eslintConfig" keys,
// whose plugins are code they run; a run with such a key in the folder's
// (or a parent's) package.json asks, one without does not (red team 12b,
// finding 4).
func TestPackageJSONConfiguration(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"node_modules/.bin", "web/src"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(rel, body string) {
		if err := os.WriteFile(filepath.Join(root, rel), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range []string{"prettier", "eslint"} {
		write("node_modules/.bin/"+b, "#!/bin/sh\n")
	}
	p := builtin(t)
	check := func(action, cwd string) Decision {
		return p.Check(action, "dev", Env{Workdir: root, Cwd: filepath.Join(root, cwd), FS: OSFS{}})
	}
	write("package.json", `{"name": "x", "scripts": {"fmt": "prettier --write ."}}`)
	for _, a := range []string{"Bash(npx prettier --check m.js)", "Bash(npx eslint src)"} {
		if d := check(a, ""); d.Decide != Allow {
			t.Errorf("%s with no configuration key: %s by %s: %s", a, d.Decide, d.Rule, d.Why)
		}
	}
	write("package.json", `{"name": "x", "prettier": {"plugins": ["./p.mjs"]}, "eslintConfig": {"plugins": ["evil"]}}`)
	for _, a := range []string{"Bash(npx prettier --check m.js)", "Bash(npx eslint src)", "Bash(prettier --check m.js)"} {
		for _, cwd := range []string{"", "web/src"} {
			if d := check(a, cwd); d.Decide == Allow || len(d.Floor) == 0 {
				t.Errorf("%s in %q with the key in package.json: %s by %s: %s", a, cwd, d.Decide, d.Rule, d.Why)
			}
		}
	}
	if d := check("Bash(go test ./...)", ""); d.Decide != Allow {
		t.Errorf("another tool: %s: %s", d.Decide, d.Why)
	}
}
