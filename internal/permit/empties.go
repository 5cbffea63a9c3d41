package permit

import (
	"io/fs"
	"slices"
	"strings"
)

// One command that empties many files at once — sed -i d *, tee src/* <
// /dev/null, truncate -s 0 *.go, find pkg -type f -exec tee {} + — loses
// their uncommitted content as rm -rf * or git checkout . would, while
// each file alone is only an edit (red team 19a, finding 5). Such a
// command is on the git-discard floor; one file emptied stays an edit.

// emptiedFiles returns the files a command empties or fills with one
// same content: tee's (not -a), truncate -s 0's, and sed -i's when its
// program takes every line (or -n prints nothing); nil for any other
// command, or when what it does cannot be read.
func emptiedFiles(name string, args []Word) []Word {
	switch name {
	case "tee":
		ops, opts := operands(args)
		if hasShort(opts, "a") || hasLong(opts, "--append") {
			return nil
		}
		return ops
	case "truncate":
		return truncatedFiles(args)
	case "cp", "gcp", "install", "mv", "gmv", "ln":
		// the destination is replaced by the source: find -exec cp
		// /dev/null {} \; empties every file found (red team 21a, finding 7)
		ca := parseCopy(name, args)
		if ca.target != nil || len(ca.ops) < 2 {
			return nil
		}
		dest := ca.ops[len(ca.ops)-1]
		for _, src := range ca.ops[:len(ca.ops)-1] {
			if src.Value == dest.Value {
				return nil
			}
		}
		return notBeside(dest)
	case "uniq":
		if ops, _ := operands(args); len(ops) == 2 && ops[0].Value != ops[1].Value {
			return notBeside(ops[1]) // uniq INPUT OUTPUT
		}
		return nil
	case "sort":
		// sort -o F: F gets the sorted inputs, unless F is among them
		// (sort -o f f sorts f in place); the options' values are told by
		// the tables the rest of the policy reads sort with
		split := shortSplit("sort", args)
		var ops []string
		for i := 0; i < len(split); i++ {
			v := split[i].Value
			switch {
			case optionValues["sort"][v] || v == "-o" || v == "--output" || v == "-T" || v == "--temporary-directory":
				i++
			case !strings.HasPrefix(v, "-"):
				ops = append(ops, v)
			}
		}
		var out []Word
		for _, o := range outputFiles("sort", args) {
			if !slices.Contains(ops, o.Value) {
				out = append(out, notBeside(o)...)
			}
		}
		return out
	case "dd":
		for _, a := range args {
			if of, ok := strings.CutPrefix(a.Value, "of="); ok && !strings.Contains(joinValues(args), "conv=notrunc") {
				return notBeside(Word{Raw: of, Value: of})
			}
		}
		return nil
	case "sed", "gsed":
		_, files, inPlace, _ := sedInPlace(args)
		progs, scripts, ok := sedPrograms(args)
		if ok && len(scripts) == 0 {
			// sed's w files are written with what it prints: sed -n
			// w{} README.md fills each with README.md
			var ws []Word
			for _, p := range progs {
				for _, w := range scanSed(p).writes {
					ws = append(ws, notBeside(Word{Raw: w, Value: w})...)
				}
			}
			if hasFound(ws) {
				return ws
			}
		}
		if !inPlace || !ok || len(scripts) > 0 {
			return nil
		}
		empties, prints, nul := false, false, sedFlag(args, 'z', "--null-data")
		for _, p := range progs {
			s := scanSed(p)
			empties, prints = empties || s.empties || nul && s.emptiesNul, prints || s.prints
		}
		if empties || sedQuiet(args) && !prints {
			return files
		}
	}
	return nil
}

// notBeside returns the file a command replaces, unless it names a new
// file beside find's {} ({}.bak): a copy, no loss. {} and ./{} are the
// file found itself.
func notBeside(w Word) []Word {
	if v := strings.TrimPrefix(w.Value, "./"); strings.Contains(v, "{}") && v != "{}" {
		return nil
	}
	return []Word{w}
}

