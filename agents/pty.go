package agents

import (
	"fmt"
	"os"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// openPTY opens a PTY pair of the given size. The master is returned in
// non-blocking mode, registered with Go's poller, so that a blocked Read or
// Write returns as soon as the master is closed.
//
// creack/pty's ioctls go through (*os.File).Fd, which switches the file back
// to blocking mode for good; a Read blocked in the kernel then survives
// Close, and a program that leaked the slave to a daemon would pin the
// reader goroutine forever. So the master is re-created from a duplicate of
// its descriptor set non-blocking.
func openPTY(cols, rows uint16) (master, tty *os.File, err error) {
	m, t, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	if err := pty.Setsize(t, &pty.Winsize{Cols: cols, Rows: rows}); err != nil {
		_ = m.Close()
		_ = t.Close()
		return nil, nil, fmt.Errorf("set size: %w", err)
	}
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	name := m.Name()
	_ = m.Close()
	if err != nil {
		_ = t.Close()
		return nil, nil, fmt.Errorf("dup master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		_ = t.Close()
		return nil, nil, fmt.Errorf("non-blocking master: %w", err)
	}
	return os.NewFile(uintptr(fd), name), t, nil
}

// setWinsize sets the size of the terminal behind f without switching f to
// blocking mode.
func setWinsize(f *os.File, cols, rows uint16) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ierr error
	if err := rc.Control(func(fd uintptr) {
		ierr = unix.IoctlSetWinsize(int(fd), unix.TIOCSWINSZ, &unix.Winsize{Col: cols, Row: rows})
	}); err != nil {
		return err
	}
	return ierr
}
