package bench

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// startOnPTY starts cmd on a new PTY, in its own session with the PTY as
// its controlling terminal, and returns the master. The master is
// non-blocking and in Go's poller, the way the agents package opens it, so
// the baselines read PTYs exactly as the engine does.
func startOnPTY(cmd *exec.Cmd) (*os.File, error) {
	m, t, err := pty.Open()
	if err != nil {
		return nil, err
	}
	defer t.Close() // the child has its own copies once started
	if err := pty.Setsize(t, &pty.Winsize{Cols: 120, Rows: 40}); err != nil {
		_ = m.Close()
		return nil, err
	}
	// pty's ioctls leave m in blocking mode; a duplicate set non-blocking
	// is what os.NewFile registers with the poller.
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	name := m.Name()
	_ = m.Close()
	if err != nil {
		return nil, fmt.Errorf("dup master: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, fmt.Errorf("non-blocking master: %w", err)
	}
	master := os.NewFile(uintptr(fd), name)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = t, t, t
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		_ = master.Close()
		return nil, err
	}
	return master, nil
}
