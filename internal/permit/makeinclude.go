package permit

import (
	"path"
	"strings"
)

// make reads more than its makefile: include, -include and sinclude
// (BSD make's .include) read other makefiles, and load a plugin, whose
// rules and $(shell …) run as the makefile's own. An include of a file
// outside the working directory runs code nobody here wrote (red team
// 14b, finding 7: include ../outside/x.mk; -include /abs, $(wildcard
// ../outside/*.mk), D := ../outside then include $(D)/x.mk). So the
// makefile make would read (-f, else GNUmakefile, makefile, Makefile) is
// read here too, with its includes inside the folder, four deep: an
// include whose file, glob match or link lies outside asks, and so does
// one whose name the policy cannot work out (a function other than
// wildcard, a variable the makefiles do not set). A variable set in
// several places (ifeq branches) stands for each of its values.

// makeDirectives are the directives whose words name files make reads.
var makeDirectives = setOf("include", "-include", "sinclude", "load", "-load",
	".include", ".-include", ".sinclude", ".dinclude")

// maxMakeDepth bounds how deep includes are followed.
const maxMakeDepth = 4

// makeIncludeHits: make reads a makefile that includes one from outside.
func makeIncludeHits(v view, cwds cwdSet, env Env) []hit {
	if (v.name != "make" && v.name != "gmake" && v.name != "bmake") || env.FS == nil || cwds.unknown {
		return nil
	}
	dirs := cwds.dirs
	if ds := optionFiles(v.args, []string{"-C", "--directory"}); len(ds) > 0 {
		got, ok := cwds.resolve(ds[len(ds)-1])
		if !ok {
			return nil // judged where -C is read
		}
		dirs = got
	}
	for _, d := range dirs {
		files := optionFiles(v.args, []string{"-f", "--file", "--makefile"})
		var names []string
		for _, f := range files {
			names = append(names, f.Value)
		}
		if names == nil {
			names = env.defaultMakefile(d, v.name)
		}
		m := &makeReader{env: env, dir: d, vars: map[string][]string{"CURDIR": {d}}}
		for _, n := range names {
			if why, ok := m.read(n, 0); ok {
				return []hit{{id: FloorCodeExec, detail: v.name + " " + why}}
			}
		}
	}
	return nil
}

// defaultMakefile is the makefile make reads in dir when none is named.
func (e Env) defaultMakefile(dir, name string) []string {
	order := []string{"GNUmakefile", "makefile", "Makefile"}
	if name == "bmake" {
		order = []string{"BSDmakefile", "makefile", "Makefile"}
	}
	for _, n := range order {
		if _, err := e.FS.Lstat(path.Join(dir, n)); err == nil {
			return []string{n}
		}
	}
	return nil
}

// makeReader reads makefiles as make does, for what they include.
type makeReader struct {
	env  Env
	dir  string              // where make runs: relative names start there
	vars map[string][]string // every value each variable is given
}

// read judges one makefile (a name relative to where make runs) and
// what it includes; it reports why it reaches outside.
func (m *makeReader) read(name string, depth int) (string, bool) {
	file := name
	if !path.IsAbs(file) {
		file = path.Join(m.dir, file)
	}
	real := m.env.realPath(file)
	if !m.env.inside(real) {
		return "reads " + real + ", a makefile outside the working directory: its rules run as the project's", true
	}
	body, err := m.env.FS.ReadFile(real)
	if err != nil || depth > maxMakeDepth {
		return "", false // a missing -include is skipped; a missing include stops make
	}
	for _, line := range makeLines(string(body)) {
		if why, ok := m.line(file, line, depth); ok {
			return why, true
		}
	}
	return "", false
}

// line notes an assignment or judges a directive of one logical line.
func (m *makeReader) line(file, line string, depth int) (string, bool) {
	if strings.HasPrefix(line, "\t") {
		return "", false // a recipe
	}
	line = strings.TrimSpace(line)
	word, rest, _ := strings.Cut(line, " ")
	if !makeDirectives[word] {
		m.assign(line)
		return "", false
	}
	rest = strings.TrimSpace(rest)
	if strings.HasPrefix(word, ".") {
		rest = strings.Trim(rest, `"<>`)
	}
	words, ok := m.expand(rest, 0)
	if !ok {
		return file + " has `" + line + "`, an include whose file is known only when make runs: it may read a makefile from outside the working directory", true
	}
	for _, w := range strings.Fields(words) {
		if strings.ContainsAny(w, "*?[") {
			if out, ok := globOutside(m.env, m.dir, w); ok {
				return file + " includes " + w + ", which reaches " + out + ", outside the working directory: its rules run as the project's", true
			}
			continue
		}
		if why, ok := m.read(w, depth+1); ok {
			return why, true
		}
	}
	return "", false
}

