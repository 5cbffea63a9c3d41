package permit

import (
	"io/fs"
	"path"
	"strings"
)

// Red team 16b, false positives: wc -l $(git ls-files), find . -name
// '*.go' | xargs grep -n TODO and for f in *.go; do gofmt -l $f; done
// were asked, because a word known only when it runs could name any file.
// Here it cannot: a lister (find, git ls-files) prints names under its
// roots, and a loop's variable takes its list's words. So such a word is
// judged as what it can be: the names under roots inside the folder,
// provided no name there is one the shell or xargs would split, glob or
// take as an option, no listed link leads anywhere, no listed folder is
// read whole, and no credential is where the lister lists (the floors'
// own checks of readers and writers still apply: a writer fed a listing
// asks, as one fed any word known only when it runs does).

// listing is what a lister prints: names under roots (resolved from the
// lister's folder), dot files too, those names passes.
type listing struct {
	by      string
	roots   []Word
	names   func(string) bool // nil: every name, folders too
	tracked bool              // git ls-files of the index alone: the tracked files are what it lists
	nul     bool              // names end in a NUL (-z, -print0), not a newline
}

// gitListOpts are git ls-files's options that print paths only.
var gitListOpts = setOf("-c", "--cached", "-o", "--others", "-m", "--modified", "--exclude-standard", "-z")

// listerOf reads a command that prints file names and nothing else: find
// with a start, name tests and -print, or git ls-files with options that
// print paths. ls is not one: its names lose their folder.
func listerOf(c Command) (listing, bool) {
	v := lookThrough(c)
	if len(c.Assigns) > 0 || len(c.Redirects) > 0 || c.Control || len(c.Args) == 0 || cmdName(c.Args[0]) != v.name ||
		v.extraArgs || v.chdir || v.opaque || v.dynamicName || v.privileged != "" {
		return listing{}, false
	}
	for _, a := range v.args {
		if a.Dynamic || a.Glob || a.Tilde || a.ProcSubst {
			return listing{}, false
		}
	}
	switch v.name {
	case "find": // no -L, -H, -exec, -printf: starts, name tests, -print
		starts, i := findStarts(v.args)
		match, next, ok := findTests(v.args[i:])
		if !ok {
			return listing{}, false
		}
		l := listing{by: "find", roots: starts, names: match}
		for _, a := range v.args[i+next:] {
			switch a.Value {
			case "-print":
			case "-print0":
				l.nul = true
			default:
				return listing{}, false
			}
		}
		return l, true
	case "git":
		g := parseGit(v.args)
		if g.sub != "ls-files" || gitSubIndex(v.args) != 0 {
			return listing{}, false
		}
		l := listing{by: "git ls-files", tracked: true}
		for _, a := range g.args {
			switch {
			case a.Value == "-o" || a.Value == "--others":
				l.tracked = false
			case a.Value == "-z":
				l.nul = true
			case gitListOpts[a.Value]:
			case strings.HasPrefix(a.Value, "-") || strings.HasPrefix(a.Value, ":"):
				return listing{}, false // other output, or pathspec magic (:(top), :/)
			case strings.ContainsAny(a.Value, "*?[\\"):
				l.roots = append(l.roots, Word{Raw: ".", Value: "."}) // a pattern git matches anywhere below
			default:
				l.roots = append(l.roots, a)
			}
		}
		return l, true
	}
	return listing{}, false
}

// unsplittable reports a name the shell's splitting and globbing, and
// xargs's quotes, leave whole, that git prints unquoted, and that no
// command takes as an option.
func unsplittable(name string) bool {
	if name == "" || name[0] == '-' || strings.ContainsAny(name, "\"'\\*?[]{}$`") {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] <= ' ' || name[i] >= 0x7f {
			return false
		}
	}
	return true
}

// gitMetaNames are names of the kinds git keeps under .git/objects,
// which the walk does not look through: a name test matching one lists them.
var gitMetaNames = []string{"objects/0a/" + strings.Repeat("0a", 19), "objects/pack/pack-" + strings.Repeat("0a", 20) + ".pack",
	"objects/pack/pack-" + strings.Repeat("0a", 20) + ".idx", "objects/pack/pack-" + strings.Repeat("0a", 20) + ".rev",
	"objects/info/packs", "objects/info/alternates", "objects/info/commit-graph"}

