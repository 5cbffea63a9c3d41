//go:build linux

package agents

import "golang.org/x/sys/unix"

// ioctlUnread asks a terminal how many input bytes are unread.
const ioctlUnread = unix.TIOCINQ

// ioctlGetTermios reads a terminal's termios.
const ioctlGetTermios = unix.TCGETS

// ioctlSetTermios sets a terminal's termios at once.
const ioctlSetTermios = unix.TCSETS

// flushInput discards the unread input of the terminal fd (TCFLSH, TCIFLUSH).
func flushInput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCIFLUSH) }
