package permit

import (
	"strings"
)

// scriptKind tells where a shell or interpreter takes its program from.
type scriptKind int

const (
	scriptNone    scriptKind = iota // not an interpreter
	scriptStatic                    // a file, a module, or code written out in the command
	scriptStdin                     // its standard input
	scriptDynamic                   // text only known when it runs: $(...), <(...), $var
)

// nested is a command another command runs: sh -c TEXT, find -exec ARGV...
type nested struct {
	text      string // shell text to split
	words     []Word // or an argv already split
	elsewhere bool   // runs in a folder not known here (ssh's other machine, find -execdir's found files' folders): relative paths are unknown
}

// view is a simple command seen through its wrappers (sudo, env, nice,
// xargs...): the command that really runs and what wraps it.
type view struct {
	name        string // base name of the command that runs, lower-cased; "" when only wrappers
	args        []Word // its arguments
	dynamicName bool   // the command word is an expansion or a glob
	privileged  string // the wrapper that runs it as another user, if any
	extraArgs   bool   // more arguments are appended when it runs (xargs)
	chdir       bool   // it runs in another directory or root
	script      scriptKind
	nested      []nested
	opaque      bool   // its arguments hide what it touches (sed -f FILE): never provably inside the workdir
	sedExec     bool   // a sed program that runs shell commands
	writes      []Word // files it writes that are not words of their own (sed's w)
	reads       []Word // files it reads that are not words of their own (sed's r)
}

// shells read shell code; their -c text is split and checked.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true,
	"ash": true, "fish": true, "csh": true, "tcsh": true, "rbash": true, "yash": true, "busybox": true}

// codeFlags are the options that give an interpreter its program inline.
var codeFlags = map[string][]string{"python": {"-c"}, "perl": {"-e", "-E"}, "ruby": {"-e"},
	"node": {"-e", "--eval", "-p", "--print"}, "nodejs": {"-e", "--eval", "-p", "--print"}, "php": {"-r"},
	"lua": {"-e"}, "pwsh": {"-c", "-command"}, "powershell": {"-c", "-command"}, "osascript": {"-e"},
	"deno": {"eval"}, "bun": {"-e", "--eval"}, "tclsh": {}, "rscript": {"-e"}}

// isPython reports a Python interpreter's name (python3, python3.12, pypy3).
func isPython(name string) bool {
	n, _ := interpreter(name)
	return n == "python"
}

// interpreter returns the codeFlags key for a command name (python3.12 is python).
func interpreter(name string) (string, bool) {
	if strings.HasPrefix(name, "python") || strings.HasPrefix(name, "pypy") {
		return "python", true
	}
	if strings.HasPrefix(name, "perl") {
		return "perl", true
	}
	_, ok := codeFlags[name]
	return name, ok
}

