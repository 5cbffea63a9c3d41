package control

import (
	"net"

	"golang.org/x/sys/unix"
)

// passCredentials is Linux's only (SCM_CREDENTIALS).
func passCredentials(net.Listener) error { return nil }

// firstMessage reads nothing ahead where no credentials come with it.
func firstMessage(net.Conn) ([]byte, int) { return nil, 0 }

// peerUID is the user of the process at the other end of the socket fd (LOCAL_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
