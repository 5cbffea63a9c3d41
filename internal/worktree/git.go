package worktree

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
)

// safety is passed to every git invocation: no fsmonitor daemon or hook,
// no external diff program, whatever the repository configures.
var safety = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "diff.external=",
}

// diffSafety goes on every diff: the repository's external diff and
// textconv drivers run programs an agent may have configured, and a
// dirty submodule would make git recurse into a repository whose config
// nobody checked.
var diffSafety = []string{"--no-color", "--no-ext-diff", "--no-textconv", "--ignore-submodules=dirty"}

// droppedEnv are variables that would point git at another repository,
// index, config or diff program than the ones this package names.
var droppedEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true,
	"GIT_COMMON_DIR": true, "GIT_OBJECT_DIRECTORY": true,
	"GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_NAMESPACE": true,
	"GIT_PREFIX": true, "GIT_EXTERNAL_DIFF": true, "GIT_DIFF_OPTS": true,
	"GIT_PAGER": true, "GIT_CONFIG_COUNT": true, "GIT_CONFIG_PARAMETERS": true,
	"LC_ALL": true, "LANG": true, "LANGUAGE": true,
}

// runner runs git -C dir with the safety options, plus pre before the
// subcommand and env added to the environment.
type runner struct {
	dir string
	pre []string
	env []string
}

// git runs one git command in dir and returns its stdout.
func git(dir string, args ...string) ([]byte, error) {
	return runner{dir: dir}.run(args...)
}

func (r runner) run(args ...string) ([]byte, error) { return r.runOK(nil, args...) }

// runOK is run where the exit codes in ok are not failures (diff
// --no-index exits 1 when the files differ).
func (r runner) runOK(ok []int, args ...string) ([]byte, error) {
	full := append([]string{"-C", r.dir}, safety...)
	full = append(append(full, r.pre...), args...)
	cmd := exec.Command(GitPath(), full...)
	cmd.Env = append(gitEnv(), r.env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		for _, code := range ok {
			if exit.ExitCode() == code {
				return stdout.Bytes(), nil
			}
		}
	}
	if err != nil {
		return stdout.Bytes(), &GitError{Dir: r.dir, Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.Bytes(), nil
}

func gitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !droppedEnv[name] {
			env = append(env, kv)
		}
	}
	// No prompt can be answered; C messages parse; optional locks off so
	// reads never contend with the agent's own git for index.lock.
	return append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0")
}

// line is git output with its one trailing newline removed (paths may
// hold other whitespace).
func line(out []byte) string {
	return strings.TrimSuffix(string(out), "\n")
}

// reader runs read-only commands in an agent's worktree: its git dir named
// explicitly, so a .git file the agent rewrote is not followed, and every
// configured filter driver switched off.
func reader(t Tree) (runner, error) {
	r := runner{dir: t.Path, pre: []string{"--git-dir=" + t.GitDir, "--work-tree=" + t.Path}}
	out, err := r.runOK([]int{1}, "config", "-z", "--name-only", "--get-regexp", `^filter\.`) // 1: none
	if err != nil {
		return r, err
	}
	r.env = filtersOff(strings.Split(string(out), "\x00"))
	return r, nil
}

// filtersOff returns GIT_CONFIG_* variables that empty every filter
// driver named in keys (an empty command means "no filter" to git;
// required=false keeps git from failing for lack of one). The environment
// form, unlike -c, keeps a name holding "=" intact, and reaches the git
// processes git itself starts.
func filtersOff(keys []string) []string {
	var env []string
	seen := map[string]bool{}
	n := 0
	for _, key := range keys {
		name, ok := filterName(key)
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			i := strconv.Itoa(n)
			env = append(env, "GIT_CONFIG_KEY_"+i+"=filter."+name+"."+kv[0], "GIT_CONFIG_VALUE_"+i+"="+kv[1])
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(n))
}

// filterName takes "filter.<name>.<key>" (name may hold dots) to name.
func filterName(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, "filter.")
	i := strings.LastIndexByte(rest, '.')
	if !ok || i <= 0 {
		return "", false
	}
	return rest[:i], true
}

// systemGit are where git lives when the system installed it: looked at
// before PATH, whose first folders (~/.local/bin) an agent can write — a git
// planted there ran in the console's namespace at its next status poll
// (the ninth red team).
var systemGit = []string{"/usr/bin/git", "/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git", "/opt/local/bin/git"}

var gitPath struct {
	once sync.Once
	path string
}

// GitPath is the git teamlead runs: the system's, else the first on PATH.
func GitPath() string {
	gitPath.once.Do(func() {
		for _, p := range systemGit {
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
				gitPath.path = p
				return
			}
		}
		if p, err := exec.LookPath("git"); err == nil {
			gitPath.path = p
			return
		}
		gitPath.path = "git"
	})
	return gitPath.path
}
