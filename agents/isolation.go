package agents

import (
	"os/exec"
	"syscall"
)

// Isolation says whether an agent's processes run in a user namespace of
// their own. No process can leave its user namespace for its parent's, so
// the console can tell every process an agent ever started — however it
// detached, even after the console itself died — from the human's, and the
// control socket refuses it the human's operations (internal/trust).
type Isolation string

// Isolation modes.
const (
	// IsolationAuto runs the agent in a user namespace where the kernel
	// allows one, else without, saying why in the agent's running record.
	IsolationAuto Isolation = "auto"
	// IsolationUserNS requires a user namespace: the agent fails to start
	// where the kernel refuses one.
	IsolationUserNS Isolation = "userns"
	// IsolationNone never uses one.
	IsolationNone Isolation = "none"
)

// Isolation names for the running record.
const (
	isolatedUserNS = "user namespace"
	isolatedNone   = "none"
)

// Isolate makes cmd start in a user namespace of its own, as an isolated
// agent does, where the kernel gives one, and reports whether it will. The
// console runs programs its configuration names — doctor's `--version`
// probes, `notify: exec://` commands, tool answerers, ui.notify — and that
// configuration is a file an agent can write: so they run marked as an
// agent's, and the control socket refuses them (and anything they leave
// behind) the human's operations.
func Isolate(cmd *exec.Cmd) bool {
	if !userNamespaces || probeUserNS() != nil {
		return false
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	userNamespace(cmd.SysProcAttr)
	return true
}