// truncatedFiles returns truncate's files when it cuts them to nothing
// (-s 0, --size=0, -s0).
func truncatedFiles(args []Word) []Word {
	var files []Word
	size := ""
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--":
			files = append(files, args[i+1:]...)
			i = len(args)
		case v == "-s" || v == "--size" || v == "-r" || v == "--reference":
			if i+1 < len(args) {
				i++
				if v == "-s" || v == "--size" {
					size = args[i].Value
				}
			}
		case strings.HasPrefix(v, "--size="):
			size = strings.TrimPrefix(v, "--size=")
		case strings.HasPrefix(v, "-s"):
			size = strings.TrimPrefix(v, "-s")
		case strings.HasPrefix(v, "-") && len(v) > 1:
		default:
			files = append(files, args[i])
		}
	}
	if strings.TrimLeft(size, "<") != "0" {
		return nil
	}
	return files
}

// sedQuiet reports sed's -n (--quiet, --silent): only what the program
// prints is written back.
func sedQuiet(args []Word) bool {
	return sedFlag(args, 'n', "--quiet", "--silent")
}

// sedFlag reports a sed option without a value, short or long (a long
// one abbreviated too: --null).
func sedFlag(args []Word, short rune, long ...string) bool {
	for _, a := range args {
		v := a.Value
		if v == "--" {
			return false
		}
		for _, l := range long {
			if len(v) > 3 && strings.HasPrefix(l, v) {
				return true
			}
		}
		if len(v) < 2 || v[0] != '-' || v[1] == '-' {
			continue
		}
		for _, c := range v[1:] {
			if c == short {
				return true
			}
			if strings.ContainsRune("iefl", c) { // the rest is a value
				break
			}
		}
	}
	return false
}

// manyFiles reports words that stand for two files or more with content:
// a glob or an expansion, or two existing non-empty files (two new ones
// written alike are no loss: echo ok | tee a.log b.log).
func manyFiles(words []Word, cwds cwdSet, env Env) bool {
	n := 0
	for _, w := range words {
		if w.Glob || w.Dynamic {
			return true
		}
		if filled(w, cwds, env) {
			n++
		}
	}
	return n >= 2
}

// filled reports a file that exists here with content (any file when
// the policy has no file system to look at).
func filled(w Word, cwds cwdSet, env Env) bool {
	if env.FS == nil {
		return true
	}
	abs, ok := cwds.resolve(w)
	if !ok {
		return true
	}
	for _, a := range abs {
		if filledPath(a, env) {
			return true
		}
	}
	return false
}

// filledPath reports a file (not a folder) at an absolute path with
// content, or a link.
func filledPath(p string, env Env) bool {
	fi, err := env.FS.Lstat(p)
	return err == nil && !fi.IsDir() && (fi.Size() > 0 || fi.Mode()&fs.ModeSymlink != 0)
}

// bulkEmptyHits: a command that empties several files it names.
func bulkEmptyHits(v view, cwds cwdSet, env Env) []hit {
	if files := emptiedFiles(v.name, v.args); manyFiles(files, cwds, env) {
		return []hit{{id: FloorGitDiscard, detail: v.name + " " + joinValues(v.args) + " empties every file it names: their uncommitted content is lost, as with rm"}}
	}
	return nil
}

// findEmptyHits: find whose -exec empties each file it finds ({}), when
// it may find two files with content or more.
func findEmptyHits(v view, cwds cwdSet, env Env) []hit {
	starts, i := findStarts(v.args)
	follow := false
	for _, a := range v.args {
		follow = follow || a.Value == "-L" || a.Value == "-H" || a.Value == "-follow"
	}
	expr := v.args[i:]
	for ; i < len(v.args); i++ {
		switch v.args[i].Value {
		case "-exec", "-execdir", "-ok", "-okdir":
		default:
			continue
		}
		var words []Word
		for i++; i < len(v.args) && v.args[i].Value != ";" && v.args[i].Value != "+"; i++ {
			words = append(words, v.args[i])
		}
		if len(words) < 2 || words[0].Dynamic || !hasFound(emptiedFiles(cmdName(words[0]), words[1:])) {
			continue
		}
		found, listed := foundFiles(starts, expr, follow, cwds, env)
		n := 0
		for _, f := range found { // listed only with a file system
			if filledPath(f, env) {
				n++
			}
		}
		if !listed || n >= 2 {
			return []hit{{id: FloorGitDiscard, detail: "find " + joinValues(v.args) + " empties every file it finds: their uncommitted content is lost, as with rm"}}
		}
	}
	return nil
}
