package permit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// words makes plain words of a command line split on spaces.
func words(line string) []Word {
	var out []Word
	for _, f := range strings.Fields(line) {
		out = append(out, pathWord(f))
	}
	return out
}

// TestOptionalValueOptions: an option with an optional value (pytest
// --debug) takes the next word only when it is not an option; a switch
// (flake8 --tee) takes none (red team 11b, findings 1 and 12).
func TestOptionalValueOptions(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"pytest", "--debug --junitxml=.git/config", ".git/config"},
		{"pytest", "--debug --log-file .git/hooks/pre-commit", ".git/hooks/pre-commit"},
		{"pytest", "--debug out.log -q", "out.log"},
		{"pytest", "--debug=out.log", "out.log"},
		{"pytest", "--debug -q", ""},
		{"flake8", "--tee --output-file=.git/config a.py", ".git/config"},
		{"flake8", "--tee a.py", ""},
		{"python", "-m flake8 --tee --output-file .git/config", ".git/config"},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range outputFiles(tt.name, words(tt.line)) {
			got = append(got, w.Value)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("outputFiles(%s %s) = %q, want %q", tt.name, tt.line, got, tt.want)
		}
	}
}

// TestArgFiles: mypy and pytest read options from @FILE (finding 9).
func TestArgFiles(t *testing.T) {
	for line, want := range map[string]bool{"@args a.py": true, "a.py @a": true, "a.py": false, "@": false, "-k x@y": false} {
		if got := len(argFileHits("mypy", strings.Fields(line))) > 0; got != want {
			t.Errorf("argFileHits(mypy %s) = %v, want %v", line, got, want)
		}
	}
}

// TestGoImplicitOutputs: go build and go test -c without -o write the
// binary named after the package into the folder they run in (finding 2).
func TestGoImplicitOutputs(t *testing.T) {
	env := Env{Workdir: "/w", Cwd: "/w/.git/hooks"}
	cwds := newCwdSet(env, nil)
	tests := []struct{ line, want string }{
		{"build example.com/proj/pre-commit", "/w/.git/hooks/pre-commit"},
		{"build -v example.com/x/tool/v2", "/w/.git/hooks/v2 /w/.git/hooks/tool"},
		{"build ../../cmd/pre-commit", "/w/.git/hooks/pre-commit"},
		{"build ../../a.go ../../b.go", "/w/.git/hooks/a /w/.git/hooks/b"},
		{"test -c example.com/proj", "/w/.git/hooks/proj.test"},
		{"test example.com/proj", ""},
		{"build -o bin/x ./cmd/x", ""},
		{"build --o=bin/x ./cmd/x", ""},
		{"vet ./...", ""},
	}
	for _, tt := range tests {
		var got []string
		for _, w := range goImplicitOutputs(words(tt.line), cwds, env) {
			got = append(got, w.Value)
		}
		if strings.Join(got, " ") != tt.want {
			t.Errorf("go %s writes %q, want %q", tt.line, got, tt.want)
		}
	}
}

// TestIgnoreWhitelists: the folders whose ignore files whitelist hidden
// files for rg (finding 5).
func TestIgnoreWhitelists(t *testing.T) {
	env, _ := corpusFixture(t)
	wd := env.Workdir
	if got := ignoreWhitelists(env, wd+"/rgw"); len(got) != 1 || got[0] != wd+"/rgw" {
		t.Errorf("rgw: %q", got)
	}
	if got := ignoreWhitelists(env, wd+"/rgw/src"); len(got) != 1 || got[0] != wd+"/rgw/src" {
		t.Errorf("rgw/src (an ignore file above): %q", got)
	}
	if got := ignoreWhitelists(env, wd+"/src"); len(got) != 0 {
		t.Errorf("src: %q", got)
	}
}

// TestTscArgs: tsc's option names in any letter case (finding 3).
func TestTscArgs(t *testing.T) {
	args, ok := tscArgs(view{name: "npx", args: words("--yes tsc --OutDir=.claude --TSBUILDINFOFILE x src/A.ts")})
	if !ok {
		t.Fatal("npx tsc is not seen as tsc")
	}
	var got []string
	for _, a := range args {
		got = append(got, a.Value)
	}
	if want := "--outdir=.claude --tsbuildinfofile x src/A.ts"; strings.Join(got, " ") != want {
		t.Errorf("tscArgs = %q, want %q", got, want)
	}
	if _, ok := tscArgs(view{name: "npx", args: words("eslint --outDir x")}); ok {
		t.Error("npx eslint taken for tsc")
	}
}

// TestGlobalGitConfigCredentials: a token in the user's ~/.gitconfig (an
// insteadOf rewrite, an extraheader) is printed by git config --get and
// git remote -v (finding 7). The corpus's home holds no .gitconfig, so
// git remote -v stays allowed there.
func TestGlobalGitConfigCredentials(t *testing.T) {
	env, _ := corpusFixture(t)
	env.Cwd = env.Workdir
	cfg := "[url \"https://x-access-token:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/\"]\n\tinsteadOf = https://github.com/\n" +
		"[http]\n\textraheader = AUTHORIZATION: bearer ghp_ZYXWVUTSRQPONMLKJIHGFEDCBA9876543210\n"
	p := mustParse(t, permissive)
	for _, file := range []string{"/.gitconfig", "/.config/git/config"} {
		if err := os.MkdirAll(filepath.Dir(env.Home+file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(env.Home+file, []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"Bash(git config --get http.extraheader)", "Bash(git remote -v)", "Bash(git config --get --get-all http.extraheader)",
			"Bash(git config --get-regexp url)", "Bash(git remote get-url origin)"} {
			if d := p.Check(a, "dev", env); d.Decide == Allow {
				t.Errorf("%s with %s: allowed", a, file)
			}
		}
		if d := p.Check("Bash(git config --get user.name)", "dev", env); d.Decide != Allow {
			t.Errorf("git config --get user.name with %s: %s %s", file, d.Decide, d.Why)
		}
		os.Remove(env.Home + file)
	}
}
