package permit

import (
	"path/filepath"
	"slices"
	"strings"
)

// A word known only when the shell runs ($x, "$x", ${x}, $(…), `…`) says
// nothing to a floor that decides by the word's value: x=--hard; git reset
// $x resets as git reset --hard does, and f=.env; cat $f reads .env. In a
// place where a floor reads the value — an option or subcommand of a tool
// whose options the floors judge, a file a reader prints from a folder
// holding secrets, the name of an exported variable — such a word is taken
// as the worst value it could have, and asked, as rm's targets are.

// optionJudged are the commands whose options or subcommands a floor
// judges (git reset --hard, go test -exec, rg --pre, make --eval, sed's e,
// find -delete, ssh -oProxyCommand, npm --script-shell): a word known only
// when it runs, where an option can stand, could be the dangerous one.
func optionJudged(name string) bool {
	switch name {
	case "git", "go", "make", "gmake", "bmake", "sed", "gsed", "find", "pytest", "py.test", "cargo", "xargs":
		return true
	}
	_, opt := cmdOptions[name]
	_, js := jsToolCodeOpts[name]
	_, lint := lintConfigOpts[name]
	return opt || js || lint || jsRunners[name]
}

// optionValues are options whose next word is their value (a message, a
// count, a pattern, a folder), which a word known only when it runs can
// fill without becoming an option: git commit -m "$(cat <<EOF …)", go test
// -run "$T", find . -name "$x".
var optionValues = map[string]map[string]bool{
	"git": setOf("-m", "--message", "-n", "--max-count", "--author", "--date", "--grep", "--format", "--pretty",
		"-S", "-G", "--since", "--until", "--after", "--before", "-b", "-B", "-C", "-c", "--git-dir", "--work-tree",
		"--skip", "--depth", "--shallow-since", "-L"),
	"go": setOf("-run", "-bench", "-skip", "-count", "-timeout", "-tags", "-p", "-parallel", "-cpu", "-benchtime",
		"-covermode", "-coverpkg", "-coverprofile", "-o", "-fuzz", "-fuzztime", "-shuffle", "-C", "-outputdir"),
	"find": setOf("-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-type",
		"-maxdepth", "-mindepth", "-mtime", "-mmin", "-atime", "-amin", "-ctime", "-cmin", "-newer", "-size", "-user",
		"-group", "-perm", "-lname", "-ilname"),
	"make":   setOf("-j", "--jobs", "-l", "--load-average"),
	"pytest": setOf("-k", "-m", "--maxfail", "--durations", "-n"),
	"rg":     setOf("-e", "--regexp", "-g", "--glob", "-t", "--type", "-T", "--type-not", "-m", "--max-count", "-A", "-B", "-C"),
	"sort":   setOf("-k", "--key", "-t", "--field-separator", "-S", "--buffer-size"),
}

// startsUnknown reports a word whose value, as written, starts with an
// expansion whose value is text (not $((…)), a number, nor <(…), a path
// under /dev/fd), or is an option spelled around one (--$x, -$x).
func startsUnknown(w Word) bool {
	if !w.Dynamic {
		return false
	}
	v := w.Value
	switch {
	case strings.HasPrefix(v, "$(("), strings.HasPrefix(v, "<("), strings.HasPrefix(v, ">("):
		return false
	case strings.HasPrefix(v, "$"), strings.HasPrefix(v, "`"):
		return true
	}
	return strings.HasPrefix(v, "-") && strings.ContainsAny(v, "$`")
}

// dynamicWordHits: the words of one part known only when it runs, where
// a floor would decide by their value.
func (b *bashCheck) dynamicWordHits(pt part) []hit {
	v := pt.view
	var hs []hit
	if h, ok := dynamicOption(v); ok {
		hs = append(hs, h)
	}
	if h, ok := dynamicVarName(pt.cmd, v); ok {
		hs = append(hs, h)
	}
	if h, ok := b.dynamicRead(pt); ok {
		hs = append(hs, h)
	}
	return hs
}

