// Package trust tells, from what the kernel says about a process, whether it
// may act as the human.
//
// Agents run as the same user as the person, so nothing an agent can read
// (an environment variable, a file, a token) can mark the human. What an
// agent cannot change is where its processes sit in the kernel's process
// tree and which user namespace they live in: the console is the child
// subreaper of everything it starts (a process an agent detaches is
// reparented to the console, not to init), and agents run in user
// namespaces of their own where the kernel allows it (a process can never
// leave its user namespace for its parent's). A caller that descends from
// the console, lives in another user namespace, or cannot be told for sure
// is Contained: it is never the human. See docs/architecture.md, "Trust".
package trust

import (
	"fmt"
	"strings"
)

// Proc is one process of a caller's ancestry, for the audit.
type Proc struct {
	Pid     int    `json:"pid"`
	Comm    string `json:"comm"`
	Cmdline string `json:"cmdline,omitempty"`
}

// Caller is who is on the other end of a control connection.
type Caller struct {
	// Pid is the connecting process (SO_PEERCRED); 0 when the kernel gave none.
	Pid int
	// Agent is the agent the process belongs to; "" for the human, or for
	// an agent's process whose agent can no longer be told (it left the
	// agent's session and its agent's process is gone).
	Agent string
	// Contained means the process is an agent's, or may be: it descends
	// from the console, lives in another user namespace than the console,
	// or could not be identified for sure. A contained caller is never the
	// human.
	Contained bool
	// Why says how it was told, in words for a refusal and the audit.
	Why string
	// Chain is the process and its ancestors, up to the console or init.
	Chain []Proc
}

// Human reports whether the caller may act as the human.
func (c Caller) Human() bool { return !c.Contained }

// String describes the caller for a refusal: its pid and command line, the
// agent it belongs to, and why.
func (c Caller) String() string {
	var b strings.Builder
	if c.Pid > 0 {
		fmt.Fprintf(&b, "pid %d", c.Pid)
	} else {
		b.WriteString("a process") // on a node: its pid is the node's to know
	}
	if len(c.Chain) > 0 {
		cmd := c.Chain[0].Cmdline
		if cmd == "" {
			cmd = c.Chain[0].Comm
		}
		fmt.Fprintf(&b, " (%s)", cmd)
	}
	if c.Agent != "" {
		fmt.Fprintf(&b, " of agent %s", c.Agent)
	}
	if c.Why != "" {
		b.WriteString(": " + c.Why)
	}
	return b.String()
}

// ChainString is the ancestry as "pid comm < pid comm < …", oldest last.
func (c Caller) ChainString() string {
	parts := make([]string, 0, len(c.Chain))
	for _, p := range c.Chain {
		parts = append(parts, fmt.Sprintf("%d %s", p.Pid, p.Comm))
	}
	return strings.Join(parts, " < ")
}