// assign notes a variable assignment (=, :=, ::=, :::=, ?=, +=, !=).
func (m *makeReader) assign(line string) {
	for _, pre := range []string{"override ", "export ", "private "} {
		line = strings.TrimPrefix(line, pre)
	}
	i := strings.Index(line, "=")
	if i <= 0 {
		return
	}
	name, op := line[:i], "="
	for _, o := range []string{":::", "::", ":", "?", "+", "!"} {
		if n, ok := strings.CutSuffix(name, o); ok {
			name, op = n, o+"="
			break
		}
	}
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, " \t$:#") {
		return // a rule, or a name computed when make runs
	}
	val := strings.TrimSpace(line[i+1:])
	switch op {
	case "!=":
		val = "$(shell " + val + ")" // known only when it runs
	case "+=":
		var out []string
		for _, old := range m.vars[name] {
			out = append(out, old+" "+val)
		}
		m.vars[name] = append(m.vars[name], out...)
		return
	}
	m.vars[name] = append(m.vars[name], val)
}

// maxMakeValues bounds the values an expansion stands for.
const maxMakeValues = 16

// expand works out the words of s with every value of each variable it
// names; false when it names a function other than wildcard, a variable
// no makefile sets, or too many values.
func (m *makeReader) expand(s string, depth int) (string, bool) {
	if depth > 8 {
		return "", false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '$' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		ref, n := makeRef(s[i+1:])
		if n == 0 {
			return "", false
		}
		i += n
		if ref == "$" {
			b.WriteByte('$')
			continue
		}
		got, ok := m.ref(ref, depth)
		if !ok {
			return "", false
		}
		b.WriteString(got)
	}
	return b.String(), true
}

// ref expands one reference: a variable, a substitution reference
// $(V:a=b), or $(wildcard …).
func (m *makeReader) ref(ref string, depth int) (string, bool) {
	if arg, ok := strings.CutPrefix(ref, "wildcard "); ok {
		return m.expand(arg, depth+1)
	}
	name, subst, hasSubst := strings.Cut(ref, ":")
	vals, ok := m.vars[name]
	if !ok || len(vals) > maxMakeValues || strings.ContainsAny(name, " $(){}") {
		return "", false
	}
	var all []string
	for _, v := range vals {
		got, ok := m.expand(v, depth+1)
		if !ok {
			return "", false
		}
		if hasSubst {
			from, to, ok := strings.Cut(subst, "=")
			if !ok || strings.Contains(from, "%") {
				return "", false
			}
			ws := strings.Fields(got)
			for i, w := range ws {
				if s, ok := strings.CutSuffix(w, from); ok {
					ws[i] = s + to
				}
			}
			got = strings.Join(ws, " ")
		}
		all = append(all, got)
	}
	return strings.Join(all, " "), true
}

// makeRef reads the reference after a $: (…), {…} with nesting, or one
// character; it returns the reference and how many bytes it took.
func makeRef(s string) (string, int) {
	if s[0] != '(' && s[0] != '{' {
		return s[:1], 1
	}
	open, close := s[0], byte(')')
	if open == '{' {
		close = '}'
	}
	level := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case open:
			level++
		case close:
			if level--; level == 0 {
				return s[1:i], i + 1
			}
		}
	}
	return "", 0
}

// makeLines are a makefile's logical lines: continuations joined,
// comments cut (not inside a recipe, where # goes to the shell).
func makeLines(body string) []string {
	var out []string
	var cur strings.Builder
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSuffix(l, "\r")
		if c, ok := strings.CutSuffix(l, "\\"); ok {
			cur.WriteString(c + " ")
			continue
		}
		cur.WriteString(l)
		line := cur.String()
		cur.Reset()
		if !strings.HasPrefix(line, "\t") {
			if i := strings.Index(line, "#"); i >= 0 && (i == 0 || line[i-1] != '\\') {
				line = line[:i]
			}
		}
		out = append(out, line)
	}
	return out
}
