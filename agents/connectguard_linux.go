//go:build linux

package agents

// The connect guard: every connect() of a sandboxed agent's processes is
// made by the sandbox's init, on the agent's behalf, and one that reaches
// a Unix socket of the human's outside the sandbox is refused. Hiding the
// human's sockets by the path /proc/net/unix gives was never enough: a
// server bound by a relative path shows no folder, and one started after
// the agent was reached in the milliseconds before it was covered, its
// connection kept (red team 16a, findings 1 and 2: an agent drove the
// human's tmux to approve its own critical request).
//
// The agent's program starts under a seccomp filter that hands each
// connect() to the init (a user notification). The init reads the
// address once, from the process's memory, takes the socket itself
// (pidfd_getfd: the very open socket, its flags and options), and:
//
//   - for a Unix socket path, opens the file the way the agent would reach
//     it (its root or working folder) and connects to that open file
//     (/proc/self/fd/N), so what is checked is what is connected: allowed
//     when a process of the sandbox listens on it, when its owner is not
//     the human (a system service), or when it is the console's socket;
//     refused (EACCES, told to the console) otherwise;
//   - for any other address, connects with its own copy of it.
//
// The agent's syscall never runs itself (no SECCOMP_USER_NOTIF_FLAG_CONTINUE,
// which a second thread changing the address after the check would get
// round). The filter also refuses what would get round it: a listener of
// the agent's own (a newer filter's notifications take precedence),
// io_uring (its connect is not a syscall), and the 32-bit syscall tables.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// guardArg0 is the argv[0] of the step between the init and the agent's
// program: the executable started with it installs the filter, passes its
// listener to the init and runs the program.
const guardArg0 = "teamlead-connect-guard"

func init() {
	if len(os.Args) >= 3 && os.Args[0] == guardArg0 {
		os.Exit(guardExec(os.Args[1], os.Args[2:]))
	}
}

// guardFD is the guard step's descriptor of its socket to the init.
const guardFD = 3

// guardExec is the guard step: filter, pass the listener, run path with
// args (args[0] its argv[0]). The descriptor to the init closes on exec,
// which tells the init the program runs.
func guardExec(path string, args []string) int {
	runtime.LockOSThread() // the filter is this thread's; exec runs on it
	ctl := guardFD
	syscall.CloseOnExec(ctl)
	listener, err := installConnectFilter()
	if err != nil {
		_, _ = unix.Write(ctl, []byte("unguarded "+err.Error()))
	} else {
		// Its sendmsg is the filter's now: the init takes the listener
		// itself (pidfd_getfd), and says so before it is closed here.
		_, _ = unix.Write(ctl, []byte("guarded "+strconv.Itoa(listener)))
		_, _ = unix.Read(ctl, make([]byte, 16))
		unix.Close(listener)
	}
	err = syscall.Exec(path, args, os.Environ())
	_, _ = unix.Write(ctl, []byte("exec-error "+err.Error()))
	return 127
}

// The seccomp filter's words (linux/seccomp.h, linux/filter.h).
const (
	seccompRetAllow      = 0x7fff0000
	seccompRetUserNotify = 0x7fc00000
	seccompRetErrno      = 0x00050000
	bpfLdW               = 0x20 // BPF_LD|BPF_W|BPF_ABS
	bpfJa                = 0x05 // BPF_JMP|BPF_JA
	bpfJeqK              = 0x15 // BPF_JMP|BPF_JEQ|BPF_K
	bpfJgeK              = 0x35 // BPF_JMP|BPF_JGE|BPF_K
	bpfJsetK             = 0x45 // BPF_JMP|BPF_JSET|BPF_K
	bpfRetK              = 0x06 // BPF_RET|BPF_K
	ioUringSetup         = 425  // the same number on every architecture
	seccompSetModeFilter = 1
	x32SyscallBit        = 0x40000000
)

