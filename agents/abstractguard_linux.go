//go:build linux

package agents

// Abstract names change hands: a name checked as the sandbox's server's
// can be bound by a server of yours the moment the agent's closes, and a
// call made by name after the check reaches yours (red team 17b, finding
// 1: datagrams delivered, and data a second thread wrote while the init
// connected). So no call is made by name after the check on a socket the
// agent can use meanwhile: the init connects a socket of its own, checks
// what that reached (a socket object, which cannot change hands), and
// then puts it in place of the caller's (a connect) or sends through it
// (a datagram). Only a socket bound to an address of its own, which a new
// socket could not have, is connected by name itself and checked after.

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// connectAbstract connects the caller's socket fd (sock: the init's copy
// of it) of type typ to the abstract name t checked.
func (g *connectGate) connectAbstract(c *caller, fd, sock, typ int, t target) syscall.Errno {
	// A socket with an address, connected or listening already, is
	// connected itself: the kernel's answer (EISCONN, a datagram socket's
	// new peer) is its own, and a new socket would lose what it has.
	if _, err := unix.Getpeername(sock); err == nil || hasAddress(sock) {
		if errno := c.connectOn(sock, t.addr); errno != 0 {
			return errno
		}
		if !reachedInside(sock, typ) {
			disconnect(sock, typ)
			g.refuse(c, "connect to", abstractName(t.abstract), "a server outside the sandbox took the name")
			return unix.EACCES
		}
		return 0
	}
	own, errno := twinSocket(sock, typ)
	if errno != 0 {
		return errno
	}
	defer unix.Close(own)
	if errno := c.connectOn(own, t.addr); errno != 0 {
		return errno
	}
	if !reachedInside(own, typ) {
		g.refuse(c, "connect to", abstractName(t.abstract), "a server outside the sandbox took the name")
		return unix.EACCES
	}
	return c.replace(fd, own)
}

// sendVia is the socket a datagram to the abstract name t is sent
// through, and what undoes it after the send: a socket of the init's own
// connected to the name, unless the caller's has an address of its own
// (or asks for credentials, which give it one), which the receiver would
// see; then the caller's, connected to the name for the send.
func (g *connectGate) sendVia(c *caller, sock int, t target) (via int, done func(), errno syscall.Errno) {
	refused := func() (int, func(), syscall.Errno) {
		g.refuse(c, "send to", abstractName(t.abstract), "a server outside the sandbox took the name")
		return -1, nil, unix.EACCES
	}
	passcred, _ := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_PASSCRED)
	if hasAddress(sock) || passcred != 0 {
		if _, err := unix.Getpeername(sock); err == nil {
			return -1, nil, unix.EISCONN // connected elsewhere: undone, its peer would be lost
		}
		if errno := rawConnect(sock, t.addr); errno != 0 {
			return -1, nil, errno
		}
		if !reachedInside(sock, unix.SOCK_DGRAM) {
			disconnect(sock, unix.SOCK_DGRAM)
			return refused()
		}
		return sock, func() { disconnect(sock, unix.SOCK_DGRAM) }, 0
	}
	own, errno := twinSocket(sock, unix.SOCK_DGRAM)
	if errno != 0 {
		return -1, nil, errno
	}
	if errno := rawConnect(own, t.addr); errno != 0 {
		unix.Close(own)
		return -1, nil, errno
	}
	if !reachedInside(own, unix.SOCK_DGRAM) {
		unix.Close(own)
		return refused()
	}
	return own, func() { unix.Close(own) }, 0
}

// reachedInside reports whether the connected socket sock reached a
// server of the sandbox's: for a stream or seqpacket socket, the listener
// was made by a process of the sandbox (SO_PEERCRED: the pid of the
// process that called listen, 0 when it is outside the sandbox's PID
// namespace); for a datagram socket, a process of the sandbox holds the
// peer (sock_diag).
func reachedInside(sock, typ int) bool {
	if typ != unix.SOCK_DGRAM {
		cred, err := unix.GetsockoptUcred(sock, unix.SOL_SOCKET, unix.SO_PEERCRED)
		return err == nil && cred.Pid > 0
	}
	var st unix.Stat_t
	if unix.Fstat(sock, &st) != nil {
		return false
	}
	peer, err := peerOf(uint32(st.Ino))
	return err == nil && peer != 0 && listensInside(uint64(peer))
}

