//go:build unix

// Package term puts a terminal in raw mode and reads its size: what an
// agent CLI does to its terminal (mockagent, the bench's agents) and what
// the console checks of its own.
package term

import "golang.org/x/sys/unix"

// MakeRaw puts the terminal fd in raw input mode, as an agent CLI does: no
// echo (so text typed into it is not printed back), no line editing, no
// CR→NL mapping, no signals from keys, bytes delivered as they arrive.
// Output processing stays on, so "\n" still reaches the screen as CRLF.
// It returns a function restoring the previous mode.
func MakeRaw(fd int) (restore func(), err error) {
	old, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	if err != nil {
		return nil, err
	}
	t := *old
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
	t.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB
	t.Cflag |= unix.CS8
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0
	if err := unix.IoctlSetTermios(fd, ioctlSetTermios, &t); err != nil {
		return nil, err
	}
	return func() { _ = unix.IoctlSetTermios(fd, ioctlSetTermios, old) }, nil
}

// IsTerminal reports whether fd is a terminal.
func IsTerminal(fd int) bool {
	_, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
	return err == nil
}

// Size returns the size of the terminal fd.
func Size(fd int) (cols, rows int, err error) {
	ws, err := unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ)
	if err != nil {
		return 0, 0, err
	}
	return int(ws.Col), int(ws.Row), nil
}