// syscallTable is what the filter needs of an architecture.
type syscallTable struct {
	arch, compatArch uint32 // AUDIT_ARCH_* of the native and the 32-bit tables
	connect, seccomp uint32
	sendto, sendmsg  uint32
	sendmmsg         uint32
	x32              bool // x32 numbers share the native architecture
	// compat are the 32-bit table's calls that reach an address:
	// connect, socketcall, sendto, sendmsg and sendmmsg.
	compat []uint32
}

// nativeTable is this build's; false where the guard is not built.
func nativeTable() (syscallTable, bool) {
	switch runtime.GOARCH {
	case "amd64":
		return syscallTable{arch: 0xc000003e, compatArch: 0x40000003, connect: 42, seccomp: 317, sendto: 44, sendmsg: 46, sendmmsg: 307, x32: true,
			compat: []uint32{362, 102, 369, 370, 345}}, true
	case "arm64":
		return syscallTable{arch: 0xc00000b7, compatArch: 0x40000028, connect: 203, seccomp: 277, sendto: 206, sendmsg: 211, sendmmsg: 269,
			compat: []uint32{283, 102, 290, 296, 374}}, true
	}
	return syscallTable{}, false
}

// bpfIns is an instruction with its jumps by label, for assemble.
type bpfIns struct {
	label    string
	code     uint16
	k        uint32
	jt, jf   string // labels; "" is the next instruction
	jaTarget string // BPF_JA's
}

