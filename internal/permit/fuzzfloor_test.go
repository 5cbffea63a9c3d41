package permit

import (
	"strings"
	"testing"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// floorCmds are commands on the destructive floor, written plainly.
var floorCmds = []string{"rm -rf ~", "sudo id", "git reset --hard", "chmod -R 777 /", "dd if=/dev/zero of=/dev/sda",
	"git push --force", "shutdown now", "git branch -D main", "cat .env",
	// written with braces, which bash expands before it runs them
	"git reset {--hard,}", "git clean {-fdx,}", "cat .{e,}nv", "{sudo,} id", "git push origin {:main,}"}

// floorPlaces put a floor command F next to fuzzed text S in every place
// bash runs a command: lists, pipelines, subshells, groups, substitutions,
// control flow, function bodies, nested shells.
var floorPlaces = []string{"S; F", "F; S", "S && F", "S || F", "S | F", "F | S", "(S; F)", "{ S; F; }",
	"echo $(S; F)", "S `F`", "if S; then F; fi", "while S; do F; done", "for x in $(F); do S; done",
	"f() { S; F; }; f", "S <(F)", "S > >(F)", "case $(F) in *) S;; esac", "case x in x) S; F;; esac",
	"bash -c 'F'; S", "S\nF", "x=$(F) S", "S & F", "! F; S", "time F; S", "[[ $(F) ]] && S",
	"echo ${x:-$(F)}; S", "(( $(F) )); S", "S; eval 'F'", "S; sh -c \"F\"", "timeout 5 F; S", "env F; S"}

// FuzzFloorAnywhere: whatever text surrounds it, an action whose syntax
// tree holds a floor command anywhere is never allowed, even by a policy
// whose rules allow every tool. The tree is walked here on its own, apart
// from the policy's converter, so a command the converter loses fails.
func FuzzFloorAnywhere(f *testing.F) {
	for i, s := range []string{"ls", "echo hi", "go test ./...", "cat README.md", "x=1", "echo 'a;b'", "true",
		"cd src", ":", "echo \"$HOME\"", "a=(1 2)", "exit 0", "git status", "# c", "echo \\", "cat <<EOF\nx\nEOF"} {
		f.Add(s, uint8(i), uint8(i))
	}
	p := mustParse(f, permissive)
	env := Env{Workdir: "/work/proj", Home: "/home/u"}
	f.Fuzz(func(t *testing.T, s string, place, which uint8) {
		if len(s) > 2000 {
			return
		}
		floor := floorCmds[int(which)%len(floorCmds)]
		text := strings.NewReplacer("S", s, "F", floor).Replace(floorPlaces[int(place)%len(floorPlaces)])
		d := p.CheckAction(Action{Tool: "Bash", Arg: text, HasArg: true}, "dev", env)
		if d.Decide == 0 {
			t.Fatalf("%q: no decision", text)
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), "")
		if err != nil {
			if d.Decide == Allow {
				t.Fatalf("%q does not parse (%v) but was allowed", text, err)
			}
			return
		}
		if holdsCommand(file, floorCmds) && d.Decide == Allow {
			t.Fatalf("%q holds a floor command but was allowed: %s", text, d.Why)
		}
	})
}

// holdsCommand reports a simple command anywhere in the tree whose words
// are plain literals spelling one of cmds, before or after bash's brace
// expansion (mvdan.cc/sh/v3/expand, not the policy's converter).
func holdsCommand(file *syntax.File, cmds []string) bool {
	found := false
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || found {
			return !found
		}
		if len(call.Args) == 0 {
			return true
		}
		words := make([]string, 0, len(call.Args))
		var expanded []string
		for _, w := range call.Args {
			lit := w.Lit()
			if lit == "" {
				return true
			}
			words = append(words, lit)
			cp := &syntax.Word{Parts: append([]syntax.WordPart{}, w.Parts...)}
			syntax.SplitBraces(cp)
			n := 0
			for x, err := range expand.BracesSeq(nil, cp) {
				if n++; err != nil || n > maxBraceWords {
					break
				}
				if l := x.Lit(); l != "" {
					expanded = append(expanded, l)
				}
			}
		}
		for _, ws := range [][]string{words, expanded} {
			if len(ws) == 0 {
				continue
			}
			got := strings.Join(ws, " ")
			for _, c := range cmds {
				_, wrapper := wrappers[ws[0]]
				if got == c || wrapper && strings.HasSuffix(got, " "+c) {
					found = true
				}
			}
		}
		return true
	})
	return found
}