// twinSocket is a new Unix socket of type typ with the options of sock
// that outlive a connect (credentials, buffers, timeouts, priority,
// linger), its file's non-blocking and async modes and its owner.
func twinSocket(sock, typ int) (int, syscall.Errno) {
	own, err := unix.Socket(unix.AF_UNIX, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return -1, errno
		}
		return -1, unix.ENOBUFS
	}
	for _, opt := range []int{unix.SO_PASSCRED, unix.SO_PASSSEC, unix.SO_PASSPIDFD} {
		if v, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, opt); err == nil && v != 0 {
			_ = unix.SetsockoptInt(own, unix.SOL_SOCKET, opt, v)
		}
	}
	for _, opt := range []int{unix.SO_SNDBUF, unix.SO_RCVBUF} {
		if v, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, opt); err == nil {
			_ = unix.SetsockoptInt(own, unix.SOL_SOCKET, opt, v/2) // the kernel doubles what it is given
		}
	}
	for _, opt := range []int{unix.SO_RCVTIMEO, unix.SO_SNDTIMEO} {
		if tv, err := unix.GetsockoptTimeval(sock, unix.SOL_SOCKET, opt); err == nil {
			_ = unix.SetsockoptTimeval(own, unix.SOL_SOCKET, opt, tv)
		}
	}
	if v, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_PRIORITY); err == nil && v != 0 {
		_ = unix.SetsockoptInt(own, unix.SOL_SOCKET, unix.SO_PRIORITY, v)
	}
	if l, err := unix.GetsockoptLinger(sock, unix.SOL_SOCKET, unix.SO_LINGER); err == nil && l.Onoff != 0 {
		_ = unix.SetsockoptLinger(own, unix.SOL_SOCKET, unix.SO_LINGER, l)
	}
	if nonBlocking(sock) {
		_ = unix.SetNonblock(own, true)
	}
	// Who gets its SIGIO and SIGURG (F_SETOWN), and whether it asked
	// for them (O_ASYNC).
	if owner, err := unix.FcntlInt(uintptr(sock), unix.F_GETOWN, 0); err == nil && owner != 0 {
		_, _ = unix.FcntlInt(uintptr(own), unix.F_SETOWN, owner)
	}
	if fl, err := unix.FcntlInt(uintptr(sock), unix.F_GETFL, 0); err == nil && fl&unix.O_ASYNC != 0 {
		if ofl, err := unix.FcntlInt(uintptr(own), unix.F_GETFL, 0); err == nil {
			_, _ = unix.FcntlInt(uintptr(own), unix.F_SETFL, ofl|unix.O_ASYNC)
		}
	}
	return own, 0
}

// hasAddress reports whether sock is bound to an address of its own: a
// name longer than the family alone (an unbound socket's is two bytes,
// which unix.Getsockname reads as the abstract name "@").
func hasAddress(sock int) bool {
	var raw unix.RawSockaddrAny
	n := uint32(unsafe.Sizeof(raw))
	_, _, errno := unix.Syscall(unix.SYS_GETSOCKNAME, uintptr(sock), uintptr(unsafe.Pointer(&raw)), uintptr(unsafe.Pointer(&n)))
	return errno != 0 || n > 2
}

// disconnect ends sock's connection: a datagram socket is connected to
// nothing again (AF_UNSPEC), a stream one shut down.
func disconnect(sock, typ int) {
	if typ == unix.SOCK_DGRAM {
		unspec := []byte{unix.AF_UNSPEC, 0}
		_ = rawConnect(sock, unspec)
		return
	}
	_ = unix.Shutdown(sock, unix.SHUT_RDWR)
}

// rawConnect is connect(2) with an address as bytes.
func rawConnect(sock int, addr []byte) syscall.Errno {
	var p unsafe.Pointer
	if len(addr) > 0 {
		p = unsafe.Pointer(&addr[0])
	}
	_, _, errno := unix.Syscall(unix.SYS_CONNECT, uintptr(sock), uintptr(p), uintptr(len(addr)))
	return errno
}

// replace puts the init's socket own in place of the caller's descriptor
// fd (SECCOMP_IOCTL_NOTIF_ADDFD, as dup2 would), close-on-exec as fd was.
func (c *caller) replace(fd, own int) syscall.Errno {
	req := struct {
		id                           uint64
		flags, srcfd, newfd, fdFlags uint32
	}{id: c.n.ID, flags: unix.SECCOMP_ADDFD_FLAG_SETFD, srcfd: uint32(own), newfd: uint32(fd)}
	if closeOnExec(c.tgid, fd) {
		req.fdFlags = unix.O_CLOEXEC
	}
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(c.g.listener), uintptr(unix.SECCOMP_IOCTL_NOTIF_ADDFD), uintptr(unsafe.Pointer(&req))); errno != 0 {
		return errno
	}
	return 0
}

// closeOnExec reports whether pid's descriptor fd closes on exec
// (its fdinfo's flags).
func closeOnExec(pid, fd int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/fdinfo/" + strconv.Itoa(fd))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "flags:"); ok {
			fl, err := strconv.ParseUint(strings.TrimSpace(v), 8, 64)
			return err == nil && fl&unix.O_CLOEXEC != 0
		}
	}
	return false
}

// peerOf is the inode of the socket a connected Unix socket's peer is
// (sock_diag, asked for that one socket), 0 for none.
func peerOf(inode uint32) (uint32, error) {
	socks, err := diagQuery(inode, udiagShowPeer, func(s *diagSocket) bool { return s.inode == inode })
	if err != nil || len(socks) == 0 {
		return 0, err
	}
	return socks[0].peer, nil
}
