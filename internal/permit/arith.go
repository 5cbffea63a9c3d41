package permit

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// errEvaluates marks shell text that makes bash evaluate, as arithmetic,
// a value known only when it runs: bash evaluates an array subscript in
// it, and runs the command substitutions the subscript holds. The floor
// judges it as a command known only when it runs.
var errEvaluates = errors.New("bash would evaluate a value known only when it runs")

// Bash evaluates arithmetic in $((…)), $[…], ((…)), let, for ((…)), the
// operands of [[ -eq -ne -lt -le -gt -ge ]], array subscripts, ${x:off:len},
// and every assignment to a declare -i variable. A variable named there is
// evaluated in turn: when its value is a[$(cmd)], cmd runs. x='a[$(id)]'
// written in the command is caught where it is written; a value that comes
// from a for list, set --, read, mapfile, getopts, $(…), another variable
// or the environment is not known before it runs (red team 13b, finding 4:
// for x in 'a[$(rm -rf …)]'; do echo $((x)); done). So every variable an
// arithmetic context names must have only known values: text written in
// the command whose names are known in turn, the result of arithmetic, or
// the output of a command that prints only numbers (wc, seq, date +%s).
// A variable the command does not set comes from the environment the
// human started the agent with, except in a text another command runs
// (sh -c, eval), whose environment the command can set.

// arithScan collects a script's assignments and arithmetic uses.
type arithScan struct {
	c        *converter
	sources  map[string][]arithSource
	assoc    map[string]bool           // declare -A: their subscripts are strings
	integer  map[string]bool           // declare -i: assignments are arithmetic
	intVals  map[string][]*syntax.Word // values assigned to names, for declare -i
	anything string                    // eval, source: any variable can be set to anything
	uses     []arithUse
	hazard   string // a value known only when it runs, evaluated
}

// arithSource is one value a variable is given.
type arithSource struct {
	unknown bool   // known only when it runs
	text    string // the text written, whose names must be known in turn
}

// arithUse is a variable an arithmetic context evaluates, or whose value
// ${!x} takes as a name (asName).
type arithUse struct {
	name, where string
	asName      bool
}

// numericVars are the variables bash itself sets to numbers.
var numericVars = setOf("#", "?", "$", "!", "RANDOM", "SRANDOM", "SECONDS", "LINENO", "EPOCHSECONDS", "BASHPID",
	"PPID", "UID", "EUID", "OPTIND", "BASH_SUBSHELL", "SHLVL", "HISTCMD")

// arithHazard reports the first arithmetic context of the script that
// evaluates a value known only when it runs.
func (c *converter) arithHazard(f *syntax.File) (string, bool) {
	s := &arithScan{c: c, sources: map[string][]arithSource{}, assoc: map[string]bool{}, integer: map[string]bool{},
		intVals: map[string][]*syntax.Word{}}
	syntax.Walk(f, s.visit)
	if s.hazard != "" {
		return s.hazard, true
	}
	for name := range s.integer {
		for _, w := range s.intVals[name] {
			s.word(w, "declare -i "+name+"="+c.text(w))
		}
		for _, src := range s.sources[name] {
			if src.unknown { // declare -i n; read n: what read reads is evaluated
				s.fail("declare -i " + name + " makes bash evaluate every value " + name + " is given as arithmetic, and it is given one known only when it runs: bash runs the commands in an array subscript it holds (a[$(…)])")
			}
		}
	}
	if s.hazard != "" {
		return s.hazard, true
	}
	for _, u := range s.uses {
		if !s.known(u.name, u.asName, map[string]bool{}) {
			why := "is given a value known only when it runs"
			for _, src := range s.sources[u.name] {
				if strings.ContainsAny(src.text, "$`") {
					why = "is given " + src.text + ", an array subscript holding a command"
				}
			}
			switch {
			case s.anything != "":
				why = "can be set to anything by " + s.anything
			case isPositional(u.name):
				why = "is a positional parameter, set by set --, a function's or the shell's arguments"
			case len(s.sources[u.name]) == 0:
				why = "comes from the environment of a nested shell, which the command around it can set to anything"
			}
			return u.where + " evaluates $" + u.name + " as arithmetic, and " + u.name + " " + why +
				": bash runs the commands in an array subscript it holds (a[$(…)])", true
		}
	}
	return "", false
}

func isPositional(name string) bool {
	return name == "@" || name == "*" || name == "-" || name != "" && name[0] >= '0' && name[0] <= '9'
}

