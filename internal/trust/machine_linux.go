//go:build linux

package trust

import (
	"os"
	"strconv"
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

// InsideAgent says why this process cannot be a console: it runs in a user
// namespace that maps only its own user, as agents' do, or below another
// process of this very teamlead executable (another console's agent). ""
// when neither: a console started there could record an agent's
// approvals as the human's.
func InsideAgent() string {
	if m, err := os.ReadFile("/proc/self/uid_map"); err == nil {
		// One user mapped, whatever to: an agent's namespace, or one made
		// inside it (unshare -U --map-user=5 maps "5 0 1"). Only a
		// privileged helper (newuidmap) maps more, as rootless containers do.
		if f := strings.Fields(string(m)); len(f) == 3 && f[2] == "1" {
			return "it runs in a user namespace that maps a single user (" + strings.Join(f, " ") + "), as teamlead's agents and namespaces made inside them do"
		}
	}
	self, err := os.Stat("/proc/self/exe")
	if err != nil {
		return ""
	}
	for pid, i := os.Getppid(), 0; pid > 1 && i < 1024; i++ {
		s, err := readStat(pid)
		if err != nil {
			break
		}
		if st, err := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe"); err == nil && os.SameFile(st, self) {
			return "it runs below another teamlead process (pid " + strconv.Itoa(pid) + ": " + s.comm + ")"
		}
		pid = s.ppid
	}
	return ""
}
