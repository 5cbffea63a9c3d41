package permit

import "testing"

// TestSedBrackets: a bracket expression in a sed regular expression holds
// the delimiter as a plain character, on the command line and in a sed -f
// script (red team 13b, finding 1).
func TestSedBrackets(t *testing.T) {
	env := tree(t, map[string]string{"go.mod": "module m\n", "e.sed": "s/.*[/].*/touch x/e\n",
		"w.sed": "/[/]/w .git/config\n", "ok.sed": "s/[/]/-/g\n/[]x]/d\n"})
	floorCheck(t, env, map[string]string{
		"Bash(sed 's/.*[/].*/touch x/e' go.mod)":   FloorDynamicCommand,
		"Bash(sed 's/[[:alpha:]/]/x/e' go.mod)":    FloorDynamicCommand,
		"Bash(sed -n '/[/]/e id' go.mod)":          FloorDynamicCommand,
		"Bash(sed 's/[/]/x/w .git/config' go.mod)": FloorProtectedFile,
		"Bash(sed -f e.sed go.mod)":                FloorDynamicCommand,
		"Bash(sed -f w.sed go.mod)":                FloorProtectedFile,
		"Bash(sed -f ok.sed go.mod)":               "",
		"Bash(sed 's/[/]/-/g' go.mod)":             "",
		"Bash(sed 's/[]x]/e/' go.mod)":             "",
		"Bash(sed 'y/[/]/' go.mod)":                "",
		"Bash(sed -n 's/[[:space:]]*$//p' go.mod)": "",
		"Bash(sed 's/x/[/;s/y/]/' go.mod)":         "",
	})
}

// TestXargsOptions: the words xargs appends are known only when it runs:
// where a floor reads the options of the command, they ask; commands
// whose options no floor reads stay allowed (red team 13b, finding 3).
func TestXargsOptions(t *testing.T) {
	env := tree(t, map[string]string{"go.mod": "module m\n", "a.go": "package m\n"})
	floorCheck(t, env, map[string]string{
		"Bash(echo --hard | xargs git reset)":                       FloorDynamicCommand,
		"Bash(echo -f | xargs git push origin HEAD:main)":           FloorDynamicCommand,
		"Bash(echo -exec=./x | xargs go test)":                      FloorCodeExec,
		"Bash(find . -name '*.go' | xargs wc -l)":                   "",
		"Bash(git ls-files '*.go' | xargs gofmt -l)":                "",
		"Bash(find . -name '*.go' -print0 | xargs -0 grep -l TODO)": "",
		"Bash(echo a b | xargs -n1 echo)":                           "",
		"Bash(git ls-files | xargs wc -l)":                          "",
	})
}
