package readmodel

import (
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/usage"
)

// AgentInfo describes one agent for `teamlead agents`.
type AgentInfo struct {
	Name     string          `json:"name"`
	Role     string          `json:"role"`
	State    wire.AgentState `json:"state"`
	Pid      int             `json:"pid"`
	Restarts int             `json:"restarts"`
	ExitCode int             `json:"exit_code"`
	Since    time.Time       `json:"since"`
	// LastOutput is when the agent last printed anything (busy or idle).
	LastOutput time.Time `json:"last_output"`
	// Blocked is set while a question it asked with a blocking urgency waits.
	Blocked bool `json:"blocked,omitempty"`
	// Hook is what the agent's CLI hook last said: busy, idle or waiting;
	// HookAt is when.
	Hook   string    `json:"hook,omitempty"`
	HookAt time.Time `json:"hook_at,omitzero"`
	// HookFrom says where Hook came from: "hook" (the CLI's own hook) or
	// "screen" (read off its screen by the preset's detector).
	HookFrom string `json:"hook_from,omitempty"`
	// Err says why the agent failed to start or died, and what to do.
	Err string `json:"error,omitempty"`
	// Tokens is what its CLI used this run, from its transcripts (Claude
	// Code's); zero when its CLI names none.
	Tokens usage.Tokens `json:"tokens,omitzero"`
	// Worktree is the agent's git worktree, as last looked at (nil: it
	// works in no worktree of its own).
	Worktree *Worktree `json:"worktree,omitempty"`
	// Host is the node that runs it ("" for this machine); its State is
	// "unreachable" while the node is not heard from.
	Host string `json:"host,omitempty"`
}

// Worktree is an agent's branch against the person's: commits ahead and
// behind, and whether it holds uncommitted work.
type Worktree struct {
	Branch string `json:"branch"`
	Ahead  int    `json:"ahead"`
	Behind int    `json:"behind"`
	Dirty  bool   `json:"uncommitted"`
	// InProgress is worktree.Info.InProgress.
	InProgress string `json:"in_progress,omitempty"`
	// Err says why it could not be looked at.
	Err string `json:"error,omitempty"`
}

// DefaultBusyFor is how long after its last output an agent that neither
// a hook nor a screen reading speaks for counts as busy.
const DefaultBusyFor = 2 * time.Second

// Doing is what agent a is doing, busy, idle or waiting, and who says so:
// its CLI's hook or its screen (HookFrom), else its output ("output": busy
// when it printed within busyFor).
func (a AgentInfo) Doing(now time.Time, busyFor time.Duration) (state, from string) {
	switch a.Hook {
	case "busy", "idle", "waiting":
		return a.Hook, a.HookFrom
	}
	if now.Sub(a.LastOutput) < busyFor {
		return "busy", "output"
	}
	return "idle", "output"
}
