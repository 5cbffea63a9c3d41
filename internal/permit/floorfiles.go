package permit

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
)

// operands splits arguments into options (before --) and operands.
func operands(args []Word) (ops []Word, opts []string) {
	dd := false
	for _, a := range args {
		switch {
		case !dd && a.Value == "--":
			dd = true
		case !dd && len(a.Value) > 1 && a.Value[0] == '-' && !a.Dynamic:
			opts = append(opts, a.Value)
		default:
			ops = append(ops, a)
		}
	}
	return ops, opts
}

// hasShort reports a single-dash option cluster holding one of letters.
func hasShort(opts []string, letters string) bool {
	for _, o := range opts {
		if len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.ContainsAny(o[1:], letters) {
			return true
		}
	}
	return false
}

// hasLong reports a long option starting with one of names (--force matches --force-with-lease=x).
func hasLong(opts []string, names ...string) bool {
	for _, o := range opts {
		for _, n := range names {
			if o == n || strings.HasPrefix(o, n+"=") || strings.HasPrefix(o, n+"-") {
				return true
			}
		}
	}
	return false
}

// unknownWord stands for arguments known only when the command runs.
var unknownWord = Word{Raw: "…", Value: "…", Dynamic: true}

// targetsOutside returns a description of each target that is not under
// the workdir (for a delete, the workdir itself counts as outside).
func targetsOutside(targets []Word, cwds cwdSet, env Env, strict bool) []string {
	var out []string
	for _, w := range targets {
		abs, ok := cwds.resolve(w)
		if !ok {
			out = append(out, fmt.Sprintf("%s (known only when it runs)", w.Raw))
			continue
		}
		for _, a := range abs {
			in := env.inside(a)
			if strict {
				in = env.strictlyInside(a)
			}
			if !in {
				out = append(out, describePath(w, a))
				break
			}
		}
	}
	return out
}

func describePath(w Word, abs string) string {
	if w.Value == abs {
		return abs
	}
	return fmt.Sprintf("%s (%s)", w.Raw, abs)
}

// deleteHits: rm, rmdir, unlink, shred of anything not under the workdir.
func deleteHits(v view, cwds cwdSet, env Env) []hit {
	ops, opts := operands(v.args)
	recursive := false
	switch v.name {
	case "rm":
		recursive = hasShort(opts, "rR") || hasLong(opts, "--recursive", "--no-preserve-root")
	case "rmdir":
		recursive = hasShort(opts, "p") || hasLong(opts, "--parents")
	}
	if v.extraArgs || len(ops) == 0 && v.name != "rm" {
		ops = append(ops, unknownWord)
	}
	id := FloorDeleteOutside
	if recursive {
		id = FloorDeleteRecursiveOutside
	}
	var hs []hit
	for _, d := range targetsOutside(ops, cwds, env, true) {
		hs = append(hs, hit{id: id, detail: v.name + " of " + d})
	}
	for _, o := range ops {
		abs, _ := cwds.resolve(o)
		for _, a := range abs {
			if env.inside(a) {
				hs = append(hs, env.protectedHit(a, v.name+" deletes or")...)
			}
		}
	}
	return hs
}

