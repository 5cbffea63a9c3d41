package guard

import (
	"errors"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strings"

	"github.com/teamlead/teamlead/internal/goenv"
	"golang.org/x/sys/unix"
)

// Protected lists what programs teamlead starts for agents, or because a
// file an agent can write names them, may read but never change (in a
// sandbox: agents.Spec.Protect, agents.Isolate): the state folder (the
// store, where the guard keeps what the human accepted, and the control
// socket), the consoles' registry folder (which tells the human's CLI
// which console and team file to use), teamlead's own files, and this
// very executable, which the human runs to approve, and the user's own git
// configuration (UserGitConfig). Empty arguments are left out; the
// registry folder is made if missing, as a folder that does not exist
// when a sandbox starts cannot be protected.
func Protected(state, registry string, ownFiles []string) []string {
	var out []string
	add := func(p string) {
		if p == "" {
			return
		}
		if abs, err := filepath.Abs(p); err == nil {
			out = append(out, abs)
		}
	}
	add(state)
	if registry != "" && os.MkdirAll(registry, 0o700) == nil {
		add(registry)
	}
	for _, f := range ownFiles {
		add(f)
	}
	if exe, err := os.Executable(); err == nil {
		add(exe)
	}
	for _, p := range UserGitConfig() {
		add(p)
	}
	for _, p := range UserStartup() {
		add(p)
	}
	for _, p := range GoCaches() {
		add(p)
	}
	for _, p := range Toolchains() {
		add(p)
	}
	// Start-up files and toolchain homes still to be made are watched by
	// each sandbox and made read-only there once they appear: the human's
	// own cargo made ~/.rustup and go made ~/.config/go while agents ran,
	// and an agent then put a toolchain and a GOFLAGS=-toolexec of its own
	// in them (red team 19b, finding 8). One an agent makes first is told
	// to the human (StartupMissing).
	for _, p := range StartupMissing() {
		add(p)
	}
	for _, p := range missingToolchains() {
		add(p)
	}
	for _, p := range SystemTrees() {
		add(p)
	}
	return out
}

// systemTrees are the system's folders of programs, libraries, settings
// and scheduled jobs. A console that runs as root has its agents' sandbox
// map root to root, which can write them: an agent left a program in
// /usr/local/bin that the human then ran, and /etc/profile, /usr/bin/git
// and /etc/ld.so.preload were as open (red team 18b, finding 4). A user
// may own some of them too (a /usr/local of one's own).
var systemTrees = []string{
	"/usr", "/usr/local", "/usr/local/bin", "/usr/local/sbin", "/usr/local/lib",
	"/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/boot", "/srv",
	"/var/spool", "/var/lib",
}

// SystemTrees returns the folders of systemTrees this user can write, and
// the homes of other users (/home/*, /root) it can: every sandbox keeps
// them read-only. The user's own homes ($HOME and the one the system
// names) are not among them.
func SystemTrees() []string {
	own := map[string]bool{}
	for _, h := range ownHomes() {
		own[resolvedPath(h)] = true
	}
	others, _ := filepath.Glob("/home/*")
	var out []string
	for _, p := range append(append(slices.Clone(systemTrees), others...), "/root") {
		if own[resolvedPath(p)] {
			continue
		}
		if st, err := os.Stat(p); err != nil || !st.IsDir() || unix.Access(p, unix.W_OK) != nil {
			continue
		}
		out = append(out, p)
	}
	return out
}

// toolchainHomes are where version managers keep the toolchains their
// shims run, relative to the home, with the variable that moves each.
// The shims' folder on PATH is read-only (pathFolders), but what a shim
// runs was not: an agent made ~/.pyenv/versions/x/bin/python3 and a
// .python-version naming it, and the human's python3 ran it (red team
// 18b, finding 3).
var toolchainHomes = []struct{ env, dir string }{
	{"PYENV_ROOT", ".pyenv"}, {"RUSTUP_HOME", ".rustup"}, {"RBENV_ROOT", ".rbenv"}, {"NODENV_ROOT", ".nodenv"},
	{"", ".nvm/versions"}, {"", ".sdkman/candidates"}, {"ASDF_DATA_DIR", ".asdf"}, {"", ".local/share/mise/installs"},
	{"", ".volta/tools"}, {"", ".bun/bin"}, {"", ".deno/bin"}, {"", ".local/share/pnpm"}, {"", ".goenv"},
}

