//go:build linux

package agents

// The send guard, the connect guard's other half: a datagram sent with an
// address (sendto, sendmsg, sendmmsg) reaches a server as a connect does,
// and a datagram server of yours was open to every agent that way (red
// team 17a, finding 2: a request approved in the human's name). A sendto
// with no address goes to the peer its socket was connected to (through
// the guard) and runs as it is: the filter sees that pointer, a register,
// and the kernel uses the same one. A sendmsg's address is in its memory,
// which a second thread can change after any check: every sendmsg and
// sendmmsg, and every sendto with an address, is made by the init, which
// reads the outMessage once, checks its address as connect's, and sends its
// own copy on the caller's socket.

import (
	"encoding/binary"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Limits of a outMessage the init copies, as the kernel's own.
const (
	maxIovecs   = 1024     // UIO_MAXIOV
	maxControl  = 64 << 10 // past optmem_max, which the kernel refuses (ENOBUFS)
	maxDatagram = 8 << 20  // a datagram larger than any send buffer
	streamChunk = 1 << 20  // a stream's data is copied this much at a time
	msghdrSize  = 56       // struct msghdr, 64-bit
	mmsghdrSize = 64       // struct mmsghdr
)

// outMessage is a sendmsg's, read from the caller: its address, the
// iovecs of its data, and its control messages.
type outMessage struct {
	name    []byte
	iov     []unix.RemoteIovec
	size    int
	control []byte
}

// readMessage reads the struct msghdr at addr from the caller's memory.
func (c *caller) readMessage(addr uintptr) (outMessage, syscall.Errno) {
	hdr, errno := c.read(addr, msghdrSize)
	if errno != 0 {
		return outMessage{}, errno
	}
	le := binary.LittleEndian
	namePtr, nameLen := uintptr(le.Uint64(hdr[0:])), int(le.Uint32(hdr[8:]))
	iovPtr, iovLen := uintptr(le.Uint64(hdr[16:])), le.Uint64(hdr[24:])
	ctlPtr, ctlLen := uintptr(le.Uint64(hdr[32:])), le.Uint64(hdr[40:])
	var m outMessage
	if namePtr != 0 && nameLen > 0 {
		if nameLen > maxSockaddr {
			return outMessage{}, unix.EINVAL
		}
		if m.name, errno = c.read(namePtr, nameLen); errno != 0 {
			return outMessage{}, errno
		}
	}
	if iovLen > maxIovecs {
		return outMessage{}, unix.EMSGSIZE
	}
	if iovLen > 0 {
		raw, errno := c.read(iovPtr, int(iovLen)*16)
		if errno != 0 {
			return outMessage{}, errno
		}
		for i := 0; i < int(iovLen); i++ {
			base, n := uintptr(le.Uint64(raw[16*i:])), int(le.Uint64(raw[16*i+8:]))
			if n < 0 || m.size+n < m.size {
				return outMessage{}, unix.EINVAL
			}
			if n > 0 {
				m.iov = append(m.iov, unix.RemoteIovec{Base: base, Len: n})
				m.size += n
			}
		}
	}
	if ctlPtr != 0 && ctlLen > 0 {
		if ctlLen > maxControl {
			return outMessage{}, unix.ENOBUFS
		}
		if m.control, errno = c.read(ctlPtr, int(ctlLen)); errno != 0 {
			return outMessage{}, errno
		}
	}
	return m, 0
}

// data reads n bytes of m's data from offset off.
func (c *caller) data(m outMessage, off, n int) ([]byte, syscall.Errno) {
	out := make([]byte, 0, n)
	for _, v := range m.iov {
		if n == 0 {
			break
		}
		if off >= v.Len {
			off -= v.Len
			continue
		}
		take := min(v.Len-off, n)
		b, errno := c.read(v.Base+uintptr(off), take)
		if errno != 0 {
			return nil, errno
		}
		out = append(out, b...)
		off, n = 0, n-take
	}
	return out, 0
}

// rights takes the descriptors a control outMessage passes (SCM_RIGHTS)
// from the caller, and returns the control with the init's numbers for
// them and those to close after the send. Credentials (SCM_CREDENTIALS)
// are refused: the init would vouch for them, and may name any process of
// the sandbox.
func (c *caller) rights(control []byte) ([]byte, []int, syscall.Errno) {
	out := append([]byte(nil), control...)
	var fds []int
	le := binary.LittleEndian
	for off := 0; off+unix.SizeofCmsghdr <= len(out); {
		l := int(le.Uint64(out[off:]))
		level, typ := int32(le.Uint32(out[off+8:])), int32(le.Uint32(out[off+12:]))
		if l < unix.SizeofCmsghdr || off+l > len(out) {
			break // the kernel stops at a malformed header too (EINVAL)
		}
		if level == unix.SOL_SOCKET && typ == unix.SCM_CREDENTIALS {
			closeAll(fds)
			return nil, nil, unix.EPERM
		}
		if level == unix.SOL_SOCKET && typ == unix.SCM_RIGHTS {
			for p := off + unix.SizeofCmsghdr; p+4 <= off+l; p += 4 {
				fd, err := unix.PidfdGetfd(c.pidfd, int(int32(le.Uint32(out[p:]))), 0)
				if err != nil {
					closeAll(fds)
					return nil, nil, unix.EBADF
				}
				fds = append(fds, fd)
				le.PutUint32(out[p:], uint32(fd))
			}
		}
		off += (l + 7) &^ 7
	}
	return out, fds, 0
}

func closeAll(fds []int) {
	for _, fd := range fds {
		unix.Close(fd)
	}
}

// sendto is the caller's sendto(fd, buf, len, flags, addr, addrlen) with
// an address, made here.
func (g *connectGate) sendto(c *caller) (int64, syscall.Errno) {
	a := c.n.Args
	addrlen := int(int32(a[5]))
	if addrlen < 0 || addrlen > maxSockaddr {
		return 0, unix.EINVAL
	}
	name, errno := c.read(uintptr(a[4]), addrlen)
	if errno != 0 {
		return 0, errno
	}
	m := outMessage{name: name}
	if n := int(a[2]); n > 0 {
		m.iov, m.size = []unix.RemoteIovec{{Base: uintptr(a[1]), Len: n}}, n
	}
	return g.sendMessage(c, int(int32(a[0])), m, int(int32(a[3])))
}

// sendmsg is the caller's sendmsg(fd, msg, flags), made here.
func (g *connectGate) sendmsg(c *caller) (int64, syscall.Errno) {
	m, errno := c.readMessage(uintptr(c.n.Args[1]))
	if errno != 0 {
		return 0, errno
	}
	return g.sendMessage(c, int(int32(c.n.Args[0])), m, int(int32(c.n.Args[2])))
}

// sendmmsg is the caller's sendmmsg(fd, msgvec, vlen, flags), made here:
// each outMessage as a sendmsg, its length written back; the count sent, or
// the first one's error.
func (g *connectGate) sendmmsg(c *caller) (int64, syscall.Errno) {
	fd, vec, vlen, flags := int(int32(c.n.Args[0])), uintptr(c.n.Args[1]), int(uint32(c.n.Args[2])), int(int32(c.n.Args[3]))
	vlen = min(vlen, maxIovecs)
	sent := 0
	for ; sent < vlen; sent++ {
		at := vec + uintptr(sent*mmsghdrSize)
		m, errno := c.readMessage(at)
		if errno == 0 {
			var n int64
			n, errno = g.sendMessage(c, fd, m, flags)
			if errno == 0 {
				var l [4]byte
				binary.LittleEndian.PutUint32(l[:], uint32(n))
				errno = c.write(at+msghdrSize, l[:])
			}
		}
		if errno != 0 {
			if sent == 0 {
				return 0, errno
			}
			break
		}
	}
	return int64(sent), 0
}

// sendMessage sends m on the caller's socket fd as the caller's flags
// ask, its address checked as a connect's is.
func (g *connectGate) sendMessage(c *caller, fd int, m outMessage, flags int) (int64, syscall.Errno) {
	if errno := c.valid(); errno != 0 { // all of it read from the caller
		return 0, errno
	}
	sock, errno := c.socket(fd)
	if errno != 0 {
		return 0, errno
	}
	defer unix.Close(sock)
	typ, _ := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	sendSock := sock
	if len(m.name) > 0 {
		t, errno := g.target(c, typ, m.name, "send to")
		if errno != 0 {
			return 0, errno
		}
		defer t.close()
		m.name = t.addr
		if t.abstract != nil && typ == unix.SOCK_DGRAM {
			via, done, errno := g.sendVia(c, sock, t)
			if errno != 0 {
				return 0, errno
			}
			defer done()
			// sock is only where the caller's mode and timeout are read
			// from now: the datagram goes through via, to its peer.
			m.name, sendSock = nil, via
		}
	}
	control, fds, errno := c.rights(m.control)
	if errno != 0 {
		return 0, errno
	}
	defer closeAll(fds)
	// A copy of the init's must not outlive the call (MSG_ZEROCOPY sends
	// from the buffer later), nor raise SIGPIPE in the init.
	flags &^= unix.MSG_ZEROCOPY
	block := flags&unix.MSG_DONTWAIT == 0 && !nonBlocking(sock)
	w := c.waiter(sendSock, unix.POLLOUT, unix.SO_SNDTIMEO)
	if typ != unix.SOCK_STREAM {
		if m.size > maxDatagram {
			return 0, unix.EMSGSIZE
		}
		data, errno := c.data(m, 0, m.size)
		if errno != 0 {
			return 0, errno
		}
		for {
			n, errno := rawSendmsg(sendSock, m.name, data, control, flags|unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
			if errno == unix.EAGAIN && block {
				if errno = w.wait(); errno == 0 {
					continue
				}
			}
			if errno == unix.ENOTCONN && sendSock != sock {
				errno = unix.ECONNREFUSED // the server it was sent to is gone
			}
			return n, c.pipe(errno, flags)
		}
	}
	// A stream: a chunk at a time, the control with the first, until all
	// is sent, or what was sent when the caller would wait no longer.
	var sent int64
	for sent < int64(m.size) {
		data, errno := c.data(m, int(sent), min(m.size-int(sent), streamChunk))
		if errno == 0 && sent > 0 {
			errno = c.valid()
		}
		if errno != 0 {
			return sent, errno
		}
		ctl := control
		if sent > 0 {
			ctl = nil
		}
		n, errno := rawSendmsg(sock, m.name, data, ctl, flags|unix.MSG_DONTWAIT|unix.MSG_NOSIGNAL)
		if errno == unix.EAGAIN && block {
			if errno = w.wait(); errno == 0 {
				continue
			}
		}
		if errno != 0 {
			if sent > 0 {
				return sent, 0
			}
			return 0, c.pipe(errno, flags)
		}
		sent += n
		if !block && n < int64(len(data)) {
			break
		}
	}
	return sent, 0
}

// rawSendmsg is sendmsg(2) on the init's own copy of a message.
func rawSendmsg(sock int, name, data, control []byte, flags int) (int64, syscall.Errno) {
	var hdr unix.Msghdr
	var iov unix.Iovec
	if len(name) > 0 {
		hdr.Name, hdr.Namelen = &name[0], uint32(len(name))
	}
	if len(data) > 0 {
		iov.Base = &data[0]
		iov.SetLen(len(data))
		hdr.Iov, hdr.Iovlen = &iov, 1
	}
	if len(control) > 0 {
		hdr.Control = &control[0]
		hdr.SetControllen(len(control))
	}
	n, _, errno := unix.Syscall(unix.SYS_SENDMSG, uintptr(sock), uintptr(unsafe.Pointer(&hdr)), uintptr(flags))
	if errno != 0 {
		return 0, errno
	}
	return int64(n), 0
}

// nonBlocking reports whether the socket's file is in non-blocking mode.
func nonBlocking(sock int) bool {
	fl, err := unix.FcntlInt(uintptr(sock), unix.F_GETFL, 0)
	return err == nil && fl&unix.O_NONBLOCK != 0
}
