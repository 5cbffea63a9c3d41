package permit

import (
	"errors"
	"fmt"
	"strings"
)

// ErrShell is wrapped by every error of SplitShell: the text is not shell
// this package can split, so no part of it can be approved unasked.
var ErrShell = errors.New("cannot split the shell command")

// maxShellDepth bounds the nesting of substitutions and subshells.
const maxShellDepth = 40

// Word is one shell word of a simple command.
type Word struct {
	// Raw is the word as written.
	Raw string
	// Value is the word after quote removal and escapes; expansions are kept as written.
	Value string
	// Dynamic reports an expansion ($x, $(...), `...`, <(...), {a,b}) whose value is known only when it runs.
	Dynamic bool
	// Glob reports an unquoted *, ? or [...] that the shell expands to file names.
	Glob bool
	// Tilde reports an unquoted ~ at the start, which the shell expands to a home directory.
	Tilde bool
}

// Redirect is one redirection of a simple command.
type Redirect struct {
	// Op is the operator: > >> >| < << <<- <<< <> &> &>> >& <&.
	Op string
	// FD is the descriptor written before the operator, e.g. "2"; empty when none.
	FD string
	// Target is the file, descriptor or here-document delimiter after the operator.
	Target Word
	// Body is the text of a here-document (<< and <<-) or here-string (<<<).
	Body string
}

// Command is one simple command of a shell text.
type Command struct {
	// Text is the command's source text.
	Text string
	// Assigns are the NAME=value words before the command word.
	Assigns []Word
	// Args are the command word and its arguments.
	Args []Word
	// Redirects are the command's redirections.
	Redirects []Redirect
	// Op is the operator before the command: "", ";", "&&", "||", "|", "|&" or "&".
	Op string
	// Via tells how the command is nested: "" at top level, "$(", "`", "<(", ">(", "(" or "<<" (a here-document).
	Via string
	// Control marks a line that runs nothing by itself: a for or select header, a function definition, [[ ]] or (( )).
	Control bool
}

// SplitShell splits a shell text into its simple commands, in the order
// they appear, descending into subshells, groups, command and process
// substitutions, here-documents and control structures. It understands
// what bash does with quotes, escapes, $'...' strings, line continuations,
// comments and redirections; a text it cannot split for sure (unbalanced
// quotes or parentheses, case statements, coprocesses) is an error wrapping
// ErrShell.
func SplitShell(s string) ([]Command, error) {
	p := &shellParser{src: s}
	if err := p.list(0, ""); err != nil {
		return nil, err
	}
	out := p.cmds[:0]
	for _, c := range p.cmds {
		if len(c.Args) > 0 || len(c.Assigns) > 0 || len(c.Redirects) > 0 || c.Control {
			out = append(out, c)
		}
	}
	return out, nil
}

type heredoc struct {
	cmd, redir int // where the body goes: p.cmds[cmd].Redirects[redir]
	delim      string
	strip      bool // <<- strips leading tabs
	expand     bool // the delimiter is unquoted: $(...) in the body runs
}

type shellParser struct {
	src      string
	pos      int
	current  int // index in cmds of the command being read
	depth    int
	cmds     []Command
	heredocs []heredoc
}

func (p *shellParser) errorf(format string, a ...any) error {
	return fmt.Errorf("%w: at byte %d: %s", ErrShell, p.pos, fmt.Sprintf(format, a...))
}

func (p *shellParser) eof() bool { return p.pos >= len(p.src) }

func (p *shellParser) peek(off int) byte {
	if p.pos+off < len(p.src) {
		return p.src[p.pos+off]
	}
	return 0
}

func (p *shellParser) has(s string) bool { return strings.HasPrefix(p.src[p.pos:], s) }

// blanks skips spaces, tabs and line continuations.
func (p *shellParser) blanks() {
	for !p.eof() {
		switch {
		case p.src[p.pos] == ' ' || p.src[p.pos] == '\t' || p.src[p.pos] == '\r':
			p.pos++
		case p.has("\\\n"):
			p.pos += 2
		default:
			return
		}
	}
}

func (p *shellParser) skipComment() {
	for !p.eof() && p.src[p.pos] != '\n' {
		p.pos++
	}
}

// nest guards the recursion depth around a nested list.
func (p *shellParser) nest(end byte, via string) error {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxShellDepth {
		return p.errorf("nested more than %d levels deep", maxShellDepth)
	}
	return p.list(end, via)
}

