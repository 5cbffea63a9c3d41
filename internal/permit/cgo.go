package permit

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// A Go file with import "C" has a preamble the C compiler reads when go
// build, vet, test, run or install (or go list -export) works on its
// package: #include ".env" or #cgo CFLAGS: -I../../home/.aws with
// #include "credentials" prints the file's lines in gcc's diagnostics
// (red team 11b and 12b, finding 8). The floor reads the .go files of the
// packages the command names and of the module's own packages they
// import, and the C, assembly and header files of each cgo package: an
// #include must name a plain relative header, which, when it is in the
// package, must hold no credential and not lead out of the working
// directory (its own #include lines are read the same way); include
// flags in #cgo lines and a macro as the file of an #include ask.

// cgoLimits bound the look: packages, files, bytes of one file, header depth.
const (
	cgoMaxDirs   = 2000
	cgoMaxFiles  = 10000
	cgoMaxBytes  = 1 << 20
	cgoMaxDepth  = 8
	cgoHeadBytes = 64 << 10
)

// goCgoSubs are go's subcommands that run the C compiler on cgo packages.
var goCgoSubs = setOf("build", "vet", "test", "run", "install")

// cgoSources are the files go hands the C compiler (or its assembler, whose
// #include reads files too) in a package's folder.
var cgoSources = setOf(".c", ".cc", ".cpp", ".cxx", ".m", ".s", ".S", ".sx", ".f", ".F", ".for", ".f90")

// cgoIncludeFlag finds compiler flags that add folders or files to what
// the preprocessor reads (-I, -isystem, -iquote, -idirafter, -include,
// -imacros, --sysroot, -B, -F, -Wp, and -Xpreprocessor), spec files and
// @FILE option files.
var cgoIncludeFlag = regexp.MustCompile(`^(-I|-i|--include|--imacros|--sysroot|-B|-F|-Wp,|-Wa,|-Xpreprocessor|-Xassembler|-specs|--specs|-nostdinc)|@`)

// cgoHits judges the cgo code of the packages a go command compiles.
func cgoHits(v view, cwds cwdSet, env Env) []hit {
	if env.FS == nil || cwds.unknown {
		return nil
	}
	args := singleDash(v.args)
	bases := cwds.dirs
	for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") {
		if c, ok := strings.CutPrefix(args[0].Value, "-C="); ok || args[0].Value == "-C" && len(args) > 1 {
			w := pathWord(c)
			if !ok {
				args, w = args[1:], args[1]
			}
			var known bool
			if bases, known = cwds.resolve(w); !known {
				return []hit{{id: FloorCredentialRead, detail: "go -C " + w.Raw + ": a folder known only when it runs, whose C code may include any file"}}
			}
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return nil
	}
	sub := args[0].Value
	if !goCgoSubs[sub] && !(sub == "list" && hasLong(optionWords(args), "-export", "-compiled")) {
		return nil
	}
	var pkgs []Word
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a.Value == "--" || a.Value == "-args" {
			break
		}
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			n, _, glued := strings.Cut(a.Value[1:], "=")
			if !glued && goValueFlags[n] {
				i++
			}
			continue
		}
		pkgs = append(pkgs, a)
		if sub == "run" && !strings.HasSuffix(a.Value, ".go") {
			break // the rest are the program's arguments
		}
	}
	if len(pkgs) == 0 {
		pkgs = []Word{{Raw: ".", Value: "."}}
	}
	var dirs []string
	for _, d := range bases {
		for _, p := range pkgs {
			ds, why := goPackageDirs(p, d, env)
			if why != "" {
				return []hit{{id: FloorCredentialRead, detail: "go " + sub + " " + p.Raw + ": " + why}}
			}
			dirs = append(dirs, ds...)
		}
	}
	if why := cgoCheck(env, dirs); why != "" {
		return []hit{{id: FloorCredentialRead, detail: "go " + sub + ": " + why}}
	}
	return nil
}