// dynamicOption finds a word known only when it runs where an option or
// subcommand of an option-judged command can stand. sed's program is
// judged too, whatever it starts with: s/$a/b/ can end in the e flag.
func dynamicOption(v view) (hit, bool) {
	if !optionJudged(v.name) {
		return hit{}, false
	}
	id := FloorCodeExec
	if v.name == "git" {
		id = FloorDynamicCommand
	}
	vals := optionValues[v.name]
	for i, a := range v.args {
		if !v.dynamicArgsAfterDD() && a.Value == "--" && !a.Dynamic {
			break // operands: the floors that read files judge them
		}
		if !startsUnknown(a) && !(a.Dynamic && (v.name == "sed" || v.name == "gsed")) {
			continue
		}
		if i > 0 && !v.args[i-1].Dynamic && vals[v.args[i-1].Value] {
			continue
		}
		what, cmd := "an option or operand", v.name
		if v.name == "git" {
			switch sub := gitSubIndex(v.args); {
			case i == sub:
				what = "the subcommand"
			case i > sub:
				cmd += " " + v.args[sub].Value
			}
		}
		return hit{id: id, detail: cmd + " " + a.Raw + ": " + what + " known only when it runs, which could be one the floor stops (" + worstOf(v.name) + ")"}, true
	}
	if v.extraArgs && (v.dynamicArgsAfterDD() || !hasWord(v.args, "--")) {
		// xargs (and parallel) append words read from their input, known
		// only when they run, and as many as the input holds: echo --hard
		// | xargs git reset is git reset --hard (red team 13b, finding 3)
		return hit{id: id, detail: "xargs " + v.name + ": xargs appends words known only when it runs, which could be options the floor stops (" + worstOf(v.name) + ")"}, true
	}
	return hit{}, false
}

// hasWord reports a word written as s, not computed.
func hasWord(ws []Word, s string) bool {
	for _, w := range ws {
		if w.Value == s && !w.Dynamic {
			return true
		}
	}
	return false
}

// dynamicArgsAfterDD reports a command whose operands after -- are judged
// by value too: git checkout -- $x checks out the whole tree when x is ".".
func (v view) dynamicArgsAfterDD() bool {
	return v.name == "git" || v.name == "sed" || v.name == "gsed"
}

// gitSubIndex is the index of git's subcommand among its arguments.
func gitSubIndex(args []Word) int {
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !strings.HasPrefix(a, "-") || args[i].Dynamic {
			return i
		}
		switch a {
		case "-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--exec-path", "--super-prefix":
			i++
		}
	}
	return len(args)
}

// worstOf names what an unknown option of the command could be.
func worstOf(name string) string {
	switch name {
	case "git":
		return "reset --hard, clean -f, push --force, -c core.pager=…"
	case "go":
		return "-exec=…, -toolexec=…"
	case "sed", "gsed":
		return "its e command runs shell commands"
	case "find":
		return "-delete, -exec"
	case "make", "gmake", "bmake":
		return "--eval=…, -f …"
	}
	return "an option that runs another program"
}

// declarers set variables from their arguments.
var declarers = setOf("export", "declare", "typeset", "local", "readonly", "env")

// dynamicVarName finds a variable set or exported under a name known only
// when it runs (x=LD_PRELOAD; export $x=./x.so): the code-exec floor
// judges variables by their name.
func dynamicVarName(c Command, v view) (hit, bool) {
	words := c.Assigns
	if declarers[v.name] {
		words = append(append([]Word{}, words...), v.args...)
	}
	for _, a := range words {
		if !a.Dynamic {
			continue
		}
		name, _, _ := strings.Cut(a.Value, "=")
		if strings.HasPrefix(name, "-") && !strings.ContainsAny(name, "$`") {
			continue
		}
		if strings.ContainsAny(name, "$`") {
			return hit{id: FloorCodeExec, detail: v.name + " " + a.Raw + ": a variable whose name is known only when it runs, which could be LD_PRELOAD, PATH or another that names code a program loads"}, true
		}
	}
	return hit{}, false
}

