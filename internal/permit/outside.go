package permit

import "strings"

// Build tools and test runners run the code of the folder they are
// pointed at: go's //go:generate lines, its tests and main packages,
// package.json's scripts, Cargo's build scripts, pytest's conftest.py
// and test files. Pointed at a folder outside the working directory —
// a package path, --prefix, --cwd, --manifest-path, --rootdir — they run
// code nobody here has read (red team 13b, finding 16: go generate
// ../evil ran its //go:generate line). go -C and make -C are judged
// where they are read.

// goCodeSubs are the go subcommands that build, run or rewrite the
// packages and files they are given.
var goCodeSubs = setOf("build", "run", "test", "vet", "generate", "install", "fix", "fmt", "list")

// goTestValueFlags are test flags that take the next word as their value.
var goTestValueFlags = setOf("count", "timeout", "bench", "benchtime", "cpu", "parallel", "coverprofile", "outputdir",
	"fuzz", "fuzztime", "fuzzminimizetime", "shuffle", "cpuprofile", "memprofile", "memprofilerate", "blockprofile",
	"blockprofilerate", "mutexprofile", "mutexprofilefraction", "trace", "list", "json", "vet")

// pathLike reports a word a tool takes for a folder or file rather than
// a package name or an import path.
func pathLike(v string) bool {
	return v == "." || v == ".." || strings.HasPrefix(v, "./") || strings.HasPrefix(v, "../") || strings.HasPrefix(v, "/") ||
		strings.HasPrefix(v, "~") || strings.HasPrefix(v, "$HOME") || strings.HasPrefix(v, "${HOME}") ||
		strings.HasPrefix(v, "$PWD") || strings.HasPrefix(v, "${PWD}")
}

// outsideCodeHits: a build or test command pointed at code outside the
// working directory.
func outsideCodeHits(v view, cwds cwdSet, env Env) []hit {
	var targets []Word
	what := ""
	switch {
	case v.name == "go":
		targets, what = goTargets(v.args), "go builds, runs or rewrites"
	case v.name == "npm" || v.name == "npx":
		targets, what = optionFiles(v.args, []string{"--prefix", "-C"}), v.name+" runs the scripts and packages of"
		for _, w := range optionFiles(v.args, []string{"--workspace", "-w"}) {
			if pathLike(w.Value) || w.Dynamic || strings.Contains(w.Value, "/") {
				targets = append(targets, w) // a folder, not a workspace's name
			}
		}
	case v.name == "pnpm" || v.name == "pnpx":
		targets, what = optionFiles(v.args, []string{"--dir", "-C", "--prefix"}), v.name+" runs the scripts and packages of"
		for _, f := range optionFiles(v.args, []string{"--filter", "-F"}) {
			if p := strings.Trim(strings.TrimLeft(f.Value, ".!^"), "{}"); strings.HasPrefix(f.Value, "{") || pathLike(f.Value) {
				if strings.HasPrefix(f.Value, "{") {
					f = pathWord(p)
				}
				targets = append(targets, f)
			}
		}
	case v.name == "yarn" || v.name == "bun" || v.name == "bunx":
		targets, what = optionFiles(v.args, []string{"--cwd"}), v.name+" runs the scripts and packages of"
	case v.name == "make" || v.name == "gmake" || v.name == "bmake":
		what = v.name + " runs the makefile of" // make -C is judged where it is read
	case v.name == "cargo":
		targets, what = optionFiles(v.args, []string{"--manifest-path", "-C"}), "cargo builds and runs the build scripts and tests of"
	case v.name == "pytest" || v.name == "py.test" || isPyModule(v.args, "pytest"):
		targets, what = pytestTargets(v.args), "pytest imports the tests and conftest.py files of"
	default:
		return nil
	}
	var hs []hit
	if !cwds.allInside() && (v.name != "go" || goTargets(append(v.args, Word{Raw: ".", Value: "."})) != nil) {
		// cd /tmp/x && go generate: the folder it runs in is the one it builds
		hs = append(hs, hit{id: FloorCodeExec, detail: v.name + " runs in a folder outside the working directory (after a cd), whose code it builds or runs"})
	}
	for _, d := range targetsOutside(targets, cwds, env, false) {
		hs = append(hs, hit{id: FloorCodeExec, detail: what + " " + d + ", outside the working directory: code nobody here has read"})
	}
	return hs
}

// goTargets are the folders and files a go command line builds or runs:
// its path-like operands, not flag values, not a program's arguments
// after go run's package or after go test's -args.
func goTargets(args []Word) []Word {
	var out []Word
	for _, a := range goOperands(args) {
		if pathLike(a.Value) || strings.HasSuffix(a.Value, ".go") {
			out = append(out, a)
		}
	}
	return out
}

// goOperands are a go command line's operands (packages, patterns,
// files), with goTargets' limits.
func goOperands(args []Word) []Word {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i].Value, "-") {
		if args[i].Value == "-C" {
			i++
		}
		i++
	}
	if i >= len(args) || !goCodeSubs[args[i].Value] {
		return nil
	}
	sub := args[i].Value
	var out []Word
	for i++; i < len(args); i++ {
		a := args[i]
		if a.Value == "-args" || a.Value == "--args" {
			break
		}
		if a.Value == "--" {
			if sub != "generate" {
				break
			}
			continue
		}
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			n, _, glued := strings.Cut(strings.TrimLeft(a.Value, "-"), "=")
			n = strings.TrimPrefix(n, "test.")
			if !glued && (goValueFlags[n] || goTestValueFlags[n]) {
				i++
			}
			continue
		}
		out = append(out, a)
		if sub == "run" && !strings.HasSuffix(a.Value, ".go") {
			break // the package; what follows is the program's
		}
		if sub == "run" && i+1 < len(args) && !strings.HasSuffix(args[i+1].Value, ".go") {
			break // the last file; what follows is the program's
		}
	}
	return out
}

// pytestValueFlags are pytest's options (and its common plugins') that
// take the next word as their value.
var pytestValueFlags = setOf("-k", "-m", "-p", "-c", "-o", "-n", "-W", "-r", "--basetemp", "--rootdir", "--confcutdir",
	"--junitxml", "--junit-xml", "--log-file", "--maxfail", "--durations", "--deselect", "--ignore", "--ignore-glob",
	"--tb", "--capture", "--color", "--import-mode", "--dist", "--tx", "--cov", "--cov-report", "--cov-config",
	"--report-log", "--override-ini", "--config-file", "--pdbcls", "--timeout", "--html", "--log-level", "--log-cli-level",
	"--log-format", "--log-date-format", "--junit-prefix", "--cache-dir", "--durations-min", "--reruns", "--count")

// pytestTargets are the test paths pytest collects (their folders'
// conftest.py files run), and its --rootdir and --confcutdir, which
// decide where it looks for configuration and conftest.py files.
func pytestTargets(args []Word) []Word {
	start := 0
	for i, a := range args {
		if a.Value == "-m" && i+1 < len(args) && args[i+1].Value == "pytest" {
			start = i + 2
		} else if a.Value == "-mpytest" {
			start = i + 1
		}
	}
	args = args[start:]
	out := optionFiles(args, []string{"--rootdir", "--confcutdir"})
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.Value == "--" {
			continue
		}
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			if _, _, glued := strings.Cut(a.Value, "="); !glued && pytestValueFlags[a.Value] {
				i++
			}
			continue
		}
		p, _, _ := strings.Cut(a.Value, "::") // every operand is a path, or a path::test
		w := a
		w.Value = p
		out = append(out, w)
	}
	return out
}
