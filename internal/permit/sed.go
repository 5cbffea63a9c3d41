package permit

import "strings"

// sedScript is what a sed program does beyond editing its stream.
type sedScript struct {
	exec   bool     // the e command or the s///e flag runs shell commands
	writes []string // files the w and W commands and the s///w flag write
	reads  []string // files the r and R commands read
	// empties is a command that takes every line of every file (d, D, z
	// or c with no address or 1,$, s of the whole line): sed -i d * empties
	// each file it edits (red team 19a, finding 5)
	empties bool
	// emptiesNul is empties under -z, where a file without NUL bytes is
	// one line: 1d and $d take it all
	emptiesNul bool
	prints     bool // a command that prints (p, P, l, =, a, i, r...): -n then keeps some text
}

// wholeAddress reports a sed address (spaces taken out) that selects
// every line.
func wholeAddress(a string) bool {
	switch a {
	case "", "1,$", "0~1", "1~1", "$!", "0,$":
		return true
	}
	return false
}

// wholeLine reports a regular expression that matches every line whole.
func wholeLine(re string) bool {
	switch strings.TrimSuffix(strings.TrimPrefix(re, "^"), "$") {
	case ".*", `.\+`, ".+", "":
		return re != "" && re != "^" && re != "$" && re != "^$"
	}
	return false
}

// sedPrograms returns the programs of a sed command line: the -e and
// --expression values, or its first operand, and the files -f and --file
// read programs from; false when a program is computed.
func sedPrograms(args []Word) (progs []string, files []Word, ok bool) {
	var operands []string
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i].Value
			}
			return ""
		}
		switch {
		case v == "--":
			for _, a := range args[i+1:] {
				operands = append(operands, a.Value)
			}
			i = len(args)
		case v == "-e" || v == "--expression":
			progs = append(progs, next())
		case strings.HasPrefix(v, "--expression="):
			progs = append(progs, strings.TrimPrefix(v, "--expression="))
		case v == "--file" || strings.HasPrefix(v, "--file="):
			if f, glued := strings.CutPrefix(v, "--file="); glued {
				files = append(files, Word{Raw: f, Value: f, Dynamic: args[i].Dynamic})
			} else if i+1 < len(args) {
				i++
				files = append(files, args[i])
			}
		case v == "-l" || v == "--line-length":
			next()
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && v[0] == '-':
			// A cluster of flags; e and f take the rest (-ne 'p', -f file).
			for j := 1; j < len(v); j++ {
				if v[j] == 'e' {
					if j+1 < len(v) {
						progs = append(progs, v[j+1:])
					} else {
						progs = append(progs, next())
					}
					break
				}
				if v[j] == 'f' {
					if j+1 < len(v) {
						files = append(files, Word{Raw: v[j+1:], Value: v[j+1:], Dynamic: args[i].Dynamic})
					} else if i+1 < len(args) {
						i++
						files = append(files, args[i])
					}
					break
				}
				if v[j] == 'i' {
					break // the rest is the backup suffix (-i.bak, -ni'x/*')
				}
				if v[j] == 'l' {
					if j+1 == len(v) {
						next()
					}
					break
				}
			}
		default:
			if args[i].Dynamic {
				operands = append(operands, "\x00dynamic")
			} else {
				operands = append(operands, v)
			}
		}
	}
	if len(progs) == 0 && len(files) == 0 && len(operands) > 0 {
		progs = operands[:1]
	}
	for _, p := range progs {
		if p == "\x00dynamic" {
			return nil, nil, false
		}
	}
	return progs, files, true
}

