package permit

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// maxShellText bounds the text SplitShell parses.
const maxShellText = 1 << 20

// SplitShell splits a shell text into its simple commands, in the order
// they appear, descending into subshells, groups, control structures,
// function bodies, command and process substitutions, parameter
// expansions, arithmetic and here-documents. It parses with bash's grammar
// (mvdan.cc/sh/v3/syntax); a text that is not valid bash, or that holds
// what cannot be judged before it runs (a coprocess, a variable name whose
// array subscript bash would evaluate, running its substitutions), is an
// error wrapping ErrShell.
func SplitShell(s string) ([]Command, error) {
	return splitShell(s, false)
}

// splitShell is SplitShell; nested says the text is run by another
// command (sh -c TEXT, eval, find -exec sh -c), whose environment the
// script around it may have set to anything.
func splitShell(s string, nested bool) ([]Command, error) {
	if len(s) > maxShellText {
		return nil, fmt.Errorf("%w: the text is longer than %d bytes", ErrShell, maxShellText)
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrShell, err)
	}
	c := &converter{src: s, nested: nested}
	for _, st := range f.Stmts {
		c.stmt(st, "", "")
	}
	if c.err != nil {
		return nil, c.err
	}
	if why, bad := c.arithHazard(f); bad {
		return nil, fmt.Errorf("%w: %w: %s", ErrShell, errEvaluates, why)
	}
	out := c.cmds[:0]
	for _, cmd := range c.cmds {
		if len(cmd.Args) > 0 || len(cmd.Assigns) > 0 || len(cmd.Redirects) > 0 || cmd.Control {
			out = append(out, cmd)
		}
	}
	return out, nil
}

// converter turns a syntax tree into the commands the policy checks.
type converter struct {
	src    string
	nested bool // run by another command: its environment may hold anything
	cmds   []Command
	depth  int
	err    error
}

func (c *converter) fail(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %s", ErrShell, fmt.Sprintf(format, a...))
	}
}

// failEval fails on text that makes bash evaluate what it holds as
// arithmetic, running the commands in an array subscript.
func (c *converter) failEval(format string, a ...any) {
	if c.err == nil {
		c.err = fmt.Errorf("%w: %w: %s", ErrShell, errEvaluates, fmt.Sprintf(format, a...))
	}
}

