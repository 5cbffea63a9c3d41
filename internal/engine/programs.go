package engine

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// The programs the team's entries start are the team's as much as its
// file: an agent replaced another's launcher script, kept in the team's
// folder, and on its next start its code ran as that agent, with that
// agent's view of what the human said to it (red team 22b, finding 1).
// So the files the agents' commands name, the program given by a path
// and the scripts among their arguments, are read-only in every sandbox.

// scriptExts are the file names a command's argument is taken for a script by.
var scriptExts = []string{".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua", ".ps1"}

// agentPrograms are the existing files the team's commands name: a
// program given by a path, and the arguments that are scripts (by their
// name) or executable files, each relative to its agent's folder.
func (e *Engine) agentPrograms() []string {
	var out []string
	add := func(dir, p string, needScript bool) {
		if p == "" || strings.HasPrefix(p, "-") {
			return
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Nlink > 1 {
			// A file with two names cannot be bound read-only under one
			// (the sandbox stops when it finds the other): npm installs
			// Claude Code's and OpenCode's binaries so. Left as it is.
			return
		}
		script := fi.Mode()&0o111 != 0
		for _, x := range scriptExts {
			script = script || strings.HasSuffix(p, x)
		}
		if needScript && !script || slices.Contains(out, p) {
			return
		}
		out = append(out, p)
	}
	for _, a := range e.opts.Team.Agents {
		if a.Host != "" || len(a.Command) == 0 {
			continue
		}
		if strings.ContainsRune(a.Command[0], '/') {
			add(a.Dir, a.Command[0], false)
		}
		for _, arg := range a.Command[1:] {
			add(a.Dir, arg, true)
		}
	}
	return out
}