// assemble resolves the labels of prog into a filter.
func assemble(prog []bpfIns) ([]unix.SockFilter, error) {
	at := map[string]int{}
	for i, in := range prog {
		if in.label != "" {
			at[in.label] = i
		}
	}
	off := func(i int, l string) (int, error) {
		if l == "" {
			return 0, nil
		}
		t, ok := at[l]
		if !ok || t <= i {
			return 0, fmt.Errorf("bpf: no label %q after %d", l, i)
		}
		return t - i - 1, nil
	}
	out := make([]unix.SockFilter, len(prog))
	for i, in := range prog {
		out[i] = unix.SockFilter{Code: in.code, K: in.k}
		if in.code == bpfJa {
			o, err := off(i, in.jaTarget)
			if err != nil {
				return nil, err
			}
			out[i].K = uint32(o)
			continue
		}
		jt, err := off(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := off(i, in.jf)
		if err != nil {
			return nil, err
		}
		if jt > 255 || jf > 255 {
			return nil, errors.New("bpf: jump too far")
		}
		out[i].Jt, out[i].Jf = uint8(jt), uint8(jf)
	}
	return out, nil
}

// connectFilter is the program: connect, sendmsg, sendmmsg and a sendto
// with an address go to the listener; io_uring, a listener of the
// process's own and the 32-bit tables' calls that reach an address are
// refused; the rest runs.
func connectFilter(t syscallTable) ([]unix.SockFilter, error) {
	// Offsets in seccomp_data: the low words, little-endian; sendto's
	// address is its fifth argument, both words looked at.
	const nr, arch, arg0, arg1, arg4 = 0, 4, 16, 24, 48
	x32 := uint32(0xffffffff)
	if t.x32 {
		x32 = x32SyscallBit
	}
	prog := []bpfIns{
		{code: bpfLdW, k: arch},
		{code: bpfJeqK, k: t.arch, jt: "native"},
		{code: bpfJeqK, k: t.compatArch, jt: "compat", jf: "enosys"},
		{label: "native", code: bpfLdW, k: nr},
		{code: bpfJgeK, k: x32, jt: "eperm"},
		{code: bpfJeqK, k: t.connect, jt: "notify"},
		{code: bpfJeqK, k: t.sendmsg, jt: "notify"},
		{code: bpfJeqK, k: t.sendmmsg, jt: "notify"},
		{code: bpfJeqK, k: t.sendto, jt: "sendto"},
		{code: bpfJeqK, k: ioUringSetup, jt: "enosys"},
		{code: bpfJeqK, k: t.seccomp, jf: "allow"},
		{code: bpfLdW, k: arg0},
		{code: bpfJeqK, k: seccompSetModeFilter, jf: "allow"},
		{code: bpfLdW, k: arg1},
		{code: bpfJsetK, k: unix.SECCOMP_FILTER_FLAG_NEW_LISTENER, jt: "eperm", jf: "allow"},
		{label: "sendto", code: bpfLdW, k: arg4},
		{code: bpfJeqK, k: 0, jf: "notify"},
		{code: bpfLdW, k: arg4 + 4},
		{code: bpfJeqK, k: 0, jt: "allow", jf: "notify"},
		{label: "compat", code: bpfLdW, k: nr},
	}
	for _, c := range t.compat {
		prog = append(prog, bpfIns{code: bpfJeqK, k: c, jt: "eperm"})
	}
	return assemble(append(prog,
		bpfIns{code: bpfJeqK, k: ioUringSetup, jt: "enosys"},
		bpfIns{code: bpfJa, jaTarget: "allow"},
		bpfIns{label: "allow", code: bpfRetK, k: seccompRetAllow},
		bpfIns{label: "notify", code: bpfRetK, k: seccompRetUserNotify},
		bpfIns{label: "enosys", code: bpfRetK, k: seccompRetErrno | uint32(unix.ENOSYS)},
		bpfIns{label: "eperm", code: bpfRetK, k: seccompRetErrno | uint32(unix.EPERM)},
	))
}

// installConnectFilter puts this thread under connectFilter and returns
// the listener of its notifications.
func installConnectFilter() (int, error) {
	t, ok := nativeTable()
	if !ok {
		return -1, errors.New("the connect guard is not built for " + runtime.GOARCH)
	}
	prog, err := connectFilter(t)
	if err != nil {
		return -1, err
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return -1, fmt.Errorf("no_new_privs: %w", err)
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	flags := uintptr(unix.SECCOMP_FILTER_FLAG_NEW_LISTENER | unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV)
	for {
		fd, _, errno := unix.Syscall(unix.SYS_SECCOMP, seccompSetModeFilter, flags, uintptr(unsafe.Pointer(&fprog)))
		if errno == unix.EINVAL && flags&unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV != 0 {
			// Before Linux 5.19: a signal may interrupt a connect the init
			// is making; the program sees EINTR and tries again.
			flags &^= unix.SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
			continue
		}
		if errno != 0 {
			return -1, fmt.Errorf("seccomp user notification: %w (Linux 5.0+)", errno)
		}
		return int(fd), nil
	}
}

// seccompNotif and seccompResp are struct seccomp_notif and
// seccomp_notif_resp.
type seccompNotif struct {
	ID    uint64
	Pid   uint32
	Flags uint32
	Nr    int32
	Arch  uint32
	IP    uint64
	Args  [6]uint64
}

type seccompResp struct {
	ID    uint64
	Val   int64
	Error int32
	Flags uint32
}

// connectGate answers the connects of a sandbox's processes.
type connectGate struct {
	listener int
	control  string       // the console's socket, as the agent's environment names it
	tell     func(string) // a line for the console
	mu       sync.Mutex
	told     map[string]bool // the refused paths, told once each
}

// startGuarded starts path (argv args) under the connect guard with attr,
// and returns its pid and the gate of its connects (nil with why when the
// kernel has no user notifications: the program runs unguarded).
func startGuarded(path string, args []string, attr *syscall.ProcAttr) (pid int, gate *connectGate, why string, err error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_SEQPACKET|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return 0, nil, "", fmt.Errorf("socketpair: %w", err)
	}
	ours, theirs := fds[0], fds[1]
	defer unix.Close(ours)
	a := *attr
	a.Files = append(append([]uintptr(nil), attr.Files...), uintptr(theirs))
	if len(a.Files) != guardFD+1 {
		unix.Close(theirs)
		return 0, nil, "", fmt.Errorf("connect guard: %d descriptors before its own, want %d", len(attr.Files), guardFD)
	}
	pid, err = syscall.ForkExec("/proc/self/exe", append([]string{guardArg0, path}, args...), &a)
	unix.Close(theirs)
	if err != nil {
		return 0, nil, "", err
	}
	_ = unix.SetsockoptTimeval(ours, unix.SOL_SOCKET, unix.SO_RCVTIMEO, &unix.Timeval{Sec: int64(sandboxStartTimeout / time.Second)})
	buf := make([]byte, 4096)
	for {
		n, _, _, _, rerr := unix.Recvmsg(ours, buf, nil, 0)
		if rerr == unix.EINTR {
			continue
		}
		if rerr != nil || n == 0 {
			// Closed on exec: the program runs.
			if rerr != nil && gate == nil && why == "" {
				why = "the connect guard said nothing (" + rerr.Error() + ")"
			}
			return pid, gate, why, nil
		}
		word, rest, _ := strings.Cut(string(buf[:n]), " ")
		switch word {
		case "guarded":
			if fd, err := takeFD(pid, rest); err == nil {
				gate = &connectGate{listener: fd, told: map[string]bool{}}
			} else {
				why = "the connect guard's listener could not be taken (" + err.Error() + ")"
			}
			_, _ = unix.Write(ours, []byte("taken"))
		case "unguarded":
			why = rest
		case "exec-error":
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, 0, nil)
			if gate != nil {
				unix.Close(gate.listener)
			}
			return 0, nil, "", errors.New(rest)
		}
	}
}

