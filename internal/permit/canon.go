package permit

import (
	"path"
	"strings"
)

// safeEnv are variables whose assignment before a command changes nothing a
// rule cares about; they are dropped before matching (GOOS=linux go build
// matches Bash(go build:*)), and within tools' namespaces they are the only
// ones the floor lets pass (isCodeVar). Any other assignment (PATH=, LD_PRELOAD=,
// NODE_OPTIONS=...) stays part of the text, so ordinary rules miss it.
var safeEnv = map[string]bool{
	"GOOS": true, "GOARCH": true, "CGO_ENABLED": true, "GOFLAGS": true, "GOEXPERIMENT": true,
	"GOMAXPROCS": true, "GOGC": true, "GODEBUG": true, "NODE_ENV": true, "CI": true, "DEBUG": true,
	"RUST_BACKTRACE": true, "RUST_LOG": true, "LOG_LEVEL": true, "LANG": true, "LC_ALL": true, "TZ": true,
	"NO_COLOR": true, "FORCE_COLOR": true, "TERM": true, "COLUMNS": true, "PYTHONDONTWRITEBYTECODE": true,
	"PYTHONUNBUFFERED": true, "CARGO_TERM_COLOR": true, "TESTING": true, "VERBOSE": true,
	"GIT_AUTHOR_NAME": true, "GIT_AUTHOR_EMAIL": true, "GIT_AUTHOR_DATE": true, "GIT_COMMITTER_NAME": true,
	"GIT_COMMITTER_EMAIL": true, "GIT_COMMITTER_DATE": true, "GIT_TERMINAL_PROMPT": true,
	"GIT_OPTIONAL_LOCKS": true, "GIT_FLUSH": true, "GIT_MERGE_AUTOEDIT": true, "GIT_LITERAL_PATHSPECS": true,
	"GIT_GLOB_PATHSPECS": true, "GIT_NOGLOB_PATHSPECS": true, "GIT_ICASE_PATHSPECS": true, "GIT_ADVICE": true,
	"NODE_DEBUG": true, "NODE_NO_WARNINGS": true, "PYTHONHASHSEED": true, "PYTHONIOENCODING": true,
	"PYTHONUTF8": true, "PYTHONFAULTHANDLER": true, "PYTHONDEVMODE": true, "PYTHONOPTIMIZE": true,
	"PYTHONTRACEMALLOC": true, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": true, "PYTEST_XDIST_AUTO_NUM_WORKERS": true,
	"GOARM": true, "GOAMD64": true, "GO386": true, "GOARM64": true, "GOMIPS": true, "GOWASM": true,
	"GOTRACEBACK": true, "GOMEMLIMIT": true, "GO111MODULE": true, "GOTESTSUM_FORMAT": true,
	"CARGO_TERM_VERBOSE": true, "CARGO_TERM_QUIET": true, "CARGO_TERM_PROGRESS_WHEN": true,
	"CARGO_INCREMENTAL": true, "MAKELEVEL": true, "YARN_ENABLE_PROGRESS_BARS": true,
	"CARGO_NET_OFFLINE": true}

// isSafeAssign reports NAME=value with a harmless NAME and a value known before it runs.
func isSafeAssign(w Word) bool {
	name, _, _ := strings.Cut(w.Raw, "=")
	name = strings.TrimSuffix(name, "+")
	return !w.Dynamic && (safeEnv[name] || strings.HasPrefix(name, "LC_"))
}

// matchWrappers are the process wrappers Claude Code strips before it
// matches a Bash rule (timeout 60 go test matches Bash(go test:*)), plus
// ionice, taskset (CPU affinity) and prlimit (resource limits): they
// change how the command runs, not what it does.
var matchWrappers = map[string]bool{"timeout": true, "time": true, "nice": true, "nohup": true,
	"stdbuf": true, "ionice": true, "xargs": true, "taskset": true, "prlimit": true}

// matchText is the canonical text of a simple command that rules are
// matched against: harmless assignments and process wrappers dropped,
// words unquoted and requoted the same way however they were written, one
// space between words, redirections left out.
func matchText(c Command) string { return joinCanon(matchWords(c)) }

