package permit

import (
	"io/fs"
	"path"
	"regexp"
	"strings"
)

// A searcher or linter that picks its files by a pattern of its own reads
// the files the pattern selects wherever its walk reaches them, dot files
// and git-ignored ones included: rg -g '*' whitelists every file past its
// hidden-file filter and .gitignore, flake8 --filename='*' lints .env,
// black --include/--exclude turns .gitignore and its own default exclusions
// (.git among them) off (red team 12b, findings 5 and 6).

// globSelector returns a test of whether a file (an absolute path) is
// selected by one of the shell-style globs (** and * taken to cross /,
// {a,b} alternatives, [..] classes; fold: any letter case). A file is
// selected when it or a folder above it ends with a glob's match. A glob
// that cannot be read selects every file.
func globSelector(globs []string, fold bool) func(string) bool {
	var res []*regexp.Regexp
	for _, g := range globs {
		re, err := regexp.Compile(globRegexp(strings.TrimPrefix(g, "/"), fold))
		if err != nil {
			return func(string) bool { return true }
		}
		res = append(res, re)
	}
	return func(f string) bool {
		for p := f; p != "/" && p != "." && p != ""; p = path.Dir(p) {
			for _, re := range res {
				if re.MatchString(p) {
					return true
				}
			}
		}
		return false
	}
}

