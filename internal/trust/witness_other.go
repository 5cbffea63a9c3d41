//go:build !linux

package trust

import (
	"net"
	"os"

	"golang.org/x/sys/unix"
)

// Witness identifies the processes that connect to the console. Outside
// Linux there is no /proc and no subreaper: a process is told by its
// session only, so one an agent detached with setsid is not recognised
// (docs/architecture.md says so).
type Witness struct {
	console int
	agentOf func(pid int) string
}

// NewWitness returns a witness for this process, the console.
func NewWitness(agentOf func(pid int) string) *Witness {
	return &Witness{console: os.Getpid(), agentOf: agentOf}
}

// Identify tells who is on the other end of c, by its session only.
func (w *Witness) Identify(c *net.UnixConn) Caller {
	pid := peerPid(c)
	if pid <= 0 {
		return Caller{Contained: true, Why: "the kernel gave no process id for it"}
	}
	if sid, err := unix.Getsid(pid); err == nil && w.agentOf != nil {
		if a := w.agentOf(sid); a != "" {
			return Caller{Pid: pid, Agent: a, Contained: true, Why: "it is in agent " + a + "'s session"}
		}
	}
	return Caller{Pid: pid, Why: "it is in no agent's session (only sessions are checked on this system)"}
}

// IdentifyWriter is Identify: outside Linux the writer is not known.
func (w *Witness) IdentifyWriter(c *net.UnixConn, _ int) Caller { return w.Identify(c) }

// VerifyServer checks nothing outside Linux: there is no /proc to read
// the server's ancestry from.
func VerifyServer(*net.UnixConn) error { return nil }
