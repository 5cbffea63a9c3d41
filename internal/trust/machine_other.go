//go:build !linux

package trust

// MachineWarnings lists what the console cannot stop on this system.
func MachineWarnings() []string {
	return []string{"outside Linux the console tells an agent's processes by their session only: a process an agent detached with setsid can act as the human through the control socket"}
}

// InsideAgent cannot tell outside Linux.
func InsideAgent() string { return "" }
