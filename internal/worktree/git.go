package worktree

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// safety is passed to every git invocation: no fsmonitor daemon or hook,
// no external diff program, whatever the repository configures, and no
// attributes file of the user's (which agents can write).
var safety = []string{
	"-c", "core.fsmonitor=false",
	"-c", "core.hooksPath=/dev/null",
	"-c", "diff.external=",
	"-c", "core.attributesFile=/dev/null",
	"-c", "protocol.ext.allow=never",
	// No signing or verifying program: gpg.program comes from a config an
	// agent may have shaped (red team 11a, finding 2 had teamlead merge
	// sign with the agent's).
	"-c", "commit.gpgSign=false",
	"-c", "tag.gpgSign=false",
	"-c", "merge.verifySignatures=false",
	"-c", "log.showSignature=false",
	// A commit-graph names each commit's tree and parents in place of the
	// commit itself, and an agent's object folder may hold one of its
	// own (objects.go): the commits are read.
	"-c", "core.commitGraph=false",
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
// subcommand, config given to it (and to the git processes it starts)
// through the environment, and env added to that. contain runs it as an
// agent's process (Contain): what it runs was shaped by an agent.
type runner struct {
	dir     string
	pre     []string
	config  [][2]string
	env     []string
	stdin   []byte
	contain bool
}

// Contain, when set, makes a git command start as an agent's process
// would: in a sandbox (agents.Isolate, with teamlead's files protected).
// The console sets it. Git that reads a configuration only an agent
// wrote — a new worktree's submodules, whose git dirs any agent sharing
// the repository's .git can plant — runs so (red team 11a, finding 3:
// a planted submodule's smudge filter ran in the console's namespace).
var Contain func(*exec.Cmd)

// ErrForeignCommonDir: a repository's own git dir holds a commondir file.
var ErrForeignCommonDir = errors.New("a repository's git folder names another common folder")

// ownGitDir names the git dir of the repository dir is in explicitly
// (GIT_DIR, GIT_COMMON_DIR, GIT_WORK_TREE) when it is a folder .git at
// the checkout's top: git would otherwise follow a commondir file in it
// to another folder's config, which an agent can write (red team 11a,
// findings 1 and 2: the human's git status and teamlead merge ran its
// fsmonitor and gpg.program). Such a file there is refused: a
// repository's own git folder has none, only a linked worktree's does.
// nil where dir is in no checkout with a .git folder (a linked worktree,
// whose git dir the callers name: reader).
func ownGitDir(dir string) ([]string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil
	}
	for d := abs; ; d = filepath.Dir(d) {
		gitDir := filepath.Join(d, ".git")
		if fi, err := os.Lstat(gitDir); err == nil {
			if !fi.IsDir() {
				return nil, nil
			}
			if _, err := os.Lstat(filepath.Join(gitDir, "commondir")); err == nil && !commonDirIsItself(gitDir) {
				return nil, fmt.Errorf("%w: %s/commondir exists; a repository's own git folder has none (only a linked worktree's does), and git would take its configuration, hooks and attributes from where it points, which an agent may have written to have your git run its programs: look at where it points, then remove it (rm %s/commondir)", ErrForeignCommonDir, gitDir, gitDir)
			}
			return []string{"GIT_DIR=" + gitDir, "GIT_COMMON_DIR=" + gitDir, "GIT_WORK_TREE=" + d}, nil
		}
		if d == filepath.Dir(d) {
			return nil, nil
		}
	}
}

// selfCommonDir is what teamlead writes in a repository's own
// .git/commondir (CheckoutGit): git then takes the folder itself as its
// common dir, as without the file, and a sandbox can keep the file
// read-only (it protects only what exists).
const selfCommonDir = ".\n"