// copyHits: cp, mv, install, ln, rsync write their destination; mv (and
// rsync --remove-source-files) take their sources away, rsync --delete
// deletes under the destination.
func copyHits(v view, cwds cwdSet, env Env) []hit {
	ca := parseCopy(v.name, v.args)
	ops, opts := ca.ops, ca.opts
	var dest *Word
	srcs := ops
	switch {
	case ca.target != nil:
		dest = ca.target
	case len(ops) == 1 && (v.name == "ln" || v.name == "link"):
		dest = &Word{Raw: ".", Value: "."} // ln TARGET links it into the current folder
	case len(ops) > 0:
		dest, srcs = &ops[len(ops)-1], ops[:len(ops)-1]
	}
	if v.extraArgs {
		srcs = append(srcs, unknownWord)
	}
	var hs []hit
	remoteDest := v.name == "rsync" && dest != nil && isRemoteSpec(dest.Value)
	if dest != nil && !remoteDest {
		hs = append(hs, writeHits(*dest, cwds, env, v.name)...)
		hs = append(hs, deviceDestHits(v.name, opts, *dest, cwds)...)
		if v.name == "rsync" && hasLong(opts, "--delete", "--del") {
			for _, d := range targetsOutside([]Word{*dest}, cwds, env, false) {
				hs = append(hs, hit{id: FloorDeleteRecursiveOutside, detail: "rsync --delete into " + d})
			}
		}
	}
	symbolic := makesSymlinks(v.name, opts)
	if symbolic {
		for _, s := range srcs {
			if w := s; !isAbsWord(w) && dest != nil {
				// a relative target is taken from the link's folder
				if abs, ok := cwds.resolve(*dest); ok && len(abs) == 1 {
					w = pathWord(path.Join(path.Dir(abs[0]), s.Value))
				}
				s = w
			}
			for _, d := range targetsOutside([]Word{s}, cwds, env, false) {
				hs = append(hs, hit{id: FloorWriteOutside, detail: v.name + " -s makes a link out of the working directory, to " + d})
			}
			abs, _ := cwds.resolve(s)
			for _, a := range abs {
				if h := env.treeProtected(a, v.name+" -s makes a link (a write through it writes the target) to"); h != nil {
					hs = append(hs, *h)
				}
			}
		}
	}
	if !remoteDest && !symbolic {
		hs = append(hs, landingHits(v, srcs, dest, opts, cwds, env)...)
	}
	if ca.backup && dest != nil && !remoteDest {
		hs = append(hs, backupHits(v.name, ca.suffix, srcs, *dest, cwds, env)...)
	}
	if v.name == "mv" || v.name == "rsync" && hasLong(opts, "--remove-source-files") {
		for _, d := range targetsOutside(srcs, cwds, env, true) {
			hs = append(hs, hit{id: FloorDeleteOutside, detail: v.name + " takes away " + d})
		}
	}
	return hs
}

// deviceDestHits: mv onto /dev/null (or any device) is no harmless
// output as a redirect to it is: the file's content is gone, and run as
// root mv replaces the device itself (red team 20a, finding 5). So do
// the others that make a new entry where the device was: ln, install
// (it unlinks the destination first), rsync (a temporary file renamed
// over it) and cp --remove-destination; cp alone writes into the device.
func deviceDestHits(name string, opts []string, dest Word, cwds cwdSet) []hit {
	switch name {
	case "mv", "gmv", "ln", "link", "install":
	case "rsync":
		if hasLong(opts, "--inplace") {
			return nil
		}
	case "cp", "gcp":
		if !hasLong(opts, "--remove-destination") {
			return nil
		}
	default:
		return nil
	}
	abs, _ := cwds.resolve(dest)
	for _, a := range abs {
		if a == "/dev" || strings.HasPrefix(a, "/dev/") {
			return []hit{{id: FloorWriteSystem, detail: name + " onto " + a + " replaces the device (and mv takes the file away)"}}
		}
	}
	return nil
}

// makesSymlinks reports a copy that makes symbolic links instead of
// copies: ln -s, and cp -s (--symbolic-link), which red team 12b used to
// link .git/config into the folder and write it through the link.
func makesSymlinks(name string, opts []string) bool {
	switch name {
	case "ln":
		return hasShort(opts, "s") || hasLong(opts, "--symbolic")
	case "cp":
		return hasShort(opts, "s") || hasLong(opts, "--symbolic-link")
	}
	return false
}

// copyArgs is a cp, mv, ln or install command line taken apart the way
// GNU getopt does: short options clustered, with a value glued on or in
// the next word (-t.git/hooks, -at DIR, -S SUFFIX).
type copyArgs struct {
	ops    []Word
	opts   []string // the options, values taken off
	target *Word    // -t DIR, --target-directory DIR
	suffix string   // the backup suffix (-S, --suffix), "~" by default
	backup bool     // -b, --backup, or a suffix given
}

// copyValues are the short options of each command that take a value.
var copyValues = map[string]string{"cp": "tS", "mv": "tS", "ln": "tS", "install": "tSgmo", "link": "", "rsync": "eBfTM", "ditto": ""}

