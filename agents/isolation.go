package agents

import (
	"os"
	"os/exec"
	"syscall"
)

// Isolation says how an agent's processes are kept apart from the human's.
//
// In a user namespace of its own no process can leave its user namespace
// for its parent's, so the console can tell every process an agent ever
// started — however it detached, even after the console itself died — from
// the human's, and the control socket refuses it the human's operations
// (internal/trust). The sandbox adds a PID namespace (the agent sees and
// signals no process but its own: not the console, not other agents, not
// your shell) and a mount namespace in which your per-user servers'
// sockets (tmux, screen, $XDG_RUNTIME_DIR with systemd --user and D-Bus,
// ssh-agent, X11) and every terminal but the agent's own are hidden under
// mounts the agent cannot undo (sandbox_linux.go).
type Isolation string

// Isolation modes.
const (
	// IsolationAuto runs the agent in the sandbox where the kernel allows
	// it, else in a user namespace alone, else without, saying why in the
	// agent's running record.
	IsolationAuto Isolation = "auto"
	// IsolationSandbox requires the sandbox: the agent fails to start
	// where the kernel refuses it.
	IsolationSandbox Isolation = "sandbox"
	// IsolationUserNS requires a user namespace and uses nothing more:
	// the agent fails to start where the kernel refuses one.
	IsolationUserNS Isolation = "userns"
	// IsolationNone never uses one.
	IsolationNone Isolation = "none"
)

// Isolation names for the running record.
const (
	isolatedSandbox = "sandbox"
	isolatedUserNS  = "user namespace"
	isolatedNone    = "none"
)

// Isolate makes cmd start in a sandbox of its own, as an agent's is (its
// user, PID and mount namespaces, your servers' sockets hidden, protect
// read-only: see Spec.Protect), where the kernel gives one, else in a user
// namespace of its own, and reports whether it will be isolated. The
// console runs programs its configuration names — doctor's `--version`
// probes, `notify: exec://` commands, tool answerers, ui.notify — and that
// configuration is a file an agent can write: so they run as an agent's,
// and the control socket refuses them (and anything they leave behind) the
// human's operations; in the sandbox they cannot reach your tmux either
// (the fifth red team had doctor's probe of a planted ./claude ask tmux
// to run the approval). cmd must not be started yet; a cmd with
// ExtraFiles or a SysProcAttr of its own gets the user namespace alone.
func Isolate(cmd *exec.Cmd, protect ...string) bool {
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	cmd.Env = dropEnv(cmd.Env, consoleOnlyEnv...)
	if isolateInSandbox(cmd, protect) {
		return true
	}
	if !userNamespaces || probeUserNS() != nil {
		return false
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	userNamespace(cmd.SysProcAttr)
	return true
}
