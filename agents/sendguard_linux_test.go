//go:build linux

package agents

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// serveDatagrams is the test's (the human's) datagram server on the Unix
// socket rel, bound by that relative name in the current folder (as
// listenOutside binds its stream server): it prints "heard" for each
// datagram. Run with AGENTS_TEST_DGRAM_SERVE.
func serveDatagrams(rel string) int {
	c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: rel, Net: "unixgram"})
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	buf := make([]byte, 256)
	for {
		if _, _, err := c.ReadFrom(buf); err != nil {
			return 1
		}
		fmt.Println("heard")
	}
}

// humanServers starts the human's servers an agent must not reach by a
// datagram or a connect: a datagram server bound by a relative name in a
// folder of its own (no folder shows for it), and abstract stream and
// datagram servers. It returns the datagram server's folder, the
// abstract name (without its @), and a counter of what they all heard.
func humanServers(t *testing.T, tmp string) (dir, abstract string, heard *atomic.Int64) {
	t.Helper()
	heard = &atomic.Int64{}
	dir = filepath.Join(tmp, "human")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "AGENTS_TEST_DGRAM_SERVE=human.sock")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if sc.Text() == "heard" {
				heard.Add(1)
			}
		}
	}()
	eventually(t, "the human's datagram server binds", func() string { return "" }, func() bool {
		st, err := os.Stat(filepath.Join(dir, "human.sock"))
		return err == nil && st.Mode()&os.ModeSocket != 0
	})
	abstract = fmt.Sprintf("teamlead-test-human-%d", os.Getpid())
	ln, err := net.Listen("unix", "@"+abstract)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			heard.Add(1)
			c.Close()
		}
	}()
	dg, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: "@" + abstract, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dg.Close() })
	go func() {
		buf := make([]byte, 256)
		for {
			if _, _, err := dg.ReadFrom(buf); err != nil {
				return
			}
			heard.Add(1)
		}
	}()
	return dir, abstract, heard
}