// list parses commands until end (')' for a subshell or substitution) or,
// when end is 0, until the end of the text.
func (p *shellParser) list(end byte, via string) error {
	op := ""
	for {
		p.blanks()
		if p.eof() {
			if end != 0 {
				return p.errorf("missing %q", end)
			}
			return nil
		}
		c := p.src[p.pos]
		switch {
		case c == '\n':
			p.pos++
			if err := p.readHeredocs(); err != nil {
				return err
			}
			op = ";"
			continue
		case c == '#':
			p.skipComment()
			continue
		case end != 0 && c == end:
			p.pos++
			return nil
		case c == ')':
			return p.errorf("unexpected )")
		case c == ';':
			if p.has(";;") || p.has(";&") {
				return p.errorf("case … esac is not split")
			}
			p.pos++
			op = ";"
			continue
		case p.has("&&"), p.has("||"), p.has("|&"):
			op = p.src[p.pos : p.pos+2]
			p.pos += 2
			continue
		case c == '|':
			p.pos++
			op = "|"
			continue
		case c == '&' && p.peek(1) != '>':
			p.pos++
			op = "&"
			continue
		case p.has("(("):
			if err := p.arithmetic(op, via); err != nil {
				return err
			}
			op = ""
			continue
		case c == '(':
			p.pos++
			if err := p.nest(')', "("); err != nil {
				return err
			}
			op = ""
			continue
		}
		if err := p.command(op, via); err != nil {
			return err
		}
		op = ""
	}
}

// arithmetic reads a (( ... )) command: nothing runs but the substitutions inside.
func (p *shellParser) arithmetic(op, via string) error {
	start := p.pos
	inner, err := p.balanced("((", "))")
	if err != nil {
		return err
	}
	p.cmds = append(p.cmds, Command{Text: p.src[start:p.pos], Op: op, Via: via, Control: true})
	return p.extract(inner, via)
}

// balanced reads from open to the matching close, counting parentheses,
// and returns what lies between.
func (p *shellParser) balanced(open, close string) (string, error) {
	p.pos += len(open)
	start := p.pos
	depth := 0
	for !p.eof() {
		switch {
		case depth == 0 && p.has(close):
			inner := p.src[start:p.pos]
			p.pos += len(close)
			return inner, nil
		case p.src[p.pos] == '\\':
			p.pos++
		case p.src[p.pos] == '(':
			depth++
		case p.src[p.pos] == ')':
			// (( a) && (b )) is two subshells to bash, not arithmetic.
			if depth--; depth < 0 {
				return "", p.errorf("%s … %s holds unbalanced parentheses", open, close)
			}
		case p.src[p.pos] == '\'':
			if i := strings.IndexByte(p.src[p.pos+1:], '\''); i >= 0 {
				p.pos += i + 1
			}
		}
		p.pos++
	}
	return "", p.errorf("missing %q", close)
}

// isMeta reports a byte that ends an unquoted word.
func isMeta(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', ';', '&', '|', '<', '>', '(', ')':
		return true
	}
	return false
}

// reserved are words that shape control structures; at the start of a
// command they are skipped and the command goes on with the next word.
var reserved = map[string]bool{"if": true, "then": true, "else": true, "elif": true, "fi": true,
	"do": true, "done": true, "while": true, "until": true, "!": true, "{": true, "}": true}

