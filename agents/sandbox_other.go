//go:build !linux

package agents

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// sandboxes reports whether this system can have them.
const sandboxes = false

// sandboxCtl is the console's end of a sandbox: none here.
type sandboxCtl struct{}

func (*sandboxCtl) status(time.Duration) (syscall.WaitStatus, bool) { return 0, false }

func (*sandboxCtl) programExited() <-chan struct{} { return nil }

func (*sandboxCtl) protect(protectRequest) error { return nil }

func probeSandbox() error { return errors.New("sandboxes need Linux") }

// SandboxProblem says why there is no sandbox for agents here.
func SandboxProblem() string { return probeSandbox().Error() }

func (a *Agent) spawnSandboxed(string, []string, []string, string) (*proc, error) {
	return nil, errors.New("sandboxes need Linux")
}

// terminate asks the process to end: SIGTERM to its session.
func (p *proc) terminate() { signalSession(p.pid, syscall.SIGTERM) }

func isolateInSandbox(*exec.Cmd, []string) bool { return false }