// trySends is an agent's process reaching the human's servers by every
// way of sending with an address, and its own servers the same ways
// (which must work, data and passed descriptors intact). It prints held,
// BREACH or ok lines, and "checked" at its end. args: the human's
// datagram socket path and abstract name.
func trySends(args string) int {
	humanPath, abstract, _ := strings.Cut(args, " ")
	human := &unix.SockaddrUnix{Name: humanPath}
	humanAbs := &unix.SockaddrUnix{Name: "@" + abstract}
	held := func(what string, err error) {
		if err == nil {
			fmt.Println("BREACH:", what)
		} else {
			fmt.Println("held:", what+":", err)
		}
	}
	ok := func(what string, err error) {
		if err != nil {
			fmt.Println("BREACH (broken):", what+":", err)
		} else {
			fmt.Println("ok:", what)
		}
	}
	dgram := func() int {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			fmt.Println("socket:", err)
			os.Exit(1)
		}
		return fd
	}
	s := dgram()
	held("sendto the human's path", unix.Sendto(s, []byte("approve p-1"), 0, human))
	held("sendmsg the human's path", unix.Sendmsg(s, []byte("approve p-1"), nil, human, 0))
	held("sendto the human's abstract datagram server", unix.Sendto(s, []byte("approve p-1"), 0, humanAbs))
	held("sendmmsg the human's path", sendmmsgTo(s, humanPath))
	st, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		held("connect to the human's abstract stream server", unix.Connect(st, humanAbs))
		unix.Close(st)
	}

	// Its own datagram server, by path and by abstract name.
	mine := dgram()
	mineAbs := dgram()
	own := fmt.Sprintf("@teamlead-test-agent-%d", os.Getpid())
	if err := unix.Bind(mine, &unix.SockaddrUnix{Name: "mine.sock"}); err != nil {
		fmt.Println("bind:", err)
		return 1
	}
	if err := unix.Bind(mineAbs, &unix.SockaddrUnix{Name: own}); err != nil {
		fmt.Println("bind:", err)
		return 1
	}
	got := func(fd int, want string) error {
		buf := make([]byte, 64)
		_ = unix.SetsockoptTimeval(fd, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 5})
		n, _, err := unix.Recvfrom(fd, buf, 0)
		if err != nil {
			return err
		}
		if string(buf[:n]) != want {
			return fmt.Errorf("got %q, want %q", buf[:n], want)
		}
		return nil
	}
	err = unix.Sendto(s, []byte("one"), 0, &unix.SockaddrUnix{Name: "mine.sock"})
	if err == nil {
		err = got(mine, "one")
	}
	ok("sendto its own path", err)
	err = unix.Sendmsg(s, []byte("two"), nil, &unix.SockaddrUnix{Name: own}, 0)
	if err == nil {
		err = got(mineAbs, "two")
	}
	ok("sendmsg its own abstract name", err)
	err = sendmmsgTo(s, "mine.sock")
	if err == nil {
		if err = got(mine, "m0"); err == nil {
			err = got(mine, "m1")
		}
	}
	ok("sendmmsg its own path", err)

	// A descriptor passed over a connected pair (sendmsg, no address).
	pair, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Println("socketpair:", err)
		return 1
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		fmt.Println("pipe:", err)
		return 1
	}
	err = unix.Sendmsg(pair[0], []byte("fd"), unix.UnixRights(p[1]), nil, 0)
	if err == nil {
		buf, oob := make([]byte, 8), make([]byte, unix.CmsgSpace(4))
		var n, oobn int
		n, oobn, _, _, err = unix.Recvmsg(pair[1], buf, oob, 0)
		if err == nil {
			fds, perr := receivedFDs(oob[:oobn])
			switch {
			case perr != nil || len(fds) != 1:
				err = fmt.Errorf("no descriptor came (%v)", perr)
			case string(buf[:n]) != "fd":
				err = fmt.Errorf("got %q", buf[:n])
			default:
				_, err = unix.Write(fds[0], []byte("through"))
				if err == nil {
					rb := make([]byte, 16)
					var rn int
					rn, err = unix.Read(p[0], rb)
					if err == nil && string(rb[:rn]) != "through" {
						err = fmt.Errorf("the pipe gave %q", rb[:rn])
					}
				}
			}
		}
	}
	ok("a descriptor passed with sendmsg", err)

	// A stream larger than the init's chunk and the socket's buffer,
	// sent with one blocking sendmsg while the other end reads.
	big := make([]byte, 3<<20+17)
	for i := range big {
		big[i] = byte(i * 7)
	}
	read := make(chan error, 1)
	go func() {
		buf := make([]byte, len(big))
		off := 0
		for off < len(buf) {
			n, err := unix.Read(pair[1], buf[off:])
			if err != nil {
				read <- err
				return
			}
			off += n
		}
		for i := range buf {
			if buf[i] != big[i] {
				read <- fmt.Errorf("byte %d differs", i)
				return
			}
		}
		read <- nil
	}()
	n, err := unix.SendmsgN(pair[0], big, nil, nil, 0)
	if err == nil && n != len(big) {
		err = fmt.Errorf("sent %d of %d", n, len(big))
	}
	if err == nil {
		err = <-read
	}
	ok("a 3 MiB stream in one sendmsg", err)

	// EPIPE raises SIGPIPE in the caller, as the kernel's own send does.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	unix.Close(pair[1])
	err = unix.Sendmsg(pair[0], []byte("x"), nil, nil, 0)
	if err == unix.EPIPE {
		select {
		case <-pipes:
			err = nil
		case <-time.After(5 * time.Second):
			err = fmt.Errorf("no SIGPIPE")
		}
	} else {
		err = fmt.Errorf("sendmsg to a closed peer: %v", err)
	}
	ok("SIGPIPE on a closed stream", err)

	// A connect to its own abstract server keeps the socket as the caller
	// made it (the init's own socket is put in its place): its mode, its
	// close-on-exec, its timeout; and a connected one says EISCONN.
	lnAbs := fmt.Sprintf("@teamlead-test-agent-stream-%d", os.Getpid())
	ln, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		if err = unix.Bind(ln, &unix.SockaddrUnix{Name: lnAbs}); err == nil {
			err = unix.Listen(ln, 8)
		}
	}
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	cs, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK, 0)
	_ = unix.SetsockoptTimeval(cs, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: 7})
	_ = unix.SetsockoptLinger(cs, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 5})
	_ = unix.SetsockoptInt(cs, unix.SOL_SOCKET, unix.SO_PRIORITY, 5)
	_, _ = unix.FcntlInt(uintptr(cs), unix.F_SETOWN, os.Getpid())
	err = unix.Connect(cs, &unix.SockaddrUnix{Name: lnAbs})
	if err == nil {
		fl, _ := unix.FcntlInt(uintptr(cs), unix.F_GETFL, 0)
		fdfl, _ := unix.FcntlInt(uintptr(cs), unix.F_GETFD, 0)
		tv, _ := unix.GetsockoptTimeval(cs, unix.SOL_SOCKET, unix.SO_RCVTIMEO)
		switch {
		case fl&unix.O_NONBLOCK == 0:
			err = fmt.Errorf("no longer non-blocking")
		case fdfl&unix.FD_CLOEXEC != 0:
			err = fmt.Errorf("close-on-exec now")
		case tv.Sec != 7:
			err = fmt.Errorf("its timeout is %v", tv)
		}
		l, _ := unix.GetsockoptLinger(cs, unix.SOL_SOCKET, unix.SO_LINGER)
		prio, _ := unix.GetsockoptInt(cs, unix.SOL_SOCKET, unix.SO_PRIORITY)
		owner, _ := unix.FcntlInt(uintptr(cs), unix.F_GETOWN, 0)
		switch {
		case err != nil:
		case l == nil || l.Onoff != 1 || l.Linger != 5:
			err = fmt.Errorf("its linger is %+v", l)
		case prio != 5:
			err = fmt.Errorf("its priority is %d", prio)
		case owner != os.Getpid():
			err = fmt.Errorf("its owner is %d", owner)
		}
	}
	ok("a connect to its own abstract server keeps the socket's mode and options", err)
	if err := unix.Connect(cs, &unix.SockaddrUnix{Name: lnAbs}); err != unix.EISCONN {
		fmt.Println("BREACH (broken): a second connect gave", err, "not EISCONN")
	}
	fmt.Println("checked")
	return 0
}

