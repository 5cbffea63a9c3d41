//go:build darwin

package trust

import (
	"net"

	"golang.org/x/sys/unix"
)

func peerPid(c *net.UnixConn) int {
	raw, err := c.SyscallConn()
	if err != nil {
		return 0
	}
	pid := 0
	_ = raw.Control(func(fd uintptr) {
		if n, err := unix.GetsockoptInt(int(fd), unix.SOL_LOCAL, unix.LOCAL_PEERPID); err == nil {
			pid = n
		}
	})
	return pid
}
