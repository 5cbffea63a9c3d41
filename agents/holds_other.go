//go:build !linux

package agents

// HoldsOpen cannot tell which files the agent's processes hold here.
func (a *Agent) HoldsOpen(match func(path string) bool) (held, known bool) { return false, false }
