package permit

import (
	"errors"
	"strconv"
	"strings"
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

// FuzzAlwaysPrefix: the prefix rules of any command either cannot be
// made (an error) or parse, and once added they let the command run:
// a prefix never stops short of where it matches (red team 9a, finding
// 11), and it never names the operand in a way the matcher reads otherwise.
func FuzzAlwaysPrefix(f *testing.F) {
	for _, s := range []string{"npm install left-pad", "npm install -- left-pad", "npm install 'left-pad'", "npm install ./left-pad",
		"npm  install\tleft-pad", "npm install $(echo left-pad)", "npm install left-pad; npm install evil", "git commit -m 'fix it'",
		"pytest tests/ -q", "head *.go", "rm -- -f", "python3 tools/gen.py --all", "timeout 60 make check", "npm install '--' x"} {
		f.Add(s)
	}
	p := mustParse(f, "default: ask")
	f.Fuzz(func(t *testing.T, s string) {
		action := "Bash(" + s + ")"
		if _, err := ParseAction(action); err != nil {
			return
		}
		rules, err := AlwaysRules(p, action, "dev", ScopePrefix, testEnv)
		if err != nil || len(rules) == 0 {
			return
		}
		var text strings.Builder
		text.WriteString("default: ask\nrules:\n")
		for _, r := range rules {
			if _, err := ParseRule(r); err != nil {
				t.Fatalf("%q: rule %s: %v", s, r, err)
			}
			text.WriteString("  - match: " + strconv.Quote(r) + "\n    decide: allow\n    why: x\n")
		}
		with, err := Parse("fuzz.yaml", []byte(text.String()))
		if err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		if d := with.Check(action, "dev", testEnv); d.Decide != Allow {
			t.Fatalf("%q with %q: %s by %s: %s", s, rules, d.Decide, d.Rule, d.Why)
		}
	})
}
