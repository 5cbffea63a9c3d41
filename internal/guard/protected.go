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
// very executable, which the human runs to approve. Empty arguments are
// left out; the registry folder is made if missing, as a folder that does
// not exist when a sandbox starts cannot be protected.
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
	return out
}