// scanSed reads a sed program for the commands that leave the stream: e,
// s///e, w, W, s///w, r, R.
func scanSed(prog string) sedScript {
	var s sedScript
	i := 0
	restOfLine := func() string {
		j := strings.IndexByte(prog[i:], '\n')
		if j < 0 {
			j = len(prog) - i
		}
		out := strings.TrimSpace(prog[i : i+j])
		i += j
		return out
	}
	// delimited skips the segments ending with the delimiter at prog[i]:
	// a regular expression (re is true) and what follows it (a
	// replacement, y's second list). In a regular expression a bracket
	// expression holds the delimiter as a plain character, as GNU and BSD
	// sed read it: s/.*[/].*/touch x/e runs touch x (red team 13b,
	// finding 1).
	delimited := func(re ...bool) (first string) {
		if i >= len(prog) {
			return ""
		}
		d := prog[i]
		i++
		for n, isRE := range re {
			from := i
			for i < len(prog) && prog[i] != d {
				switch {
				case prog[i] == '\\':
					i++
				case prog[i] == '[' && isRE:
					i = sedBracketEnd(prog, i)
				}
				i++
			}
			if n == 0 {
				first = prog[from:min(i, len(prog))]
			}
			i++
		}
		return first
	}
	// addr is the address before the command at hand; depth counts the
	// braces open (a command in a block is narrowed by the block's
	// address, so only top-level ones count for empties)
	addr, depth := "", 0
	for i < len(prog) {
		c := prog[i]
		switch {
		case c == ';' || c == '\n' || c == '{' || c == '}':
			if c == '{' {
				depth++
			} else if c == '}' {
				depth--
			}
			addr = ""
			i++
			continue
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '!' || c == ',' || c >= '0' && c <= '9' || c == '$' || c == '~' || c == '+':
			addr += string(c)
			i++
			continue
		case c == '/':
			addr += "/"
			delimited(true)
			continue
		case c == '\\' && i+1 < len(prog):
			addr += "/"
			i++
			delimited(true)
			continue
		}
		i++
		every := depth == 0 && wholeAddress(addr)
		everyNul := every || depth == 0 && (addr == "1" || addr == "$")
		addr = ""
		switch c {
		case 'd', 'D', 'z':
			s.empties = s.empties || every
			s.emptiesNul = s.emptiesNul || everyNul
		case 'q', 'Q':
			// quitting writes back only the lines before it: sed -i Q *
			// empties each file, sed -i q keeps its first line
			s.empties, s.emptiesNul = true, true
		case 'p', 'P', 'l', '=':
			s.prints = true
		}
		switch c {
		case 's':
			re := delimited(true, false)
			flags := ""
			for i < len(prog) && strings.IndexByte("gpiImMe0123456789", prog[i]) >= 0 {
				flags += string(prog[i])
				i++
			}
			s.empties = s.empties || every && wholeLine(re)
			s.emptiesNul = s.emptiesNul || everyNul && wholeLine(re)
			s.prints = s.prints || strings.Contains(flags, "p")
			if strings.Contains(flags, "e") {
				s.exec = true
			}
			if i < len(prog) && prog[i] == 'w' {
				i++
				s.writes = append(s.writes, restOfLine())
			}
		case 'y':
			delimited(false, false)
		case 'e':
			s.exec = true
			restOfLine()
		case 'w', 'W':
			s.writes = append(s.writes, restOfLine())
		case 'r', 'R':
			s.prints = true
			s.reads = append(s.reads, restOfLine())
		case 'a', 'i', 'c':
			s.prints = true
			s.empties = s.empties || c == 'c' && every
			s.emptiesNul = s.emptiesNul || c == 'c' && everyNul
			for {
				line := restOfLine()
				if !strings.HasSuffix(line, "\\") || i >= len(prog) {
					break
				}
				i++
			}
		case ':', 'b', 't', 'T':
			for i < len(prog) && prog[i] != ';' && prog[i] != '\n' {
				i++
			}
		}
	}
	return s
}

// sedBracketEnd returns the index of the ] that closes the bracket
// expression opening at prog[open], read as GNU sed's snarf_char_class
// does: a ] first (after an optional ^) is a member, and [:alpha:],
// [.x.] and [=x=] are elements of their own. At a newline or the end of
// the program (where sed stops with an error) it returns that index.
func sedBracketEnd(prog string, open int) int {
	j := open + 1
	if j < len(prog) && prog[j] == '^' {
		j++
	}
	if j < len(prog) && prog[j] == ']' {
		j++
	}
	state, delim := 0, byte(0) // 0 outside an element, 1 after its [, 2 after [: [. [=, 3 after the closing : . =
	for ; j < len(prog); j++ {
		switch c := prog[j]; c {
		case '\n':
			return j
		case '.', ':', '=':
			switch {
			case state == 1:
				delim, state = c, 2
				continue
			case state == 2 && c == delim:
				state = 3
				continue
			}
		case '[':
			if state == 0 {
				state = 1
			}
			continue
		case ']':
			if state == 0 || state == 1 {
				return j
			}
			if state == 3 {
				state = 0
			}
		}
		state &^= 1
	}
	return j
}