// takeFD takes the descriptor numbered fd (decimal) of process pid.
func takeFD(pid int, fd string) (int, error) {
	n, err := strconv.Atoi(fd)
	if err != nil {
		return -1, err
	}
	pidfd, err := unix.PidfdOpen(pid, 0)
	if err != nil {
		return -1, err
	}
	defer unix.Close(pidfd)
	return unix.PidfdGetfd(pidfd, n, 0) // close-on-exec, as pidfd_getfd makes it
}

// start serves the gate (nil: none) with the console's socket and where
// refusals are told.
func (g *connectGate) start(control string, tell func(string)) {
	if g == nil {
		return
	}
	g.control, g.tell = control, tell
	go g.serve()
}

// unguardedNote is what the console is told when the guard could not be
// put in place (why; "" when it was).
func unguardedNote(why string) string {
	if why == "" {
		return ""
	}
	return "connections to your sockets are not checked (" + why + "): a server of yours that starts while the agent runs is covered within a second, not refused"
}

// joinNotes joins the non-empty notes with "; ".
func joinNotes(notes ...string) string {
	var out []string
	for _, n := range notes {
		if n != "" {
			out = append(out, n)
		}
	}
	return strings.Join(out, "; ")
}

// serve answers the notifications until the listener fails (no process
// of the sandbox is left to make one).
func (g *connectGate) serve() {
	for {
		var n seccompNotif
		_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), uintptr(unix.SECCOMP_IOCTL_NOTIF_RECV), uintptr(unsafe.Pointer(&n)))
		switch errno {
		case 0:
			go g.answer(n)
		case unix.EINTR, unix.ENOENT: // interrupted, or the caller died before it was read
		default:
			return
		}
	}
}

// answer makes n's call and gives its result to the caller.
func (g *connectGate) answer(n seccompNotif) {
	resp := seccompResp{ID: n.ID}
	var val int64
	errno := unix.ESRCH
	if c, e := g.caller(n); e != 0 {
		errno = e
	} else {
		switch t, _ := nativeTable(); uint32(n.Nr) {
		case t.connect:
			errno = g.connect(c)
		case t.sendto:
			val, errno = g.sendto(c)
		case t.sendmsg:
			val, errno = g.sendmsg(c)
		case t.sendmmsg:
			val, errno = g.sendmmsg(c)
		default:
			errno = unix.ENOSYS
		}
		c.close()
	}
	if errno != 0 {
		resp.Error = -int32(errno)
	} else {
		resp.Val = val
	}
	_, _, _ = unix.Syscall(unix.SYS_IOCTL, uintptr(g.listener), uintptr(unix.SECCOMP_IOCTL_NOTIF_SEND), uintptr(unsafe.Pointer(&resp)))
}

// maxSockaddr is sizeof(struct sockaddr_storage): a longer address is
// refused by the kernel too.
const maxSockaddr = 128