// matchWords are the words matchText is made of: make's goals come
// before its options and variables (make -j4 test is matched as make test
// -j4).
func matchWords(c Command) []Word {
	words := plainMatchWords(c)
	i := 0
	for i < len(words) && isAssignment(words[i].Raw) && i < len(c.Assigns) {
		i++
	}
	if i == 0 {
		words = stripTransparent(words)
	}
	if i < len(words) && !words[i].Dynamic && isMake(cmdName(words[i])) {
		goals, rest := makeGoalsFirst(words[i+1:])
		out := append(append([]Word{}, words[:i+1]...), goals...)
		return append(out, rest...)
	}
	return words
}

// stripTransparent drops, besides Claude Code's process wrappers, the
// commands that run the next one unchanged: env with no option and only
// harmless assignments (env CGO_ENABLED=0 go build), command with no
// option. env alone prints the environment and stays.
func stripTransparent(words []Word) []Word {
	for len(words) > 1 && !words[0].Dynamic {
		switch name := words[0].Value; {
		case name == "env":
			j := 1
			for j < len(words) && isAssignment(words[j].Raw) && isSafeAssign(words[j]) {
				j++
			}
			if j == len(words) || isAssignment(words[j].Raw) || strings.HasPrefix(words[j].Value, "-") || words[j].Dynamic {
				return words
			}
			words = words[j:]
		case name == "command":
			if strings.HasPrefix(words[1].Value, "-") {
				return words
			}
			words = words[1:]
		case matchWrappers[name]:
			rest, ok := wrappers[name].skip(words[1:])
			if !ok || len(rest) == 0 {
				return words
			}
			words = rest
		default:
			return words
		}
	}
	return words
}

// plainMatchWords are the words of a command as Claude Code would match
// them: assignments and wrappers dropped, in their order.
func plainMatchWords(c Command) []Word {
	var words []Word
	keep := false
	for _, a := range c.Assigns {
		if !isSafeAssign(a) {
			keep = true
		}
	}
	if keep {
		words = append(words, c.Assigns...)
	}
	args := c.Args
	if !keep {
		for len(args) > 0 && !args[0].Dynamic && matchWrappers[args[0].Value] {
			rest, ok := wrappers[args[0].Value].skip(args[1:])
			if !ok {
				break
			}
			args = rest
		}
	}
	if len(args) > 0 && !args[0].Dynamic && args[0].Value == "git" {
		args = gitMatchArgs(args)
	}
	return append(words, args...)
}

// gitMatchArgs drops git's global options that change only how it shows
// things (--no-pager, -c color.ui=always) before rules are matched.
func gitMatchArgs(args []Word) []Word {
	out := []Word{args[0]}
	i := 1
	for ; i < len(args); i++ {
		v := args[i].Value
		switch {
		case v == "--no-pager" || v == "-P":
		case v == "-C" && i+1 < len(args) && !args[i+1].Dynamic && path.Clean(args[i+1].Value) == ".":
			i++ // git -C . status is git status here (red team 16b)
		case v == "-c" && i+1 < len(args) && !args[i+1].Dynamic && safeGitKey(strings.SplitN(args[i+1].Value, "=", 2)[0]):
			i++
		default:
			return append(out, args[i:]...)
		}
	}
	return out
}

// canonWord writes a word the one way rules see it: a word with
// expansions or globs as written, any other word unquoted, then single-quoted
// when it holds anything beyond letters, digits and _@%+=:,./-
func canonWord(w Word) string {
	if w.Dynamic || w.Glob || w.Tilde {
		return w.Raw
	}
	return shellQuote(w.Value)
}

// shellQuote quotes s for a shell when it needs it.
func shellQuote(s string) string {
	if s == "" {
		return "''"
	}
	plain := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80 ||
			strings.IndexByte("_@%+=:,./-", c) >= 0 || c == '~' && i > 0 || c == '^') {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// canonSpec puts the text of an exact or prefix Bash rule in canonical
// form, so that Bash(git commit -m "wip") matches git commit -m 'wip'. A
// \* stands for an unquoted * (Bash(ls \*.go) is exactly ls *.go).
func canonSpec(spec string) string {
	spec = strings.ReplaceAll(spec, `\*`, "*")
	cmds, err := SplitShell(spec)
	if err != nil || len(cmds) != 1 || len(cmds[0].Redirects) > 0 || cmds[0].Control {
		return collapseSpaces(spec)
	}
	return matchText(cmds[0])
}