// sedInPlace returns what sed -i does besides rewriting its files: the
// backup suffix (-i.bak, -Ei'…', --in-place=…) and the files it edits.
// ok is false without -i; dynamic is set when the suffix is computed.
func sedInPlace(args []Word) (suffix string, files []Word, ok, dynamic bool) {
	progFromOperand := true
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.Value
		switch {
		case v == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case v == "-e" || v == "--expression" || v == "-f" || v == "--file" || v == "-l" || v == "--line-length":
			progFromOperand = progFromOperand && (v == "-l" || v == "--line-length")
			i++
		case strings.HasPrefix(v, "--expression=") || strings.HasPrefix(v, "--file="):
			progFromOperand = false
		case v == "--in-place" || strings.HasPrefix(v, "--in-place="):
			ok = true
			suffix, _ = strings.CutPrefix(v, "--in-place=")
			suffix = strings.TrimPrefix(suffix, "--in-place")
			dynamic = dynamic || w.Dynamic
		case strings.HasPrefix(v, "--"):
		case len(v) > 1 && v[0] == '-':
			for j := 1; j < len(v); j++ {
				c := v[j]
				if c == 'i' {
					ok, suffix = true, v[j+1:]
					dynamic = dynamic || w.Dynamic
					break
				}
				if c == 'e' || c == 'f' || c == 'l' {
					if c != 'l' {
						progFromOperand = false
					}
					if j+1 == len(v) {
						i++
					}
					break
				}
			}
		default:
			files = append(files, w)
		}
	}
	if progFromOperand && len(files) > 0 {
		files = files[1:]
	}
	return suffix, files, ok, dynamic
}

// sedBackups returns the paths GNU sed renames a file to before it
// rewrites it: its name plus the suffix, or, when the suffix holds a *,
// the suffix with each * replaced by the file's name — relative to the
// current folder, so -i'.git/hooks/*' moves pre-commit into git's hooks.
// Both the file's base name and the whole operand are tried for *, and
// the result also beside the file.
func sedBackups(suffix string, file string) []string {
	if suffix == "" {
		return nil
	}
	if !strings.Contains(suffix, "*") {
		return []string{file + suffix}
	}
	base := file[strings.LastIndexByte(file, '/')+1:]
	out := []string{strings.ReplaceAll(suffix, "*", base), strings.ReplaceAll(suffix, "*", file)}
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		out = append(out, file[:i+1]+out[0])
	}
	return out
}

// sedFileHits judges the programs sed -f and --file read from files as
// the -e ones are judged: e and s///e run commands, w and W write, r and
// R read (red team 12b, finding 10: sed -f s.sed with "1e ./evil.sh" in
// s.sed). A script that cannot be read here (standard input from a pipe,
// a computed name, too large) asks.
func (b *bashCheck) sedFileHits(pt part) []hit {
	_, files, _ := sedPrograms(pt.view.args)
	if b.env.FS == nil {
		return nil // no files to read: nothing is known to be there
	}
	var hs []hit
	for _, f := range files {
		if f.Value == "/dev/stdin" {
			f.Value = "-"
		}
		body, why := b.contentOf(pt, &f)
		if why != "" {
			hs = append(hs, hit{id: FloorDynamicCommand, detail: "sed -f " + why + ": the commands it runs and the files it writes are not known"})
			continue
		}
		s := scanSed(string(body))
		if s.exec {
			hs = append(hs, hit{id: FloorDynamicCommand, detail: "sed's e command in " + f.Raw + " runs shell commands"})
		}
		for _, w := range s.writes {
			hs = append(hs, writeHits(pathWord(w), pt.cwds, b.env, "sed -f "+f.Raw)...)
		}
		for _, r := range s.reads {
			if p, ok := credentialInRead(pathWord(r), pt.cwds, true); ok {
				hs = append(hs, hit{id: FloorCredentialRead, detail: "sed -f " + f.Raw + " reads " + p})
			}
		}
	}
	return hs
}