// safeListing reports a listing whose names all lie inside the working
// directory and hold no credential (why says what is in the way otherwise).
func (b *bashCheck) safeListing(l listing, cwds cwdSet) (string, bool) {
	env := b.env
	if env.FS == nil || !cwds.allInside() || len(cwds.dirs) == 0 {
		return "the folder it lists is not known", false
	}
	roots := l.roots
	if len(roots) == 0 {
		roots = []Word{{Raw: ".", Value: "."}}
	}
	keep := func(p string) bool { return l.names == nil || l.names(p) }
	if hl, ok := env.FS.(historyLister); ok && l.tracked && len(cwds.dirs) == 1 {
		var scope []string
		for _, r := range l.roots {
			scope = append(scope, r.Value)
		}
		if names, err := hl.Pending(cwds.dirs[0], true, scope); err == nil {
			return b.safeNames(l.by, names, cwds.dirs[0])
		}
	}
	atCwd := map[string]bool{}
	for _, d := range cwds.dirs {
		atCwd[path.Join(d, ".git")] = true
	}
	for _, r := range roots {
		for _, seg := range strings.Split(r.Value, "/") {
			if seg != "" && seg != "." && seg != ".." && !unsplittable(seg) {
				return r.Raw + " is a name the shell or xargs would split, glob or take as an option", false
			}
		}
		abs, ok := cwds.resolve(r)
		if !ok {
			return r.Raw + " is known only when it runs", false
		}
		for _, a := range abs {
			a = path.Clean(a)
			if !env.inside(a) || env.realPath(a) != a {
				return a + " is outside the folder, or reached through a link", false
			}
			why := ""
			complete := walkTree(env, a, maxLinkWalk, func(full string, ent fs.DirEntry) (string, bool) {
				name := ent.Name()
				kept := keep(full)
				switch {
				case name == ".git":
					switch {
					case l.by != "find" && !atCwd[full]:
						why = path.Dir(full) + " is a repository of its own, which git ls-files lists as a folder"
					case l.by == "find" && l.names == nil:
						why = "find lists the repository's own files (" + full + ")"
					case l.by == "find":
						why = gitListed(env, full, keep)
					}
					return "", why != ""
				case !unsplittable(name) && (ent.IsDir() || kept):
					why = full + " has a name the shell or xargs would split, glob or take as an option"
				case ent.Type()&fs.ModeSymlink != 0 && kept:
					r := env.realPath(full)
					if fi, err := env.FS.Lstat(r); !env.inside(r) || err == nil && fi.IsDir() {
						why = full + " is a link to " + r + ", which the reader would follow"
					}
				case ent.IsDir() && kept && l.names != nil:
					why = l.by + " lists the folder " + full + ", which a reader like grep -r reads whole"
				case ent.IsDir():
					return full, false
				}
				return "", why != ""
			})
			if !complete && why == "" {
				why = a + " holds more files than the policy looks through"
			}
			if why != "" {
				return why, false
			}
			if p, found := treeSecrets(env, a, true, keep, true, false); found {
				return l.by + " lists " + p, false
			}
		}
	}
	return "", true
}

// gitListed reports (why) a file under a .git folder that find's name
// test lets through.
func gitListed(env Env, dir string, keep func(string) bool) string {
	for _, n := range gitMetaNames {
		if keep(path.Join(dir, n)) {
			return "find's name test matches the repository's own files (" + path.Join(dir, n) + ")"
		}
	}
	why := ""
	complete := walkTree(env, dir, maxLinkWalk, func(full string, ent fs.DirEntry) (string, bool) {
		if keep(full) {
			why = "find lists the repository's own file " + full
			return "", true
		}
		if ent.IsDir() && full != path.Join(dir, "objects") {
			return full, false
		}
		return "", false
	})
	if !complete && why == "" {
		why = dir + " holds more files than the policy looks through"
	}
	return why
}

