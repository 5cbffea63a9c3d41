package permit

import "testing"

// TestFloorLetsArchivesAndPatchesThrough: under a policy that allows every tool,
// the floor added for the eighth red team's findings (archives, patches,
// awk, fetch addresses) leaves the ordinary cases alone.
func TestFloorLetsArchivesAndPatchesThrough(t *testing.T) {
	env, repl := corpusFixture(t)
	all := mustParse(t, permissive)
	for _, action := range []string{
		"Bash(tar xzf kit.tgz)", "Bash(tar -tf kit.tar)", "Bash(tar xf safe.tar)", "Bash(tar -C docs -cf k.tar .)",
		"Bash(unzip -l kit.zip)", "Bash(unzip -q safe.zip)", "Bash(unzip -o safe -d build)",
		"Bash(git apply fix.diff)", "Bash(patch -p1 < fix.diff)", "Bash(git apply --check p.diff)", "Bash(git apply --stat p.diff)",
		"Bash(awk '{print $1}' README.md)", "Bash(awk -F: '$3 > 100 {print $1}' README.md)", "Bash(awk '{print > \"build/out.txt\"}' README.md)",
		"Bash(python3 -c \"print(open('README.md').read())\")",
		"Bash(curl -s http://localhost:8080/health)", "Bash(curl -s http://127.0.0.1:3000/api)", "Bash(dig example.com)",
		"Bash(curl -H 'Accept: application/json' https://api.github.com/repos/o/r)",
		"Bash(git branch feat)", "Bash(git branch -v)", "Bash(git branch feat main)", "Bash(git branch -d feat)",
		"Bash(git pull --help)", "Bash(git push origin feat)", "Bash(git push -u origin feat)",
		"Bash(git add src/new.go)", "Bash(git add -N src/new.go)", "Bash(cat t/client.ts)",
		"Bash(tar xzf kit.tgz -C build)", "Bash(gunzip -c kit.tgz)", "Bash(gunzip build/x.gz)", "Bash(zstd -d build/x.zst)",
		"Bash(tar czf out.tgz src)", "Bash(rm -rf node_modules)", "Bash(ssh git@github.com)", "Bash(ping -c 1 example.com)",
		"Bash(eslint --cache-location node_modules/.cache/eslint src)", // . holds js14/, an eslintConfig in a nested package.json
	} {
		a := repl.Replace(action)
		if d := all.Check(a, "dev", env); d.Decide != Allow {
			t.Errorf("%s: %s by %s: %s", action, d.Decide, d.Rule, d.Why)
		}
	}
}
