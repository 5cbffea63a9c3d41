//go:build linux

package trust

import (
	"os"
	"strings"
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
