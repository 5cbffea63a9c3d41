//go:build linux

package e2e

import (
	"os"
	"os/exec"
	"syscall"
)

// namespacesWork runs /bin/true in new user, mount and PID namespaces:
// nil when the kernel gives this user what a sandbox is made of.
func namespacesWork() error {
	ns := exec.Command("/bin/true")
	ns.SysProcAttr = &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getuid(), HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getgid(), HostID: os.Getgid(), Size: 1}}}
	return ns.Run()
}