// safeNames judges the files a lister prints, known: each inside the
// folder, whole under splitting, a file (not a folder a reader could
// recurse into: a submodule), and no credential.
func (b *bashCheck) safeNames(by string, names []string, dir string) (string, bool) {
	env := b.env
	budget := newScanBudget()
	for _, n := range names {
		for _, seg := range strings.Split(n, "/") {
			if !unsplittable(seg) {
				return n + " has a name the shell or xargs would split, glob or take as an option", false
			}
		}
		abs := path.Join(dir, n)
		r := env.realPath(abs)
		if !env.inside(r) {
			return abs + " leads out of the folder, to " + r, false
		}
		if fi, err := env.FS.Lstat(r); err == nil && fi.IsDir() {
			return abs + " is a folder (a submodule), which a reader like grep -r reads whole", false
		}
		if why, found, _ := env.walkSecret(abs, budget); found {
			return by + " lists " + abs + why, false
		}
	}
	return "", true
}

// listedWord reports a word that is the output of a safe lister:
// $(git ls-files), `find . -name '*.go'` (names ending in a newline,
// which the shell splits at).
func (b *bashCheck) listedWord(w Word, cwds cwdSet) bool {
	v := w.Value
	var inner string
	switch {
	case strings.HasPrefix(v, "$(") && strings.HasSuffix(v, ")") && !strings.HasPrefix(v, "$(("):
		inner = v[2 : len(v)-1]
	case len(v) > 1 && v[0] == '`' && strings.HasSuffix(v, "`"):
		inner = v[1 : len(v)-1]
	default:
		return false
	}
	if strings.ContainsAny(inner, "()`$;&|<>\n#") {
		return false // one command, whole: not $(a)$(b), no redirection
	}
	cmds, err := SplitShell(inner)
	if err != nil || len(cmds) != 1 {
		return false
	}
	l, ok := listerOf(cmds[0])
	if !ok || l.nul {
		return false
	}
	_, safe := b.safeListing(l, cwds)
	return safe
}

// pipedListing returns the listing a safe lister pipes into xargs (find
// . | xargs wc -l): what xargs appends. xargs must split as the lister
// ends its names (-0 for -print0 and -z), read them from the pipe (no
// -a), put them in as whole words (no -d, and -I's string only as a word
// of its own), and run one command (no xargs inside).
func (b *bashCheck) pipedListing(pt part) (listing, bool) {
	if pt.cmd.Feed == nil || !pt.view.extraArgs {
		return listing{}, false
	}
	nul, ok := xargsInput(pt.cmd)
	if !ok {
		return listing{}, false
	}
	l, ok := listerOf(*pt.cmd.Feed)
	if !ok || l.nul != nul {
		return listing{}, false
	}
	_, safe := b.safeListing(l, pt.cwds)
	return l, safe
}

