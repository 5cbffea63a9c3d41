//go:build !linux

package agents

import "syscall"

func userNamespace(*syscall.SysProcAttr) {}

// userNamespaces reports whether this system has them.
const userNamespaces = false

func probeUserNS() error { return nil }