// caller is the thread that made a notified call, as the init reaches it.
type caller struct {
	g     *connectGate
	n     seccompNotif
	tid   int // n.Pid: the calling thread's id
	tgid  int // its process's id
	pidfd int // its process's (pidfd_getfd takes a process's)
}

// caller opens n's process.
func (g *connectGate) caller(n seccompNotif) (*caller, syscall.Errno) {
	tgid := threadGroup(int(n.Pid))
	pidfd, err := unix.PidfdOpen(tgid, 0)
	if err != nil {
		return nil, unix.ESRCH
	}
	return &caller{g: g, n: n, tid: int(n.Pid), tgid: tgid, pidfd: pidfd}, 0
}

func (c *caller) close() { unix.Close(c.pidfd) }

// read copies n bytes at addr from the caller's memory.
func (c *caller) read(addr uintptr, n int) ([]byte, syscall.Errno) {
	buf := make([]byte, n)
	if n == 0 {
		return buf, 0
	}
	got, err := unix.ProcessVMReadv(c.tid, []unix.Iovec{{Base: &buf[0], Len: uint64(n)}}, []unix.RemoteIovec{{Base: addr, Len: n}}, 0)
	if err != nil || got != n {
		return nil, unix.EFAULT
	}
	return buf, 0
}

// write copies b to addr in the caller's memory.
func (c *caller) write(addr uintptr, b []byte) syscall.Errno {
	got, err := unix.ProcessVMWritev(c.tid, []unix.Iovec{{Base: &b[0], Len: uint64(len(b))}}, []unix.RemoteIovec{{Base: addr, Len: len(b)}}, 0)
	if err != nil || got != len(b) {
		return unix.EFAULT
	}
	return 0
}

// valid says whether the call still waits for its answer: what was read
// was read from the very thread that made it (its id was not reused).
func (c *caller) valid() syscall.Errno {
	id := c.n.ID
	if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(c.g.listener), uintptr(unix.SECCOMP_IOCTL_NOTIF_ID_VALID), uintptr(unsafe.Pointer(&id))); errno != 0 {
		return unix.ESRCH
	}
	return 0
}

// socket takes the caller's descriptor fd: the very open socket.
func (c *caller) socket(fd int) (int, syscall.Errno) {
	sock, err := unix.PidfdGetfd(c.pidfd, fd, 0)
	if errors.Is(err, unix.EBADF) {
		return -1, unix.EBADF
	}
	if err != nil {
		return -1, unix.EPERM
	}
	return sock, 0
}

// pipe is errno as the caller's send gives it: EPIPE raises SIGPIPE in
// the caller's thread, as the kernel's send does, unless it asked not
// (MSG_NOSIGNAL); the init's own sends never raise it.
func (c *caller) pipe(errno syscall.Errno, flags int) syscall.Errno {
	if errno == unix.EPIPE && flags&unix.MSG_NOSIGNAL == 0 {
		_ = unix.Tgkill(c.tgid, c.tid, unix.SIGPIPE)
	}
	return errno
}

// errRestartSys is the kernel's ERESTARTSYS: the answer to a call a
// signal interrupted, which the kernel turns into EINTR, or into the call
// made again after the handler (SA_RESTART), as for its own blocking calls.
const errRestartSys = syscall.Errno(512)

// interrupted is what a call the init waits on for the caller returns
// when a signal it catches waits for it (0 when none): the notification's
// own wait cannot be interrupted, and the handler must run (red team 17a,
// finding 3). ERESTARTSYS only when the signal is sure to be delivered
// to this thread (a bare 512 reached a program that the kernel did not
// restart), EINTR otherwise.
func (c *caller) interrupted() syscall.Errno {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.tid) + "/status")
	if err != nil {
		return 0
	}
	var pnd, shd, blk, cgt, threads uint64
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(v)
		if k == "Threads" {
			threads, _ = strconv.ParseUint(v, 10, 64)
			continue
		}
		x, err := strconv.ParseUint(v, 16, 64)
		if err != nil {
			continue
		}
		switch k {
		case "SigPnd":
			pnd = x
		case "ShdPnd":
			shd = x
		case "SigBlk":
			blk = x
		case "SigCgt":
			cgt = x
		}
	}
	switch {
	case pnd&^blk&cgt != 0, shd&^blk&cgt != 0 && threads == 1:
		return errRestartSys
	case shd&^blk&cgt != 0:
		return unix.EINTR // another thread may take it
	}
	return 0
}