// isNil reports a nil node, typed or not.
func isNil(n syntax.Node) bool {
	if n == nil {
		return true
	}
	v := reflect.ValueOf(n)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

func (c *converter) text(n syntax.Node) string {
	if isNil(n) || !n.Pos().IsValid() || !n.End().IsValid() {
		return ""
	}
	a, b := int(n.Pos().Offset()), int(n.End().Offset())
	if a < 0 || b > len(c.src) || a > b {
		return ""
	}
	return c.src[a:b]
}

// span is the source text from the first to the last of nodes.
func (c *converter) span(nodes ...syntax.Node) string {
	a, b := -1, -1
	for _, n := range nodes {
		if isNil(n) || !n.Pos().IsValid() {
			continue
		}
		if p := int(n.Pos().Offset()); a < 0 || p < a {
			a = p
		}
		if e := int(n.End().Offset()); e > b {
			b = e
		}
	}
	if a < 0 || b > len(c.src) || a > b {
		return ""
	}
	return strings.TrimSpace(c.src[a:b])
}

// stmts adds the commands of a statement list.
func (c *converter) stmts(list []*syntax.Stmt, via string) {
	c.depth++
	defer func() { c.depth-- }()
	if c.depth > maxShellDepth {
		c.fail("nested more than %d levels deep", maxShellDepth)
		return
	}
	for _, st := range list {
		c.stmt(st, "", via)
	}
}

// stmt adds the commands of one statement; op is the operator before it.
func (c *converter) stmt(st *syntax.Stmt, op, via string) {
	if st == nil || c.err != nil {
		return
	}
	if st.Coprocess {
		c.fail("a coprocess is not followed")
		return
	}
	switch cmd := st.Cmd.(type) {
	case *syntax.CallExpr:
		c.call(st, cmd, op, via)
		return
	case *syntax.DeclClause:
		c.decl(st, cmd, op, via)
		return
	case *syntax.LetClause:
		nodes := []syntax.Node{cmd}
		w := Word{Raw: "let", Value: "let"}
		args := []Word{w}
		for _, e := range cmd.Exprs {
			t := c.text(e)
			if subscriptRun.MatchString(t) {
				c.failEval("%s: let evaluates the array subscript as arithmetic, which runs the commands in it", t)
			}
			args = append(args, Word{Raw: t, Value: t, Dynamic: true})
		}
		c.add(st, Command{Args: args, Op: op, Via: via, Text: c.span(nodes...)}, cmd)
		return
	case *syntax.BinaryCmd:
		x := len(c.cmds)
		c.stmt(cmd.X, op, via)
		y := len(c.cmds)
		c.stmt(cmd.Y, cmd.Op.String(), via)
		if _, simple := cmd.X.Cmd.(*syntax.CallExpr); simple && cmd.Op == syntax.Pipe && len(cmd.X.Redirs) == 0 &&
			!cmd.X.Background && !cmd.X.Negated && x < y && y < len(c.cmds) && c.cmds[x].Via == via &&
			c.cmds[y].Op == "|" && c.cmds[y].Via == via && !c.cmds[y].Control {
			// find . | xargs grep: what the right side reads is the left's output alone
			feed := c.cmds[x]
			c.cmds[y].Feed = &feed
		}
		c.redirOnly(st, op, via)
		return
	case *syntax.FuncDecl:
		name := ""
		if cmd.Name != nil {
			name = cmd.Name.Value
		}
		c.cmds = append(c.cmds, Command{Text: c.span(cmd.Name), Args: []Word{{Raw: name, Value: name}}, Op: op, Via: via, Control: true})
		c.stmt(cmd.Body, "", via)
		return
	case *syntax.CoprocClause:
		c.fail("a coprocess is not followed")
		return
	case *syntax.TestDecl:
		c.fail("@test is not bash")
		return
	case nil:
		c.redirOnly(st, op, via)
		return
	}
	// A compound command: a control line, then what it holds.
	sub := via
	if _, ok := st.Cmd.(*syntax.Subshell); ok {
		sub = "("
	}
	switch sc := st.Cmd.(type) {
	case *syntax.Subshell, *syntax.Block:
	default:
		ctl := Command{Text: firstLine(c.text(st.Cmd)), Op: op, Via: via, Control: true}
		if f, ok := sc.(*syntax.ForClause); ok {
			if wi, ok := f.Loop.(*syntax.WordIter); ok && wi.Name != nil {
				// for HOME in …: the loop sets its variable as NAME=… would
				n := wi.Name.Value
				ctl.Assigns = []Word{{Raw: n + "=…", Value: n + "=…", Dynamic: true}}
				for _, it := range wi.Items {
					ctl.Loop = append(ctl.Loop, c.words(it)...)
				}
			}
		}
		c.cmds = append(c.cmds, ctl)
	}
	if t, ok := st.Cmd.(*syntax.TestClause); ok {
		c.testHazards(t)
	}
	c.depth++
	syntax.Walk(st.Cmd, func(n syntax.Node) bool {
		if n == st.Cmd {
			return true
		}
		return c.visit(n, sub)
	})
	c.depth--
	c.redirOnly(st, op, via)
}

// visit follows the statements and substitutions below a node; it returns
// false for what it handled itself.
func (c *converter) visit(n syntax.Node, via string) bool {
	if c.err != nil {
		return false
	}
	switch n := n.(type) {
	case *syntax.Stmt:
		c.stmt(n, "", via)
		return false
	case *syntax.CmdSubst:
		v := "$("
		if n.Backquotes {
			v = "`"
		}
		c.stmts(n.Stmts, v)
		return false
	case *syntax.ProcSubst:
		c.stmts(n.Stmts, n.Op.String())
		return false
	case *syntax.ParamExp:
		c.paramAssign(n, via)
	}
	return true
}

// paramAssign adds the assignment ${NAME:=value} and ${NAME=value} make
// as a command of its own, NAME=value, judged as one written out:
// : ${GIT_EXTERNAL_DIFF:=./x.sh} sets the variable as
// GIT_EXTERNAL_DIFF=./x.sh does (red team 13b, finding 14).
func (c *converter) paramAssign(p *syntax.ParamExp, via string) {
	if p.Param == nil || p.Exp == nil || p.Exp.Op != syntax.AssignUnset && p.Exp.Op != syntax.AssignUnsetOrNull {
		return
	}
	name := p.Param.Value
	if p.Excl {
		name = "$" + name // ${!ref:=v} sets the variable ref names
	}
	val := Word{}
	if p.Exp.Word != nil {
		val = c.word(p.Exp.Word)
	}
	raw := c.text(p)
	w := Word{Raw: raw, Value: name + "=" + val.Value, Dynamic: val.Dynamic || p.Excl, Glob: val.Glob}
	c.cmds = append(c.cmds, Command{Text: raw, Assigns: []Word{w}, Op: ";", Via: via})
}

// nestedIn adds the commands that run inside a node (substitutions).
func (c *converter) nestedIn(n syntax.Node, via string) {
	if isNil(n) {
		return
	}
	syntax.Walk(n, func(x syntax.Node) bool { return c.visit(x, via) })
}

// redirOnly adds the redirections of a compound statement as a command of
// their own, so that what they read and write is judged.
func (c *converter) redirOnly(st *syntax.Stmt, op, via string) {
	if len(st.Redirs) == 0 {
		return
	}
	cmd := Command{Op: op, Via: via}
	var nodes []syntax.Node
	for _, r := range st.Redirs {
		cmd.Redirects = append(cmd.Redirects, c.redirect(r))
		nodes = append(nodes, r)
	}
	cmd.Text = c.span(nodes...)
	idx := len(c.cmds)
	c.cmds = append(c.cmds, cmd)
	for _, r := range st.Redirs {
		c.nestedIn(r, via)
	}
	_ = idx
}

// add appends a simple command, then the commands nested in its words.
func (c *converter) add(st *syntax.Stmt, cmd Command, nodes ...syntax.Node) {
	for _, r := range st.Redirs {
		cmd.Redirects = append(cmd.Redirects, c.redirect(r))
		nodes = append(nodes, r)
	}
	if cmd.Text == "" || len(st.Redirs) > 0 {
		cmd.Text = c.span(nodes...)
	}
	c.cmds = append(c.cmds, cmd)
	for _, n := range nodes {
		c.nestedIn(n, "$(")
	}
}

// call adds a simple command.
func (c *converter) call(st *syntax.Stmt, x *syntax.CallExpr, op, via string) {
	cmd := Command{Op: op, Via: via}
	var nodes []syntax.Node
	for _, a := range x.Assigns {
		w := c.assign(a)
		if subscriptRun.MatchString(w.Value[strings.IndexByte(w.Value, '=')+1:]) {
			c.failEval("%s: a value bash may evaluate as arithmetic (an integer variable, (( )), [[ -eq ]]) runs the commands in its subscript", w.Raw)
		}
		cmd.Assigns = append(cmd.Assigns, w)
		nodes = append(nodes, a)
	}
	for _, w := range x.Args {
		cmd.Args = append(cmd.Args, c.words(w)...)
		nodes = append(nodes, w)
	}
	c.nameHazards(cmd.Args)
	cmd.Text = c.span(nodes...)
	c.add(st, cmd, nodes...)
}

// decl adds declare, local, export, readonly, typeset and nameref.
func (c *converter) decl(st *syntax.Stmt, x *syntax.DeclClause, op, via string) {
	name := x.Variant.Value
	cmd := Command{Op: op, Via: via, Args: []Word{{Raw: name, Value: name}}}
	nodes := []syntax.Node{x.Variant}
	for _, a := range x.Args {
		nodes = append(nodes, a)
		if a.Naked && a.Name == nil && a.Value != nil {
			cmd.Args = append(cmd.Args, c.words(a.Value)...)
			continue
		}
		cmd.Args = append(cmd.Args, c.assign(a))
	}
	c.nameHazards(cmd.Args)
	cmd.Text = c.span(nodes...)
	c.add(st, cmd, nodes...)
}

// assign turns NAME=value, NAME+=value, NAME[i]=value or NAME=(...) into a word.
func (c *converter) assign(a *syntax.Assign) Word {
	raw := c.text(a)
	w := Word{Raw: raw}
	var b strings.Builder
	if a.Name != nil {
		b.WriteString(a.Name.Value)
	}
	if a.Index != nil {
		b.WriteString("[" + c.text(a.Index) + "]")
		w.Dynamic = true
	}
	switch {
	case a.Naked:
	case a.Append:
		b.WriteString("+=")
	default:
		b.WriteString("=")
	}
	switch {
	case a.Array != nil:
		b.WriteString(c.text(a.Array))
		w.Dynamic = true
	case a.Value != nil:
		v := c.word(a.Value)
		b.WriteString(v.Value)
		w.Dynamic = w.Dynamic || v.Dynamic
		w.Glob = v.Glob
	}
	w.Value = b.String()
	return w
}

// redirect converts one redirection.
func (c *converter) redirect(r *syntax.Redirect) Redirect {
	out := Redirect{Op: r.Op.String()}
	if r.N != nil {
		out.FD = r.N.Value
	}
	if r.Word != nil {
		out.Target = c.word(r.Word)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		if r.Hdoc != nil {
			out.Body = hdocBody(c.text(r.Hdoc), out.Target.Value, r.Op == syntax.DashHdoc)
		}
	case syntax.WordHdoc:
		out.Body = out.Target.Value
	}
	return out
}

// maxBraceWords bounds the words one brace expansion may make; a word
// making more is not followed.
const maxBraceWords = 64

// words converts an argument word into the words bash makes of it by
// brace expansion: git reset {--hard,} runs git reset --hard, and is
// judged as that. An expansion is static text, so the words it makes
// are as known as the word written; an empty unquoted alternative makes
// no word, as in bash.
func (c *converter) words(w *syntax.Word) []Word {
	cp := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(cp) {
		return []Word{c.word(w)}
	}
	raw := c.text(w)
	var out []Word
	n := 0
	for x, err := range expand.BracesSeq(nil, cp) {
		n++
		if err != nil || n > maxBraceWords {
			c.fail("%s: the brace expansion makes more than %d words", raw, maxBraceWords)
			return []Word{c.word(w)}
		}
		if len(x.Parts) == 0 {
			continue
		}
		var b strings.Builder
		one := Word{}
		for i, part := range x.Parts {
			c.part(part, &b, &one, false, i == 0)
		}
		one.Value = b.String()
		one.Raw = c.rawOf(x)
		if one.Raw == "" && one.Value == "" && !quotedEmpty(x) {
			continue
		}
		out = append(out, one)
	}
	return out
}

// rawOf writes a word made by brace expansion back as shell text (the
// literals SplitBraces cuts keep the position of the whole literal, so
// they are written by value).
func (c *converter) rawOf(w *syntax.Word) string {
	var b strings.Builder
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok {
			b.WriteString(l.Value)
			continue
		}
		b.WriteString(c.text(part))
	}
	return b.String()
}

