package permit

import "strings"

// cmdOptions are options whose value is a command the program runs: the
// floor and the rules check that command as a part of its own.
var cmdOptions = map[string][]string{
	"sort":  {"--compress-program"},
	"rg":    {"--pre", "--hostname-bin"},
	"tar":   {"--use-compress-program", "-I", "--to-command", "--info-script", "--new-volume-script", "-F", "--rsh-command", "--rmt-command"},
	"rsync": {"-e", "--rsh", "--rsync-path"},
	"zip":   {"-TT", "--unzip-command"},
	"ssh":   {"-oProxyCommand", "-oLocalCommand"},
	"man":   {"-P", "--pager"},
}

// gitCmdOptions are the same for git's subcommands.
var gitCmdOptions = map[string][]string{
	// --exec is git's old, hidden name for --upload-pack (red team 22a,
	// finding 2: git ls-remote --exec='touch x; git-upload-pack' . ran it).
	"fetch": {"--upload-pack", "--exec"}, "pull": {"--upload-pack", "--exec"}, "clone": {"--upload-pack", "-u", "--exec"},
	"ls-remote": {"--upload-pack", "--exec"}, "push": {"--receive-pack", "--exec"}, "archive": {"--exec"},
	"grep": {"--open-files-in-pager", "-O"}, "difftool": {"-x", "--extcmd"}, "rebase": {"-x", "--exec"},
	"mergetool": {"--tool-cmd"},
	// Red team 13b (finding 6): the plumbing under push and fetch, and the
	// other commands whose options name a program (git help receive-pack,
	// fetch-pack, send-email, daemon, filter-branch).
	"send-pack": {"--receive-pack", "--exec"}, "fetch-pack": {"--upload-pack", "--exec"},
	"send-email": {"--sendmail-cmd", "--to-cmd", "--cc-cmd", "--header-cmd", "--smtp-server"},
	"daemon":     {"--access-hook"},
	"filter-branch": {"--env-filter", "--tree-filter", "--index-filter", "--parent-filter", "--msg-filter",
		"--commit-filter", "--tag-name-filter"},
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
	if suffix, files, ok, dyn := sedInPlace(v.args); ok {
		if dyn {
			v.writes = append(v.writes, unknownWord) // a backup name known only when it runs
		}
		for _, f := range files {
			if f.Dynamic {
				if suffix != "" {
					v.writes = append(v.writes, unknownWord)
				}
				continue
			}
			for _, b := range sedBackups(suffix, f.Value) {
				v.writes = append(v.writes, pathWord(b))
			}
		}
	}
	progs, files, ok := sedPrograms(v.args)
	if !ok || len(files) > 0 {
		v.opaque = true // a program from a file (judged on the floor: sedFileHits), or computed
	}
	if !ok {
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

// outputOpts are options whose value is a file or directory the program
// writes: downloads, builds, reports, profiles, caches. A tool writing
// its report into .git/hooks/pre-commit is a hook. An option written with
// a trailing ? takes an optional value (argparse's nargs='?'): --opt=V,
// or the next word when that does not start with '-' (pytest --debug
// --junitxml=F gives --debug no value; red team 11b, finding 12). A
// switch (flake8 --tee) has no place here: it would swallow the option
// after it (finding 1).
var outputOpts = map[string][]string{
	"curl": {"-o", "--output"}, "wget": {"-O", "--output-document", "-P", "--directory-prefix"},
	"sort": {"-o", "--output"}, "gcc": {"-o"}, "g++": {"-o"}, "cc": {"-o"}, "clang": {"-o"},
	"tar": {"-C", "--directory"}, "unzip": {"-d"}, "git": {"--output"},
	"go": {"-o", "-coverprofile", "-cpuprofile", "-memprofile", "-blockprofile", "-mutexprofile", "-trace",
		"-outputdir", "-test.coverprofile", "-test.cpuprofile", "-test.memprofile", "-test.blockprofile",
		"-test.mutexprofile", "-test.trace", "-test.outputdir", "-test.testlogfile", "-test.gocoverdir", "-test.fuzzcachedir",
		"-pkgdir"},
	"gofmt": {"-cpuprofile"}, "staticcheck": {"-debug.cpuprofile", "-debug.memprofile", "-debug.trace",
		"-debug.measure-analyzers", "-debug.cpu-profile", "-debug.mem-profile", "-debug.unused-graph"},
	"golangci-lint": {"--cpu-profile-path", "--mem-profile-path", "--trace-path"},
	"cargo":         {"--target-dir", "--artifact-dir", "--out-dir", "--logfile", "--lockfile-path"},
	"pytest": {"--junitxml", "--junit-xml", "--log-file", "--resultlog", "--result-log", "--html",
		"--debug?", "--basetemp", "--report-log", "--json-report-file"},
	"mypy": {"--junit-xml", "--cache-dir", "--html-report", "--txt-report", "--xml-report", "--linecount-report",
		"--linecoverage-report", "--lineprecision-report", "--any-exprs-report", "--cobertura-xml-report",
		"--memory-xml-report", "--xslt-html-report", "--xslt-txt-report"},
	"ruff": {"-o", "--output-file", "--cache-dir"}, "flake8": {"--output-file"},
	"eslint": {"-o", "--output-file", "--cache-location", "--suppressions-location"}, "jest": {"--outputFile", "--coverageDirectory", "--cacheDirectory"},
	"vitest": {"--outputFile", "--json?", "--coverage.reportsDirectory", "--cache.dir", "--attachmentsDir",
		"--outputFile.json", "--outputFile.junit", "--outputFile.html", "--outputFile.blob", "--outputFile.tap", "--outputFile.tap-flat"},
	"prettier": {"--cache-location"}, "npm": {"--logs-dir", "--cache"}, // red team 16b, finding 9
	"tsc": {"--outFile", "--outDir", "--out", "--declarationDir", "--tsBuildInfoFile", "--generateCpuProfile",
		"--generateTrace"},
	"tree": {"-o"}, "find": {"-fprint", "-fprint0", "-fprintf", "-fls"},
}

// pytestPluginFiles are the values of the long options pytest's core
// does not have: a plugin's, whose meaning is not known, so taken as a
// file it may write (pytest-benchmark's --benchmark-json, allure's
// --alluredir, pytest-md-report's --md-report-output wrote into .git:
// red team 18a, finding 5). A value that is no path only names a file
// that is not protected.
func pytestPluginFiles(args []Word) []Word {
	var out []Word
	for i, a := range args {
		if a.Value == "--" {
			break
		}
		k, val, eq := strings.Cut(a.Value, "=")
		if a.Dynamic || !strings.HasPrefix(k, "--") || pytestValueFlags[k] || pytestSwitches[k] {
			continue
		}
		if eq {
			out = append(out, pathWord(val))
		} else if i+1 < len(args) && !strings.HasPrefix(args[i+1].Value, "-") {
			out = append(out, args[i+1])
		}
	}
	return out
}

// pytestSwitches are pytest's own options that take no value.
var pytestSwitches = setOf("--lf", "--last-failed", "--ff", "--failed-first", "--nf", "--new-first", "--sw",
	"--stepwise", "--sw-skip", "--stepwise-skip", "--co", "--collect-only", "--collectonly", "--exitfirst",
	"--verbose", "--quiet", "--pdb", "--trace", "--setup-show", "--setup-only", "--setup-plan", "--runxfail",
	"--strict-markers", "--strict-config", "--strict", "--no-header", "--no-summary", "--showlocals", "--fixtures",
	"--markers", "--help", "--version", "--cache-show", "--cache-clear", "--lsof", "--full-trace", "--disable-warnings",
	"--disable-pytest-warnings", "--noconftest", "--keep-duplicates", "--doctest-modules", "--doctest-continue-on-collection-errors",
	"--continue-on-collection-errors", "--no-cov", "--cov-branch", "--cov-append", "--looponfail",
	"--pyargs", "--fixtures-per-test", "--debug", "--last-failed-no-failures", "--benchmark-disable", "--benchmark-skip", "--benchmark-only")

// outputFiles returns the files a command writes through its options
// (and uniq's second operand); name is the command a wrapper runs.
func outputFiles(name string, args []Word) []Word {
	switch {
	case isPython(name) && pyTool(args) != "": // python3 -m pytest too
		name = pyTool(args)
	case name == "py.test":
		name = "pytest"
	case name == "npx" || name == "pnpx" || name == "bunx" || name == "pnpm" || name == "yarn" || name == "bun":
		strs := make([]string, len(args))
		for i, a := range args {
			strs[i] = a.Value
		}
		if tool, rest := jsTool(name, strs); tool != name { // pnpm exec vitest, yarn jest
			name, args = tool, args[len(args)-len(rest):]
		}
	}
	if goFlagTools[name] { // Go's flag package takes --x for -x
		args = singleDash(args)
	}
	args = shortSplit(name, args) // sort -so F is sort -s -o F
	if jsRunners[name] {
		args = jsCanon(args, outputOpts[name]) // jest --output-file=F is --outputFile=F
	}
	out := optionFiles(args, outputOpts[name])
	switch name {
	case "golangci-lint": // --output.text.path=FILE and its siblings; v1's --out-format FORMAT:FILE,…
		for _, w := range optionFiles(args, []string{"--out-format"}) {
			for _, f := range strings.Split(w.Value, ",") {
				if _, p, ok := strings.Cut(f, ":"); ok && p != "" && p != "stdout" && p != "stderr" {
					out = append(out, pathWord(p))
				}
			}
		}
		for i, a := range args {
			k, val, eq := strings.Cut(a.Value, "=")
			if !strings.HasPrefix(k, "--output.") || !strings.HasSuffix(k, ".path") {
				continue
			}
			if eq {
				out = append(out, pathWord(val))
			} else if i+1 < len(args) {
				out = append(out, args[i+1])
			}
		}
	case "cargo": // what follows -- for rustc, rustdoc or the test harness
		_, w := rustcPassHits(cargoPassed(args))
		out = append(out, w...)
	case "go": // -gcflags=-cpuprofile=FILE and the other files the tools write
		out = goUnderChdir(args, append(out, goToolFiles(args)...))
	case "pytest": // --cov-report=html:DIR
		for _, w := range optionFiles(args, []string{"--cov-report"}) {
			if _, p, ok := strings.Cut(w.Value, ":"); ok && p != "" {
				out = append(out, pathWord(p))
			}
		}
		out = append(out, pytestPluginFiles(args)...)
	case "uniq": // uniq [IN [OUT]]
		if ops, _ := operands(args); len(ops) > 1 {
			out = append(out, ops[1])
		}
	}
	return append(out, fixerWrites(name, args)...)
}

// pyTool returns the tool python -m runs, when its options are known.
func pyTool(args []Word) string {
	for _, m := range []string{"pytest", "mypy", "flake8", "ruff", "black"} {
		if isPyModule(args, m) {
			return m
		}
	}
	return ""
}

// goFlagTools parse their options with Go's flag package.
var goFlagTools = setOf("go", "gofmt", "staticcheck", "goimports")

// singleDash writes --x as -x (up to a --).
func singleDash(args []Word) []Word {
	out := make([]Word, len(args))
	copy(out, args)
	for i, a := range out {
		if a.Value == "--" {
			break
		}
		if strings.HasPrefix(a.Value, "--") && !a.Dynamic {
			out[i].Value = a.Value[1:]
		}
	}
	return out
}

// optionFiles returns the values of opts in args (--opt=F, --opt F,
// -opt=F, -X F, -XF). A whole option is matched before a glued one, so
// go's -outputdir is not -o with "utputdir".
func optionFiles(args []Word, opts []string) []Word {
	var out []Word
	for i := 0; i < len(args); i++ {
		if w, skip, ok := optionValue(args, i, opts); ok {
			out = append(out, w)
			i += skip
		}
	}
	return out
}

// optionValue returns the value args[i] gives one of opts, and how many
// more words it took.
func optionValue(args []Word, i int, opts []string) (Word, int, bool) {
	v := args[i].Value
	for _, o := range opts {
		if opt, ok := strings.CutSuffix(o, "?"); ok {
			switch {
			case v == opt && i+1 < len(args) && !strings.HasPrefix(args[i+1].Value, "-"):
				return args[i+1], 1, true
			case strings.HasPrefix(v, opt+"="):
				return pathWord(strings.TrimPrefix(v, opt+"=")), 0, true
			}
			continue
		}
		switch {
		case v == o && i+1 < len(args):
			return args[i+1], 1, true
		case len(o) > 2 && strings.HasPrefix(v, o+"="):
			return pathWord(strings.TrimPrefix(v, o+"=")), 0, true
		}
	}
	for _, o := range opts {
		if len(o) == 2 && o[0] == '-' && o[1] != '-' && strings.HasPrefix(v, o) && len(v) > 2 && v[1] != '-' {
			return pathWord(strings.TrimLeft(v[2:], "=")), 0, true
		}
	}
	return Word{}, 0, false
}
