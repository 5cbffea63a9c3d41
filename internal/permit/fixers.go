package permit

import "strings"

// fixer is a formatter or linter that rewrites the files and folders it
// is given: always, unless an option makes it only report (black, ruff
// format), or only when an option says so (eslint --fix, prettier
// --write).
type fixer struct {
	writes []string        // options that make it write; nil: it writes unless a check option is given
	checks []string        // options that make it only report
	values map[string]bool // options whose value is the next word
	subs   map[string]bool // its subcommands that take files: the first word must be one (ruff check)
}

// fixers are read by the command that runs (npx eslint is eslint).
var fixers = map[string]fixer{
	"eslint": {writes: []string{"--fix"}, values: setOf("-c", "--config", "--ext", "-f", "--format", "-o", "--output-file",
		"--rulesdir", "--plugin", "--parser", "--parser-options", "--resolve-plugins-relative-to", "--ignore-path",
		"--ignore-pattern", "--cache-location", "--max-warnings", "--env", "--global", "--rule", "--fix-type",
		"--report-unused-disable-directives-severity", "--cache-strategy", "--stdin-filename", "--suppressions-location",
		"--flag", "--concurrency")},
	"prettier": {writes: []string{"--write", "-w"}, values: setOf("--config", "--ignore-path", "--plugin", "--parser",
		"--print-width", "--tab-width", "--trailing-comma", "--arrow-parens", "--end-of-line", "--cache-location",
		"--cache-strategy", "--log-level", "--stdin-filepath", "--config-precedence", "--embedded-language-formatting",
		"--html-whitespace-sensitivity", "--object-wrap", "--prose-wrap", "--quote-props", "--experimental-operator-position")},
	"black": {checks: []string{"--check", "--diff", "-c", "--code"}, values: setOf("-l", "--line-length", "-t",
		"--target-version", "--include", "--exclude", "--extend-exclude", "--force-exclude", "--stdin-filename", "-W",
		"--workers", "--config", "--required-version", "--python-cell-magics", "--enable-unstable-feature")},
	"ruff": {values: setOf("--config", "--select", "--ignore", "--extend-select", "--extend-ignore", "--per-file-ignores",
		"--extend-per-file-ignores", "--fixable", "--unfixable", "--extend-fixable", "--exclude", "--extend-exclude",
		"--line-length", "--target-version", "--output-format", "-o", "--output-file", "--cache-dir", "--stdin-filename",
		"--dummy-variable-rgx", "--extension", "--range", "--include", "--extend-include"), subs: setOf("check", "format")},
	"gofmt":         {writes: []string{"-w"}, values: setOf("-r", "-cpuprofile")},
	"goimports":     {writes: []string{"-w"}, values: setOf("-local", "-srcdir", "-cpuprofile", "-memprofile", "-memrate", "-trace")},
	"isort":         {checks: []string{"--check", "--check-only", "-c", "--diff", "--df"}, values: setOf("--settings-path", "--settings-file", "--sp", "--profile", "-l", "--line-length", "--src", "-p", "--project", "--skip", "-s", "--skip-glob", "--sg", "-j", "--jobs")},
	"rustfmt":       {checks: []string{"--check"}, values: setOf("--edition", "--config-path", "--config", "--emit", "--color", "--style-edition", "-l")},
	"shfmt":         {writes: []string{"-w", "--write"}, values: setOf("-i", "--indent", "-ln", "--language-dialect", "-f", "--filename")},
	"stylelint":     {writes: []string{"--fix"}, values: setOf("-c", "--config", "--config-basedir", "-f", "--formatter", "-o", "--output-file", "--custom-syntax", "--ignore-path", "-i", "--ignore-pattern", "--cache-location", "--max-warnings")},
	"clang-format":  {writes: []string{"-i"}, values: setOf("--style", "--assume-filename", "--lines", "--offset", "--length", "--fallback-style")},
	"autopep8":      {writes: []string{"-i", "--in-place"}, values: setOf("--global-config", "--max-line-length", "--select", "--ignore", "--exclude", "-j", "--jobs", "-p", "--pep8-passes")},
	"yapf":          {writes: []string{"-i", "--in-place"}, values: setOf("--style", "-l", "--lines", "-e", "--exclude", "-p", "--parallel")},
	"golangci-lint": {values: setOf("-c", "--config", "--timeout", "--out-format", "-j", "--concurrency", "-E", "--enable", "-D", "--disable", "--build-tags", "--skip-dirs", "--skip-files", "--new-from-rev", "--new-from-patch", "--path-prefix", "--output.text.path", "--output.json.path"), subs: setOf("run", "fmt")},
}

// fixerWrites returns the files and folders a formatter or linter named
// name rewrites in place: its operands, when it runs in a writing mode
// (an empty list, not nil, when it writes and names none); nil when it
// does not write.
func fixerWrites(name string, args []Word) []Word {
	f, ok := fixers[name]
	if !ok {
		return nil
	}
	sub := ""
	if f.subs != nil {
		if len(args) == 0 || !f.subs[args[0].Value] {
			return nil
		}
		sub, args = args[0].Value, args[1:]
	}
	writes := f.writes == nil
	var ops []Word
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := a.Value
		if v == "--" {
			ops = append(ops, args[i+1:]...)
			break
		}
		if a.Dynamic || !strings.HasPrefix(v, "-") || v == "-" {
			ops = append(ops, a)
			continue
		}
		k, _, eq := strings.Cut(v, "=")
		for _, w := range f.writes {
			if k == w {
				writes = true
			}
		}
		for _, c := range f.checks {
			if k == c {
				writes = false
			}
		}
		if !eq && f.values[k] {
			i++
		}
	}
	switch {
	case name == "ruff" && sub == "check":
		writes = hasLong(optionWords(args), "--fix") && !hasLong(optionWords(args), "--no-fix")
	case name == "ruff" && sub == "format":
		writes = !hasLong(optionWords(args), "--check", "--diff")
	case name == "golangci-lint" && sub == "run":
		writes = hasLong(optionWords(args), "--fix")
	case name == "golangci-lint" && sub == "fmt":
		writes = !hasShort(optionWords(args), "d") && !hasLong(optionWords(args), "--diff", "--diff-colored", "--stdin")
	}
	if !writes {
		return nil
	}
	out := make([]Word, 0, len(ops))
	for _, o := range ops {
		if p, ok := strings.CutSuffix(o.Value, "/..."); ok { // golangci-lint's package patterns
			o = pathWord(p)
		}
		out = append(out, o)
	}
	return out
}

// optionWords are the words of args that start with -.
func optionWords(args []Word) []string {
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a.Value, "-") && !a.Dynamic {
			out = append(out, a.Value)
		}
	}
	return out
}