// quotedEmpty reports a word with a quoted part ("" or ”), which bash
// keeps as an empty argument.
func quotedEmpty(w *syntax.Word) bool {
	for _, part := range w.Parts {
		switch part.(type) {
		case *syntax.SglQuoted, *syntax.DblQuoted:
			return true
		}
	}
	return false
}

// word converts a word: its value after quote removal, and whether it
// expands, globs or starts with a tilde.
func (c *converter) word(w *syntax.Word) Word {
	out := Word{Raw: c.text(w)}
	var b strings.Builder
	for i, part := range w.Parts {
		c.part(part, &b, &out, false, i == 0)
		if i > 0 && zshParamFlag(w.Parts[i-1], part) {
			// bash prints $~x as it is; zsh globs x's value (a qualifier
			// in it runs code), and $=x splits it
			c.failEval("%s: zsh expands $~, $= and $^ (a glob in the value may run code)", out.Raw)
		}
	}
	out.Value = b.String()
	if len(w.Parts) == 1 {
		_, out.ProcSubst = w.Parts[0].(*syntax.ProcSubst)
	}
	return out
}

func (c *converter) part(part syntax.WordPart, b *strings.Builder, w *Word, quoted, first bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		v := p.Value
		if quoted {
			b.WriteString(unescapeDouble(v))
			return
		}
		if first && strings.HasPrefix(v, "~") {
			w.Tilde = true
		}
		if hasGlob(v) {
			w.Glob = true
		}
		if strings.Contains(v, "{") && braceExpands(v[strings.IndexByte(v, '{'):]) {
			w.Dynamic = true
		}
		b.WriteString(unescapeBare(v))
	case *syntax.SglQuoted:
		if p.Dollar {
			b.WriteString(ansiC(p.Value))
			return
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		if p.Dollar {
			// $"…" is looked up in the message catalog TEXTDOMAIN and
			// TEXTDOMAINDIR name, one the agent can write, and bash
			// expands the $(…) in the translation (red team 21a, finding 3)
			c.failEval("%s: a translated string: bash expands the command substitutions in its translation, from a catalog the command can choose", c.text(p))
		}
		for _, q := range p.Parts {
			c.part(q, b, w, true, false)
		}
	case *syntax.ExtGlob:
		// bash's @(…) !(…) +(…) match names the policy's globs do not
		// (.@(env) is .env), and zsh, the shell many users run their CLI
		// in, reads (…) after a glob as qualifiers: *(e:'cmd':) and
		// *(+fn) run code, *(D) takes hidden files (red team 20a).
		w.Glob = true
		c.failEval("%s: an extended glob: zsh reads (…) after a glob as qualifiers that may run code, and bash matches names with it the policy cannot follow", c.text(p))
		b.WriteString(c.text(p))
	case *syntax.ParamExp:
		w.Dynamic = true
		if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && strings.ContainsAny(p.Exp.Word.Lit(), "P") {
			c.fail("%s: prompt expansion (@P) runs the command substitutions in the value", c.text(p))
		}
		b.WriteString(c.text(part))
	default: // $(...), `...`, $((...)), <(...)
		w.Dynamic = true
		b.WriteString(c.text(part))
	}
}