// sendmmsgTo sends the datagrams m0 and m1 to the Unix socket path with
// one sendmmsg.
func sendmmsgTo(fd int, path string) error {
	var name [110]byte
	name[0], name[1] = unix.AF_UNIX, 0
	copy(name[2:], path)
	msgs := make([]byte, 2*mmsghdrSize)
	bufs := [][]byte{[]byte("m0"), []byte("m1")}
	iovs := make([]unix.Iovec, 2)
	for i := range bufs {
		iovs[i].Base = &bufs[i][0]
		iovs[i].SetLen(len(bufs[i]))
		h := (*unix.Msghdr)(unsafe.Pointer(&msgs[i*mmsghdrSize]))
		h.Name, h.Namelen = &name[0], uint32(2+len(path)+1)
		h.Iov, h.Iovlen = &iovs[i], 1
	}
	n, _, errno := unix.Syscall6(unix.SYS_SENDMMSG, uintptr(fd), uintptr(unsafe.Pointer(&msgs[0])), 2, 0, 0, 0)
	runtime.KeepAlive(bufs)
	runtime.KeepAlive(iovs)
	runtime.KeepAlive(&name)
	if errno != 0 {
		return errno
	}
	if n != 2 {
		return fmt.Errorf("sendmmsg sent %d of 2", n)
	}
	return nil
}