// waiter waits, for a call the caller made blocking, until its socket is
// ready again, for a while at a time, giving up when the caller catches
// a signal (interrupted), is gone (ESRCH) or its timeout (SO_SNDTIMEO)
// passes (EAGAIN).
type waiter struct {
	c        *caller
	sock     int
	events   int16
	deadline time.Time
	backoff  time.Duration
}

// waiter makes sock's waiter, with the timeout of its option timeo.
func (c *caller) waiter(sock int, events int16, timeo int) *waiter {
	w := &waiter{c: c, sock: sock, events: events, backoff: time.Millisecond}
	if tv, err := unix.GetsockoptTimeval(sock, unix.SOL_SOCKET, timeo); err == nil && (tv.Sec != 0 || tv.Usec != 0) {
		w.deadline = time.Now().Add(time.Duration(tv.Sec)*time.Second + time.Duration(tv.Usec)*time.Microsecond)
	}
	return w
}

// waitSlice is how long a wait lasts before the caller is looked at again.
const waitSlice = 50 * time.Millisecond

// wait returns 0 once the socket may be ready: the call is made again.
// A socket that says ready at once (an unconnected one: the kernel has
// nothing to wait on) is tried again after a growing pause.
func (w *waiter) wait() syscall.Errno {
	for {
		if errno := w.c.interrupted(); errno != 0 {
			return errno
		}
		if errno := w.c.valid(); errno != 0 {
			return errno
		}
		slice := waitSlice
		if !w.deadline.IsZero() {
			left := time.Until(w.deadline)
			if left <= 0 {
				return unix.EAGAIN
			}
			slice = min(slice, left)
		}
		start := time.Now()
		fds := []unix.PollFd{{Fd: int32(w.sock), Events: w.events}}
		n, err := unix.Poll(fds, int(slice/time.Millisecond)+1)
		if err == unix.EINTR || n == 0 {
			continue
		}
		if time.Since(start) < time.Millisecond {
			time.Sleep(w.backoff)
			w.backoff = min(2*w.backoff, waitSlice)
		}
		return 0
	}
}

// target is where an address a caller gave leads, checked: the address
// the init uses in its place, and the open file it names (closed after).
type target struct {
	addr     []byte
	file     int    // -1 for none
	abstract []byte // an abstract name (abstractguard_linux.go makes the call)
}

func (t target) close() {
	if t.file >= 0 {
		unix.Close(t.file)
	}
}