// zshParamFlag reports a bare $ followed by ~, = or ^: the parser keeps
// them as two literals.
func zshParamFlag(prev, part syntax.WordPart) bool {
	a, ok1 := prev.(*syntax.Lit)
	b, ok2 := part.(*syntax.Lit)
	return ok1 && ok2 && strings.HasSuffix(a.Value, "$") && !strings.HasSuffix(a.Value, `\$`) &&
		b.Value != "" && strings.IndexByte("~=^", b.Value[0]) >= 0
}

// hasGlob reports an unescaped *, ? or [ in an unquoted literal.
func hasGlob(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[':
			return true
		}
	}
	return false
}

// unescapeBare removes the backslashes of an unquoted literal.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes bash removes inside "...".
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// ansiC decodes the inside of $'...' the way bash does ($'\x72m' is rm).
func ansiC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		ch := s[i]
		if ch != '\\' || i+1 >= len(s) {
			b.WriteByte(ch)
			continue
		}
		i++
		e := s[i]
		switch e {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			j := i + 1
			for j < len(s) && j-i-1 < max && isDigit(s[j], 16) {
				j++
			}
			if j > i+1 {
				n, err := strconv.ParseUint(s[i+1:j], 16, 32)
				switch {
				case err != nil:
				case e == 'x':
					b.WriteByte(byte(n))
				case n <= utf8.MaxRune:
					b.WriteRune(rune(n))
				}
			} else {
				b.WriteByte('\\')
				b.WriteByte(e)
			}
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i
			for j < len(s) && j-i < 3 && isDigit(s[j], 8) {
				j++
			}
			n, _ := strconv.ParseUint(s[i:j], 8, 32)
			b.WriteByte(byte(n))
			i = j - 1
		default:
			b.WriteByte(e) // \\ \' \" \? and unknown escapes
		}
	}
	return b.String()
}