// globRegexp writes a glob as a regular expression matching the end of a path.
func globRegexp(g string, fold bool) string {
	var b strings.Builder
	if fold {
		b.WriteString("(?i)")
	}
	b.WriteString("(?:^|/)")
	depth := 0
	for i := 0; i < len(g); i++ {
		switch c := g[i]; {
		case c == '*':
			b.WriteString(".*")
		case c == '?':
			b.WriteString(".")
		case c == '[':
			j := strings.IndexByte(g[i+1:], ']')
			if j < 0 {
				b.WriteString(`\[`)
				continue
			}
			class := g[i+1 : i+1+j]
			if strings.HasPrefix(class, "!") {
				class = "^" + class[1:]
			}
			b.WriteString("[" + strings.ReplaceAll(class, `\`, `\\`) + "]")
			i += j + 1
		case c == '{':
			depth++
			b.WriteString("(?:")
		case c == '}' && depth > 0:
			depth--
			b.WriteString(")")
		case c == ',' && depth > 0:
			b.WriteString("|")
		case c == '\\' && i+1 < len(g):
			i++
			b.WriteString(regexp.QuoteMeta(g[i : i+1]))
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}

// rgSelects returns the test of the files rg's -g/--glob/--iglob and
// --type-add globs whitelist, or false when none whitelists (a !glob
// only leaves files out). An --ignore-file can whitelist with !, so it
// selects every file.
func rgSelects(args []Word) (func(string) bool, bool) {
	opts, _, _ := searchWords(args, "rg")
	var globs, iglobs []string
	fold := false
	for _, o := range opts {
		switch o.name {
		case "--glob-case-insensitive":
			fold = true
		case "--ignore-file":
			return func(string) bool { return true }, true
		case "-g", "--glob", "--iglob", "--type-add":
			vals := []string{o.val}     // a glob's own commas are {a,b} alternatives
			if o.name == "--type-add" { // NAME:GLOB[,GLOB]
				_, v, _ := strings.Cut(o.val, ":")
				if strings.HasPrefix(v, "include:") {
					continue
				}
				vals = strings.Split(v, ",")
			}
			for _, g := range vals {
				switch {
				case g == "" || strings.HasPrefix(g, "!"):
				case o.name == "--iglob":
					iglobs = append(iglobs, g)
				default:
					globs = append(globs, g)
				}
			}
		}
	}
	if len(globs)+len(iglobs) == 0 {
		return nil, false
	}
	a, b := globSelector(globs, fold), globSelector(iglobs, true)
	return func(f string) bool { return len(globs) > 0 && a(f) || len(iglobs) > 0 && b(f) }, true
}

// flake8Selects returns flake8's --filename patterns as a test of the
// files they select (they replace *.py, and flake8 skips no dot file),
// and its operands, the files and folders it walks.
func flake8Selects(args []Word) (func(string) bool, []Word, bool) {
	var pats []string
	ops := walkOptions(args, flake8Values, func(k, val string) {
		if k == "--filename" {
			pats = append(pats, strings.Split(val, ",")...)
		}
	})
	if len(pats) == 0 {
		return nil, nil, false
	}
	return globSelector(pats, false), ops, true
}

// ruffSelects returns ruff's --include and --extend-include patterns as
// a test of the files they select, and its operands, the files and
// folders it walks (its subcommand left out; none is ".").
func ruffSelects(args []Word) (func(string) bool, []Word, bool) {
	var pats []string
	ops := walkOptions(args, fixers["ruff"].values, func(k, val string) {
		if k == "--include" || k == "--extend-include" {
			pats = append(pats, strings.Split(val, ",")...)
		}
	})
	if len(pats) == 0 {
		return nil, nil, false
	}
	if len(ops) > 0 && fixers["ruff"].subs[ops[0].Value] {
		ops = ops[1:]
	}
	if len(ops) == 0 {
		ops = []Word{pathWord(".")}
	}
	return globSelector(pats, false), ops, true
}

// walkOptions calls opt with each long or short option of args and its
// value (glued after "=", or the next word for an option takesValue
// names), and returns the operands: words that are no option, "-", and
// words known only when they run.
func walkOptions(args []Word, takesValue map[string]bool, opt func(name, val string)) []Word {
	var ops []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Dynamic || !strings.HasPrefix(a.Value, "-") || a.Value == "-" {
			ops = append(ops, a)
			continue
		}
		k, val, eq := strings.Cut(a.Value, "=")
		if !eq && takesValue[k] && i+1 < len(args) {
			i++
			val = args[i].Value
		}
		opt(k, val)
	}
	return ops
}

// flake8Values are flake8's options that take the next word.
var flake8Values = setOf("--filename", "--exclude", "--extend-exclude", "--select", "--ignore", "--extend-ignore",
	"--extend-select", "--per-file-ignores", "--max-line-length", "--max-doc-length", "--max-complexity", "--format",
	"--output-file", "--config", "--append-config", "--jobs", "-j", "--stdin-display-name", "--enable-extensions",
	"--require-plugins", "--indent-size", "--builtins", "--color", "--extend-default-ignore")

// blackDefaultInclude is the files black formats when --include is not given.
var blackDefaultInclude = regexp.MustCompile(`(\.pyi?|\.ipynb)$`)

// matchAll matches every text.
var matchAll = regexp.MustCompile(``)

// blackDefaultExcludes are the folders black's default --exclude leaves out.
var blackDefaultExcludes = setOf(".direnv", ".eggs", ".git", ".hg", ".ipynb_checkpoints", ".mypy_cache", ".nox",
	".pytest_cache", ".ruff_cache", ".tox", ".svn", ".venv", ".vscode", "__pypackages__", "_build", "buck-out",
	"build", "dist", "venv")

// selectionHits: black given --include, --exclude, --extend-exclude or
// --force-exclude, or ruff given --include or --extend-include, reads,
// and when it writes (black unless --check or --diff, ruff format unless
// --check or --diff, ruff check --fix) rewrites, every file under its
// folders its selection matches (black's --exclude is taken to leave
// nothing out, ruff's ignore files too, as --no-respect-gitignore makes
// them): a credential file among them asks, and so does a protected file
// the tool would not have touched by default (.git/HEAD and
// .claude/settings.json parse as Python). ruff --extend-include='*'
// lints .env, and an undefined name prints its token (red team 18a,
// finding 4).
func selectionHits(v view, cwds cwdSet, env Env, network bool) []hit {
	tool, args := v.name, v.args
	if tool != "black" && tool != "ruff" {
		if tool = pyTool(args); !isPython(v.name) || tool != "black" && tool != "ruff" || len(args) < 2 {
			return nil
		}
		args = args[2:]
	}
	if env.FS == nil {
		return nil
	}
	var selects func(rel, p string) bool
	var ops []Word
	writes := fixerWrites(tool, args) != nil
	if tool == "black" {
		include, overridden := blackDefaultInclude, false
		ops = walkOptions(args, fixers["black"].values, func(k, val string) {
			switch k {
			case "--include":
				var err error
				if include, err = regexp.Compile(val); err != nil {
					include = matchAll // a Python regex Go cannot read includes every file
				}
				overridden = true
			case "--exclude", "--extend-exclude", "--force-exclude":
				overridden = true
			}
		})
		if !overridden {
			return nil
		}
		selects = func(rel, p string) bool { return include.MatchString(rel) || include.MatchString(p) }
	} else {
		sel, rops, ok := ruffSelects(args)
		if !ok {
			return nil
		}
		ops, selects = rops, func(_, p string) bool { return sel(p) }
	}
	readID := FloorCredentialRead
	if network {
		readID = FloorCredentialExfil
	}
	for _, o := range ops {
		abs, ok := cwds.resolve(o)
		if !ok {
			continue
		}
		for _, root := range abs {
			root = env.realPath(root)
			var found []hit
			complete := walkFiles(env, root, 20000, func(p, real string) bool {
				rel := "/" + strings.TrimPrefix(p, root+"/")
				if !selects(rel, p) {
					return false
				}
				if env.secretFileScan(real, keyScanWalk) {
					found = []hit{{id: readID, detail: tool + " with its own file selection reads every file it selects, " + p + " among them"}}
					return true
				}
				if !writes || blackDefaultInclude.MatchString(p) && !blackExcluded(rel) {
					return false // formatting Python is its work
				}
				if why, ok := env.protectedFile(real); ok {
					found = []hit{{id: FloorProtectedFile, detail: tool + " with its own file selection rewrites every file it selects that parses as Python, " + p + " among them (" + why + ")"}}
					return true
				}
				return false
			})
			if !complete {
				return []hit{{id: readID, detail: tool + " with its own file selection reads every file under " + root + ": too many files to look through"}}
			}
			if found != nil {
				return found
			}
		}
	}
	return nil
}

// blackExcluded reports a path inside a folder black's default --exclude
// leaves out.
func blackExcluded(rel string) bool {
	segs := splitSegs(rel)
	for _, s := range segs[:max(len(segs)-1, 0)] {
		if blackDefaultExcludes[s] {
			return true
		}
	}
	return false
}

// walkFiles calls visit with every file under dir, dot files and .git
// included (not inside dependency folders), with where a link leads,
// until visit returns true; false when there were more than max entries.
func walkFiles(env Env, dir string, max int, visit func(p, real string) bool) bool {
	if fi, err := env.FS.Lstat(dir); err != nil || !fi.IsDir() {
		if err == nil {
			visit(dir, env.realPath(dir))
		}
		return true
	}
	return walkTree(env, dir, max, func(full string, e fs.DirEntry) (string, bool) {
		switch {
		case e.IsDir() && dependencyDirs[e.Name()]:
		case e.IsDir():
			return full, false
		case e.Type()&fs.ModeSymlink != 0:
			return "", visit(full, env.realPath(full))
		default:
			return "", visit(full, full)
		}
		return "", false
	})
}

// walkTree calls visit with each entry under dir, breadth first, until it
// says stop; visit names the folder to walk into for the entry ("" for
// none: a folder entry is not walked unless it is named). false when there
// were more than max entries.
func walkTree(env Env, dir string, max int, visit func(full string, e fs.DirEntry) (next string, stop bool)) bool {
	seen := 0
	queue := []string{dir}
	for len(queue) > 0 {
		d := queue[0]
		queue = queue[1:]
		ents, err := env.FS.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range ents {
			if seen++; seen > max {
				return false
			}
			next, stop := visit(path.Join(d, e.Name()), e)
			if stop {
				return true
			}
			if next != "" {
				queue = append(queue, next)
			}
		}
	}
	return true
}