// goPackageDirs returns the folders of the packages p names when go runs
// in dir: a folder, a pattern with /..., a .go file's folder, an import
// path under the main module; other import paths are not the project's.
func goPackageDirs(p Word, dir string, env Env) ([]string, string) {
	n := p.Value
	if p.Dynamic {
		return nil, "packages known only when it runs, whose C code may include any file"
	}
	if strings.HasSuffix(n, ".go") {
		return []string{path.Dir(path.Join(dir, n))}, ""
	}
	if !(n == "." || n == ".." || strings.HasPrefix(n, "./") || strings.HasPrefix(n, "../") || path.IsAbs(n)) {
		mod, root, ok := env.moduleRoot(dir)
		rest, under := strings.CutPrefix(n, mod)
		if !ok || !under || rest != "" && rest[0] != '/' && rest != "..." {
			return nil, "" // the standard library or a dependency
		}
		n = root + rest
	}
	base, pattern := strings.CutSuffix(n, "/...")
	if base == "..." {
		base, pattern = ".", true
	}
	if !path.IsAbs(base) {
		base = path.Join(dir, base)
	}
	if !pattern {
		return []string{base}, ""
	}
	out := []string{base}
	for i := 0; i < len(out); i++ {
		ents, _ := env.FS.ReadDir(out[i])
		for _, e := range ents {
			sub := path.Join(out[i], e.Name())
			if _, err := env.FS.Lstat(path.Join(sub, "go.mod")); err == nil {
				continue // another module: ./... leaves it out
			}
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !strings.HasPrefix(e.Name(), "_") && e.Name() != "testdata" {
				if out = append(out, sub); len(out) > cgoMaxDirs {
					return nil, "more than " + strconv.Itoa(cgoMaxDirs) + " package folders to look through for C code"
				}
			}
		}
	}
	return out, ""
}

// cgoCheck reads the packages in dirs and the module's own packages they
// import, and says why one's C code would read a file it should not.
func cgoCheck(env Env, dirs []string) string {
	seen := map[string]bool{}
	files := 0
	for i := 0; i < len(dirs); i++ {
		dir := env.realPath(dirs[i])
		if seen[dir] {
			continue
		}
		if seen[dir] = true; len(seen) > cgoMaxDirs {
			return "more than " + strconv.Itoa(cgoMaxDirs) + " packages to look through for C code"
		}
		ents, err := env.FS.ReadDir(dir)
		if err != nil {
			continue
		}
		mod, root, modOK := env.moduleRoot(dir)
		cgo := false
		for _, e := range ents {
			name := e.Name()
			if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				continue
			}
			if files++; files > cgoMaxFiles {
				return "more than " + strconv.Itoa(cgoMaxFiles) + " Go files to look through for C code"
			}
			file := path.Join(dir, name)
			imports, preamble, why := goFileImports(env, file)
			if why != "" {
				return why
			}
			for _, ip := range imports {
				if ip == "C" {
					cgo = true
				} else if rest, ok := strings.CutPrefix(ip, mod+"/"); modOK && ok {
					dirs = append(dirs, path.Join(root, rest))
				}
			}
			if why := cHits(env, preamble, file, dir, 0); why != "" {
				return why
			}
		}
		for _, e := range ents {
			if e.IsDir() || !cgo && path.Ext(e.Name()) != ".s" || !cgoSources[path.Ext(e.Name())] {
				continue
			}
			file := path.Join(dir, e.Name())
			body, why := cgoRead(env, file)
			if why != "" {
				return why
			}
			if why := cHits(env, string(body), file, dir, 0); why != "" {
				return why
			}
		}
	}
	return ""
}

// goFileImports returns a Go file's imports and its cgo preamble (the
// comment above import "C").
func goFileImports(env Env, file string) ([]string, string, string) {
	body, err := env.readHead(env.realPath(file), cgoHeadBytes)
	if err != nil {
		return nil, "", ""
	}
	if len(body) == cgoHeadBytes {
		if body, err = env.readHead(env.realPath(file), cgoMaxBytes+1); err != nil {
			return nil, "", ""
		}
	}
	truncated := len(body) > cgoMaxBytes
	if truncated {
		body = body[:cgoMaxBytes]
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, body, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		if truncated {
			return nil, "", file + " is too large to look through for a C preamble"
		}
		if bytes.Contains(body, []byte(`"C"`)) {
			return nil, "", file + " cannot be read here for its C preamble (" + err.Error() + ")"
		}
		return nil, "", ""
	}
	var imports []string
	var preamble strings.Builder
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.IMPORT {
			continue
		}
		for _, sp := range gd.Specs {
			is := sp.(*ast.ImportSpec)
			ip, _ := strconv.Unquote(is.Path.Value)
			imports = append(imports, ip)
			if ip != "C" {
				continue
			}
			for _, g := range []*ast.CommentGroup{is.Doc, gd.Doc} {
				if g == nil {
					continue
				}
				for _, c := range g.List { // as written: CommentGroup.Text drops lines it takes for directives
					t := strings.TrimPrefix(c.Text, "//")
					t = strings.TrimSuffix(strings.TrimPrefix(t, "/*"), "*/")
					preamble.WriteString(t + "\n")
				}
			}
		}
	}
	return imports, preamble.String(), ""
}

