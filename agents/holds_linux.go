//go:build linux

package agents

import (
	"os"
	"strconv"
)

// HoldsOpen reports whether a process of the agent (the one it started,
// or any process descending from it) has open a file whose path match
// accepts, as the kernel tells it in /proc: a file another process wrote
// is not one this agent holds, whatever it says inside. With no process
// running nothing is held; known is false when /proc cannot be read.
func (a *Agent) HoldsOpen(match func(path string) bool) (held, known bool) {
	root := a.Info().Pid
	if root <= 0 {
		return false, true
	}
	parent := map[int]int{}
	if !eachProc(func(pid int, f [][]byte) {
		if pp, err := strconv.Atoi(string(f[1])); err == nil {
			parent[pid] = pp
		}
	}) {
		return false, false
	}
	for pid := range parent {
		if !descends(pid, root, parent) {
			continue
		}
		dir := "/proc/" + strconv.Itoa(pid) + "/fd/"
		fds, _ := os.ReadDir(dir)
		for _, fd := range fds {
			if l, err := os.Readlink(dir + fd.Name()); err == nil && match(l) {
				return true, true
			}
		}
	}
	return false, true
}

// descends reports whether pid is root or a descendant of it.
func descends(pid, root int, parent map[int]int) bool {
	for i := 0; pid > 1 && i < 1024; i++ {
		if pid == root {
			return true
		}
		pid = parent[pid]
	}
	return pid == root
}