// lookThrough finds the command a simple command really runs.
func lookThrough(c Command) view {
	var v view
	words := c.Args
	for len(words) > 0 {
		w := words[0]
		if w.Dynamic || w.Glob && w.Value != "[" { // a lone [ matches no file: it is test
			v.dynamicName = true
			v.args = words[1:]
			return v
		}
		name := cmdName(w)
		if spec, ok := wrappers[name]; ok {
			rest, info, runs := spec.skipInfo(words[1:])
			if spec.privileged && v.privileged == "" {
				v.privileged = name
			}
			v.chdir = v.chdir || info.chdir || spec.chroot
			v.extraArgs = v.extraArgs || spec.extraArgs
			for _, n := range info.nested {
				v.nested = append(v.nested, nested{text: n})
			}
			if !runs || len(rest) == 0 {
				v.name, v.args = name, nil
				return v
			}
			words = rest
			continue
		}
		if (name == "busybox" || name == "toybox") && len(words) > 1 && !shells[cmdName(words[1])] && !strings.HasPrefix(words[1].Value, "-") {
			words = words[1:] // busybox rm: the applet runs
			continue
		}
		v.name, v.args = name, words[1:]
		expandLongOptions(name, v.args) // make --eva is make --eval
		switch name {
		case "script":
			for i, a := range v.args {
				if (a.Value == "-c" || a.Value == "--command") && i+1 < len(v.args) {
					v.nested = append(v.nested, nested{text: v.args[i+1].Value})
				} else if c, ok := strings.CutPrefix(a.Value, "--command="); ok {
					v.nested = append(v.nested, nested{text: c})
				}
			}
		case "alias":
			for _, a := range v.args {
				if _, val, ok := strings.Cut(a.Value, "="); ok {
					v.nested = append(v.nested, nested{text: val})
				}
			}
		case "trap":
			if len(v.args) > 0 && !strings.HasPrefix(v.args[0].Value, "-") {
				v.nested = append(v.nested, nested{text: v.args[0].Value})
			}
		case "su", "sudoedit", "ksu", "machinectl":
			v.privileged = name
			v.nested = append(v.nested, suCommand(v.args)...)
		case "git":
			v.nested = append(v.nested, gitRuns(v.args)...)
		case "sed", "gsed":
			sedView(&v)
		case "ssh":
			for i, a := range v.args {
				if a.Value == "-o" && i+1 < len(v.args) {
					k, val, _ := strings.Cut(v.args[i+1].Value, "=")
					if strings.EqualFold(k, "ProxyCommand") || strings.EqualFold(k, "LocalCommand") {
						v.nested = append(v.nested, nested{text: val})
					}
				}
			}
		case "watch":
			if inner, exec := watchCommand(v.args); exec {
				words = inner
				continue
			} else if len(inner) > 0 {
				v.nested = append(v.nested, nested{text: joinValues(inner)})
			}
		}
		if opts, ok := cmdOptions[name]; ok {
			v.nested = append(v.nested, optionCommands(v.args, opts)...)
		}
		v.writes = append(v.writes, outputFiles(name, v.args)...)
		v.script, v.nested = scriptOf(v, c, v.nested)
		return v
	}
	return v
}

// suCommand returns what su -c runs.
func suCommand(args []Word) []nested {
	for i, a := range args {
		switch {
		case (a.Value == "-c" || a.Value == "--command" || a.Value == "--session-command") && i+1 < len(args):
			return []nested{{text: args[i+1].Value}}
		case strings.HasPrefix(a.Value, "--command="):
			return []nested{{text: strings.TrimPrefix(a.Value, "--command=")}}
		}
	}
	return nil
}

// watchCommand returns the words watch runs; exec reports -x (no shell).
func watchCommand(args []Word) (rest []Word, exec bool) {
	for len(args) > 0 && strings.HasPrefix(args[0].Value, "-") {
		v := args[0].Value
		args = args[1:]
		if v == "--" {
			break
		}
		if v == "-x" || v == "--exec" {
			exec = true
		}
		if (v == "-n" || v == "--interval" || v == "-q" || v == "--equexit") && len(args) > 0 {
			args = args[1:]
		}
	}
	return args, exec
}

// scriptOf tells where a shell, interpreter, eval or source takes its
// program from, and adds the shell code it runs to nested.
func scriptOf(v view, c Command, out []nested) (scriptKind, []nested) {
	switch {
	case shells[v.name]:
		k, n := shellScript(v.args, c, out)
		if k == scriptStatic && v.extraArgs {
			// xargs sh -c [SCRIPT]: the input becomes the script, its
			// arguments, or text put in place of -I's {} inside it
			k = scriptDynamic
		}
		return k, n
	case v.name == "eval":
		for _, a := range v.args {
			if a.Dynamic {
				return scriptDynamic, out
			}
		}
		return scriptStatic, append(out, nested{text: joinValues(v.args)})
	case v.name == "source" || v.name == ".":
		if len(v.args) == 0 {
			return scriptStdin, out
		}
		if v.args[0].Dynamic {
			return scriptDynamic, out
		}
		return scriptStatic, out
	case v.name == "ssh":
		if remote := sshRemote(v.args); len(remote) > 0 {
			return scriptNone, append(out, nested{text: joinValues(remote), elsewhere: true})
		}
	}
	if key, ok := interpreter(v.name); ok {
		return interpScript(key, v.args, c), out
	}
	return scriptNone, out
}