// cgoRead reads a C file or header, bounded.
func cgoRead(env Env, file string) ([]byte, string) {
	body, err := env.readHead(env.realPath(file), cgoMaxBytes+1)
	if err != nil {
		return nil, ""
	}
	if len(body) > cgoMaxBytes {
		return nil, file + " is too large to look through for its #include lines"
	}
	return body, ""
}

// cDirective finds a preprocessor line: # (or the digraph %:) and its name.
var cDirective = regexp.MustCompile(`^\s*(?:#|%:|\?\?=)\s*([A-Za-z_]+)\s*(.*)$`)

// cComments are C's comments, which the preprocessor takes out before it
// reads a directive (#/**/include).
var cComments = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)

// cHits reads C text (a cgo preamble, a C file or a header in dir) for
// what it makes the compiler read, and says why that is not fine.
func cHits(env Env, text, file, pkgDir string, depth int) string {
	if text == "" {
		return ""
	}
	text = strings.ReplaceAll(text, "\\\r\n", "")
	text = strings.ReplaceAll(text, "\\\n", "")
	text = cComments.ReplaceAllString(text, " ")
	if strings.Contains(text, "incbin") {
		return file + " embeds a file with .incbin"
	}
	for _, line := range strings.Split(text, "\n") {
		m := cDirective.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		switch m[1] {
		case "cgo":
			_, flags, _ := strings.Cut(m[2], ":")
			for _, f := range strings.Fields(flags) {
				if cgoIncludeFlag.MatchString(strings.Trim(f, `"'`)) {
					return file + ": #cgo " + strings.TrimSpace(m[2]) + ": " + f + " makes the C compiler read files of its choosing"
				}
			}
		case "include", "include_next", "import", "embed":
			if why := cInclude(env, m[2], file, pkgDir, depth); why != "" {
				return file + ": #" + m[1] + " " + strings.TrimSpace(m[2]) + ": " + why
			}
		}
	}
	return ""
}

// cInclude judges the operand of one #include.
func cInclude(env Env, arg, file, pkgDir string, depth int) string {
	arg = strings.TrimSpace(arg)
	var name string
	switch {
	case strings.HasPrefix(arg, `"`) && strings.Count(arg, `"`) >= 2:
		name = arg[1 : 1+strings.IndexByte(arg[1:], '"')]
	case strings.HasPrefix(arg, "<") && strings.Contains(arg, ">"):
		name = arg[1:strings.IndexByte(arg, '>')]
	default:
		return "the file is a macro, known only when the compiler runs"
	}
	if name == "" || path.IsAbs(name) || strings.HasPrefix(name, "~") || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, "/../") || strings.HasSuffix(name, "/..") {
		return "it names a file outside the package"
	}
	if isCredential(name) {
		return "it names a credential file"
	}
	for _, d := range []string{path.Dir(file), pkgDir} {
		p := path.Join(d, name)
		if _, err := env.FS.Lstat(p); err != nil {
			continue
		}
		real := env.realPath(p)
		switch {
		case !env.inside(real):
			return p + " leads to " + real + ", outside the working directory"
		case isCredential(real) || env.secretFileScan(real, keyScanWalk):
			return p + " holds credentials"
		case depth >= cgoMaxDepth:
			return "headers nested too deep to look through"
		}
		body, why := cgoRead(env, real)
		if why != "" {
			return why
		}
		if why := cHits(env, string(body), real, pkgDir, depth+1); why != "" {
			return why
		}
		return ""
	}
	return "" // a system header
}
