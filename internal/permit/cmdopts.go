package permit

import "strings"

// cmdOptions are options whose value is a command the program runs: the
// floor and the rules check that command as a part of its own.
var cmdOptions = map[string][]string{
	"sort":  {"--compress-program"},
	"rg":    {"--pre"},
	"tar":   {"--use-compress-program", "-I", "--to-command", "--info-script", "--new-volume-script", "-F"},
	"rsync": {"-e", "--rsh", "--rsync-path"},
	"zip":   {"-TT", "--unzip-command"},
	"ssh":   {"-oProxyCommand", "-oLocalCommand"},
	"man":   {"-P", "--pager"},
}

// gitCmdOptions are the same for git's subcommands.
var gitCmdOptions = map[string][]string{
	"fetch": {"--upload-pack"}, "pull": {"--upload-pack"}, "clone": {"--upload-pack", "-u"},
	"ls-remote": {"--upload-pack"}, "push": {"--receive-pack", "--exec"}, "archive": {"--exec"},
	"grep": {"--open-files-in-pager", "-O"}, "difftool": {"-x", "--extcmd"}, "rebase": {"-x", "--exec"},
	"mergetool": {"--tool-cmd"},
}

// optionCommands returns the commands given as values of opts in args:
// --opt=CMD, --opt CMD, -X CMD, -XCMD, and tar's --checkpoint-action=exec=CMD.
func optionCommands(args []Word, opts []string) []nested {
	var out []nested
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		if a, ok := strings.CutPrefix(v, "--checkpoint-action=exec="); ok {
			out = append(out, nested{text: a})
			continue
		}
		for _, o := range opts {
			switch {
			case v == o && i+1 < len(args):
				out = append(out, nested{text: args[i+1].Value})
				i++
			case strings.HasPrefix(o, "--") && strings.HasPrefix(v, o+"="):
				out = append(out, nested{text: strings.TrimPrefix(v, o+"=")})
			case !strings.HasPrefix(o, "--") && len(o) >= 2 && strings.HasPrefix(v, o) && len(v) > len(o):
				out = append(out, nested{text: strings.TrimLeft(strings.TrimPrefix(v, o), "=")})
			default:
				continue
			}
			break
		}
	}
	return out
}

// gitRuns returns the commands a git command line runs besides git:
// -c settings, option values, submodule foreach and bisect run.
func gitRuns(args []Word) []nested {
	g := parseGit(args)
	out := append(g.nested, optionCommands(g.args, gitCmdOptions[g.sub])...)
	switch g.sub {
	case "config":
		for i := 0; i+1 < len(g.args); i++ {
			out = append(out, gitConfigCommand(g.args[i].Value+"="+g.args[i+1].Value)...)
		}
	case "submodule":
		for i, a := range g.args {
			if a.Value == "foreach" && i+1 < len(g.args) {
				rest := g.args[i+1:]
				for len(rest) > 0 && strings.HasPrefix(rest[0].Value, "-") {
					rest = rest[1:]
				}
				out = append(out, nested{text: joinValues(rest)})
			}
		}
	case "bisect":
		if len(g.args) > 1 && g.args[0].Value == "run" {
			out = append(out, nested{words: g.args[1:]})
		}
	}
	return out
}

// sedView adds to a sed command's view what its program does beyond the
// stream: commands it runs (e), files it writes (w) and reads (r).
func sedView(v *view) {
	progs, ok := sedPrograms(v.args)
	if !ok {
		v.opaque = true // a program from a file, or computed
		return
	}
	for _, p := range progs {
		s := scanSed(p)
		v.sedExec = v.sedExec || s.exec
		for _, f := range s.writes {
			v.writes = append(v.writes, pathWord(f))
		}
		for _, f := range s.reads {
			v.reads = append(v.reads, pathWord(f))
		}
	}
}

// pathWord makes a word of a file name found inside another word.
func pathWord(s string) Word {
	return Word{Raw: s, Value: s, Tilde: strings.HasPrefix(s, "~"), Dynamic: strings.ContainsAny(s, "$`")}
}

// outputOpts are options whose value is a file or directory the program writes.
var outputOpts = map[string][]string{
	"curl": {"-o", "--output"}, "wget": {"-O", "--output-document", "-P", "--directory-prefix"},
	"sort": {"-o", "--output"}, "go": {"-o"}, "gcc": {"-o"}, "g++": {"-o"}, "cc": {"-o"}, "clang": {"-o"},
	"tar": {"-C", "--directory"}, "unzip": {"-d"}, "git": {"--output"},
}

// optionFiles returns the values of opts in args (--opt=F, --opt F, -X F, -XF).
func optionFiles(args []Word, opts []string) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		v := args[i].Value
		for _, o := range opts {
			switch {
			case v == o && i+1 < len(args):
				out = append(out, args[i+1])
				i++
			case strings.HasPrefix(o, "--") && strings.HasPrefix(v, o+"="):
				out = append(out, pathWord(strings.TrimPrefix(v, o+"=")))
			case !strings.HasPrefix(o, "--") && strings.HasPrefix(v, o) && len(v) > len(o):
				out = append(out, pathWord(strings.TrimPrefix(v, o)))
			default:
				continue
			}
			break
		}
	}
	return out
}