// commonDirIsItself reports a commondir file that names its own folder.
func commonDirIsItself(gitDir string) bool {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if err != nil {
		return false
	}
	to := strings.TrimRight(string(b), "\r\n")
	if !filepath.IsAbs(to) {
		to = filepath.Join(gitDir, to)
	}
	return canonical(to) == canonical(gitDir)
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
	cmd.Env = append(append(gitEnv(), configEnv(append(userConfig(), r.config...))...), r.env...)
	if len(r.pre) == 0 && len(r.env) == 0 {
		own, err := ownGitDir(r.dir)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, own...)
	}
	if r.contain && Contain != nil {
		Contain(cmd)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if r.stdin != nil {
		cmd.Stdin = bytes.NewReader(r.stdin)
	}
	err := runBounded(cmd, timeoutOf(args))
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

// gitTimeout bounds a git command the console runs, and gitLongTimeout
// one that copies or checks out a whole tree: an agent that put a FIFO in
// a git folder it writes (its worktree's HEAD, a ref) held git, and with
// it the console's look at every worktree, diff, merge and removal, until
// someone killed that git by hand (red team 14d, finding 5).
var gitTimeout, gitLongTimeout = 2 * time.Minute, 30 * time.Minute

// timeoutOf is how long git args may run.
func timeoutOf(args []string) time.Duration {
	if len(args) > 0 {
		switch args[0] {
		case "worktree", "submodule", "merge", "merge-tree", "read-tree", "checkout", "fsck", "gc", "repack":
			return gitLongTimeout
		}
	}
	return gitTimeout
}

// ErrGitTimeout: a git command ran past its time and was killed.
var ErrGitTimeout = errors.New("git did not end in time")

// runBounded runs cmd, killing it (and, in a sandbox, everything in it)
// once it has run for d.
func runBounded(cmd *exec.Cmd, d time.Duration) error {
	cmd.WaitDelay = 5 * time.Second // a child of git's holding its output
	if err := cmd.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("%w (%s): killed; a FIFO or another file an agent put in a git folder it writes can hold git: look at the repository's .git and the agents' worktrees", ErrGitTimeout, d)
	}
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
	// reads never contend with the agent's own git for index.lock. The
	// user's own config (~/.gitconfig, ~/.config/git/config) is not read
	// as such (userConfig), and ssh is the system's.
	env = append(env, "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "GIT_PAGER=cat", "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_GLOBAL=/dev/null",
		// Nor the system's, which an agent running as root can write.
		"GIT_CONFIG_NOSYSTEM=1",
		// An agent can git replace the commit the human was shown.
		"GIT_NO_REPLACE_OBJECTS=1")
	if ssh := SystemProgram("ssh"); ssh != "" {
		// Without the user's ~/.ssh/config, which agents can write: a
		// ProxyCommand or Match exec there runs (red team 10a, finding 1).
		env = append(env, "GIT_SSH_COMMAND="+ssh+" -F /dev/null")
	}
	return env
}

// configEnv passes config to git through the environment: the form that,
// unlike -c, keeps a name holding "=" intact and reaches the git processes
// git itself starts (a submodule's clone).
func configEnv(config [][2]string) []string {
	if len(config) == 0 {
		return nil
	}
	var env []string
	for i, kv := range config {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(config)))
}

var userCfg struct {
	sync.Mutex
	key    string // the files read and their times, to read again on a change
	config [][2]string
}

