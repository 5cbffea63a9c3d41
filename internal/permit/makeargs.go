package permit

import (
	"path"
	"strings"
)

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

// makeDataOptions are the options a make variable's value may carry onto
// a recipe's command line without asking: go test's and pytest's flags
// that only choose, count, time or show tests (value: they take one,
// glued with = or in the next word). Every other option asks, whatever
// the variable: the policy does not know which command line the makefile
// puts $(TESTFLAGS) or $(ARGS) on, so -exec=/outside/x, -toolexec,
// -coverprofile=.git/hooks/x or pytest's -p plugin would reach go test or
// pytest unseen.
var makeDataOptions = map[string]bool{"v": false, "vv": false, "q": false, "x": false, "race": false,
	"short": false, "cover": false, "failfast": false, "json": false, "benchmem": false, "trimpath": false,
	"count": true, "run": true, "skip": true, "timeout": true, "bench": true, "benchtime": true, "tags": true,
	"parallel": true, "cpu": true, "shuffle": true, "covermode": true, "mod": true, "vet": true, "k": true,
	"p": true, "j": true}

// makeNumberOnly are the data options whose value must be a number
// (pytest -p names a plugin to load; go's -p and make's -j are counts).
var makeNumberOnly = map[string]bool{"p": true, "j": true, "count": true, "parallel": true}

// inertValues are program names that are also everyday values (DEBUG=true).
var inertValues = map[string]bool{"true": true, "false": true, "test": true, "yes": true, "no": true}

// systemBins are the folders of the machine's programs a make value is
// looked up in (the policy does not see the agent's PATH).
var systemBins = []string{"/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"}

// makeOverrideHits: a command-line variable of make (make test
// TESTFLAGS=…) whose value carries an option other than makeDataOptions,
// names a program (its first word is a path outside the working
// directory, or a program of the machine: ECHO=id, GOTEST=/outside/x),
// since a recipe may put the variable where a command or its options go.
func makeOverrideHits(args []Word, cwds cwdSet, env Env) []hit {
	var hs []hit
	for _, m := range parseMake(args) {
		if m.kind != makeAssign {
			continue
		}
		w := m.words[0]
		name, op, val, _ := makeAssignOp(w.Value)
		if op == "!=" || w.Dynamic {
			continue // judged by makeHits
		}
		add := func(why string) {
			hs = append(hs, hit{id: FloorCodeExec, detail: "make " + name + op + val + ": " + why})
		}
		fields := strings.Fields(val)
		for i := 0; i < len(fields); i++ {
			f := fields[i]
			if !strings.HasPrefix(f, "-") || f == "-" {
				continue
			}
			o := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(f, "-"), "-"), "test.")
			o, v, glued := strings.Cut(o, "=")
			takes, ok := makeDataOptions[o]
			if !glued && takes && i+1 < len(fields) {
				i++
				v = fields[i]
			}
			if !ok || glued && !takes || makeNumberOnly[o] && v != "" && !isNumber(v) {
				add("the value carries the option " + f + ", which reaches whatever command line the makefile puts it on")
				break
			}
		}
		// A value may be where a recipe writes (BIN=, DESTDIR=, O=, PREFIX=,
		// OUT=: go build -o $(BIN)): each word of it that is not an option
		// is judged as a file the make writes, so a protected file, a
		// package's code or a place outside the folder asks (red team 13b,
		// finding 9: make build BIN=.git/hooks/pre-commit built a hook).
		for _, f := range fields {
			if strings.HasPrefix(f, "-") || strings.Contains(f, "$") || strings.Contains(f, "://") {
				continue
			}
			hs = append(hs, writeHits(pathWord(f), cwds, env, "make "+name+op+val+" (a recipe may write it)")...)
		}
		if len(fields) == 0 || strings.HasPrefix(fields[0], "-") || inertValues[fields[0]] {
			continue
		}
		first := fields[0]
		if strings.ContainsRune(first, '/') || strings.HasPrefix(first, "~") {
			for _, d := range targetsOutside([]Word{pathWord(first)}, cwds, env, false) {
				add("the value names " + d + ", outside the working directory (a recipe may run it)")
			}
			continue
		}
		if env.FS != nil && !strings.ContainsAny(first, "=:") {
			for _, d := range systemBins {
				if fi, err := env.FS.Lstat(path.Join(d, first)); err == nil && !fi.IsDir() {
					add("the value names the program " + path.Join(d, first) + " (a recipe may run it)")
					break
				}
			}
		}
	}
	return hs
}
