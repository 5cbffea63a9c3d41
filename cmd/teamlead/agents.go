package main

import (
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/usage"
)

func newAgentsCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the team's agents: name, role, state, what it is doing (from its hook or screen), pid, restarts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := format.check(); err != nil {
				return err
			}
			list, live, err := listAgents(g)
			if err != nil {
				return err
			}
			now := time.Now()
			w := cmd.OutOrStdout()
			return printList(w, format, list, func(a agentRow) any { return agentView(a, live, now) }, func() error {
				return printAgents(w, list, live, now)
			})
		},
	}
	format = addFormat(cmd)
	return cmd
}

// agentJSON is an agent in `teamlead agents --format json`.
type agentJSON struct {
	Name  string `json:"name"`
	Role  string `json:"role"`
	State string `json:"state"`
	// LastState is, with no console running, the last lifecycle state
	// recorded (State is then "not running").
	LastState string `json:"last_state,omitempty"`
	// Doing is busy, idle or waiting, and DoingFrom who says so (hook,
	// screen or output): only for a running agent of a running console.
	Doing      string    `json:"doing,omitempty"`
	DoingFrom  string    `json:"doing_from,omitempty"`
	Blocked    bool      `json:"blocked,omitempty"`
	Pid        int       `json:"pid,omitempty"`
	Restarts   int       `json:"restarts"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	Since      time.Time `json:"since,omitzero"`
	LastOutput time.Time `json:"last_output,omitzero"`
	// Live is false when no console runs: the state is the last recorded.
	Live bool `json:"live"`
	// Error says why the agent failed or died, and what to do.
	Error string `json:"error,omitempty"`
	// Tokens is what its CLI used this run, read from what it records
	// (Claude Code's transcript, Codex's rollout, Gemini CLI's chat,
	// Copilot CLI's session events, OpenCode's database): input, output,
	// cache_read, cache_write, cost_usd.
	Tokens *usage.Tokens `json:"tokens,omitempty"`
	// Worktree is its git worktree: branch, ahead, behind, uncommitted.
	Worktree *readmodel.Worktree `json:"worktree,omitempty"`
	// Host is the node that runs it (its host:); "" for the console's machine.
	Host string `json:"host,omitempty"`
}

func agentView(a agentRow, live bool, now time.Time) agentJSON {
	v := agentJSON{Name: a.Name, Role: a.Role, State: string(a.State), LastState: a.last, Blocked: a.Blocked, Restarts: a.Restarts, Since: a.Since, LastOutput: a.LastOutput, Live: live, Error: a.Err, Host: a.Host}
	if live {
		v.Pid = a.Pid
		if a.Tokens != (usage.Tokens{}) {
			t := a.Tokens
			v.Tokens = &t
		}
		v.Worktree = a.Worktree
		if a.State == wire.StateRunning {
			v.Doing, v.DoingFrom = a.Doing(now, readmodel.DefaultBusyFor)
		}
		if a.State == wire.StateExited || a.State == wire.StateFailed {
			code := a.ExitCode
			v.ExitCode = &code
		}
	}
	return v
}

func printAgents(w io.Writer, list []agentRow, live bool, now time.Time) error {
	var failed []string
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	// HOST only for a team with agents on other machines.
	hosts := false
	for _, a := range list {
		hosts = hosts || a.Host != ""
	}
	host := func(a agentRow) string {
		if !hosts {
			return ""
		}
		return report.Dash(a.Host) + "\t"
	}
	fmt.Fprintln(tw, "NAME\tROLE\t"+map[bool]string{true: "HOST\t"}[hosts]+"STATE\tDOING\tPID\tRESTARTS\tTOKENS IN/OUT\tBRANCH")
	for _, a := range list {
		pid := "-"
		if a.Pid > 0 && live {
			pid = fmt.Sprint(a.Pid)
		}
		state := string(a.State)
		if a.last != "" {
			state += " (last: " + a.last + ")"
		}
		if a.Blocked {
			state += " (blocked on a question)"
		}
		doing := "-"
		if live && a.State == wire.StateRunning {
			state, from := a.Doing(now, readmodel.DefaultBusyFor)
			doing = state + " (" + from + ")"
		}
		tokens := "-"
		if live && a.Tokens != (usage.Tokens{}) {
			tokens = usage.Short(a.Tokens.Input+a.Tokens.CacheRead+a.Tokens.CacheWrite) + "/" + usage.Short(a.Tokens.Output)
			if c := a.Tokens.CostUSD; c > 0 {
				tokens += " " + usage.Dollars(c)
			}
		}
		branch := "-"
		if w := a.Worktree; live && w != nil && w.Err == "" {
			branch = fmt.Sprintf("%s ↑%d↓%d", w.Branch, w.Ahead, w.Behind)
			if w.Dirty {
				branch += " (uncommitted)"
			}
			if w.InProgress != "" {
				branch += " (" + w.InProgress + ")"
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s%s\t%s\t%s\t%d\t%s\t%s\n", report.Cells(a.Name, a.Role, host(a), state, doing, pid, a.Restarts, tokens, branch)...)
	}
	for _, a := range list {
		if a.Err != "" && (a.State == wire.StateFailed || a.last == string(wire.StateFailed) || a.State == wire.StateExited) {
			failed = append(failed, a.Name+": "+a.Err)
		}
	}
	if !live {
		fmt.Fprintln(tw, "(no console is running; states are the last ones recorded)")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, f := range failed { // below the table: the fix is a sentence, not a cell
		fmt.Fprintln(w, f)
	}
	return nil
}

// agentRow is an agent as `teamlead agents` lists it: with no console
// running, last is the last lifecycle state recorded.
type agentRow struct {
	readmodel.AgentInfo
	last string
}

// listAgents asks the running console, or else reads the team file and the
// last recorded lifecycle event of each agent from the store.
func listAgents(g *globals) ([]agentRow, bool, error) {
	if c, err := g.client(); err == nil {
		list, err := c.Agents()
		rows := make([]agentRow, len(list))
		for i, a := range list {
			rows[i] = agentRow{AgentInfo: a}
		}
		return rows, true, err
	} else if !errors.Is(err, control.ErrNoConsole) {
		return nil, false, err
	}
	st, err := openReadOnly(g)
	if err != nil {
		return nil, false, err
	}
	defer st.Close()
	team, err := g.team()
	if err != nil {
		return nil, false, err
	}
	var out []agentRow
	for _, a := range team.Agents {
		info := agentRow{AgentInfo: readmodel.AgentInfo{Name: a.Name, Role: a.Role, State: "not running", Host: a.Host}}
		recs, err := st.Query(store.Query{Agent: a.Name, Kind: wire.KindAgent})
		if err != nil {
			return nil, false, err
		}
		if n := len(recs); n > 0 {
			last := recs[n-1]
			info.last = last.Reason
			info.Err = last.Fields["error"]
			fmt.Sscan(last.Fields["restarts"], &info.Restarts)
		}
		out = append(out, info)
	}
	return out, false, nil
}

// openReadOnly opens the store for reading when no console owns it.
func openReadOnly(g *globals) (*store.Store, error) {
	if err := g.resolve(); err != nil {
		return nil, err
	}
	st, err := store.Open(g.storeDir(), store.Options{ReadOnly: true})
	switch {
	case errors.Is(err, store.ErrLocked):
		return nil, fmt.Errorf("%w: a console owns %s but does not answer on its socket; is it stuck?", err, g.state)
	case errors.Is(err, store.ErrNoStore):
		return nil, g.notFound(err, true)
	}
	return st, err
}