// No datagram and no abstract name reaches a server of yours, however it
// is sent (red team 17a, findings 1 and 2: the human's datagram and
// abstract servers took the agent's "approve"); the agent's own servers
// are reached the same ways, its data, its descriptors and SIGPIPE as
// the kernel gives them. Each refusal is told to the console, with the
// process that made it.
func TestSendGuardRefusesYourDatagramAndAbstractServers(t *testing.T) {
	needSandbox(t)
	tmp := t.TempDir()
	dir, abstract, heard := humanServers(t, tmp)
	work := filepath.Join(tmp, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	script := fmt.Sprintf("cd %s && AGENTS_TEST_SENDS='human.sock %s' %s 2>&1", dir, abstract, self)
	a := Start(Spec{Name: "guarded", Isolation: IsolationSandbox, Dir: work, Command: []string{"/bin/sh", "-c", script}}, rec)
	defer a.Stop()
	select {
	case <-a.Done():
	case <-time.After(waitTimeout):
		t.Fatalf("the agent did not end\n%s", rec.diag())
	}
	checkSandboxReport(t, rec.output(), "held: sendto the human's path", "held: sendmsg the human's path",
		"held: sendto the human's abstract datagram server", "held: sendmmsg the human's path",
		"held: connect to the human's abstract stream server",
		"ok: sendto its own path", "ok: sendmsg its own abstract name", "ok: sendmmsg its own path",
		"ok: a descriptor passed with sendmsg", "ok: a 3 MiB stream in one sendmsg", "ok: SIGPIPE on a closed stream",
		"ok: a connect to its own abstract server keeps the socket's mode and options")
	if n := heard.Load(); n != 0 {
		t.Errorf("your servers heard the agent %d times", n)
	}
	g := rec.guards()
	for _, want := range []string{"send human.sock: a server of yours outside the sandbox", "send @" + abstract, "connect @" + abstract, "by process "} {
		if !strings.Contains(g, want) {
			t.Errorf("the console was not told %q:\n%s", want, g)
		}
	}
}

// blockedConnect is an agent's process whose blocking connect waits (a
// server of its own that never accepts, its backlog full) while signals
// it catches come: their handler must run meanwhile, as it does during
// the kernel's own connect, though the init makes it (red team 17a,
// finding 3: the notification's wait cannot be interrupted). Then the
// server accepts, and the connect, made again after each handler
// (SA_RESTART, as Go's), succeeds.
func blockedConnect() int {
	ln, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Println("socket:", err)
		return 1
	}
	if err := unix.Bind(ln, &unix.SockaddrUnix{Name: "full.sock"}); err == nil {
		err = unix.Listen(ln, 0)
	}
	if err != nil {
		fmt.Println("listen:", err)
		return 1
	}
	// The first connection fills the backlog; the next waits.
	first, _ := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err := unix.Connect(first, &unix.SockaddrUnix{Name: "full.sock"}); err != nil {
		fmt.Println("first connect:", err)
		return 1
	}
	handled := make(chan os.Signal, 64)
	signal.Notify(handled, syscall.SIGUSR1)
	runtime.LockOSThread()
	tid := unix.Gettid()
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		fmt.Println("socket:", err)
		return 1
	}
	var connecting atomic.Bool
	connecting.Store(true)
	go func() {
		n := 0
		deadline := time.After(10 * time.Second)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for n < 3 {
			select {
			case <-tick.C:
				_ = unix.Tgkill(os.Getpid(), tid, syscall.SIGUSR1)
			case <-handled:
				if connecting.Load() {
					n++
				}
			case <-deadline:
				fmt.Println("BREACH: no handler ran while the connect waited")
				n = 3
			}
		}
		if connecting.Load() {
			fmt.Println("handled during the connect")
		}
		if c, _, err := unix.Accept(ln); err == nil {
			unix.Close(c)
		}
	}()
	err = unix.Connect(fd, &unix.SockaddrUnix{Name: "full.sock"})
	connecting.Store(false)
	fmt.Println("connect:", err)
	fmt.Println("checked")
	return 0
}

// A blocking connect the init makes lets the caller's signal handlers
// run while it waits, as the kernel's own does: a program's Ctrl-C
// handler or timer is not held up by a connect that waits.
func TestConnectGuardLetsSignalsIn(t *testing.T) {
	needSandbox(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runSandboxed(t.TempDir(), "AGENTS_TEST_BLOCKED=1 "+self)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "handled during the connect", "connect: <nil>")
}

