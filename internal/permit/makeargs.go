package permit

import "strings"

// makeArg is one word (or option with its value) of a make command line.
type makeArg struct {
	kind  makeKind
	words []Word // the option and its value, the assignment, or the goal
}

type makeKind int

const (
	makeOption makeKind = iota
	makeAssign
	makeGoal
	makeDashes // --
)

// makeShortValue are make's short options that take a value (glued or in
// the next word); makeShortOptional take one only glued on, or in the
// next word when it is a number (-j 4, -l 2.5).
const (
	makeShortValue    = "CfIoWE"
	makeShortOptional = "jlO"
)

// makeLongValue are make's long options whose value may come in the next
// word; makeLongNumber take the next word only when it is a number.
var (
	makeLongValue = map[string]bool{"--directory": true, "--file": true, "--makefile": true, "--include-dir": true,
		"--old-file": true, "--assume-old": true, "--what-if": true, "--new-file": true, "--assume-new": true,
		"--eval": true, "--jobserver-style": true, "--jobserver-auth": true, "--sync-mutex": true}
	makeLongNumber = map[string]bool{"--jobs": true, "--load-average": true, "--max-load": true}
)

func isNumber(s string) bool {
	return s != "" && strings.Trim(s, "0123456789.") == "" && s[0] != '.'
}

// parseMake takes a make command line apart the way GNU make does:
// options (with their values), variable definitions (any word holding
// =: x=1, x:=1, x::=1, x:::=1, x?=1, x+=1, x!=cmd) and goals.
func parseMake(args []Word) []makeArg {
	var out []makeArg
	dd := false
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.Value
		next := func(numeric bool) {
			if i+1 < len(args) && (!numeric || !args[i+1].Dynamic && isNumber(args[i+1].Value)) {
				out[len(out)-1].words = append(out[len(out)-1].words, args[i+1])
				i++
			}
		}
		switch {
		case !dd && v == "--":
			dd = true
			out = append(out, makeArg{kind: makeDashes, words: []Word{w}})
		case strings.Contains(v, "="):
			if !dd && strings.HasPrefix(v, "-") {
				out = append(out, makeArg{kind: makeOption, words: []Word{w}})
				continue
			}
			out = append(out, makeArg{kind: makeAssign, words: []Word{w}})
		case !dd && strings.HasPrefix(v, "--"):
			out = append(out, makeArg{kind: makeOption, words: []Word{w}})
			switch {
			case makeLongValue[v]:
				next(false)
			case makeLongNumber[v]:
				next(true)
			}
		case !dd && strings.HasPrefix(v, "-") && len(v) > 1 && !w.Dynamic:
			out = append(out, makeArg{kind: makeOption, words: []Word{w}})
			for j := 1; j < len(v); j++ {
				c := v[j]
				if strings.IndexByte(makeShortValue, c) >= 0 {
					if j == len(v)-1 {
						next(false)
					}
					break
				}
				if strings.IndexByte(makeShortOptional, c) >= 0 {
					if j == len(v)-1 && c != 'O' {
						next(true)
					}
					break
				}
			}
		default:
			out = append(out, makeArg{kind: makeGoal, words: []Word{w}})
		}
	}
	return out
}

// makeAssignOp splits a make variable definition into its name, operator
// and value (x!=cmd is x, !=, cmd); ok is false for a word without =.
func makeAssignOp(s string) (name, op, val string, ok bool) {
	i := strings.IndexByte(s, '=')
	if i < 0 {
		return "", "", "", false
	}
	j := i
	for j > 0 && strings.IndexByte(":+?!", s[j-1]) >= 0 {
		j--
	}
	return strings.TrimSpace(s[:j]), s[j : i+1], s[i+1:], true
}

// isMake reports a make command name.
func isMake(name string) bool { return name == "make" || name == "gmake" || name == "bmake" }

// makeGoalsFirst returns a make command's words with its goals first and
// the options and variable definitions after them, in their order: make
// -j4 test is matched as make test -j4, so Bash(make test:*) covers it.
func makeGoalsFirst(args []Word) (goals, rest []Word) {
	for _, a := range parseMake(args) {
		if a.kind == makeGoal {
			goals = append(goals, a.words...)
		} else {
			rest = append(rest, a.words...)
		}
	}
	return goals, rest
}
