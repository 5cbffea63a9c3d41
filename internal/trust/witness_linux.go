//go:build linux

package trust

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Witness identifies the processes that connect to the console.
type Witness struct {
	console int                  // the console's own pid
	userNS  string               // the console's user namespace, "" when unreadable
	agentOf func(pid int) string // the running agent whose process (and session) is pid, or ""
}

// NewWitness returns a witness for this process, the console. agentOf names
// the running agent whose process is pid (each agent leads its own
// session, so it also names the agent of a session id).
func NewWitness(agentOf func(pid int) string) *Witness {
	ns, _ := os.Readlink("/proc/self/ns/user")
	return &Witness{console: os.Getpid(), userNS: ns, agentOf: agentOf}
}

// Identify tells who is on the other end of c, from the kernel: the peer's
// pid (SO_PEERCRED), a pidfd pinning it (SO_PEERPIDFD, Linux 6.5+) so that
// its pid cannot be reused while it is looked at, its user namespace and
// its ancestry.
func (w *Witness) Identify(c *net.UnixConn) Caller {
	pid, pidfd := peer(c)
	if pidfd >= 0 {
		defer unix.Close(pidfd)
	}
	alive := func() bool {
		if pidfd < 0 {
			// No pidfd (an older kernel): the process must still exist;
			// its start time is checked against its children's in walk.
			return unix.Kill(pid, 0) == nil
		}
		return unix.PidfdSendSignal(pidfd, 0, nil, 0) == nil
	}
	return w.identify(pid, alive)
}

// IdentifyWriter is Identify for a connection whose request was written
// by the process writer (its pid from SCM_CREDENTIALS, the kernel's; 0
// when not known): an agent's connection is made by its sandbox's init
// (agents/connectguard_linux.go), its request written by the agent's own
// process. The caller is contained when either is, and is described by
// the writer, the process that asked.
func (w *Witness) IdentifyWriter(c *net.UnixConn, writer int) Caller {
	conn := w.Identify(c)
	if writer <= 0 || writer == conn.Pid {
		return conn
	}
	pidfd, err := unix.PidfdOpen(writer, 0)
	if err == nil {
		defer unix.Close(pidfd)
	}
	who := w.identify(writer, func() bool { return err == nil && unix.PidfdSendSignal(pidfd, 0, nil, 0) == nil })
	if who.Agent == "" {
		who.Agent = conn.Agent
	}
	if conn.Contained && !who.Contained {
		who.Contained, who.Why = true, "it wrote on a connection made by a process that is not the human's ("+conn.Why+")"
	}
	return who
}

// peer reads the connecting process's pid and, where the kernel has it, a
// pidfd for it (-1 otherwise).
func peer(c *net.UnixConn) (pid, pidfd int) {
	pidfd = -1
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, -1
	}
	_ = raw.Control(func(fd uintptr) {
		if cred, err := unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED); err == nil {
			pid = int(cred.Pid)
		}
		if n, err := unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_PEERPIDFD); err == nil {
			pidfd = n
		}
	})
	return pid, pidfd
}

// identify classifies pid; alive reports whether the very process that
// connected still runs (then its pid has not been reused).
func (w *Witness) identify(pid int, alive func() bool) Caller {
	c := Caller{Pid: pid}
	contained := func(why string) Caller {
		c.Contained, c.Why = true, why
		return c
	}
	switch {
	case pid <= 0:
		return contained("the kernel gave no process id for it (it runs in another PID namespace)")
	case pid == w.console:
		c.Why = "the console itself"
		return c
	}
	if w.userNS != "" {
		ns, err := os.Readlink(fmt.Sprintf("/proc/%d/ns/user", pid))
		if err != nil {
			return contained(fmt.Sprintf("its user namespace cannot be read (%v)", errors.Unwrap(err)))
		}
		if ns != w.userNS {
			// Read the ancestry anyway, for the agent's name and the audit.
			chain, _, _ := w.stableWalk(pid)
			c.Chain, c.Agent = procs(chain), w.agentSoon(chain)
			return contained("it runs in another user namespace than the console (" + ns + "): agents run in their own, and no process can leave one")
		}
	}
	chain, toConsole, err := w.stableWalk(pid)
	c.Chain, c.Agent = procs(chain), w.agentIn(chain)
	if c.Agent == "" && toConsole {
		c.Agent = w.agentSoon(chain)
	}
	switch {
	case err != nil:
		return contained("its ancestry could not be read for sure (" + err.Error() + ")")
	case !alive():
		return contained("it exited before it could be identified")
	case toConsole:
		return contained("it descends from the console (pid " + strconv.Itoa(w.console) + "), which started every agent and is the subreaper of whatever they detach")
	case w.otherConsole(chain) > 0:
		return contained("it descends from another teamlead process (pid " + strconv.Itoa(w.otherConsole(chain)) + "), such as another console's agent")
	case c.Agent != "":
		// In an agent's session without descending from the console: the
		// console could not become a subreaper, and the process was
		// reparented to init.
		return contained("it is in agent " + c.Agent + "'s session")
	}
	c.Why = "it does not descend from the console"
	return c
}

