package permit

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// word reads one word up to an unquoted metacharacter.
func (p *shellParser) word() (Word, error) {
	start := p.pos
	var val strings.Builder
	w := Word{}
	for !p.eof() {
		c := p.src[p.pos]
		if c == '(' && strings.HasSuffix(p.src[start:p.pos], "=") && isAssignment(p.src[start:p.pos]) {
			// NAME=(a b c): an array assignment.
			from := p.pos
			inner, err := p.balanced("(", ")")
			if err != nil {
				return w, err
			}
			if err := p.extract(inner, "$("); err != nil {
				return w, err
			}
			val.WriteString(p.src[from:p.pos])
			w.Dynamic = true
			continue
		}
		if isMeta(c) {
			break
		}
		switch c {
		case '\\':
			switch {
			case p.peek(1) == '\n':
				p.pos += 2
			case p.pos+1 < len(p.src):
				val.WriteByte(p.src[p.pos+1])
				p.pos += 2
			default:
				val.WriteByte('\\')
				p.pos++
			}
		case '\'':
			end := strings.IndexByte(p.src[p.pos+1:], '\'')
			if end < 0 {
				return w, p.errorf("unterminated '")
			}
			val.WriteString(p.src[p.pos+1 : p.pos+1+end])
			p.pos += end + 2
		case '"':
			p.pos++
			if err := p.dquote(&val, &w); err != nil {
				return w, err
			}
		case '$':
			if err := p.dollar(&val, &w, false); err != nil {
				return w, err
			}
		case '`':
			if err := p.backtick(&val, &w); err != nil {
				return w, err
			}
		case '*', '?':
			w.Glob = true
			val.WriteByte(c)
			p.pos++
		case '[':
			if strings.IndexByte(p.src[p.pos:p.wordEnd()], ']') > 0 {
				w.Glob = true
			}
			val.WriteByte(c)
			p.pos++
		case '~':
			if p.pos == start {
				w.Tilde = true
			}
			val.WriteByte(c)
			p.pos++
		case '{':
			if inner := p.src[p.pos:p.wordEnd()]; braceExpands(inner) {
				w.Dynamic = true
			}
			val.WriteByte(c)
			p.pos++
		default:
			val.WriteByte(c)
			p.pos++
		}
	}
	w.Raw = p.src[start:p.pos]
	w.Value = val.String()
	return w, nil
}

