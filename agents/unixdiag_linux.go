//go:build linux

package agents

import (
	"bytes"
	"encoding/binary"
	"errors"
	"syscall"

	"golang.org/x/sys/unix"
)

// diagSocket is a Unix socket as the kernel's sock_diag describes it.
type diagSocket struct {
	inode  uint32
	typ    uint8  // SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET
	state  uint8  // TCP_LISTEN for a listening socket
	name   []byte // sun_path as bound (an abstract name starts with 0)
	uid    uint32
	hasUID bool
	// vfsDev and vfsIno are the file a path-bound socket is bound to, in
	// the kernel's own dev_t (12 bits of major, 20 of minor) and the low
	// 32 bits of the inode (all sock_diag says).
	vfsDev, vfsIno uint32
	bound          bool
	peer           uint32 // the inode of a connected socket's peer
}

// The sock_diag words for Unix sockets (linux/unix_diag.h).
const (
	udiagShowName = 0x01
	udiagShowVFS  = 0x02
	udiagShowPeer = 0x04
	udiagShowUID  = 0x40
	unixDiagName  = 0
	unixDiagVFS   = 1
	unixDiagPeer  = 2
	unixDiagUID   = 7
	tcpListen     = 10
)

// boundSockets lists the Unix sockets bound to the file (dev, ino), from
// the kernel (sock_diag), whoever made them and whatever path they gave.
func boundSockets(dev, ino uint64) ([]diagSocket, error) {
	major, minor := unix.Major(dev), unix.Minor(dev)
	return unixSockets(udiagShowVFS|udiagShowUID, func(s *diagSocket) bool {
		return s.bound && s.vfsIno == uint32(ino) && s.vfsDev>>20 == major && s.vfsDev&0xfffff == minor
	})
}

// abstractSockets lists the Unix sockets of this network namespace whose
// abstract name is name (its leading 0 included): the server that bound
// it and the connections it accepted, which share its name.
func abstractSockets(name []byte) ([]diagSocket, error) {
	return unixSockets(udiagShowName|udiagShowUID, func(s *diagSocket) bool { return bytes.Equal(s.name, name) })
}

// unixSockets dumps the Unix sockets of this network namespace with the
// attributes show asks for, and keeps those keep accepts.
func unixSockets(show uint32, keep func(*diagSocket) bool) ([]diagSocket, error) {
	return diagQuery(0, show, keep)
}

// diagQuery asks sock_diag for the Unix socket inode (0: a dump of every
// one) with the attributes show asks for, and keeps those keep accepts.
func diagQuery(inode, show uint32, keep func(*diagSocket) bool) ([]diagSocket, error) {
	nl, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, unix.NETLINK_SOCK_DIAG)
	if err != nil {
		return nil, err
	}
	defer unix.Close(nl)
	req := make([]byte, unix.NLMSG_HDRLEN+24)
	flags := uint16(unix.NLM_F_REQUEST)
	if inode == 0 {
		flags |= unix.NLM_F_DUMP
	}
	binary.LittleEndian.PutUint32(req[0:], uint32(len(req)))
	binary.LittleEndian.PutUint16(req[4:], unix.SOCK_DIAG_BY_FAMILY)
	binary.LittleEndian.PutUint16(req[6:], flags)
	body := req[unix.NLMSG_HDRLEN:]
	body[0] = unix.AF_UNIX
	binary.LittleEndian.PutUint32(body[4:], 0xffffffff) // every state
	binary.LittleEndian.PutUint32(body[8:], inode)
	binary.LittleEndian.PutUint32(body[12:], show)
	binary.LittleEndian.PutUint32(body[16:], 0xffffffff) // no cookie
	binary.LittleEndian.PutUint32(body[20:], 0xffffffff)
	if err := unix.Sendto(nl, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return nil, err
	}
	var out []diagSocket
	buf := make([]byte, 64<<10)
	for {
		n, _, err := unix.Recvfrom(nl, buf, 0)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return nil, err
		}
		for _, m := range msgs {
			switch m.Header.Type {
			case unix.NLMSG_DONE:
				return out, nil
			case unix.NLMSG_ERROR:
				return nil, errors.New("sock_diag refused the request")
			}
			if s, ok := parseUnixDiag(m.Data); ok && keep(&s) {
				out = append(out, s)
			}
		}
		if inode != 0 {
			return out, nil // one socket: one reply, no NLMSG_DONE
		}
	}
}

// parseUnixDiag reads a struct unix_diag_msg and its attributes.
func parseUnixDiag(d []byte) (diagSocket, bool) {
	if len(d) < 16 {
		return diagSocket{}, false
	}
	s := diagSocket{typ: d[1], state: d[2], inode: binary.LittleEndian.Uint32(d[4:])}
	for a := d[16:]; len(a) >= 4; {
		l, typ := int(binary.LittleEndian.Uint16(a)), binary.LittleEndian.Uint16(a[2:])
		if l < 4 || l > len(a) {
			break
		}
		v := a[4:l]
		switch {
		case typ == unixDiagName:
			s.name = append([]byte(nil), v...)
		case typ == unixDiagVFS && len(v) >= 8:
			s.vfsIno, s.vfsDev, s.bound = binary.LittleEndian.Uint32(v), binary.LittleEndian.Uint32(v[4:]), true
		case typ == unixDiagPeer && len(v) >= 4:
			s.peer = binary.LittleEndian.Uint32(v)
		case typ == unixDiagUID && len(v) >= 4:
			s.uid, s.hasUID = binary.LittleEndian.Uint32(v), true
		}
		a = a[min((l+3)&^3, len(a)):]
	}
	return s, true
}