// handOver is an agent's process whose own server of the abstract name
// name holds a call waiting (a datagram to its full queue, or a connect
// to its full backlog, of type typ), then closes while a server of the
// human's stands ready to take the name (red team 17b, finding 1): the
// call must not reach the human's, and no data written meanwhile either.
func handOver(typ, name string) int {
	addr := &unix.SockaddrUnix{Name: "@" + name}
	stype := unix.SOCK_DGRAM
	if typ == "stream" {
		stype = unix.SOCK_STREAM
	}
	own, err := unix.Socket(unix.AF_UNIX, stype|unix.SOCK_CLOEXEC, 0)
	if err == nil {
		err = unix.Bind(own, addr)
	}
	if err == nil && typ == "stream" {
		err = unix.Listen(own, 0)
	}
	if err != nil {
		fmt.Println("own server:", err)
		return 1
	}
	// The human's server waits for the name from now on.
	fmt.Println("bound")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat("go"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			fmt.Println("the test did not say go")
			return 1
		}
	}
	// Fill its queue, or its backlog: the next call waits.
	filler, _ := unix.Socket(unix.AF_UNIX, stype|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if typ == "stream" {
		if err := unix.Connect(filler, addr); err != nil {
			fmt.Println("filler:", err)
			return 1
		}
	} else {
		for i := 0; i < 1000; i++ {
			if err := unix.Sendto(filler, []byte("fill"), 0, addr); err != nil {
				break
			}
		}
	}
	s, _ := unix.Socket(unix.AF_UNIX, stype|unix.SOCK_CLOEXEC, 0)
	tids := make(chan int, 1)
	result := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		tids <- unix.Gettid()
		if typ == "stream" {
			result <- unix.Connect(s, addr)
		} else {
			result <- unix.Sendto(s, []byte("HANDED-OVER"), 0, addr)
		}
	}()
	// A second thread writes on the socket all the while.
	stop := make(chan struct{})
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
				_, _ = unix.Write(s, []byte("WRITTEN-MEANWHILE"))
			}
		}
	}()
	tid := <-tids
	nr := unix.SYS_SENDTO
	if typ == "stream" {
		nr = unix.SYS_CONNECT
	}
	var st unix.Stat_t
	_ = unix.Fstat(own, &st)
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, _ := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/syscall", tid))
		waits := strings.HasPrefix(string(b), fmt.Sprintf("%d ", nr))
		if waits && typ == "dgram" {
			// The init has checked the name and waits to send: a socket
			// is connected to the agent's server (the init's own).
			peers, _ := unixSockets(udiagShowPeer, func(d *diagSocket) bool { return d.peer == uint32(st.Ino) })
			waits = len(peers) > 0
		}
		if waits {
			break
		}
		if time.Now().After(deadline) {
			fmt.Println("the call did not wait:", string(b))
			return 1
		}
		time.Sleep(time.Millisecond)
	}
	unix.Close(own)
	unix.Close(filler)
	select {
	case err := <-result:
		fmt.Println("call:", err)
	case <-time.After(10 * time.Second):
		fmt.Println("the call did not end")
		return 1
	}
	close(stop)
	fmt.Println("checked")
	return 0
}

// humanTakesName binds the abstract name as a server of the human's the
// moment it is free, and counts the bytes it is sent.
func humanTakesName(t *testing.T, typ, name string) *atomic.Int64 {
	t.Helper()
	got := &atomic.Int64{}
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			select {
			case <-done:
				return
			default:
			}
			if typ == "stream" {
				ln, err := net.Listen("unix", "@"+name)
				if err != nil {
					time.Sleep(100 * time.Microsecond)
					continue
				}
				go func() { <-done; ln.Close() }()
				for {
					c, err := ln.Accept()
					if err != nil {
						return
					}
					go func() {
						b := make([]byte, 4096)
						for {
							n, err := c.Read(b)
							got.Add(int64(n))
							if err != nil {
								return
							}
						}
					}()
				}
			}
			c, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: "@" + name, Net: "unixgram"})
			if err != nil {
				time.Sleep(100 * time.Microsecond)
				continue
			}
			go func() { <-done; c.Close() }()
			b := make([]byte, 4096)
			for {
				n, _, err := c.ReadFrom(b)
				if err != nil {
					return
				}
				got.Add(int64(n))
			}
		}
	}()
	return got
}