// Toolchains returns the toolchain folders of toolchainHomes that exist
// and the user can write, and the Go the PATH names (its GOROOT: its
// pkg/tool compiles and links every build, its go.env sets GOFLAGS).
func Toolchains() []string {
	cands := append(toolchainCandidates(), goRoot())
	var out []string
	for _, p := range cands {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && st.IsDir() && unix.Access(p, unix.W_OK) == nil {
			out = append(out, p)
		}
	}
	return out
}

// toolchainCandidates are the folders of toolchainHomes: each one's
// variable when it names a folder, else its place in the home.
func toolchainCandidates() []string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	var out []string
	for _, t := range toolchainHomes {
		if v := os.Getenv(t.env); t.env != "" && filepath.IsAbs(v) {
			out = append(out, filepath.Clean(v))
			continue
		}
		out = append(out, filepath.Join(home, filepath.FromSlash(t.dir)))
	}
	return out
}

// missingToolchains are the folders of toolchainHomes that do not exist yet.
func missingToolchains() []string {
	var out []string
	for _, p := range toolchainCandidates() {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// goRoot returns $GOROOT, else the folder two above the go the PATH names
// (its links followed) when that holds a Go (src/runtime); go is not run.
func goRoot() string {
	if r := os.Getenv("GOROOT"); filepath.IsAbs(r) {
		return filepath.Clean(r)
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(goBin)
	if err != nil || !filepath.IsAbs(real) {
		return ""
	}
	root := filepath.Dir(filepath.Dir(real))
	if st, err := os.Stat(filepath.Join(root, "src", "runtime")); err != nil || !st.IsDir() {
		return ""
	}
	return root
}

// ownHomes returns $HOME and, when it differs, the home the system names
// for this user: a login, su or ssh reads the start-up files of the
// latter whatever $HOME the console ran with (red team 18b, finding 5).
func ownHomes() []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		out = append(out, filepath.Clean(home))
	}
	if h := systemHome(); filepath.IsAbs(h) && !slices.Contains(out, filepath.Clean(h)) {
		out = append(out, filepath.Clean(h))
	}
	return out
}

// systemHome is the home the system's user database names for this user
// (a variable: tests keep the real one out of theirs).
var systemHome = func() string {
	if u, err := user.Current(); err == nil {
		return u.HomeDir
	}
	return ""
}

// resolvedPath is p with its links followed, or p when that fails.
func resolvedPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// GoCaches returns the human's Go module and build caches (as go env
// GOMODCACHE and GOCACHE would say, go not run), made when missing where
// a go is on the PATH: code an agent wrote into the module cache ran at
// the human's next go run, and a build cache entry is what the human's
// next build links (red team 16a, finding 7). A sandboxed agent gets
// caches of its own (agents' sandboxEnv), whose module proxy copies from
// the human's.
func GoCaches() []string {
	var out []string
	_, haveGo := exec.LookPath("go")
	for _, c := range []string{goenv.ModCache(os.Getenv), goenv.BuildCache(os.Getenv)} {
		if !filepath.IsAbs(c) {
			continue
		}
		if haveGo == nil {
			_ = os.MkdirAll(c, 0o755)
		}
		if st, err := os.Stat(c); err == nil && st.IsDir() {
			out = append(out, filepath.Clean(c))
		}
	}
	return out
}

// startupFiles are what the human's shells, logins and ssh run or read
// for commands, relative to the home folder.
var startupFiles = []string{
	".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".bash_aliases", ".profile",
	".zshrc", ".zshenv", ".zprofile", ".zlogin", ".zlogout", ".cshrc", ".tcshrc", ".kshrc", ".mkshrc",
	".xprofile", ".xsessionrc", ".xinitrc", ".pam_environment", ".inputrc",
	".ssh/rc", ".ssh/config", ".ssh/authorized_keys", ".ssh/authorized_keys2",
	".config/fish", ".config/environment.d", ".config/autostart", ".config/systemd/user",
	".oh-my-zsh/custom", ".config/starship.toml", ".config/direnv", ".direnvrc",
	".tmux.conf", ".config/tmux", ".screenrc", ".vimrc", ".vim", ".config/nvim", ".emacs", ".emacs.d", ".config/emacs",
	".npmrc", ".yarnrc", ".yarnrc.yml", ".bunfig.toml",
	// Toolchains' own configuration, which names programs they run: GOFLAGS
	// in go's env (-toolexec), cargo's wrappers, pip's index, gradle's init
	// scripts, ipython's startup, docker's credential helpers, the cloud
	// CLIs' credential processes and exec plugins, gh's aliases (red team
	// 15a, finding 2: the human's go build ran an agent's -toolexec).
	".config/go", ".cargo/config.toml", ".cargo/config", ".config/pip", ".pip", ".pydistutils.cfg",
	".gradle/init.d", ".gradle/init.gradle", ".gradle/gradle.properties", ".m2/settings.xml",
	".ipython/profile_default/startup", ".docker/config.json", ".aws/config", ".kube/config", ".config/gh",
	// What the well-known installers have the start-up files source
	// (red team 16a, finding 4).
	".cargo/env", ".nvm/nvm.sh", ".nvm/bash_completion", ".bashrc.d", ".local/bin/env", ".sdkman/bin/sdkman-init.sh",
	".ghcup/env", ".deno/env", ".config/shell",
	// Tools' own start-up files and settings that name programs they run
	// (red team 16a, finding 8): debuggers', database shells', downloaders'
	// and package managers', the editor's, the desktop's launchers and
	// bash's completions.
	".gdbinit", ".config/gdb", ".psqlrc", ".sqliterc", ".hgrc", ".curlrc", ".wgetrc", ".Rprofile", ".condarc",
	".config/uv/uv.toml", ".config/pypoetry", ".rustup/settings.toml", ".terraformrc", ".config/Code/User/settings.json",
	".local/share/applications", ".local/share/bash-completion/completions",
	// Start-up files of pagers, debuggers, interpreters, editors, linters
	// and shells' helpers that name a program to run or code to run at
	// once (red team 19b, finding 9: ~/.config/lesskey's LESSOPEN ran an
	// agent's program at the human's next less and git log; ~/.pdbrc and
	// ~/.perldb at python -m pdb and perl -d).
	".lesskey", ".config/lesskey", ".lessfilter", ".pdbrc", ".perldb", ".pythonrc", ".pythonrc.py", ".irbrc", ".pryrc",
	".config/ipython", ".gemrc", ".bundle/config", ".my.cnf", ".nanorc", ".config/nano", ".selected_editor", ".mailcap",
	".config/mimeapps.list", ".config/procps", ".config/containers", ".bash_completion", ".bash_completion.d",
	".terminfo", ".dircolors", ".pylintrc", ".config/pylintrc", ".lldbinit", ".valgrindrc", ".config/ruff",
	".config/flake8", ".config/pycodestyle", ".config/matplotlib", ".XCompose", ".config/user-dirs.dirs",
	".config/fontconfig", ".config/readline", ".editrc", ".config/bat", ".gnupg/gpg.conf", ".gnupg/gpg-agent.conf",
	".tool-versions", ".python-version", ".ruby-version", ".node-version", ".nvmrc", ".config/mise", ".mise.toml",
	".config/jj", ".config/htop", ".editorconfig", ".exrc", ".nexrc", ".config/vim", ".config/helix", ".config/micro",
	".config/kak", ".config/zed", ".config/lazygit", ".gitconfig.local",
}

// toolWrites are the home files the agent CLIs write themselves while
// they run (Claude Code its .claude.json all the time), which name
// programs the human's next run of the CLI starts (MCP servers, hooks):
// read-only, they would break the agents' CLIs, so the console tells when
// one changed instead (HomeTold). Check says what to look at.
var toolWrites = []Told{
	{Path: ".claude.json", Check: "its mcpServers (at the top and under projects) name programs your next claude starts", Bookkeeping: claudeJSONBookkeeping},
	{Path: ".claude/settings.json", Check: "its hooks, statusLine, apiKeyHelper and env name programs your next claude runs"},
	{Path: ".codex/config.toml", Check: "its mcp_servers and notify name programs your next codex runs", Bookkeeping: codexConfigBookkeeping},
	{Path: ".gemini/settings.json", Check: "its mcpServers, hooks and tool commands name programs your next gemini runs"},
}

// userSecrets are the credentials in the home that no agent reads
// (UserSecrets).
var userSecrets = []string{".netrc"}

// startupGlobs are start-up folders found by pattern: Python's user site
// folders, whose .pth files, usercustomize.py and sitecustomize.py every
// python of the human's runs.
var startupGlobs = []string{".local/lib/python*/site-packages"}

// pythonLibs are where the system's pythons keep their libraries, one
// python3.N folder each: the user site folder of each is made when
// missing, so that it can be bound too (red team 16a, finding 6: an agent
// made ~/.local/lib/python3.11/site-packages/zz.pth). An empty one changes
// nothing python does.
var pythonLibs = []string{"/usr/lib/python3.*", "/usr/local/lib/python3.*"}

// systemBin are the folders a PATH entry before which could shadow the
// system's programs.
var systemBin = map[string]bool{"/usr/local/sbin": true, "/usr/local/bin": true, "/usr/sbin": true, "/usr/bin": true, "/sbin": true, "/bin": true}

// UserStartup returns what of the human's own files runs as the human
// later, outside every sandbox, that exists: the shells' and the login's
// start-up files and what they source (sourcedBy), ssh's rc, config and
// authorized keys, fish's, systemd's and the desktop's autostart folders,
// tools' start-up files, Python's user site folders, and the folders of
// $PATH that come before the system's (~/.local/bin, ~/bin, or one outside
// the home) with the packages their links lead into (pathFolders), where a
// program an agent left named git would run at the human's next git. An agent wrote them as it pleased: the permission
// policy asks before a tool call writes them, not a program the agent
// runs (red team 13a, finding 7). Only what exists: a file a sandbox finds
// missing cannot be bound, and making one (a .bash_profile) would change
// what the human's shell reads.
//
// Each of the user's homes (ownHomes: $HOME and the system's) counts.
//
// A folder of PATH that does not exist yet is made, empty, so that it can
// be bound too (red team 14d, finding 3: ~/bin came before /usr/bin and
// did not exist; an agent made ~/bin/git). A start-up file that does not
// exist is watched instead (StartupMissing).
func UserStartup() []string {
	var out []string
	for _, p := range startupCandidates() {
		if st, err := os.Lstat(p); err == nil && (st.Mode().IsRegular() || st.IsDir()) {
			out = append(out, p)
		}
	}
	return out
}

// StartupMissing returns the start-up files of UserStartup's kind that do
// not exist: one that appears while agents run may be an agent's, and the
// console says so (an empty one made in its place would change what the
// human's shell reads: a .bash_profile stops bash reading .profile).
func StartupMissing() []string {
	var out []string
	for _, p := range startupCandidates() {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			out = append(out, p)
		}
	}
	return out
}