// target checks the address addr a caller's socket of type typ is to
// reach (verb: "connect to", "send to"). A Unix socket path is opened as
// the caller reaches it (its root or working folder) and used through
// that open file (/proc/self/fd/N), so what is checked is what is
// reached; an abstract name is looked up (sock_diag); either is refused
// (EACCES, told to the console) unless allowed. Any other address is
// used as given.
func (g *connectGate) target(c *caller, typ int, addr []byte, verb string) (target, syscall.Errno) {
	t := target{addr: addr, file: -1}
	if len(addr) <= 2 || binary.LittleEndian.Uint16(addr) != unix.AF_UNIX {
		return t, 0
	}
	if addr[2] == 0 {
		name := addr[2:]
		inode, inside, err := abstractServer(name, typ)
		switch {
		case err != nil:
			g.refuse(c, verb, abstractName(name), "its server could not be looked up ("+err.Error()+")")
			return t, unix.EACCES
		case inode == 0:
			return t, unix.ECONNREFUSED
		case !inside:
			g.refuse(c, verb, abstractName(name), "a server outside the sandbox listens on it")
			return t, unix.EACCES
		}
		t.abstract = name
		return t, 0
	}
	path := string(addr[2:])
	if i := strings.IndexByte(path, 0); i >= 0 {
		path = path[:i]
	}
	base := "/proc/" + strconv.Itoa(c.tid) + "/cwd"
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_NO_MAGICLINKS}
	if strings.HasPrefix(path, "/") {
		base = "/proc/" + strconv.Itoa(c.tid) + "/root"
		how.Resolve |= unix.RESOLVE_IN_ROOT
	}
	dir, err := unix.Open(base, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return t, unix.ESRCH
	}
	file, err := unix.Openat2(dir, path, &how)
	unix.Close(dir)
	if err != nil {
		var errno syscall.Errno
		if errors.As(err, &errno) {
			return t, errno
		}
		return t, unix.ENOENT
	}
	var st unix.Stat_t
	if err := unix.Fstat(file, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFSOCK {
		unix.Close(file)
		return t, unix.ECONNREFUSED
	}
	if ok, why := g.allowed(st); !ok {
		unix.Close(file)
		g.refuse(c, verb, path, why)
		return t, unix.EACCES
	}
	t.file = file
	t.addr = append(binary.LittleEndian.AppendUint16(nil, unix.AF_UNIX), "/proc/self/fd/"+strconv.Itoa(file)+"\x00"...)
	return t, 0
}

// abstractServer is the inode of the server bound to the abstract name
// for sockets of type typ (0 for none), and whether a process of the
// sandbox holds it. The agent's own Landlock scope refused those made
// outside it; the init, which connects for it, is outside that scope
// (red team 17a, finding 1: the human's abstract server reached).
func abstractServer(name []byte, typ int) (uint32, bool, error) {
	socks, err := abstractSockets(name)
	if err != nil {
		return 0, false, err
	}
	for _, s := range socks {
		if int(s.typ) == typ && (typ == unix.SOCK_DGRAM || s.state == tcpListen) {
			return s.inode, listensInside(uint64(s.inode)), nil
		}
	}
	return 0, false, nil
}

// abstractName is an abstract name as ss and tools print it: @ for its
// leading 0.
func abstractName(name []byte) string { return "@" + string(name[1:]) }

// connect is the caller's connect(fd, addr, addrlen), made here.
func (g *connectGate) connect(c *caller) syscall.Errno {
	fd, addrlen := int(int32(c.n.Args[0])), int(int32(c.n.Args[2]))
	if addrlen < 0 || addrlen > maxSockaddr {
		return unix.EINVAL
	}
	addr, errno := c.read(uintptr(c.n.Args[1]), addrlen)
	if errno != 0 {
		return errno
	}
	if errno := c.valid(); errno != 0 {
		return errno
	}
	sock, errno := c.socket(fd)
	if errno != 0 {
		return errno
	}
	defer unix.Close(sock)
	typ, _ := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_TYPE)
	t, errno := g.target(c, typ, addr, "connect to")
	if errno != 0 {
		return errno
	}
	defer t.close()
	if t.abstract != nil {
		return g.connectAbstract(c, fd, sock, typ, t)
	}
	return c.connectOn(sock, t.addr)
}

// connectOn connects sock to addr. A blocking connect is made without
// blocking, and waited for here: the caller's caught signals interrupt
// it (the connection goes on), as the kernel's own connect.
func (c *caller) connectOn(sock int, addr []byte) syscall.Errno {
	call := func() syscall.Errno { return rawConnect(sock, addr) }
	fl, err := unix.FcntlInt(uintptr(sock), unix.F_GETFL, 0)
	if err != nil || fl&unix.O_NONBLOCK != 0 {
		return call()
	}
	if _, err := unix.FcntlInt(uintptr(sock), unix.F_SETFL, fl|unix.O_NONBLOCK); err != nil {
		return call()
	}
	defer func() { _, _ = unix.FcntlInt(uintptr(sock), unix.F_SETFL, fl) }()
	w := c.waiter(sock, unix.POLLOUT, unix.SO_SNDTIMEO)
	for errno := call(); ; {
		switch errno {
		case unix.EINPROGRESS, unix.EALREADY: // a network connection under way
			if e := w.wait(); e != 0 {
				if e == unix.EAGAIN {
					return unix.EINPROGRESS // its timeout, as the kernel says it
				}
				return e
			}
			var ready [1]unix.PollFd
			ready[0] = unix.PollFd{Fd: int32(sock), Events: unix.POLLOUT}
			if n, _ := unix.Poll(ready[:], 0); n == 0 {
				continue // not done yet
			}
			soerr, err := unix.GetsockoptInt(sock, unix.SOL_SOCKET, unix.SO_ERROR)
			if err != nil {
				return unix.EINVAL
			}
			return syscall.Errno(soerr)
		case unix.EAGAIN: // a Unix server's backlog is full
			if e := w.wait(); e != 0 {
				return e
			}
			errno = call()
		default:
			return errno
		}
	}
}

