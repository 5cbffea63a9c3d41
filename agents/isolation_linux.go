//go:build linux

package agents

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// userNamespace makes attr start the process in a new user namespace in
// which the console's user and group are mapped to themselves, so files,
// permissions and `id` look as before. setgroups stays denied in it (as
// the kernel requires for an unprivileged mapping); the supplementary
// groups the process starts with still grant access. Set-user-ID programs
// (sudo) do not gain privileges in it.
func userNamespace(attr *syscall.SysProcAttr) {
	uid, gid := os.Getuid(), os.Getgid()
	attr.Cloneflags |= syscall.CLONE_NEWUSER
	attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
	attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
	attr.GidMappingsEnableSetgroups = false
}

// userNamespaces reports whether this system has them.
const userNamespaces = true

var userNS struct {
	once sync.Once
	err  error
}

// probeUserNS reports whether the kernel gives this process's user a user
// namespace, by starting /bin/sh in one from / once; the answer is kept.
func probeUserNS() error {
	userNS.once.Do(func() {
		cmd := exec.Command("/bin/sh", "-c", "exit 0")
		cmd.Dir = "/"
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		userNamespace(cmd.SysProcAttr)
		userNS.err = cmd.Run()
	})
	return userNS.err
}
