//go:build linux

package trust

import (
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// MachineWarnings lists what this kernel lets a process of the console's
// user do that the console cannot stop, each with the setting that stops
// it (docs/architecture.md, "Trust").
func MachineWarnings() []string {
	var out []string
	scope, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	if v := strings.TrimSpace(string(scope)); err != nil || v == "0" {
		out = append(out, "the kernel lets any process of your user trace any other (no Yama ptrace_scope, or 0): an agent's process could drive your own shell; set kernel.yama.ptrace_scope=1, or run agents as another user")
	}
	if tiocsti, err := os.ReadFile("/proc/sys/dev/tty/legacy_tiocsti"); err == nil && strings.TrimSpace(string(tiocsti)) == "1" && os.Geteuid() == 0 {
		out = append(out, "the kernel allows TIOCSTI and the console runs as root: an agent without a user namespace could type into your terminal; set dev.tty.legacy_tiocsti=0, or keep isolation: auto")
	}
	return out
}

// Harden makes the console itself out of reach of its agents' processes:
// not dumpable, so that tracing it, or reading and writing its memory
// through /proc, needs CAP_SYS_PTRACE in the console's user namespace,
// which no agent in a user namespace of its own, and no unprivileged
// process, has.
func Harden() error {
	return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0)
}
