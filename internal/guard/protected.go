package guard

import (
	"os"
	"path/filepath"
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
	return out
}

// UserGitConfig returns the user's own git configuration: ~/.gitconfig
// (made empty when missing, as git reads it once it exists), the folder
// of $XDG_CONFIG_HOME/git (config, attributes, ignore; made when
// missing), and $GIT_CONFIG_GLOBAL's file when it names one. The human's
// every git reads them, in any repository: written by an agent, its
// core.fsmonitor ran at the human's next git status, and approved the
// pending requests as the human (red team 12a, finding 4).
func UserGitConfig() []string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return nil
	}
	var out []string
	rc := filepath.Join(home, ".gitconfig")
	if f, err := os.OpenFile(rc, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		f.Close()
	}
	if st, err := os.Lstat(rc); err == nil && st.Mode().IsRegular() {
		out = append(out, rc)
	}
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		xdg = filepath.Join(home, ".config")
	}
	if dir := filepath.Join(xdg, "git"); os.MkdirAll(dir, 0o755) == nil {
		out = append(out, dir)
	}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" && g != os.DevNull && filepath.IsAbs(g) {
		out = append(out, g)
	}
	return out
}
