package permit

import "strings"

// redirOps are the redirection operators, longest first.
var redirOps = []string{"&>>", "<<<", "<<-", "&>", "<<", ">>", ">|", ">&", "<&", "<>", ">", "<"}

func (p *shellParser) redirect(cmd *Command, fd string) error {
	op := ""
	for _, o := range redirOps {
		if p.has(o) {
			op = o
			break
		}
	}
	if op == "" {
		return p.errorf("unexpected %q", p.src[p.pos])
	}
	p.pos += len(op)
	p.blanks()
	var target Word
	var err error
	switch {
	case p.eof() || p.src[p.pos] == '\n' || (isMeta(p.src[p.pos]) && !(p.has("<(") || p.has(">("))):
		return p.errorf("redirection %s without a target", op)
	case p.has("<(") || p.has(">("):
		target, err = p.procSubst()
	default:
		target, err = p.word()
	}
	if err != nil {
		return err
	}
	r := Redirect{Op: op, FD: fd, Target: target}
	switch op {
	case "<<", "<<-":
		p.heredocs = append(p.heredocs, heredoc{cmd: p.current, redir: len(cmd.Redirects),
			delim: target.Value, strip: op == "<<-", expand: target.Raw == target.Value})
	case "<<<":
		r.Body = target.Value
	}
	cmd.Redirects = append(cmd.Redirects, r)
	return nil
}

// readHeredocs reads the bodies of the here-documents opened on the line
// that just ended; a body with an unquoted delimiter is searched for
// substitutions, which run.
func (p *shellParser) readHeredocs() error {
	docs := p.heredocs
	p.heredocs = nil
	for _, d := range docs {
		start := p.pos
		end := len(p.src)
		for !p.eof() {
			nl := strings.IndexByte(p.src[p.pos:], '\n')
			line := p.src[p.pos:]
			next := len(p.src)
			if nl >= 0 {
				line = p.src[p.pos : p.pos+nl]
				next = p.pos + nl + 1
			}
			check := strings.TrimRight(line, "\r")
			if d.strip {
				check = strings.TrimLeft(check, "\t")
			}
			if check == d.delim {
				end = p.pos
				p.pos = next
				break
			}
			p.pos = next
		}
		body := p.src[start:end]
		if d.cmd < len(p.cmds) && d.redir < len(p.cmds[d.cmd].Redirects) {
			p.cmds[d.cmd].Redirects[d.redir].Body = body
		}
		if d.expand {
			if err := p.extract(body, "<<"); err != nil {
				return err
			}
		}
	}
	return nil
}

// extract finds the command substitutions inside text that is expanded
// but not split into commands (here-document bodies, ${...}, $((...))) and
// adds the commands they hold.
func (p *shellParser) extract(text, via string) error {
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\\':
			i++
		case strings.HasPrefix(text[i:], "$(("):
			i += 2
		case strings.HasPrefix(text[i:], "$("):
			sub := &shellParser{src: text[i+2:], depth: p.depth + 1}
			if sub.depth > maxShellDepth {
				return p.errorf("nested more than %d levels deep", maxShellDepth)
			}
			if err := sub.list(')', "$("); err != nil {
				return err
			}
			p.cmds = append(p.cmds, sub.cmds...)
			i += 1 + sub.pos
		case text[i] == '`':
			j := i + 1
			for j < len(text) && text[j] != '`' {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(text) {
				return p.errorf("unterminated `")
			}
			if err := p.subParse(unescapeBacktick(text[i+1:j]), "`"); err != nil {
				return err
			}
			i = j
		}
	}
	return nil
}

// subParse splits text on its own and adds its commands.
func (p *shellParser) subParse(text, via string) error {
	sub := &shellParser{src: text, depth: p.depth + 1}
	if sub.depth > maxShellDepth {
		return p.errorf("nested more than %d levels deep", maxShellDepth)
	}
	if err := sub.list(0, via); err != nil {
		return err
	}
	for i := range sub.cmds {
		if sub.cmds[i].Via == "" {
			sub.cmds[i].Via = via
		}
	}
	p.cmds = append(p.cmds, sub.cmds...)
	return nil
}

func unescapeBacktick(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '`' || s[i+1] == '\\' || s[i+1] == '$') {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// procSubst reads <(...) or >(...) as a word.
func (p *shellParser) procSubst() (Word, error) {
	start := p.pos
	via := p.src[p.pos : p.pos+2]
	p.pos += 2
	if err := p.nest(')', via); err != nil {
		return Word{}, err
	}
	raw := p.src[start:p.pos]
	return Word{Raw: raw, Value: raw, Dynamic: true}, nil
}
