//go:build unix && !linux

package agents

import "syscall"

// signalSession sends sig to the process group sid (the session leader's
// group; other groups of the session are not reachable without /proc).
func signalSession(sid int, sig syscall.Signal) {
	_ = syscall.Kill(-sid, sig)
}

// sessionAlive reports whether the process group sid still has members.
func sessionAlive(sid int) bool {
	return syscall.Kill(-sid, 0) == nil
}