// known reports a variable whose every value is known.
func (s *arithScan) known(name string, asName bool, seen map[string]bool) bool {
	if numericVars[name] {
		return true
	}
	if seen[name] {
		return true // n=n+1: a value made of the others, judged on their own
	}
	if s.anything != "" || isPositional(name) {
		return false
	}
	if len(s.sources[name]) == 0 {
		// not set in the command: the environment the agent runs with,
		// which the human set, unless the script around a nested text
		// (x=$(cat f) sh -c 'echo $((x))') set it
		return !s.c.nested
	}
	seen[name] = true
	defer delete(seen, name)
	for _, src := range s.sources[name] {
		if src.unknown || strings.ContainsAny(src.text, "$`") {
			return false // for x in 'a[$(id)]': a subscript that runs id
		}
		if asName {
			continue
		}
		for _, id := range arithNames(src.text) {
			if !s.known(id, false, seen) {
				return false
			}
		}
	}
	return true
}

// arithNames are the variable names in arithmetic text: the words that
// start with a letter or _ (16#ff and 0x1f are numbers).
func arithNames(text string) []string {
	var out []string
	for i := 0; i < len(text); {
		c := text[i]
		if !isNameByte(c) && c != '#' && c != '@' {
			i++
			continue
		}
		j := i
		for j < len(text) && (isNameByte(text[j]) || text[j] == '#' || text[j] == '@') {
			j++
		}
		if tok := text[i:j]; c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			if k := strings.IndexAny(tok, "#@"); k >= 0 {
				tok = tok[:k]
			}
			out = append(out, tok)
		}
		i = j
	}
	return out
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func (s *arithScan) fail(why string) {
	if s.hazard == "" {
		s.hazard = why
	}
}

// add records a value given to name.
func (s *arithScan) add(name string, src arithSource) {
	s.sources[name] = append(s.sources[name], src)
}

// addWord records the value a word gives name.
func (s *arithScan) addWord(name string, w *syntax.Word) {
	s.intVals[name] = append(s.intVals[name], w)
	s.add(name, s.valueOf(w))
}

// valueOf tells what a word's value is known to be.
func (s *arithScan) valueOf(w *syntax.Word) arithSource {
	if w == nil {
		return arithSource{}
	}
	v := s.c.word(w)
	if !v.Dynamic && !v.Glob {
		return arithSource{text: v.Value}
	}
	for _, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if hasGlob(p.Value) {
				return arithSource{unknown: true}
			}
		case *syntax.SglQuoted:
		case *syntax.ArithmExp: // a number
		case *syntax.CmdSubst:
			if !s.numericOutput(p) {
				return arithSource{unknown: true}
			}
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if sub, ok := q.(*syntax.CmdSubst); ok && s.numericOutput(sub) {
					continue
				}
				if _, ok := q.(*syntax.ArithmExp); ok {
					continue
				}
				if _, ok := q.(*syntax.Lit); ok {
					continue
				}
				return arithSource{unknown: true}
			}
		default:
			return arithSource{unknown: true}
		}
	}
	return arithSource{text: literalText(w)}
}

// literalText is the literal text of a word whose expansions are numbers.
func literalText(w *syntax.Word) string {
	var b strings.Builder
	var walk func(parts []syntax.WordPart)
	walk = func(parts []syntax.WordPart) {
		for _, p := range parts {
			switch p := p.(type) {
			case *syntax.Lit:
				b.WriteString(p.Value)
			case *syntax.SglQuoted:
				b.WriteString(p.Value)
			case *syntax.DblQuoted:
				walk(p.Parts)
			default:
				b.WriteString(" 0 ")
			}
		}
	}
	walk(w.Parts)
	return b.String()
}