// wordEnd is where the unquoted run of word bytes from pos ends.
func (p *shellParser) wordEnd() int {
	i := p.pos
	for i < len(p.src) && !isMeta(p.src[i]) && p.src[i] != '\'' && p.src[i] != '"' {
		i++
	}
	return i
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

// dquote reads the inside of "..." after the opening quote.
func (p *shellParser) dquote(val *strings.Builder, w *Word) error {
	for !p.eof() {
		c := p.src[p.pos]
		switch c {
		case '"':
			p.pos++
			return nil
		case '\\':
			n := p.peek(1)
			switch n {
			case '\n':
				p.pos += 2
			case '$', '`', '"', '\\':
				val.WriteByte(n)
				p.pos += 2
			default:
				val.WriteByte('\\')
				p.pos++
			}
		case '$':
			if err := p.dollar(val, w, true); err != nil {
				return err
			}
		case '`':
			if err := p.backtick(val, w); err != nil {
				return err
			}
		default:
			val.WriteByte(c)
			p.pos++
		}
	}
	return p.errorf(`unterminated "`)
}

// dollar reads an expansion starting at '$'.
func (p *shellParser) dollar(val *strings.Builder, w *Word, inDQ bool) error {
	start := p.pos
	n := p.peek(1)
	switch {
	case n == '\'' && !inDQ:
		p.pos += 2
		s, err := p.ansiC()
		if err != nil {
			return err
		}
		val.WriteString(s)
		return nil
	case n == '"' && !inDQ:
		p.pos += 2
		return p.dquote(val, w)
	case p.has("$(("):
		inner, err := p.balanced("$((", "))")
		if err != nil {
			return err
		}
		if err := p.extract(inner, "$("); err != nil {
			return err
		}
	case n == '(':
		p.pos += 2
		if err := p.nest(')', "$("); err != nil {
			return err
		}
	case n == '{':
		end := matchBrace(p.src, p.pos+1)
		if end < 0 {
			return p.errorf("unterminated ${")
		}
		inner := p.src[p.pos+2 : end]
		p.pos = end + 1
		if err := p.extract(inner, "$("); err != nil {
			return err
		}
	case n == '_' || n >= 'a' && n <= 'z' || n >= 'A' && n <= 'Z':
		p.pos++
		for !p.eof() && (p.src[p.pos] == '_' || p.src[p.pos] >= 'a' && p.src[p.pos] <= 'z' || p.src[p.pos] >= 'A' && p.src[p.pos] <= 'Z' || p.src[p.pos] >= '0' && p.src[p.pos] <= '9') {
			p.pos++
		}
	case n >= '0' && n <= '9' || strings.IndexByte("@*#?-$!", n) >= 0 && n != 0:
		p.pos += 2
	default:
		val.WriteByte('$')
		p.pos++
		return nil
	}
	w.Dynamic = true
	val.WriteString(p.src[start:p.pos])
	return nil
}

// matchBrace returns the index of the '}' closing the '{' at open, or -1.
func matchBrace(s string, open int) int {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// backtick reads `...` and splits what it holds.
func (p *shellParser) backtick(val *strings.Builder, w *Word) error {
	start := p.pos
	i := p.pos + 1
	for i < len(p.src) && p.src[i] != '`' {
		if p.src[i] == '\\' {
			i++
		}
		i++
	}
	if i >= len(p.src) {
		return p.errorf("unterminated `")
	}
	p.pos = i + 1
	if err := p.subParse(unescapeBacktick(p.src[start+1:i]), "`"); err != nil {
		return err
	}
	w.Dynamic = true
	val.WriteString(p.src[start:p.pos])
	return nil
}

// ansiC reads the inside of $'...' after the opening quote, decoding its
// escapes the way bash does ($'\x72m' is rm).
func (p *shellParser) ansiC() (string, error) {
	var b strings.Builder
	for !p.eof() {
		c := p.src[p.pos]
		if c == '\'' {
			p.pos++
			return b.String(), nil
		}
		if c != '\\' || p.pos+1 >= len(p.src) {
			b.WriteByte(c)
			p.pos++
			continue
		}
		e := p.src[p.pos+1]
		p.pos += 2
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
		case 'x':
			b.WriteString(p.numEscape(16, 2, false))
		case 'u':
			b.WriteString(p.numEscape(16, 4, true))
		case 'U':
			b.WriteString(p.numEscape(16, 8, true))
		case 'c':
			if !p.eof() {
				b.WriteByte(p.src[p.pos] & 0x1f)
				p.pos++
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			p.pos--
			b.WriteString(p.numEscape(8, 3, false))
		default:
			b.WriteByte(e) // \\ \' \" \? and unknown escapes
		}
	}
	return "", p.errorf("unterminated $'")
}

// numEscape reads up to max digits of base and returns the byte or, when
// asRune, the UTF-8 encoding of the code point.
func (p *shellParser) numEscape(base, max int, asRune bool) string {
	start := p.pos
	for p.pos < len(p.src) && p.pos-start < max && isDigit(p.src[p.pos], base) {
		p.pos++
	}
	if p.pos == start {
		return ""
	}
	n, err := strconv.ParseUint(p.src[start:p.pos], base, 32)
	if err != nil {
		return ""
	}
	if asRune {
		if n > utf8.MaxRune {
			return ""
		}
		return string(rune(n))
	}
	return string([]byte{byte(n)})
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