// patternFirst are readers whose first operand is a pattern or program,
// not a file, unless an option gives it.
var patternFirst = setOf("grep", "egrep", "fgrep", "rg", "ag", "ack", "awk", "gawk", "mawk", "nawk", "jq", "yq", "sed", "gsed")

// maxSecretScan bounds the entries of a folder looked at for a secret.
const maxSecretScan = 500

// dynamicRead finds a file a reader prints whose name is known only when
// it runs, in a folder that holds a secret file (f=.env; cat $f, cat
// $(printf '.\145nv')): it could be that file.
func (b *bashCheck) dynamicRead(pt part) (hit, bool) {
	v := pt.view
	if !readers[v.name] {
		return hit{}, false
	}
	skipFirst := patternFirst[v.name]
	for _, a := range v.args {
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			if o, _, _ := strings.Cut(a.Value, "="); o == "-e" || o == "--regexp" || o == "-f" || o == "--file" || o == "--expression" {
				skipFirst = false
			}
		}
	}
	first := true
	for _, a := range v.args {
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			continue
		}
		if first && skipFirst {
			first = false
			continue
		}
		first = false
		if !a.Dynamic || strings.HasPrefix(a.Value, "<(") || strings.HasPrefix(a.Value, "$((") {
			continue // a process substitution is a pipe, its command judged on its own
		}
		if b.listedWord(a, pt.cwds) {
			continue // $(git ls-files '*.go'): names looked at, none a credential (lister16b.go)
		}
		val, skip := a.Value, 0
		for _, h := range []string{"$HOME/", "${HOME}/", "$PWD/", "${PWD}/"} {
			if strings.HasPrefix(val, h) {
				skip = len(h) // expanded by resolve
			}
		}
		if i := strings.IndexAny(val[skip:], "$`"); i >= 0 {
			val = val[:skip+i]
		}
		dir := "."
		if j := strings.LastIndexByte(val, '/'); j >= 0 {
			dir = val[:j+1]
		}
		if s, ok := pt.cwds.secretIn(dir); ok {
			id := FloorCredentialRead
			if b.hasNetwork {
				id = FloorCredentialExfil
			}
			return hit{id: id, detail: v.name + " " + a.Raw + ": a file known only when it runs, in a folder that holds " + s}, true
		}
	}
	return hit{}, false
}

// secretIn returns a secret file directly in the folder dir names.
func (s cwdSet) secretIn(dir string) (string, bool) {
	abs, ok := s.resolve(Word{Value: dir, Tilde: strings.HasPrefix(dir, "~")})
	if !ok {
		return "", false
	}
	for _, d := range abs {
		// files are opened only in the workdir and the home folder: a
		// system folder holds files whose read blocks (/proc/kmsg)
		open := s.env.inside(d) || s.env.Home != "" && (d == s.env.Home || strings.HasPrefix(d, s.env.Home+"/"))
		entries, err := readDir(s.env, d)
		if err != nil {
			continue
		}
		for i, e := range entries {
			if i >= maxSecretScan {
				break
			}
			p := filepath.Join(d, e.Name())
			if e.IsDir() {
				if slices.Contains(credentialDirs, e.Name()) {
					return p, true // ~/.ssh, ~/.aws: $f could be .ssh/id_rsa
				}
				continue
			}
			if isCredential(p) {
				return p, true
			}
			// only a regular file is opened: a FIFO would block the check
			if !open {
				continue
			}
			if info, err := s.env.FS.Lstat(s.env.realPath(p)); err == nil && info.Mode().IsRegular() && s.env.secretFileScan(p, keyScanWalk) {
				return p, true
			}
		}
	}
	return "", false
}