// xargsInput reads a command xargs ... CMD: whether xargs splits at NULs,
// and false for options that read names elsewhere, split them otherwise
// or put them inside other words.
func xargsInput(c Command) (nul bool, ok bool) {
	args := c.Args
	if len(c.Assigns) > 0 || len(args) == 0 || args[0].Dynamic || cmdName(args[0]) != "xargs" {
		return false, false
	}
	repl := ""
	i := 1
	value := func(rest string) (string, bool) {
		if rest != "" {
			return rest, true
		}
		if i+1 >= len(args) || args[i+1].Dynamic {
			return "", false
		}
		i++
		return args[i].Value, true
	}
opts:
	for ; i < len(args); i++ {
		a := args[i]
		v := a.Value
		switch {
		case a.Dynamic:
			return false, false
		case v == "--":
			i++
			break opts
		case !strings.HasPrefix(v, "-") || v == "-":
			break opts
		case strings.HasPrefix(v, "--"):
			name, val, eq := strings.Cut(v, "=")
			switch name {
			case "--null":
				nul = true
			case "--no-run-if-empty", "--verbose", "--exit", "--interactive", "--open-tty":
			case "--max-args", "--max-lines", "--max-procs", "--max-chars":
				if !eq {
					if _, ok := value(""); !ok {
						return false, false
					}
				}
			case "--replace":
				repl = "{}"
				if eq {
					repl = val
				}
			default:
				return false, false // --arg-file, --delimiter, --eof, --process-slot-var
			}
		default:
		cluster:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case '0':
					nul = true
				case 'r', 't', 'x', 'p', 'o':
				case 'n', 'L', 'P', 's':
					if _, ok := value(v[j+1:]); !ok {
						return false, false
					}
					break cluster
				case 'I':
					r, ok := value(v[j+1:])
					if !ok {
						return false, false
					}
					repl = r
					break cluster
				case 'i':
					repl = "{}"
					if v[j+1:] != "" {
						repl = v[j+1:]
					}
					break cluster
				default:
					return false, false // -a, -d, -E, -e, -l
				}
			}
		}
	}
	rest := args[min(i, len(args)):]
	if len(rest) > 0 && lookThrough(Command{Args: rest}).extraArgs {
		return false, false // xargs xargs, xargs parallel
	}
	if repl != "" {
		for k, w := range rest {
			// xargs -I% cat %/../.env, -IX cat .eX: the name inside a word is another path
			if strings.Contains(w.Raw, repl) && (k == 0 || w.Value != repl || w.Raw != repl) {
				return false, false
			}
		}
	}
	return nul, true
}

// feedsWriter reports a command xargs runs that writes the files it is
// given (xargs gofmt -w, xargs prettier --write): appended names are
// written, which the write floors judge only when known.
func feedsWriter(v view) bool {
	probe := Word{Raw: "teamlead-probe.go", Value: "teamlead-probe.go"}
	for _, w := range outputFiles(v.name, append(append([]Word{}, v.args...), probe)) {
		if w.Value == probe.Value {
			return true
		}
	}
	return len(v.writes) > 0
}

// loopWords returns the words a for loop gives the variable w names
// ($f, ${f}), when that loop is the only thing in the request that names
// it, the agent's environment does not set it, and the words are files
// inside the folder holding no credential (for f in *.go; for f in a b).
func (b *bashCheck) loopWords(w Word, cwds cwdSet) ([]Word, bool) {
	v := w.Value
	name := strings.TrimPrefix(v, "$")
	if strings.HasPrefix(name, "{") && strings.HasSuffix(name, "}") {
		name = name[1 : len(name)-1]
	}
	if name == v || name == "" || !isName(name) || strings.ToUpper(name) == name {
		return nil, false // $PWD, $HOME, $IFS: shell and environment variables are not a loop's alone
	}
	words, ok := b.loops[name]
	if !ok || len(words) == 0 {
		return nil, false
	}
	for _, kv := range b.env.Environ {
		if k, _, _ := strings.Cut(kv, "="); k == name {
			return nil, false
		}
	}
	sets := 0
	for _, a := range b.assigns {
		if n, _, _ := strings.Cut(a.Value, "="); strings.TrimSuffix(n, "+") == name {
			sets++
		}
	}
	if sets != 1 {
		return nil, false
	}
	// read f, printf -v f, mapfile f, getopts o f, unset f, f() …: any
	// other word that names it; and $f before the loop is the
	// environment's f, not the loop's (gofmt -d $f; for f in …)
	header := false
	for _, c := range b.all {
		words := append(append([]Word{}, c.Args...), c.Assigns...)
		for _, r := range c.Redirects {
			words = append(words, r.Target)
		}
		if c.Control && len(c.Loop) > 0 && len(c.Assigns) == 1 && strings.HasPrefix(c.Assigns[0].Value, name+"=") {
			header = true
		}
		for _, x := range words {
			if (x.Value == "$"+name || x.Value == "${"+name+"}") && x.Dynamic {
				if !header {
					return nil, false
				}
				continue
			}
			if c.Control && len(c.Loop) > 0 && len(c.Args) == 0 {
				continue
			}
			if hasIdent(x.Raw, name) || hasIdent(x.Value, name) {
				return nil, false
			}
		}
		if c.Control && len(c.Loop) > 0 {
			continue // a for header: its text is the whole loop
		}
		// (( f = 1 )), ${f:=x}, a[f]: the text names it other than as $f
		t := strings.NewReplacer("${"+name+"}", " ", "$"+name, "$ ").Replace(c.Text)
		if hasIdent(t, name) {
			return nil, false
		}
	}
	budget := newScanBudget()
	for _, x := range words {
		if x.Dynamic || x.Tilde || x.ProcSubst || !unsplittableLoopWord(x.Value) {
			return nil, false
		}
		files, ok := b.loopFiles(x, cwds)
		if !ok {
			return nil, false
		}
		for _, f := range files {
			r := b.env.realPath(f)
			if !b.env.inside(r) {
				return nil, false
			}
			if p, found := treeSecrets(b.env, r, true, func(string) bool { return true }, true, false); found || p != "" {
				return nil, false
			}
			if _, found, _ := b.env.walkSecret(f, budget); found {
				return nil, false
			}
		}
	}
	return words, true
}