// visit looks at one node of the script.
func (s *arithScan) visit(n syntax.Node) bool {
	if s.hazard != "" {
		return false
	}
	switch n := n.(type) {
	case *syntax.ArithmExp:
		s.arith(n.X, s.c.text(n))
	case *syntax.ArithmCmd:
		s.arith(n.X, "(("+s.c.text(n.X)+"))")
	case *syntax.LetClause:
		for _, e := range n.Exprs {
			s.arith(e, "let "+s.c.text(e))
		}
	case *syntax.CStyleLoop:
		for _, e := range []syntax.ArithmExpr{n.Init, n.Cond, n.Post} {
			s.arith(e, "for (("+s.c.text(n)+"))")
		}
	case *syntax.ParamExp:
		s.param(n)
	case *syntax.Assign:
		s.assign(n)
	case *syntax.DeclClause:
		s.decl(n)
	case *syntax.ForClause:
		if wi, ok := n.Loop.(*syntax.WordIter); ok && wi.Name != nil {
			if !wi.InPos.IsValid() {
				s.add(wi.Name.Value, arithSource{unknown: true}) // for x; do: the positional parameters
			}
			for _, it := range wi.Items {
				for _, w := range s.c.words(it) {
					switch {
					case !w.Dynamic && !w.Glob:
						s.add(wi.Name.Value, arithSource{text: w.Value})
					case w.Raw == s.c.text(it):
						s.add(wi.Name.Value, s.valueOf(it)) // for i in $(seq 5)
					default:
						s.add(wi.Name.Value, arithSource{unknown: true})
					}
				}
			}
		}
	case *syntax.TestClause:
		s.test(n.X)
	case *syntax.CallExpr:
		s.call(n)
	}
	return true
}

// call notes what a simple command sets: read, mapfile, getopts and
// printf -v set variables from what they read; eval and source set any.
func (s *arithScan) call(x *syntax.CallExpr) {
	var args []Word
	for _, w := range x.Args {
		args = append(args, s.c.words(w)...)
	}
	v := lookThrough(Command{Args: args})
	switch v.name {
	case "eval", "source", ".":
		if s.anything == "" {
			s.anything = v.name
		}
	case "getopts":
		s.add("OPTARG", arithSource{unknown: true})
	case "test", "[":
		for i, a := range v.args {
			if a.Value == "-v" && i+1 < len(v.args) && v.args[i+1].Dynamic {
				s.fail(v.name + " -v " + v.args[i+1].Raw + ": bash evaluates the subscript of a variable name known only when it runs, which runs the commands it holds")
			}
		}
	}
	for _, n := range assignedNames(v) {
		base, _, _ := strings.Cut(n, "[")
		s.commandTable(base, v.name+" "+n)
		if strings.ContainsAny(n, "$`") {
			s.fail(v.name + " " + n + ": bash evaluates the subscript of a variable name known only when it runs, which runs the commands it holds")
		}
		if i := strings.IndexByte(n, '['); i >= 0 {
			n = n[:i]
		}
		s.add(n, arithSource{unknown: true})
	}
}

// commandTables are the variables that are bash's own tables of what a
// command name runs: BASH_CMDS[cat]=/bin/bash makes cat run bash (as hash
// -p does), BASH_ALIASES[ls]='touch x;' makes ls an alias (red team 21a,
// findings 2 and 9).
var commandTables = setOf("BASH_CMDS", "BASH_ALIASES")

// commandTable fails on a value given to one of bash's command tables.
func (s *arithScan) commandTable(name, where string) {
	if commandTables[name] {
		s.fail(where + ": " + name + " is bash's table of what command names run; a value given to it makes a command run another program")
	}
}

// decl notes declare -A, -i and -n (a reference: its value is another
// variable's, any of them).
func (s *arithScan) decl(d *syntax.DeclClause) {
	var flags string
	for _, a := range d.Args {
		if a.Naked && a.Name == nil && a.Value != nil {
			if v := s.c.word(a.Value); strings.HasPrefix(v.Value, "-") {
				flags += v.Value[1:]
			}
		}
	}
	for _, a := range d.Args {
		if a.Name == nil {
			continue
		}
		name := a.Name.Value
		switch {
		case strings.ContainsRune(flags, 'A'):
			s.assoc[name] = true
		case strings.ContainsRune(flags, 'n'):
			s.add(name, arithSource{unknown: true})
		}
		if strings.ContainsRune(flags, 'i') {
			s.integer[name] = true
		}
	}
}

// assign notes the value of NAME=…, NAME[i]=…, NAME=(…) and the
// subscripts bash evaluates in them.
func (s *arithScan) assign(a *syntax.Assign) {
	if a.Name == nil {
		return
	}
	name := a.Name.Value
	s.commandTable(name, s.c.text(a))
	if a.Index != nil && !s.assoc[name] {
		s.arith(a.Index, s.c.text(a))
	}
	switch {
	case a.Array != nil:
		for _, e := range a.Array.Elems {
			if e.Index != nil && !s.assoc[name] {
				s.arith(e.Index, s.c.text(a))
			}
			s.addWord(name, e.Value)
		}
	case a.Value != nil:
		s.addWord(name, a.Value)
	case !a.Naked:
		s.add(name, arithSource{}) // x= is empty
	}
}