// command parses one simple command.
func (p *shellParser) command(op, via string) error {
	start := p.pos
	idx := len(p.cmds)
	p.cmds = append(p.cmds, Command{}) // keeps the command ahead of what nests in it
	outer := p.current
	p.current = idx
	defer func() { p.current = outer }()
	cmd := Command{Op: op, Via: via}
	for {
		p.blanks()
		if p.eof() {
			break
		}
		c := p.src[p.pos]
		if c == '\n' || c == ';' || c == '|' || c == ')' || (c == '&' && p.peek(1) != '>') {
			break
		}
		if c == '#' {
			p.skipComment()
			break
		}
		if c == '(' {
			if len(cmd.Args) == 1 && p.funcParens() {
				cmd.Control = true
				break
			}
			return p.errorf("unexpected ( inside a command")
		}
		if (c == '<' || c == '>') && p.peek(1) == '(' {
			w, err := p.procSubst()
			if err != nil {
				return err
			}
			cmd.Args = append(cmd.Args, w)
			continue
		}
		if c == '<' || c == '>' || c == '&' {
			if err := p.redirect(&cmd, ""); err != nil {
				return err
			}
			continue
		}
		w, err := p.word()
		if err != nil {
			return err
		}
		if isFD(w) && (p.peek(0) == '<' || p.peek(0) == '>') {
			if err := p.redirect(&cmd, w.Raw); err != nil {
				return err
			}
			continue
		}
		if len(cmd.Args) == 0 && len(cmd.Assigns) == 0 && w.Raw == w.Value {
			if reserved[w.Raw] {
				start = p.pos
				continue
			}
			switch w.Raw {
			case "case", "coproc", "select":
				return p.errorf("%s is not split", w.Raw)
			case "for":
				cmd.Control = true
				if p.blanks(); p.has("((") {
					inner, err := p.balanced("((", "))")
					if err != nil {
						return err
					}
					if err := p.extract(inner, "$("); err != nil {
						return err
					}
				}
			case "function":
				// function NAME [()]: the body that follows is its own command list.
				cmd.Control = true
				p.blanks()
				name, err := p.word()
				if err != nil {
					return err
				}
				cmd.Args = append(cmd.Args, w, name)
				if p.blanks(); p.peek(0) == '(' {
					p.funcParens()
				}
				goto done
			case "[[":
				cmd.Control = true
				if err := p.doubleBracket(&cmd); err != nil {
					return err
				}
				goto done
			}
		}
		if len(cmd.Args) == 0 && isAssignment(w.Raw) {
			cmd.Assigns = append(cmd.Assigns, w)
			continue
		}
		cmd.Args = append(cmd.Args, w)
	}
done:
	cmd.Text = strings.TrimSpace(p.src[start:p.pos])
	p.cmds[idx] = cmd
	return nil
}

// funcParens consumes the "()" of a function definition "name ()".
func (p *shellParser) funcParens() bool {
	save := p.pos
	p.pos++
	p.blanks()
	if p.peek(0) == ')' {
		p.pos++
		return true
	}
	p.pos = save
	return false
}

// doubleBracket reads the words of [[ ... ]], where && || < > ( ) are
// operands of the test, not shell operators.
func (p *shellParser) doubleBracket(cmd *Command) error {
	for {
		p.blanks()
		if p.eof() {
			return p.errorf("missing ]]")
		}
		if p.has("]]") && (p.pos+2 == len(p.src) || isMeta(p.src[p.pos+2])) {
			p.pos += 2
			return nil
		}
		if op := testOperator(p.src[p.pos:]); op != "" {
			p.pos += len(op)
			continue
		}
		w, err := p.word()
		if err != nil {
			return err
		}
		if w.Raw == "" {
			p.pos++ // a lone metacharacter the test takes as an operand
			continue
		}
		cmd.Args = append(cmd.Args, w)
	}
}

// testOperator returns the [[ ]] operator that s starts with, or "".
func testOperator(s string) string {
	for _, op := range []string{"&&", "||", "<", ">", "(", ")", "\n"} {
		if strings.HasPrefix(s, op) {
			return op
		}
	}
	return ""
}

// isFD reports a word that is a file descriptor number before a redirection.
func isFD(w Word) bool {
	if w.Raw == "" || len(w.Raw) > 4 {
		return false
	}
	for i := 0; i < len(w.Raw); i++ {
		if w.Raw[i] < '0' || w.Raw[i] > '9' {
			return false
		}
	}
	return true
}

// isAssignment reports NAME=value (or NAME+=value, NAME[i]=value) with an unquoted name.
func isAssignment(raw string) bool {
	i := 0
	for i < len(raw) && (raw[i] == '_' || raw[i] >= 'a' && raw[i] <= 'z' || raw[i] >= 'A' && raw[i] <= 'Z' || i > 0 && raw[i] >= '0' && raw[i] <= '9') {
		i++
	}
	if i == 0 || i == len(raw) {
		return false
	}
	if raw[i] == '[' {
		j := strings.IndexByte(raw[i:], ']')
		if j < 0 {
			return false
		}
		i += j + 1
	}
	return strings.HasPrefix(raw[i:], "=") || strings.HasPrefix(raw[i:], "+=")
}