// userConfig is what teamlead's git takes of the user's own config
// ($GIT_CONFIG_GLOBAL, else ~/.gitconfig and ~/.config/git/config):
// settings that run nothing — who you are, URL rewrites, allowed
// protocols, a proxy, safe folders, line endings. The rest (filters,
// gpg.program, fsmonitor, credential helpers, core.sshCommand, includes)
// is not read: agents run as you and can write that file, and a filter or
// gpg.program set there ran in the console's namespace when it made a
// worktree or you merged (red team 9a, finding 2). The files are read as
// plain values (nothing included, nothing run).
func userConfig() [][2]string {
	var files []string
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else if home, _ := os.UserHomeDir(); home != "" {
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" {
			xdg = filepath.Join(home, ".config")
		}
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(home, ".gitconfig"))
	}
	var key strings.Builder
	for _, f := range files {
		key.WriteString(f)
		if fi, err := os.Stat(f); err == nil {
			fmt.Fprintf(&key, " %d %d;", fi.ModTime().UnixNano(), fi.Size())
		}
	}
	userCfg.Lock()
	defer userCfg.Unlock()
	if key.String() == userCfg.key {
		return userCfg.config
	}
	var config [][2]string
	for _, f := range files {
		cmd := exec.Command(GitPath(), "config", "--file", f, "--list", "-z")
		cmd.Env = []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "HOME=/nonexistent", "LC_ALL=C"}
		out, err := cmd.Output()
		if err != nil {
			continue
		}
		for _, item := range strings.Split(string(out), "\x00") {
			k, v, _ := strings.Cut(item, "\n")
			if harmlessUserKey(k) {
				config = append(config, [2]string{k, v})
			}
		}
	}
	userCfg.key, userCfg.config = key.String(), config
	return config
}

// harmlessUserKey reports a config key (as git config --list writes it:
// section and name lower-case) that makes git run no program and read no
// other file.
func harmlessUserKey(key string) bool {
	switch key {
	case "user.name", "user.email", "init.defaultbranch", "safe.directory",
		"http.proxy", "core.autocrlf", "core.eol", "core.safecrlf", "pull.rebase", "merge.conflictstyle":
		return true
	}
	section, rest, _ := strings.Cut(key, ".")
	i := strings.LastIndexByte(rest, '.')
	if i < 0 {
		return false
	}
	switch name := rest[i+1:]; section {
	case "url":
		return name == "insteadof" || name == "pushinsteadof"
	case "protocol":
		// Only protocols that move data: ext:: runs a command, and fd::
		// or protocol.allow=always would let a submodule URL an agent
		// wrote do so (red team 10a, finding 1).
		switch proto := strings.ToLower(rest[:i]); proto {
		case "file", "http", "https", "ssh", "git":
			return name == "allow"
		}
	}
	return false
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
	// The common dir named too: the worktree's commondir file is the
	// agent's to write, and pointed at a config of its own between the
	// filters' listing and the status below, its filter ran in the
	// console (red team 10a, finding 15).
	r.env = []string{"GIT_COMMON_DIR=" + filepath.Dir(filepath.Dir(t.GitDir))}
	out, err := r.runOK([]int{1}, "config", "-z", "--name-only", "--get-regexp", `^filter\.`) // 1: none
	if err != nil {
		return r, err
	}
	r.config = filtersOff(strings.Split(string(out), "\x00"))
	return r, nil
}

// filtersOff returns config that empties every filter driver named in
// keys (an empty command means "no filter" to git; required=false keeps
// git from failing for lack of one).
func filtersOff(keys []string) [][2]string {
	var out [][2]string
	seen := map[string]bool{}
	for _, key := range keys {
		name, ok := filterName(key)
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		for _, kv := range [][2]string{{"clean", ""}, {"smudge", ""}, {"process", ""}, {"required", "false"}} {
			out = append(out, [2]string{"filter." + name + "." + kv[0], kv[1]})
		}
	}
	return out
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

// systemDirs are where the system installs programs (git, ssh): looked at
// before PATH, whose first folders (~/.local/bin) an agent can write — a git
// planted there ran in the console's namespace at its next status poll
// (the ninth red team).
var systemDirs = []string{"/usr/bin", "/bin", "/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin"}

var gitPath struct {
	once sync.Once
	path string
}

// GitPath is the git teamlead runs: the system's, else the first on PATH.
func GitPath() string {
	gitPath.once.Do(func() {
		gitPath.path = SystemProgram("git")
		if gitPath.path != "" {
			return
		}
		if p, err := exec.LookPath("git"); err == nil {
			gitPath.path = p
			return
		}
		gitPath.path = "git"
	})
	return gitPath.path
}

// SystemProgram is name where the system installs programs (systemDirs),
// or "": not a folder of PATH that agents may write.
func SystemProgram(name string) string {
	for _, d := range systemDirs {
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}