func isDigit(c byte, base int) bool {
	switch {
	case c >= '0' && c <= '7':
		return true
	case c == '8' || c == '9':
		return base >= 10
	case c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F':
		return base == 16
	}
	return false
}

// braceExpands reports whether s, starting with '{', holds a brace
// expansion ({a,b} or {1..9}) that turns one word into several.
func braceExpands(s string) bool {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				inner := s[1:i]
				return strings.Contains(inner, ",") || strings.Contains(inner, "..")
			}
		}
	}
	return false
}

// hdocBody cuts the closing delimiter line off a here-document's text.
func hdocBody(text, delim string, strip bool) string {
	body := strings.TrimSuffix(text, "\n")
	i := strings.LastIndexByte(body, '\n')
	last := body[i+1:]
	if strip {
		last = strings.TrimLeft(last, "\t")
	}
	if last == delim {
		return body[:i+1]
	}
	return text
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// nameTakers are the builtins that take variable names as arguments; bash
// evaluates an array subscript in such a name as arithmetic, which runs
// the command substitutions written in it even inside quotes
// (printf -v 'a[$(id)]' x).
var nameTakers = map[string]bool{"printf": true, "read": true, "mapfile": true, "readarray": true,
	"getopts": true, "wait": true, "test": true, "[": true, "unset": true, "declare": true, "typeset": true,
	"local": true, "export": true, "readonly": true, "let": true, "nameref": true, "shift": true, "eval": true}

// subscriptRun matches a name whose subscript holds an expansion.
var subscriptRun = regexp.MustCompile("[A-Za-z_][A-Za-z0-9_]*\\[[^]]*(\\$|`)")

// nameHazards fails on a quoted variable name whose subscript bash would
// evaluate, running what it holds.
func (c *converter) nameHazards(args []Word) {
	taker := false
	for _, a := range args {
		if nameTakers[a.Value] {
			taker = true
		}
	}
	if !taker {
		return
	}
	for _, a := range args {
		if subscriptRun.MatchString(a.Value) {
			c.failEval("%s: bash evaluates the array subscript of a variable name as arithmetic, which runs the commands in it", a.Raw)
			return
		}
	}
}

// testHazards fails on [[ ]] operands that bash evaluates as arithmetic
// (-eq, -lt..., -v) when they hold a subscript with an expansion.
func (c *converter) testHazards(t *syntax.TestClause) {
	syntax.Walk(t.X, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			if v := c.word(w).Value; subscriptRun.MatchString(v) {
				c.failEval("%s: [[ ]] evaluates the array subscript as arithmetic, which runs the commands in it", c.text(w))
			}
			return false
		}
		return true
	})
}