// param judges the arithmetic inside a parameter expansion (${a[i]},
// ${x:off:len}) and notes ${x:=value}.
func (s *arithScan) param(p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if p.Index != nil && !s.assoc[name] && !allIndex(p.Index) {
		s.arith(p.Index, "${"+name+"["+s.c.text(p.Index)+"]}")
	}
	if p.Slice != nil {
		s.arith(p.Slice.Offset, s.c.text(p))
		s.arith(p.Slice.Length, s.c.text(p))
	}
	if p.Exp != nil && (p.Exp.Op == syntax.AssignUnset || p.Exp.Op == syntax.AssignUnsetOrNull) {
		s.addWord(name, p.Exp.Word)
	}
	if p.Excl && p.Names == 0 && p.Index == nil {
		// ${!x}: the variable x names, a[$(…)] too
		s.uses = append(s.uses, arithUse{name: name, where: s.c.text(p), asName: true})
	}
}

// allIndex reports the subscript @ or *.
func allIndex(e syntax.ArithmExpr) bool {
	w, ok := e.(*syntax.Word)
	if !ok {
		return false
	}
	l := w.Lit()
	return l == "@" || l == "*"
}

// test judges the operands [[ ]] evaluates as arithmetic.
func (s *arithScan) test(e syntax.TestExpr) {
	switch e := e.(type) {
	case *syntax.BinaryTest:
		switch e.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			where := "[[ " + s.c.text(e) + " ]]"
			if w, ok := e.X.(*syntax.Word); ok {
				s.word(w, where)
			}
			if w, ok := e.Y.(*syntax.Word); ok {
				s.word(w, where)
			}
		default:
			s.test(e.X)
			s.test(e.Y)
		}
	case *syntax.UnaryTest:
		if e.Op == syntax.TsVarSet || e.Op == syntax.TsRefVar {
			if w, ok := e.X.(*syntax.Word); ok && s.c.word(w).Dynamic {
				s.word(w, "[[ "+s.c.text(e)+" ]]")
			}
			return
		}
		s.test(e.X)
	case *syntax.ParenTest:
		s.test(e.X)
	}
}

// arith judges an arithmetic expression: the variables it reads, and
// those it assigns (a number).
func (s *arithScan) arith(e syntax.ArithmExpr, where string) {
	switch e := e.(type) {
	case nil:
	case *syntax.BinaryArithm:
		switch e.Op {
		case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn,
			syntax.AndAssgn, syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn,
			syntax.AndBoolAssgn, syntax.OrBoolAssgn, syntax.XorBoolAssgn, syntax.PowAssgn:
			if n, ok := arithTarget(e.X); ok {
				s.add(n, arithSource{})
				if e.Op != syntax.Assgn {
					s.arith(e.X, where)
				}
			} else {
				s.arith(e.X, where)
			}
			s.arith(e.Y, where)
			return
		}
		s.arith(e.X, where)
		s.arith(e.Y, where)
	case *syntax.UnaryArithm:
		if n, ok := arithTarget(e.X); ok && (e.Op == syntax.Inc || e.Op == syntax.Dec) {
			s.add(n, arithSource{})
		}
		s.arith(e.X, where)
	case *syntax.ParenArithm:
		s.arith(e.X, where)
	case *syntax.Word:
		s.word(e, where)
	}
}

// arithTarget is the variable an arithmetic assignment sets.
func arithTarget(e syntax.ArithmExpr) (string, bool) {
	w, ok := e.(*syntax.Word)
	if !ok || len(w.Parts) != 1 {
		return "", false
	}
	switch p := w.Parts[0].(type) {
	case *syntax.Lit:
		if ns := arithNames(p.Value); len(ns) == 1 && ns[0] == p.Value {
			return p.Value, true
		}
	case *syntax.ParamExp:
		if p.Param != nil && !p.Dollar.IsValid() {
			return p.Param.Value, true // a[i]=… inside arithmetic
		}
	}
	return "", false
}

// word judges a word bash evaluates as arithmetic: its text is an
// expression, and the values of its expansions are evaluated too.
func (s *arithScan) word(w *syntax.Word, where string) {
	for _, p := range w.Parts {
		s.part(p, where)
	}
}