// startupCandidates are the start-up files and the folders of PATH before
// the system's, the folders made when missing.
func startupCandidates() []string {
	var out []string
	xdg := os.Getenv("XDG_CONFIG_HOME")
	for _, home := range ownHomes() {
		for _, f := range startupFiles {
			out = append(out, filepath.Join(home, filepath.FromSlash(f)))
			if rest, ok := strings.CutPrefix(f, ".config/"); ok && filepath.IsAbs(xdg) {
				// less, git and the rest read $XDG_CONFIG_HOME first
				out = append(out, filepath.Join(xdg, filepath.FromSlash(rest)))
			}
		}
		makePythonUserSites(home)
		for _, g := range startupGlobs {
			found, _ := filepath.Glob(filepath.Join(home, filepath.FromSlash(g)))
			out = append(out, found...)
		}
		var shells []string
		for _, f := range shellStartup {
			shells = append(shells, filepath.Join(home, f))
		}
		out = append(out, sourcedBy(home, shells)...)
	}
	out = append(out, pathFolders()...)
	return withoutRepeats(out)
}

// withoutRepeats returns paths in order, each once (a start-up file that
// the .bashrc sources too).
func withoutRepeats(paths []string) []string {
	seen := map[string]bool{}
	out := paths[:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}

// makePythonUserSites makes the user site folder of each of the system's
// pythons (pythonLibs) that is missing.
func makePythonUserSites(home string) {
	for _, g := range pythonLibs {
		libs, _ := filepath.Glob(g)
		for _, lib := range libs {
			v := filepath.Base(lib)
			minor := strings.TrimPrefix(v, "python3.")
			if st, err := os.Stat(lib); err != nil || !st.IsDir() || minor == "" || strings.Trim(minor, "0123456789") != "" {
				continue // not a version's folder (python3.11-config)
			}
			_ = os.MkdirAll(filepath.Join(home, ".local", "lib", v, "site-packages"), 0o755)
		}
	}
}

// pathFolders returns the absolute folders of $PATH before the system's
// (systemBin), made when missing, wherever they are: one outside the
// home came first too, and an agent's git there ran at the human's next
// git (red team 16a, finding 3). And the real places of the links in
// them (linkTargets).
func pathFolders() []string {
	var out []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if systemBin[filepath.Clean(d)] {
			break
		}
		if !filepath.IsAbs(d) {
			continue
		}
		d = filepath.Clean(d)
		_ = os.MkdirAll(d, 0o755)
		out = append(out, d)
		out = append(out, linkTargets(d)...)
	}
	return out
}

