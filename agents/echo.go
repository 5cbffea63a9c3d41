package agents

import (
	"golang.org/x/sys/unix"
)

// The terminal's echo of what the console types is drawn by the console,
// not by the kernel. A program in a cooked terminal (a shell script, a
// REPL, most tools) has the line discipline echo what it reads, and the
// kernel puts that echo into the same output as the program's own
// writes, wherever the two meet: under load a relayed envelope's echo lands
// in the middle of the agent's own [ROUTE] block, and neither parses (the
// soak's reformat requests). Nothing after the fact can take the two apart
// exactly, so they are never mixed: while the console types a message, the
// terminal's ECHO flag is off, and the console hands the echo the kernel
// would have drawn (echoForm) to the Sink's Echo, which shows it on the
// agent's screen and never parses it. The flag is restored once the program
// has read the message (so every byte typed went through the line
// discipline with echo off; see confirm.go), and only if the program has
// not changed its terminal meanwhile: a program that turned echo off itself
// (a password prompt) keeps it off. Raw programs (agent CLIs, readline
// shells) have echo off already and draw their own input: nothing changes
// for them.

// EchoSink is a Sink that also shows the echo the console draws for a
// program whose terminal would have echoed what was typed (see above).
// Echo is called on the goroutine that typed, possibly while Output runs.
type EchoSink interface {
	Sink
	// Echo receives the echo of bytes typed into the agent.
	Echo(agent string, data []byte)
}

// quietEcho is what the console changed in a process's terminal to type
// without the kernel's echo.
type quietEcho struct {
	set  unix.Termios // the terminal as the console set it: echo off
	orig unix.Termios // the program's own, restored after
}

// quietEchoLocked turns the terminal's echo off for the console's typing,
// if it is on; p.wmu is held.
func (p *proc) quietEchoLocked() {
	if p.echo != nil || p.tty == nil {
		return
	}
	p.withTTY(func(fd int) {
		tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios)
		if err != nil || tio.Lflag&unix.ECHO == 0 {
			return
		}
		set := *tio
		set.Lflag &^= unix.ECHO | unix.ECHONL
		if unix.IoctlSetTermios(fd, ioctlSetTermios, &set) == nil {
			p.echo = &quietEcho{set: set, orig: *tio}
		}
	})
}

// restoreEcho gives the program its echo back, unless it changed its
// terminal since the console turned echo off.
func (p *proc) restoreEcho() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.echo == nil {
		return
	}
	q := p.echo
	p.echo = nil
	p.withTTY(func(fd int) {
		if tio, err := unix.IoctlGetTermios(fd, ioctlGetTermios); err == nil && *tio == q.set {
			_ = unix.IoctlSetTermios(fd, ioctlSetTermios, &q.orig)
		}
	})
}

// withTTY runs f on the console's slave descriptor, unless it is closed
// (the process ended): never on a number the descriptor no longer holds.
func (p *proc) withTTY(f func(fd int)) {
	rc, err := p.tty.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) { f(int(fd)) })
}

// echoForm is what a terminal set as tio echoes for input b (Linux n_tty):
// input processing first (ISTRIP, IGNCR, ICRNL, INLCR), then a line end
// echoes as one (with OPOST and ONLCR as CR LF), the erase key as
// backspace-space-backspace (ECHOE), other control characters but tab as
// ^X (ECHOCTL), everything else as itself.
func echoForm(tio *unix.Termios, b []byte) []byte {
	out := make([]byte, 0, len(b)+len(b)/8)
	canon := tio.Lflag&unix.ICANON != 0
	for _, c := range b {
		if tio.Iflag&unix.ISTRIP != 0 {
			c &= 0x7f
		}
		switch {
		case c == '\r' && tio.Iflag&unix.IGNCR != 0:
			continue
		case c == '\r' && tio.Iflag&unix.ICRNL != 0:
			c = '\n'
		case c == '\n' && tio.Iflag&unix.INLCR != 0:
			c = '\r'
		}
		switch {
		case c == '\n':
			if tio.Oflag&unix.OPOST != 0 && tio.Oflag&unix.ONLCR != 0 {
				out = append(out, '\r')
			}
			out = append(out, '\n')
		case canon && c == tio.Cc[unix.VERASE] && tio.Lflag&unix.ECHOE != 0:
			out = append(out, '\b', ' ', '\b')
		case (c < 0x20 && c != '\t') || c == 0x7f:
			if tio.Lflag&unix.ECHOCTL != 0 {
				out = append(out, '^', c^0x40)
			} else {
				out = append(out, c)
			}
		default:
			out = append(out, c)
		}
	}
	return out
}
