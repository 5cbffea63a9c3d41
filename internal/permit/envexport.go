package permit

import "strings"

// scriptEnv is what a script puts into the environment of its commands
// beyond their own NAME=value prefixes: export NAME=…, declare -x (and
// typeset, local, readonly -x), export NAME of a variable set before, and
// any assignment after set -a. export GNUPGHOME=g; git log --show-signature
// runs git log as GNUPGHOME=g git log does (red team 10b, findings 1-4,
// 7, 8, 16), so each command of the script is matched with those
// assignments in front of it: only the variables known to be harmless
// (safeEnv) leave a rule for the bare command matching.
type scriptEnv struct {
	exported  []Word // assignments that reach the environment
	plain     []Word // assignments that do only under set -a
	allexport bool   // set -a, set -o allexport
}

// note adds what one simple command assigns.
func (s *scriptEnv) note(c Command, v view) {
	if len(c.Args) == 0 {
		s.plain = append(s.plain, c.Assigns...)
		return
	}
	switch v.name {
	case "export":
		s.declared(v.args, true)
	case "declare", "typeset", "local", "readonly":
		s.declared(v.args, false)
	case "set":
		for i, a := range v.args {
			o := a.Value
			switch {
			case a.Dynamic:
				s.allexport = true // set "$opts": anything
			case o == "-o" && i+1 < len(v.args) && v.args[i+1].Value == "allexport":
				s.allexport = true
			case len(o) > 1 && o[0] == '-' && o[1] != '-' && strings.ContainsRune(o[1:], 'a'):
				s.allexport = true
			}
		}
	case "read", "mapfile", "readarray", "printf":
		for _, n := range assignedNames(v) {
			s.plain = append(s.plain, envWord(n))
		}
	}
}

// declared reads the words of export (export is true) or declare and its
// kin: options first (-x exports, -f names functions, -n makes a
// reference to another variable), then NAME or NAME=value.
func (s *scriptEnv) declared(args []Word, export bool) {
	funcs, ref, isExport := false, false, export
	i := 0
	for ; i < len(args); i++ {
		o := args[i].Value
		if o == "--" {
			i++
			break
		}
		if args[i].Dynamic && strings.HasPrefix(args[i].Raw, "-") {
			export, funcs = true, true // options known only when it runs
			continue
		}
		if len(o) < 2 || o[0] != '-' && o[0] != '+' {
			break
		}
		if o[0] == '-' && strings.ContainsRune(o, 'x') {
			export = true
		}
		switch {
		case isExport && o[0] == '-' && strings.ContainsRune(o, 'n'):
			export = false // export -n takes the export away
		case o[0] == '-' && strings.ContainsRune(o, 'n'):
			ref = true
		}
		if strings.ContainsRune(o, 'f') {
			funcs = true
		}
	}
	for _, a := range args[i:] {
		name, _, eq := strings.Cut(a.Value, "=")
		switch {
		case funcs:
			// an exported function overrides a command of every bash script the command runs
			s.exported = append(s.exported, envWord("BASH_FUNC_"+name))
			continue
		case ref:
			// a reference: assigning through it sets the variable it names, any of them
			s.exported = append(s.exported, envWord("declare -n "+a.Value))
			continue
		case !eq:
			a = envWord(name) // the value it was given before, or none
		}
		if export {
			s.exported = append(s.exported, a)
		} else {
			s.plain = append(s.plain, a)
		}
	}
}

// envWord stands for NAME=value with a value known only when it runs.
func envWord(name string) Word {
	return Word{Raw: name + "=…", Value: name + "=…", Dynamic: true}
}

// risky are the assignments that reach the environment of the script's
// commands and are not known to be harmless.
func (s *scriptEnv) risky() []Word {
	all := s.exported
	if s.allexport {
		all = append(append([]Word{}, all...), s.plain...)
	}
	var out []Word
	for _, w := range all {
		name, _, _ := strings.Cut(w.Value, "=")
		name = strings.TrimSuffix(name, "+")
		if !w.Dynamic && (safeEnv[name] || strings.HasPrefix(name, "LC_")) {
			continue
		}
		out = append(out, Word{Raw: w.Raw, Value: w.Value, Dynamic: true})
	}
	return out
}

// envNeutral are commands the environment does not change: the shell's
// own that run nothing, and those that set it.
var envNeutral = setOf("export", "declare", "typeset", "local", "readonly", "set", "unset", "cd", "pwd", "echo",
	"printf", "true", "false", ":", "shift", "return", "exit", "test", "[", "read", "mapfile", "readarray", "wait")

// withEnv is the text a part is matched with: the script's risky
// environment in front of it, as if it were written NAME=value cmd. make
// is left as it is: it takes its environment as variables, and
// makeEnvHits judges them the way make test NAME=value is judged.
func (b *bashCheck) withEnv(pt part, text string) (string, []Word) {
	env := b.senv.risky()
	if len(env) == 0 || pt.err != nil || len(pt.cmd.Args) == 0 || envNeutral[pt.view.name] || isMake(pt.view.name) {
		return text, nil
	}
	c := pt.cmd
	c.Assigns = append(append([]Word{}, env...), c.Assigns...)
	return matchText(c), env
}

// joinRaw joins the words as written.
func joinRaw(ws []Word) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Raw
	}
	return strings.Join(out, " ")
}

// goFlagsWriteHits judges the files a GOFLAGS value makes go write
// (-o=, -coverprofile=, -pkgdir=, -test.testlogfile=, -gcflags=-cpuprofile=…)
// as writes of those paths, wherever the value is set: NAME=value before
// the command, after env or export, or as make's variable (red team 10b,
// finding 17: GOFLAGS=-o=.git/hooks/pre-commit go build . made a hook).
func goFlagsWriteHits(c Command, cwds cwdSet, env Env) []hit {
	var hs []hit
	for _, w := range append(append([]Word{}, c.Assigns...), c.Args...) {
		name, val, ok := strings.Cut(w.Value, "=")
		if !ok || strings.TrimSuffix(name, "+") != "GOFLAGS" || w.Dynamic {
			continue
		}
		for _, f := range goFlagsFiles(val) {
			hs = append(hs, writeHits(f, cwds, env, "go (GOFLAGS="+val+")")...)
		}
	}
	return hs
}

// goFlagsFiles are the files the flags of a GOFLAGS value write.
func goFlagsFiles(val string) []Word {
	var args []Word
	for _, f := range quotedSplit(val) {
		args = append(args, Word{Raw: f, Value: f})
	}
	return outputFiles("go", args)
}