// threadGroup is the process (thread group) id of thread tid, tid itself
// when it cannot be read (pidfd_open then fails for a thread that is not
// the leader).
func threadGroup(tid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/status")
	if err != nil {
		return tid
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Tgid:"); ok {
			if pid, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
				return pid
			}
		}
	}
	return tid
}

// allowed says whether a process of the sandbox may connect to the socket
// file st: the console's socket, one a process of the sandbox listens on,
// or one of another user's (a system service, as any process of yours
// reaches it); and why not.
func (g *connectGate) allowed(st unix.Stat_t) (bool, string) {
	if g.control != "" {
		var c unix.Stat_t
		if unix.Stat(g.control, &c) == nil && c.Dev == st.Dev && c.Ino == st.Ino {
			return true, ""
		}
	}
	socks, err := boundSockets(st.Dev, st.Ino)
	if err != nil {
		return false, "its server could not be looked up (" + err.Error() + ")"
	}
	if len(socks) == 0 {
		return false, "no server listens on it"
	}
	uid := uint32(os.Getuid())
	for _, s := range socks {
		if listensInside(uint64(s.inode)) {
			return true, ""
		}
	}
	for _, s := range socks {
		if s.hasUID && s.uid != uid {
			return true, ""
		}
	}
	return false, "a server of yours outside the sandbox listens on it"
}

// refuse tells the console, once per path, of a connect or send
// refused: what, where, why, and by which process (its command line and
// those it descends from, as the sandbox numbers them).
func (g *connectGate) refuse(c *caller, verb, path, why string) {
	g.mu.Lock()
	key := verb + " " + path
	told := g.told[key]
	if !told && len(g.told) < 1024 {
		g.told[key] = true
	}
	g.mu.Unlock()
	if told || g.tell == nil {
		return
	}
	word := "connect"
	if verb != "connect to" {
		word = "send"
	}
	g.tell(word + "\t" + oneField(path) + "\t" + oneField(why+"; by "+processChain(c.tgid)))
}

// oneField is s with what would end a field of a tell line (a tab, a
// line break, any control) written as an escape.
func oneField(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f }) < 0 {
		return s
	}
	q := strconv.QuoteToGraphic(s)
	return q[1 : len(q)-1]
}

// processChain describes pid and the processes it descends from, up to
// the sandbox's init: "process 12 (python3 x.py), of 7 (sh -c …), of 1 (…)".
func processChain(pid int) string {
	var parts []string
	for i := 0; pid > 0 && i < 8; i++ {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		text := strings.TrimSpace(strings.ReplaceAll(string(cmd), "\x00", " "))
		if r := []rune(text); len(r) > 120 {
			text = string(r[:120]) + "…"
		}
		if text == "" {
			text = procComm(pid)
		}
		parts = append(parts, strconv.Itoa(pid)+" ("+text+")")
		pid = parentOf(pid)
	}
	if len(parts) == 0 {
		return "a process that is gone"
	}
	return "process " + strings.Join(parts, ", of ")
}

// parentOf is pid's parent (0 when unknown or none).
func parentOf(pid int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 2 {
		return 0
	}
	ppid, _ := strconv.Atoi(f[1])
	return ppid
}