func parseCopy(name string, args []Word) copyArgs {
	ca := copyArgs{suffix: "~"}
	takes := copyValues[name]
	take := func(letter byte, val Word) {
		switch letter {
		case 't':
			w := val
			ca.target = &w
		case 'S':
			ca.suffix, ca.backup = val.Value, true
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		next := func() (Word, bool) {
			if i+1 < len(args) {
				i++
				return args[i], true
			}
			return Word{}, false
		}
		switch {
		case v == "--":
			ca.ops = append(ca.ops, args[i+1:]...)
			return ca
		case a.Dynamic || len(v) < 2 || v[0] != '-':
			ca.ops = append(ca.ops, a)
		case strings.HasPrefix(v, "--"):
			k, val, eq := strings.Cut(v, "=")
			ca.opts = append(ca.opts, v)
			switch k {
			case "--target-directory", "--suffix":
				w := pathWord(val)
				if !eq {
					if w, eq = next(); !eq {
						continue
					}
				}
				take(map[string]byte{"--target-directory": 't', "--suffix": 'S'}[k], w)
			case "--backup":
				ca.backup = true
			}
		default:
			for j := 1; j < len(v); j++ {
				if v[j] == 'b' {
					ca.backup = true
				}
				if !strings.ContainsRune(takes, rune(v[j])) {
					continue
				}
				ca.opts = append(ca.opts, v[:j+1])
				if rest := v[j+1:]; rest != "" {
					take(v[j], pathWord(rest))
				} else if w, ok := next(); ok {
					take(v[j], w)
				}
				break
			}
			if !strings.ContainsAny(v[1:], takes) || takes == "" {
				ca.opts = append(ca.opts, v)
			}
		}
	}
	return ca
}

// backupHits: with -b or a suffix, the file a copy replaces is renamed
// to its name plus the suffix, a name the command line never shows
// (cp -b -S t x sub/.gi makes sub/.git).
func backupHits(name, suffix string, srcs []Word, dest Word, cwds cwdSet, env Env) []hit {
	var hs []hit
	abs, ok := cwds.resolve(dest)
	if !ok {
		return nil
	}
	for _, d := range abs {
		cands := []string{d + suffix}
		for _, s := range srcs {
			cands = append(cands, path.Join(d, path.Base(s.Value))+suffix)
		}
		for _, c := range cands {
			hs = append(hs, env.protectedHit(c, name+"'s backup")...)
			if !env.inside(c) && !isSafeDevice(c) {
				hs = append(hs, hit{id: FloorWriteOutside, detail: name + "'s backup writes " + c})
			}
		}
	}
	return hs
}

// isRemoteSpec reports host:path or rsync:// (a colon before any slash).
func isRemoteSpec(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	i := strings.IndexByte(s, ':')
	return i > 0 && !strings.Contains(s[:i], "/")
}

// writeHits judges one file a command writes: under the workdir is fine,
// a system location is write-system, anywhere else write-outside.
func writeHits(w Word, cwds cwdSet, env Env, by string) []hit {
	abs, ok := cwds.resolve(w)
	if !ok {
		return []hit{{id: FloorWriteOutside, detail: fmt.Sprintf("%s writes %s, known only when it runs", by, w.Raw)}}
	}
	for _, a := range abs {
		if cwds.sink != nil {
			*cwds.sink = append(*cwds.sink, a)
		}
		switch {
		case isSafeDevice(a):
			continue
		case env.inside(a):
			if hs := env.protectedHit(a, by); hs != nil {
				return hs
			}
			if hs := env.dependencyHit(a, by); hs != nil {
				return hs
			}
			if hs := env.hardLinkHit(a, by); hs != nil {
				return hs
			}
			continue
		case isSystemPath(a):
			return []hit{{id: FloorWriteSystem, detail: by + " writes " + describePath(w, a)}}
		default:
			return []hit{{id: FloorWriteOutside, detail: by + " writes " + describePath(w, a)}}
		}
	}
	return nil
}

// redirectHits judges the files a command's redirections write.
func redirectHits(c Command, cwds cwdSet, env Env) []hit {
	var hs []hit
	for _, r := range c.Redirects {
		switch r.Op {
		case ">", ">>", ">|", "<>", "&>", "&>>":
		case ">&":
			if isFD(r.Target) || r.Target.Value == "-" {
				continue
			}
		default:
			continue
		}
		hs = append(hs, writeHits(r.Target, cwds, env, "the redirection "+r.Op)...)
	}
	return hs
}

// fileWriteHits: commands whose operands are files they write.
func fileWriteHits(v view, cwds cwdSet, env Env) []hit {
	ops, opts := operands(v.args)
	switch v.name {
	case "sed", "gsed", "perl":
		if !hasShort(opts, "i") && !hasLong(opts, "--in-place") {
			return nil
		}
		if v.name != "perl" {
			// the files, not the program: sed -i '/^#/d' README.md was
			// judged as writing /^#/d, outside (red team 19a's false
			// positive)
			_, ops, _, _ = sedInPlace(v.args)
		}
	case "dd":
		var hs []hit
		for _, a := range v.args {
			if of, ok := strings.CutPrefix(a.Value, "of="); ok {
				w := Word{Raw: a.Raw, Value: of, Dynamic: a.Dynamic, Glob: a.Glob, Tilde: strings.HasPrefix(of, "~")}
				hs = append(hs, writeHits(w, cwds, env, "dd")...)
				if abs, ok := cwds.resolve(w); ok && len(abs) > 0 && strings.HasPrefix(abs[0], "/dev/") && !isSafeDevice(abs[0]) {
					hs = append(hs, hit{id: FloorDiskTools, detail: "dd writes the device " + abs[0]})
				}
			}
		}
		return hs
	}
	if v.extraArgs {
		ops = append(ops, unknownWord)
	}
	var hs []hit
	for _, o := range ops {
		hs = append(hs, writeHits(o, cwds, env, v.name)...)
	}
	return hs
}

// chmodHits: chmod, chown, chgrp, chattr, setfacl on anything outside the workdir.
func chmodHits(v view, cwds cwdSet, env Env) []hit {
	ops, opts := operands(v.args)
	recursive := hasShort(opts, "R") || hasLong(opts, "--recursive")
	if v.extraArgs {
		ops = append(ops, unknownWord)
	}
	risk := High
	if recursive {
		risk = Critical
	}
	var hs []hit
	for _, d := range targetsOutside(ops, cwds, env, false) {
		hs = append(hs, hit{id: FloorChmodOutside, detail: v.name + " of " + d, risk: risk})
	}
	return hs
}

// findStarts returns the paths find searches and the index of its first expression word.
func findStarts(args []Word) ([]Word, int) {
	var starts []Word
	i := 0
	for ; i < len(args); i++ {
		a := args[i].Value
		if strings.HasPrefix(a, "-") || a == "(" || a == "!" || a == ")" {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []Word{{Raw: ".", Value: "."}}
	}
	return starts, i
}

// findDeleteHits: find -delete under a start path outside the workdir,
// and find -delete (or -exec rm) from the workdir itself that no name
// test narrows, which deletes every file of it.
func findDeleteHits(v view, cwds cwdSet, env Env) []hit {
	starts, i := findStarts(v.args)
	var hs []hit
	deletes := false
	for ; i < len(v.args); i++ {
		a := v.args[i].Value
		if a == "-delete" {
			deletes = true
			for _, d := range targetsOutside(starts, cwds, env, false) {
				hs = append(hs, hit{id: FloorDeleteRecursiveOutside, detail: "find -delete under " + d})
			}
		}
		if (a == "-exec" || a == "-execdir" || a == "-ok" || a == "-okdir") && i+1 < len(v.args) {
			switch cmdName(v.args[i+1]) {
			case "rm", "shred", "srm", "unlink":
				deletes = true
			}
		}
	}
	if deletes && !findNarrowed(v.args) {
		for _, s := range starts {
			if wholeWorkdir(s, cwds, env) {
				hs = append(hs, hit{id: FloorGitDiscard, detail: "find " + joinValues(v.args) + " deletes every file of the working directory, uncommitted work with it"})
				break
			}
		}
	}
	return hs
}

// wipeNames are names a pattern must match to stand for every file of a
// folder.
var wipeNames = []string{"main.go", "README", "Makefile", "src", "a", "node_modules", "x.y.z", "Z9", "_x", "-x"}

// matchesEverything reports a glob pattern (one path segment) that
// matches any name but a dot file's: *, ?*, [!.]*, *.* does not.
func matchesEverything(pat string) bool {
	for _, n := range wipeNames {
		if ok, err := path.Match(pat, n); err != nil || !ok {
			return false
		}
	}
	return true
}

// wholeWorkdir reports a word that stands for the working directory, or
// for every file in it (*, ./*, "$PWD"/*, src/../*).
func wholeWorkdir(w Word, cwds cwdSet, env Env) bool {
	dir, pat := w.Value, ""
	if w.Glob {
		dir, pat = ".", w.Value
		if i := strings.LastIndexByte(w.Value, '/'); i >= 0 {
			dir, pat = w.Value[:i+1], w.Value[i+1:]
		}
		if !matchesEverything(pat) {
			return false
		}
	}
	abs, ok := cwds.resolve(Word{Raw: dir, Value: dir, Dynamic: strings.ContainsAny(dir, "$`"), Tilde: strings.HasPrefix(dir, "~")})
	if !ok {
		return false
	}
	for _, a := range abs {
		if path.Clean(a) == env.Workdir {
			return true
		}
	}
	return false
}

// findNarrowed reports a find expression with a name test that is not
// negated and no -o: what it deletes is only some files (find . -name
// '*.pyc' -delete, find . -type d -empty -delete).
func findNarrowed(args []Word) bool {
	narrowed := false
	for i, a := range args {
		switch a.Value {
		case "-o", "-or", ",":
			return false
		case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname":
			if i > 0 && (args[i-1].Value == "!" || args[i-1].Value == "-not") || i+1 >= len(args) || args[i+1].Dynamic {
				continue
			}
			pat := args[i+1].Value
			if strings.Contains(a.Value, "path") || strings.Contains(a.Value, "name") && strings.HasPrefix(a.Value, "-w") {
				pat = strings.TrimPrefix(pat, "./")
			}
			if strings.HasSuffix(a.Value, "regex") || !matchesEverything(pat) {
				narrowed = true
			}
		case "-empty":
			if i == 0 || args[i-1].Value != "!" && args[i-1].Value != "-not" {
				narrowed = true
			}
		}
	}
	return narrowed
}

// wipeHits: rm (or shred) of every file of the working directory — rm
// -rf *, rm -r -- ./*, rm -f "$PWD"/* — deletes its uncommitted work as
// git clean -f does (red team 13b, finding 15); rm -rf build dist stays
// an ordinary delete.
func wipeHits(v view, cwds cwdSet, env Env) []hit {
	ops, _ := operands(v.args)
	for _, o := range ops {
		if o.Glob && wholeWorkdir(o, cwds, env) {
			return []hit{{id: FloorGitDiscard, detail: v.name + " " + joinValues(v.args) + " deletes every file of the working directory, uncommitted work with it"}}
		}
	}
	return nil
}

// findExec returns the commands of find's -exec, -execdir, -ok and -okdir,
// with {} standing for each file find may hand them (foundFiles), else
// for a file under each start path; a writer's {} with too many files to
// look at stands for files known only when it runs. {} as a sample name
// let find .github -name ci.yml -exec tee {} + overwrite a workflow, and
// its writes went uncounted for the parts after it (red team 19a,
// findings 4 and 8).
func findExec(args []Word, cwds cwdSet, env Env) []nested {
	starts, i := findStarts(args)
	follow := false // -L or -H before the start paths, -follow after
	for _, a := range args {
		follow = follow || a.Value == "-L" || a.Value == "-H" || a.Value == "-follow"
	}
	expr := args[i:]
	var found []string
	looked, listed := false, false
	list := func() bool { // walked only for a command that names the file
		if !looked {
			looked = true
			found, listed = foundFiles(starts, expr, follow, cwds, env)
		}
		return listed
	}
	var inner []nested
	for ; i < len(args); i++ {
		switch args[i].Value {
		case "-exec", "-execdir", "-ok", "-okdir":
			// -execdir runs in each found file's folder: its relative
			// paths are not the working directory's (red team 19a,
			// finding 3: find .git/hooks -name x -execdir cp /abs/h
			// pre-commit \; wrote a hook)
			dir := args[i].Value == "-execdir" || args[i].Value == "-okdir"
			var words []Word
			for i++; i < len(args) && args[i].Value != ";" && args[i].Value != "+"; i++ {
				words = append(words, args[i])
			}
			if len(words) == 0 {
				continue
			}
			switch {
			case !hasFound(words):
				inner = append(inner, nested{words: words, elsewhere: dir})
			case list():
				for _, f := range found {
					inner = append(inner, nested{words: placeFile(words, f), elsewhere: dir})
				}
			case writers[cmdName(words[0])]:
				inner = append(inner, nested{words: placeFile(words, ""), elsewhere: dir})
			default:
				for _, s := range starts {
					inner = append(inner, nested{words: placeFound(words, s), elsewhere: dir})
				}
			}
		}
	}
	return inner
}

// maxFound bounds the files find -exec's {} is judged as, one by one.
const maxFound = 64

// foundFiles returns what find may hand its -exec command under the
// start paths: every entry whose name its leading -name/-iname tests let
// through (every entry when it has none, or they cannot be read; -type
// and -maxdepth are not read, so deeper files count too), the start paths
// themselves among them; false when there are more than maxFound or they
// cannot be listed.
func foundFiles(starts, expr []Word, follow bool, cwds cwdSet, env Env) ([]string, bool) {
	if env.FS == nil || len(starts) == 0 {
		return nil, false
	}
	match, _, ok := findTests(expr)
	if !ok {
		match = nil
	}
	kind := findType(expr) // without -L, -type f is no link
	if follow {
		kind = ""
	}
	var out []string
	take := func(p string, mode fs.FileMode) bool {
		if (match == nil || match(p)) && (kind == "" || kind == "f" && mode.IsRegular() || kind == "d" && mode.IsDir() ||
			kind == "l" && mode&fs.ModeSymlink != 0) {
			out = append(out, p)
		}
		return len(out) <= maxFound
	}
	for _, s := range starts {
		roots, ok := cwds.resolve(s)
		if !ok || s.Dynamic || s.Glob {
			return nil, false
		}
		for _, root := range roots {
			fi, err := env.FS.Lstat(root)
			if err != nil {
				continue // find finds nothing there
			}
			if !take(root, fi.Mode()) {
				return nil, false
			}
			complete := walkTree(env, root, 20*maxFound, func(full string, e fs.DirEntry) (string, bool) {
				if !take(full, e.Type()) {
					return "", true
				}
				if e.IsDir() {
					return full, false
				}
				return "", false
			})
			if !complete || len(out) > maxFound {
				return nil, false
			}
		}
	}
	return out, true
}

// findType is the -type of find's leading tests ("" when there is none).
func findType(expr []Word) string {
	t := ""
	for i := 0; i < len(expr); i++ {
		switch expr[i].Value {
		case "-type":
			if i+1 < len(expr) {
				t = expr[i+1].Value
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			return t
		}
	}
	return t
}

// hasFound reports whether find -exec's words name the file ({}).
func hasFound(words []Word) bool {
	for _, w := range words {
		if strings.Contains(w.Value, "{}") {
			return true
		}
	}
	return false
}

// placeFile replaces {} in find -exec's words by the file f (absolute),
// or, with f empty, by a file known only when it runs.
func placeFile(words []Word, f string) []Word {
	out := make([]Word, 0, len(words))
	for _, w := range words {
		if strings.Contains(w.Value, "{}") {
			if f == "" {
				w = Word{Raw: w.Raw, Value: w.Value, Dynamic: true}
			} else {
				w = Word{Raw: strings.ReplaceAll(w.Raw, "{}", f), Value: strings.ReplaceAll(w.Value, "{}", f), Dynamic: w.Dynamic, Glob: w.Glob}
			}
		}
		out = append(out, w)
	}
	return out
}

// placeFound replaces {} in find -exec's words by a file under start.
func placeFound(words []Word, start Word) []Word {
	out := make([]Word, 0, len(words))
	for _, w := range words {
		if strings.Contains(w.Value, "{}") {
			w = Word{Raw: strings.ReplaceAll(w.Raw, "{}", start.Raw+"/x"), Value: strings.ReplaceAll(w.Value, "{}", start.Value+"/x"),
				Dynamic: w.Dynamic || start.Dynamic, Glob: w.Glob || start.Glob, Tilde: start.Tilde && strings.HasPrefix(w.Value, "{}")}
		}
		out = append(out, w)
	}
	return out
}
