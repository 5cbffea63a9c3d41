//go:build linux

package agents

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// member is one process of a session, read from /proc.
type member struct {
	pid    int
	zombie bool
}

// eachProc calls fn with the pid and the fields after the command of every
// process's /proc/<pid>/stat (state ppid pgrp session …; the command may
// hold spaces and parentheses, so fields are counted from the last ')').
// ok is false when /proc cannot be read.
func eachProc(fn func(pid int, f [][]byte)) (ok bool) {
	d, err := os.Open("/proc")
	if err != nil {
		return false
	}
	names, err := d.Readdirnames(-1)
	d.Close()
	if err != nil {
		return false
	}
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		pid, err := strconv.Atoi(n)
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		if f := bytes.Fields(b[i+1:]); len(f) >= 4 {
			fn(pid, f)
		}
	}
	return true
}

// sessionMembers lists the processes whose session id is sid, from /proc.
// Processes that moved to another process group of the session (job
// control in a shell the agent runs) are included; those that left with
// setsid are not reachable and not listed. ok is false when /proc cannot
// be read.
func sessionMembers(sid int) (ms []member, ok bool) {
	ok = eachProc(func(pid int, f [][]byte) {
		if s, err := strconv.Atoi(string(f[3])); err == nil && s == sid {
			st := f[0]
			ms = append(ms, member{pid: pid, zombie: len(st) == 1 && (st[0] == 'Z' || st[0] == 'X')})
		}
	})
	return ms, ok
}

// signalSession sends sig to the process group sid and to every other
// process of the session sid.
func signalSession(sid int, sig syscall.Signal) {
	_ = syscall.Kill(-sid, sig)
	ms, _ := sessionMembers(sid)
	for _, m := range ms {
		if !m.zombie {
			_ = syscall.Kill(m.pid, sig)
		}
	}
}

// sessionAlive reports whether any process of session sid is still alive
// (zombies waiting for a parent that does not reap them do not count).
func sessionAlive(sid int) bool {
	ms, ok := sessionMembers(sid)
	if !ok {
		return syscall.Kill(-sid, 0) == nil
	}
	for _, m := range ms {
		if !m.zombie {
			return true
		}
	}
	return false
}