// maxLinksPerFolder bounds the links of one PATH folder followed.
const maxLinksPerFolder = 512

// linkTargets returns where the links in dir lead, outside it: the
// package a target belongs to (packageRoot: a pipx or uv tool's venv, an
// npm package), else the target itself. The link is read-only with its
// folder, but what it names was not: an agent rewrote
// ~/.local/share/pipx/venvs/mytool/bin/mytool, and the human's mytool ran
// it (red team 16a, finding 5).
func linkTargets(dir string) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	links := 0
	for _, e := range entries {
		if e.Type()&os.ModeSymlink == 0 {
			continue
		}
		if links++; links > maxLinksPerFolder {
			break
		}
		target, err := filepath.EvalSymlinks(filepath.Join(dir, e.Name()))
		if err != nil || filepath.Dir(target) == dir || unix.Access(target, unix.W_OK) != nil && unix.Access(filepath.Dir(target), unix.W_OK) != nil {
			continue // missing, beside the link, or the system's
		}
		out = append(out, packageRoot(target))
	}
	return out
}

// packageMarks are the files that mark the folder a program was installed
// into as one: a venv's, a node package's.
var packageMarks = []string{"pyvenv.cfg", "package.json"}

// packageRoot returns the nearest folder above target, at most four up
// and below the home's own level, that packageMarks mark; else target.
func packageRoot(target string) string {
	home, _ := os.UserHomeDir()
	dir := filepath.Dir(target)
	for i := 0; i < 4 && dir != "/" && dir != filepath.Clean(home) && dir != filepath.Dir(filepath.Clean(home)); i++ {
		for _, m := range packageMarks {
			if _, err := os.Stat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		dir = filepath.Dir(dir)
	}
	return target
}

// Told is a file of the human's that the console watches rather than
// protects, and what to look at in it when it changed.
type Told struct {
	Path, Check string
	// Bookkeeping, when set, is the file's content without what its CLI
	// rewrites for itself on every run (counters, timings, tips seen), so
	// that only a change that could matter is told; false when the content
	// does not parse (then all of it counts).
	Bookkeeping func(data []byte) ([]byte, bool)
}

// HomeTold returns toolWrites in the home: the console notes their
// content when it starts and tells which changed, or appeared, while
// agents ran.
func HomeTold() []Told {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	var out []Told
	for _, t := range toolWrites {
		out = append(out, Told{Path: filepath.Join(home, filepath.FromSlash(t.Path)), Check: t.Check, Bookkeeping: t.Bookkeeping})
	}
	return out
}

// UserSecrets returns the human's credentials in the home that exist
// (~/.netrc): every sandbox hides them, as an agent gets a token of its
// own.
func UserSecrets() []string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	var out []string
	for _, f := range userSecrets {
		if p := filepath.Join(home, f); fileExists(p) {
			out = append(out, p)
		}
	}
	return out
}

func fileExists(p string) bool { _, err := os.Lstat(p); return err == nil }

// UserGitConfig returns the user's own git configuration: ~/.gitconfig
// (made empty when missing, as git reads it once it exists), the folder
// of $XDG_CONFIG_HOME/git (config, attributes, ignore; made when
// missing), and $GIT_CONFIG_GLOBAL's file when it names one. The human's
// every git reads them, in any repository: written by an agent, its
// core.fsmonitor ran at the human's next git status, and approved the
// pending requests as the human (red team 12a, finding 4).
func UserGitConfig() []string {
	homes := ownHomes()
	if len(homes) == 0 {
		return nil
	}
	var out []string
	for _, home := range homes {
		rc := filepath.Join(home, ".gitconfig")
		if f, err := os.OpenFile(rc, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			f.Close()
		}
		if st, err := os.Lstat(rc); err == nil && st.Mode().IsRegular() {
			out = append(out, rc)
		}
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(homes[0], ".config")
	}
	if dir := filepath.Join(xdg, "git"); os.MkdirAll(dir, 0o755) == nil {
		out = append(out, dir)
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" && g != os.DevNull && filepath.IsAbs(g) {
		out = append(out, g)
	}
	return out
}