// unsplittableLoopWord reports a loop word whose expansion stays one word
// of a plain name: a glob only in its last part.
func unsplittableLoopWord(v string) bool {
	dir, base := path.Split(v)
	for _, seg := range strings.Split(dir, "/") {
		if seg != "" && seg != "." && !unsplittable(seg) {
			return false
		}
	}
	return base != "" && base[0] != '-' && !strings.ContainsAny(base, " \t\n\"'\\{}$`")
}

// loopFiles returns the files a loop word names: itself, or a glob's
// matches in its folder (dot files only for a pattern starting with a dot).
func (b *bashCheck) loopFiles(x Word, cwds cwdSet) ([]string, bool) {
	abs, ok := cwds.resolve(Word{Raw: x.Raw, Value: x.Value})
	if !ok || !cwds.allInside() {
		return nil, false
	}
	if !x.Glob {
		return abs, true
	}
	dir, pat := path.Split(x.Value)
	if _, err := path.Match(pat, ""); err != nil || strings.HasPrefix(pat, ".") || b.dotGlob() {
		return nil, false // .* matches . and ..; dotglob and GLOBIGNORE let * match .env
	}
	dirWord := Word{Raw: dir, Value: dir}
	if dir == "" {
		dirWord = Word{Raw: ".", Value: "."}
	}
	dirs, ok := cwds.resolve(dirWord)
	if !ok {
		return nil, false
	}
	var out []string
	for _, d := range dirs {
		ents, err := readDir(b.env, d)
		if err != nil || len(ents) > maxSecretScan {
			return nil, false
		}
		for _, e := range ents {
			n := e.Name()
			if m, _ := path.Match(pat, n); !m {
				continue
			}
			if strings.HasPrefix(n, ".") && !strings.HasPrefix(pat, ".") {
				continue
			}
			if !unsplittable(n) {
				return nil, false
			}
			out = append(out, path.Join(d, n))
		}
	}
	return out, true
}

// dotGlob reports a request or environment that may change what a glob
// matches: shopt (dotglob, extglob, nocaseglob), GLOBIGNORE.
func (b *bashCheck) dotGlob() bool {
	for _, pt := range b.parts {
		if pt.view.name == "shopt" || pt.view.name == "set" {
			return true
		}
	}
	for _, a := range b.assigns {
		if strings.HasPrefix(a.Value, "GLOBIGNORE") {
			return true
		}
	}
	for _, kv := range b.env.Environ {
		if strings.HasPrefix(kv, "GLOBIGNORE=") || strings.HasPrefix(kv, "BASHOPTS=") {
			return true
		}
	}
	return false
}

// hasIdent reports whether s holds name as a word of letters, digits and _.
func hasIdent(s, name string) bool {
	for i := 0; i+len(name) <= len(s); i++ {
		if s[i:i+len(name)] != name {
			continue
		}
		if i > 0 && isIdentByte(s[i-1]) || i+len(name) < len(s) && isIdentByte(s[i+len(name)]) {
			continue
		}
		return true
	}
	return false
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isName reports a shell variable name.
func isName(s string) bool {
	for i, c := range s {
		if c != '_' && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') && !(i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}