// otherConsole is the pid of an ancestor of the caller (not the caller
// itself) that runs this very teamlead executable, or 0: an agent of
// another console of this user, when agents run without user namespaces.
func (w *Witness) otherConsole(chain []stat) int {
	self, err := os.Stat("/proc/self/exe")
	if err != nil || len(chain) < 2 {
		return 0
	}
	for _, s := range chain[1:] {
		if st, err := os.Stat("/proc/" + strconv.Itoa(s.pid) + "/exe"); err == nil && os.SameFile(st, self) {
			return s.pid
		}
	}
	return 0
}

// agentSoon is agentIn, waiting up to agentSoonWait for an agent that is
// starting: a program can call the console (a CLI's MCP server, a hook)
// before the console has recorded its agent's process as running.
func (w *Witness) agentSoon(chain []stat) string {
	deadline := time.Now().Add(agentSoonWait)
	for {
		if a := w.agentIn(chain); a != "" || time.Now().After(deadline) {
			return a
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// agentSoonWait bounds agentSoon's wait.
const agentSoonWait = 2 * time.Second

// agentIn names the agent of the first process in chain that is an agent's
// own process or in its session.
func (w *Witness) agentIn(chain []stat) string {
	if w.agentOf == nil {
		return ""
	}
	for _, s := range chain {
		if s.pid == w.console {
			break
		}
		if a := w.agentOf(s.pid); a != "" {
			return a
		}
		if a := w.agentOf(s.sid); a != "" {
			return a
		}
	}
	return ""
}

// errUnstable means the ancestry kept changing while it was read.
var errUnstable = errors.New("it changed while it was read")

// stableWalk reads pid's ancestry until two reads agree (a parent that
// exits meanwhile reparents its children, and its pid may be reused).
func (w *Witness) stableWalk(pid int) ([]stat, bool, error) {
	var last []stat
	for try := 0; try < 5; try++ {
		chain, toConsole, err := w.walk(pid)
		if err != nil {
			last = chain
			continue
		}
		again, toConsole2, err2 := w.walk(pid)
		if err2 == nil && toConsole == toConsole2 && samePids(chain, again) {
			return chain, toConsole, nil
		}
		last = chain
	}
	return last, false, errUnstable
}

// walk reads pid's ancestry from /proc up to the console (true) or a
// process with no parent (init, a kernel thread; false). A parent younger
// than its child means its pid was reused after the real parent exited:
// an error, for the caller to read again.
func (w *Witness) walk(pid int) ([]stat, bool, error) {
	s, err := readStat(pid)
	if err != nil {
		return nil, false, err
	}
	var chain []stat
	for i := 0; i < 1<<16; i++ {
		chain = append(chain, s)
		if s.pid == w.console {
			return chain, true, nil
		}
		if s.ppid <= 0 {
			return chain, false, nil
		}
		p, err := readStat(s.ppid)
		if err != nil {
			return chain, false, fmt.Errorf("parent %d of %d: %w", s.ppid, s.pid, err)
		}
		if p.start > s.start {
			return chain, false, fmt.Errorf("parent %d is younger than its child %d: %w", p.pid, s.pid, errUnstable)
		}
		s = p
	}
	return chain, false, errUnstable
}

func samePids(a, b []stat) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].pid != b[i].pid || a[i].start != b[i].start {
			return false
		}
	}
	return true
}

// stat is what the ancestry needs of /proc/<pid>/stat.
type stat struct {
	pid, ppid, sid int
	start          uint64 // clock ticks after boot
	comm           string
}

// readStat parses /proc/<pid>/stat: "pid (comm) state ppid pgrp session …
// starttime (field 22)"; comm may hold spaces and parentheses, so fields
// are counted from the last ')'.
func readStat(pid int) (stat, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return stat{}, err
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return stat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := bytes.Fields(b[end+1:])
	if len(f) < 20 {
		return stat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	s := stat{pid: pid, comm: string(b[open+1 : end])}
	if s.ppid, err = strconv.Atoi(string(f[1])); err == nil {
		if s.sid, err = strconv.Atoi(string(f[3])); err == nil {
			s.start, err = strconv.ParseUint(string(f[19]), 10, 64)
		}
	}
	if err != nil {
		return stat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return s, nil
}

// procs turns a chain into Procs with their command lines.
func procs(chain []stat) []Proc {
	out := make([]Proc, 0, len(chain))
	for _, s := range chain {
		out = append(out, Proc{Pid: s.pid, Comm: s.comm, Cmdline: cmdline(s.pid)})
	}
	return out
}

// cmdline is pid's command line with its arguments joined by spaces, cut
// at 300 bytes.
func cmdline(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return ""
	}
	s := strings.TrimRight(strings.ReplaceAll(string(b), "\x00", " "), " ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