// An abstract name that changes hands while the init makes a call to it
// (the agent's own server closes, a server of yours takes the name at
// once) never brings the call, nor what another thread writes meanwhile,
// to yours: the call is made on a socket of the init's own, checked by
// what it reached, not by the name (red team 17b, finding 1).
func TestAbstractNameChangingHands(t *testing.T) {
	needSandbox(t)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, typ := range []string{"dgram", "stream"} {
		t.Run(typ, func(t *testing.T) {
			name := fmt.Sprintf("teamlead-test-handover-%s-%d", typ, os.Getpid())
			work := t.TempDir()
			rec := &recorder{}
			a := Start(Spec{Name: "handover", Isolation: IsolationSandbox, Dir: work,
				Command: []string{"/bin/sh", "-c", fmt.Sprintf("AGENTS_TEST_HANDOVER='%s %s' %s", typ, name, self)}}, rec)
			defer a.Stop()
			eventually(t, "the agent's server binds the name", rec.diag, func() bool { return strings.Contains(rec.output(), "bound") })
			got := humanTakesName(t, typ, name)
			if err := os.WriteFile(filepath.Join(work, "go"), nil, 0o600); err != nil {
				t.Fatal(err)
			}
			select {
			case <-a.Done():
			case <-time.After(waitTimeout):
				t.Fatalf("the agent did not end\n%s", rec.diag())
			}
			out := rec.output()
			// Refused: the agent's server is gone (the datagram's peer,
			// or no listener when the connect was made again), or yours
			// took the name; never delivered.
			if !strings.Contains(out, "call: connection refused") && !strings.Contains(out, "call: permission denied") {
				t.Errorf("the call was not refused:\n%s", out)
			}
			checkSandboxReport(t, out)
			if n := got.Load(); n != 0 {
				t.Errorf("your server got %d bytes from the agent\n%s\n%s", n, out, rec.guards())
			}
		})
	}
}

// tryIPC is an agent's process reaching the human's System V shared
// memory (key) and POSIX shared memory (/dev/shm/name), then leaving a
// file of its own in /dev/shm; it prints held or BREACH lines.
func tryIPC(args string) int {
	key, name, _ := strings.Cut(args, " ")
	k, _ := strconv.Atoi(key)
	if id, err := unix.SysvShmGet(k, 0, 0); err == nil {
		fmt.Println("BREACH: the human's System V segment:", id)
	} else {
		fmt.Println("held: System V segment:", err)
	}
	if _, err := os.Stat("/dev/shm/" + name); err == nil {
		fmt.Println("BREACH: the human's /dev/shm file")
	} else {
		fmt.Println("held: /dev/shm file:", err)
	}
	if err := os.WriteFile("/dev/shm/"+name+"-agent", []byte("x"), 0o600); err != nil {
		fmt.Println("BREACH (broken): the agent cannot use /dev/shm:", err)
	}
	fmt.Println("checked")
	return 0
}

// The human's shared memory, System V's and POSIX's (/dev/shm), is not
// the agent's, and what the agent puts in its /dev/shm stays in its
// sandbox (red team 17b, finding 2).
func TestSandboxHasItsOwnSharedMemory(t *testing.T) {
	needSandbox(t)
	key := 0x7e000000 + os.Getpid()%0xffff
	id, err := unix.SysvShmGet(key, 4096, unix.IPC_CREAT|0o600)
	if err != nil {
		t.Skipf("no System V shared memory here: %v", err)
	}
	defer unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	name := fmt.Sprintf("teamlead-test-%d", os.Getpid())
	if err := os.WriteFile("/dev/shm/"+name, []byte("human"), 0o600); err != nil {
		t.Skipf("no /dev/shm here: %v", err)
	}
	defer os.Remove("/dev/shm/" + name)
	defer os.Remove("/dev/shm/" + name + "-agent")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out, err := runSandboxed(t.TempDir(), fmt.Sprintf("AGENTS_TEST_IPC='%d %s' %s", key, name, self))
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkSandboxReport(t, out, "held: System V segment", "held: /dev/shm file")
	if _, err := os.Stat("/dev/shm/" + name + "-agent"); err == nil {
		t.Error("the agent's /dev/shm file shows outside its sandbox")
	}
}