func (s *arithScan) part(p syntax.WordPart, where string) {
	switch p := p.(type) {
	case *syntax.Lit:
		for _, n := range arithNames(p.Value) {
			s.uses = append(s.uses, arithUse{name: n, where: where})
		}
	case *syntax.SglQuoted:
		if strings.ContainsAny(p.Value, "$`") {
			s.fail(where + " evaluates " + s.c.text(p) + " as arithmetic: bash runs the commands in its array subscript")
		}
		for _, n := range arithNames(p.Value) {
			s.uses = append(s.uses, arithUse{name: n, where: where})
		}
	case *syntax.DblQuoted:
		for _, q := range p.Parts {
			s.part(q, where)
		}
	case *syntax.ParamExp:
		if p.Length || p.Param == nil {
			return // ${#x} is a number
		}
		if p.Excl {
			s.fail(where + " evaluates " + s.c.text(p) + ", the value of a variable named by another, known only when it runs: bash runs the commands in an array subscript it holds")
			return
		}
		if p.Repl != nil || p.Exp != nil && p.Exp.Op == syntax.OtherParamOps {
			// ${x/Q/$} and ${x@E} make text the value never held: a
			// known x='a[Q(cmd)]' becomes a[$(cmd)] as it runs (red
			// team 21a, finding 1)
			s.fail(where + " evaluates " + s.c.text(p) + " as arithmetic: the replacement or transformation makes a value known only when it runs, and bash runs the commands in an array subscript it holds")
			return
		}
		s.uses = append(s.uses, arithUse{name: p.Param.Value, where: where})
		if p.Exp != nil && p.Exp.Word != nil {
			switch p.Exp.Op {
			case syntax.DefaultUnset, syntax.DefaultUnsetOrNull, syntax.AssignUnset, syntax.AssignUnsetOrNull,
				syntax.AlternateUnset, syntax.AlternateUnsetOrNull:
				s.word(p.Exp.Word, where)
			}
		}
		if p.Repl != nil && p.Repl.With != nil {
			s.word(p.Repl.With, where)
		}
	case *syntax.CmdSubst:
		if !s.numericOutput(p) {
			s.fail(where + " evaluates the output of " + s.c.text(p) + " as arithmetic: bash runs the commands in an array subscript it prints (a[$(…)])")
		}
	case *syntax.ArithmExp: // a number, its own expression judged where it stands
	case *syntax.ProcSubst: // a /dev/fd path
	default:
		s.fail(where + " evaluates " + s.c.text(p) + ", known only when it runs, as arithmetic")
	}
}

// numericOutput reports a command substitution that prints only
// numbers: wc, seq, nproc, date +%s, id -u, git rev-list --count, stat -c
// %s, alone or at the end of a pipeline, with words written out.
func (s *arithScan) numericOutput(cs *syntax.CmdSubst) bool {
	if len(cs.Stmts) != 1 {
		return false
	}
	st := cs.Stmts[0]
	for {
		b, ok := st.Cmd.(*syntax.BinaryCmd)
		if !ok || len(st.Redirs) > 0 {
			break
		}
		if b.Op != syntax.Pipe {
			return false
		}
		st = b.Y
	}
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Background || st.Coprocess {
		return false
	}
	for _, r := range st.Redirs {
		if r.Op != syntax.RdrIn || r.N != nil {
			return false
		}
	}
	var args []Word
	for _, w := range call.Args {
		for _, a := range s.c.words(w) {
			if a.Dynamic || a.Glob {
				return false
			}
			args = append(args, a)
		}
	}
	if len(args) == 0 {
		return false
	}
	ops := make([]string, 0, len(args))
	for _, a := range args[1:] {
		ops = append(ops, a.Value)
	}
	all := func(ok func(string) bool) bool {
		for _, o := range ops {
			if !ok(o) {
				return false
			}
		}
		return true
	}
	switch args[0].Value {
	case "wc":
		return all(func(o string) bool {
			return !strings.HasPrefix(o, "-") || strings.Trim(o, "-lcmwL") == "" || o == "--lines" || o == "--bytes" || o == "--chars" || o == "--words"
		})
	case "seq":
		return all(func(o string) bool { return o == "-w" || strings.Trim(o, "0123456789.-+") == "" })
	case "nproc":
		return all(func(o string) bool { return o == "--all" || strings.HasPrefix(o, "--ignore=") })
	case "date":
		return all(func(o string) bool { return o == "+%s" || o == "-u" })
	case "id":
		return len(ops) > 0 && strings.Trim(ops[0], "-ugr") == "" && strings.HasPrefix(ops[0], "-") && len(ops) <= 2
	case "git":
		return len(ops) > 1 && ops[0] == "rev-list" && hasWord(args, "--count")
	case "stat":
		return len(ops) > 2 && ops[0] == "-c" && ops[1] == "%s"
	}
	return false
}
