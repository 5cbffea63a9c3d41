//go:build linux

package control

import (
	"net"

	"golang.org/x/sys/unix"
)

// passCredentials has the kernel attach to every message sent to ln's
// connections the credentials of the process that sent it
// (SCM_CREDENTIALS): the connection of an agent in a sandbox is made by
// the sandbox's init (agents/connectguard_linux.go), its request written
// by the agent's own process, which the audit names.
func passCredentials(ln net.Listener) error {
	ul, ok := ln.(*net.UnixListener)
	if !ok {
		return nil
	}
	raw, err := ul.SyscallConn()
	if err != nil {
		return err
	}
	var serr error
	if err := raw.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PASSCRED, 1)
	}); err != nil {
		return err
	}
	return serr
}

// firstMessage reads what arrived first on c, and the pid of the process
// that wrote it (0 when the kernel gave none).
func firstMessage(c net.Conn) ([]byte, int) {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil, 0
	}
	buf, oob := make([]byte, 64<<10), make([]byte, unix.CmsgSpace(unix.SizeofUcred))
	n, oobn, _, _, err := uc.ReadMsgUnix(buf, oob)
	if n <= 0 || err != nil && n == 0 {
		return nil, 0
	}
	pid := 0
	if msgs, err := unix.ParseSocketControlMessage(oob[:oobn]); err == nil {
		for _, m := range msgs {
			if cred, err := unix.ParseUnixCredentials(&m); err == nil {
				pid = int(cred.Pid)
			}
		}
	}
	return buf[:n], pid
}

// peerUID is the user of the process at the other end of the socket fd (SO_PEERCRED).
func peerUID(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
