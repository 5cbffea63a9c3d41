//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package agents

import "golang.org/x/sys/unix"

// ioctlUnread asks a terminal how many input bytes are unread: FIONREAD,
// _IOR('f', 127, int), which x/sys/unix does not name on these systems.
const ioctlUnread = 0x4004667f

// ioctlGetTermios reads a terminal's termios.
const ioctlGetTermios = unix.TIOCGETA

// ioctlSetTermios sets a terminal's termios at once.
const ioctlSetTermios = unix.TIOCSETA

// flushInput discards the unread input of the terminal fd (TIOCFLUSH, FREAD).
func flushInput(fd int) error { return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, 1) } // 1: FREAD
