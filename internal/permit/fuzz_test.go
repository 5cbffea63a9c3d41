package permit

import (
	"errors"
	"testing"
)

// FuzzParseRule: any text either parses to a rule whose text it keeps, or
// fails with ErrRule; matching a parsed rule never panics.
func FuzzParseRule(f *testing.F) {
	for _, s := range []string{"Bash", "Bash(go test:*)", "Bash(git * main)", `Bash(ls \*.go)`, "Read(**)",
		"Edit(src/**)", "Read(~/.zshrc)", "Read(//etc/**)", "Edit(*.md)", "Edit(docs/)", "WebFetch(domain:docs.*)",
		"mcp__github", "mcp__github__*", "Task(x)", "Skill(a-*)", "Bash(:*)", "Edit([)", "Bash(a:*b)", "Edit({a,b}/**)"} {
		f.Add(s)
	}
	env := Env{Workdir: "/w", Home: "/h"}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRule(s)
		if err != nil {
			if !errors.Is(err, ErrRule) {
				t.Fatalf("%q: %v does not wrap ErrRule", s, err)
			}
			return
		}
		if r.Tool == "" {
			t.Fatalf("%q: no tool", s)
		}
		for _, a := range []string{"Bash(go test ./...)", "Edit(src/a.go)", "Read(/etc/x)", "WebFetch(https://docs.x.org/)", "mcp__github__x", "Task(x)"} {
			act, _ := ParseAction(a)
			abs, _ := env.clean().resolvePath(act.Arg)
			r.matches(subject{tool: act.Tool, hasArg: act.HasArg, arg: act.Arg, text: act.Arg, abs: abs, host: urlHost(act.Arg), env: env})
		}
	})
}

// FuzzSplitShell: any text either splits or fails with ErrShell, and
// checking it as a Bash action never panics and never allows what the
// splitter could not read.
func FuzzSplitShell(f *testing.F) {
	for _, s := range append(append([]string{}, rmDisguises...), "a && b", "echo 'x", "cat <<EOF\n$(id)\nEOF",
		"f() { :; }", "[[ a ]]", "x=(1 2)", "$'\\x72m'", "echo ${a:-$(b)}", "for ((;;)); do :; done", "a | b |& c") {
		f.Add(s)
	}
	for _, tc := range destructive {
		f.Add(tc.cmd)
	}
	p := mustParse(f, permissive)
	f.Fuzz(func(t *testing.T, s string) {
		_, err := SplitShell(s)
		if err != nil && !errors.Is(err, ErrShell) {
			t.Fatalf("%q: %v does not wrap ErrShell", s, err)
		}
		d := p.CheckAction(Action{Tool: "Bash", Arg: s, HasArg: true}, "dev", testEnv)
		if err != nil && d.Decide == Allow {
			t.Fatalf("%q could not be split (%v) but was allowed", s, err)
		}
		if d.Decide == 0 || d.Risk == 0 {
			t.Fatalf("%q: empty decision %+v", s, d)
		}
	})
}