// shellScript reads a shell's options: -c TEXT is split and checked, a
// file operand is static, no operand means standard input.
func shellScript(args []Word, c Command, out []nested) (scriptKind, []nested) {
	if len(args) > 0 && args[0].Value == "sh" { // busybox sh
		args = args[1:]
	}
	cmode, stdin := false, false
	for len(args) > 0 {
		a := args[0].Value
		if a == "--" || a == "-" {
			args = args[1:]
			break
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') || args[0].Dynamic {
			break
		}
		args = args[1:]
		switch {
		case a == "--rcfile" || a == "--init-file" || a == "-o" || a == "+o" || a == "-O" || a == "+O":
			if len(args) > 0 {
				args = args[1:]
			}
		case strings.HasPrefix(a, "--"):
		default:
			cmode = cmode || strings.ContainsRune(a[1:], 'c')
			stdin = stdin || strings.ContainsRune(a[1:], 's')
		}
	}
	switch {
	case cmode && len(args) == 0:
		return scriptStatic, out
	case cmode && args[0].Dynamic:
		return scriptDynamic, out
	case cmode:
		return scriptStatic, append(out, nested{text: args[0].Value})
	case len(args) > 0 && !stdin && args[0].Dynamic:
		return scriptDynamic, out
	case len(args) > 0 && !stdin:
		return scriptStatic, out
	}
	// The program comes on standard input: a here-document is read as shell code.
	for _, r := range c.Redirects {
		switch r.Op {
		case "<<<":
			if r.Target.Dynamic {
				return scriptDynamic, out
			}
			return scriptStatic, append(out, nested{text: r.Body})
		case "<<", "<<-":
			if r.Target.Raw == r.Target.Value && strings.ContainsAny(r.Body, "$`") {
				return scriptDynamic, out // expanded before the shell reads it
			}
			return scriptStatic, append(out, nested{text: r.Body})
		case "<":
			if r.Target.Dynamic {
				return scriptDynamic, out
			}
			return scriptStatic, out
		}
	}
	if c.Op == "|" || c.Op == "|&" {
		return scriptDynamic, out // commands from the previous command's output
	}
	return scriptStdin, out
}

// interpScript tells where an interpreter (python, node, perl...) takes its
// program from. Its code is not shell, so it is not checked; only whether
// it could come from the network matters.
func interpScript(key string, args []Word, c Command) scriptKind {
	flags := codeFlags[key]
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, f := range flags {
			if strings.EqualFold(a.Value, f) {
				if i+1 < len(args) && args[i+1].Dynamic {
					return scriptDynamic
				}
				return scriptStatic
			}
			if strings.HasPrefix(a.Value, f) && len(f) == 2 && len(a.Value) > 2 {
				if a.Dynamic {
					return scriptDynamic
				}
				return scriptStatic
			}
		}
		switch {
		case a.Value == "-":
			return scriptStdin
		case a.Value == "-m" || a.Value == "run" && key == "deno":
			if i+1 < len(args) && args[i+1].Dynamic {
				return scriptDynamic
			}
			return scriptStatic
		case strings.HasPrefix(a.Value, "-") && !a.Dynamic:
			continue
		case a.Dynamic:
			return scriptDynamic
		default:
			return scriptStatic
		}
	}
	for _, r := range c.Redirects {
		if r.Op == "<" && r.Target.Dynamic {
			return scriptDynamic
		}
	}
	return scriptStdin
}

// sshRemote returns the command ssh runs on the remote machine.
func sshRemote(args []Word) []Word {
	const withArg = "bcDEeFIiJLlmOopQRSWw"
	host := false
	for i := 0; i < len(args); i++ {
		a := args[i].Value
		if !host && len(a) > 1 && a[0] == '-' {
			if strings.IndexByte(withArg, a[len(a)-1]) >= 0 && len(a) == 2 {
				i++
			}
			continue
		}
		if !host {
			host = true
			continue
		}
		return args[i:]
	}
	return nil
}

func joinValues(ws []Word) string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Value
	}
	return strings.Join(out, " ")
}
