// Package doctor checks what a new user's setup needs for teamlead to run —
// the agent CLIs, the team file, the folders it writes, the state folder,
// the terminal, what the kernel lets agents do — and says, for each
// problem, what to do about it in plain words (`teamlead doctor`).
package doctor

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/trust"
)

// Status is how a check came out.
type Status string

const (
	// OK means nothing needs doing.
	OK Status = "ok"
	// Warning means something may get in the way, or looks worse than it
	// could; teamlead still runs.
	Warning Status = "warning"
	// Problem means teamlead (or an agent) cannot work until it is fixed.
	Problem Status = "problem"
)

// Check is one line of the report: what was checked, how it came out,
// what was found and, when something needs doing, the fix.
type Check struct {
	// Check names what was checked: team file, agent, agent CLI, agent
	// folder, state folder, disk space, console, gemini hooks, terminal,
	// terminal size, colours, tmux/screen, machine trust.
	Check string `json:"check"`
	// Subject is what it was checked on: an agent's name, a CLI, a folder.
	Subject string `json:"subject,omitempty"`
	Status  Status `json:"status"`
	Finding string `json:"finding"`
	Fix     string `json:"fix,omitempty"`

	// Program is the agent's program as the team file names it, Path
	// where it was found; Version what its --version says, and
	// CapturedVersion the version its preset's screens were captured
	// from (configs/presets.yaml), when it records one.
	Program         string `json:"program,omitempty"`
	Path            string `json:"path,omitempty"`
	Version         string `json:"version,omitempty"`
	CapturedVersion string `json:"captured_version,omitempty"`
	// Folder is the folder an agent-folder, state-folder or disk-space
	// check is about; FreeBytes the free space there.
	Folder    string `json:"folder,omitempty"`
	FreeBytes uint64 `json:"free_bytes,omitempty"`
	// PID is the process of the console that owns the state folder.
	PID int `json:"pid,omitempty"`
	// Cols and Rows are the terminal's size.
	Cols int `json:"cols,omitempty"`
	Rows int `json:"rows,omitempty"`
}

// Options say what to check and how to see the machine; zero fields take
// the real ones.
type Options struct {
	// Config is the team file; ConfigNamed says the user named it (or a
	// console found for this folder runs it), so a missing file is a
	// problem. A default team file that does not exist means there is no
	// team yet: the known agent CLIs are checked instead.
	Config      string
	ConfigNamed bool
	// State is the state folder.
	State string
	// LookupEnv reads the environment (TERM, COLORTERM, NO_COLOR, TMUX,
	// STY); default os.LookupEnv. PATH is always the process's own.
	LookupEnv func(string) (string, bool)
	// Terminal describes the terminal the command runs in; default
	// StdTerminal.
	Terminal func() Terminal
	// TmuxEscapeTime is tmux's escape-time in milliseconds, asked only
	// inside tmux; default asks tmux.
	TmuxEscapeTime func() (int, error)
	// VersionTimeout bounds each `<cli> --version` (default 5s).
	VersionTimeout time.Duration
	// MachineWarnings default trust.MachineWarnings.
	MachineWarnings func() []string
	// SandboxProblem defaults to agents.SandboxProblem.
	SandboxProblem func() string
}

// DefaultVersionTimeout is how long `<cli> --version` may take.
const DefaultVersionTimeout = 5 * time.Second

func (o *Options) defaults() {
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.Terminal == nil {
		o.Terminal = StdTerminal
	}
	if o.TmuxEscapeTime == nil {
		o.TmuxEscapeTime = tmuxEscapeTime
	}
	if o.VersionTimeout <= 0 {
		o.VersionTimeout = DefaultVersionTimeout
	}
	if o.MachineWarnings == nil {
		o.MachineWarnings = trust.MachineWarnings
	}
	if o.SandboxProblem == nil {
		o.SandboxProblem = agents.SandboxProblem
	}
}

// Run runs every check, in the order of the report: the team file, its
// agents' programs (or the known agent CLIs), their folders, the state
// folder, the terminal, the machine.
func Run(o Options) []Check {
	o.defaults()
	team, teamCheck := loadTeam(o)
	out := []Check{teamCheck}
	out = append(out, programChecks(o, team)...)
	out = append(out, folderChecks(team)...)
	out = append(out, stateChecks(o, team)...)
	out = append(out, terminalChecks(o)...)
	out = append(out, trustChecks(o)...)
	out = append(out, sandboxCheck(o))
	return out
}

// Count counts the checks of a status.
func Count(checks []Check, s Status) int {
	n := 0
	for _, c := range checks {
		if c.Status == s {
			n++
		}
	}
	return n
}

// loadTeam loads the team file with the loader `teamlead run` uses; when
// it does not load, the team as far as `teamlead validate` reads it is
// still checked. nil: there is no team file (or it cannot be read).
func loadTeam(o Options) (*config.Team, Check) {
	c := Check{Check: "team file", Subject: shortPath(o.Config)}
	if o.Config == "" {
		c.Status, c.Finding = Warning, "no team file given"
		c.Fix = "write one with teamlead init (for the agent CLIs on PATH), or pass --config FILE"
		return nil, c
	}
	if _, err := os.Stat(o.Config); errors.Is(err, os.ErrNotExist) && !o.ConfigNamed {
		c.Status = Warning
		c.Finding = fmt.Sprintf("no team file here (looked for %s), so teamlead run has no team to start; the agent CLIs teamlead knows are checked below", o.Config)
		c.Fix = "write one with teamlead init (it picks the agent CLIs on PATH, or the demo team), or pass --config FILE"
		return nil, c
	}
	team, err := config.LoadTeam(o.Config)
	if err == nil {
		names := make([]string, len(team.Agents))
		for i, a := range team.Agents {
			names[i] = a.Name
		}
		c.Status = OK
		c.Finding = fmt.Sprintf("%s loads: %s (%s)", shortPath(team.File), plural(len(team.Agents), "agent"), strings.Join(names, ", "))
		return team, c
	}
	errs := flatten(err)
	c.Status = Problem
	c.Finding = fmt.Sprintf("it does not load: %s", errs[0])
	if len(errs) > 1 {
		c.Finding += fmt.Sprintf(" (and %s)", plural(len(errs)-1, "more error"))
	}
	c.Fix = "run teamlead validate for every error, each with its file, line and what to do"
	if strings.Contains(errs[0].Error(), "cannot read team file") {
		c.Fix = "pass --config FILE (or set TEAMLEAD_CONFIG) with your team file, or write one with teamlead init"
	}
	partial, _, _ := config.ReadTeam(o.Config)
	if partial != nil && len(partial.Agents) == 0 {
		partial = nil
	}
	return partial, c
}

// flatten lists the errors of an errors.Join.
func flatten(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, flatten(e)...)
		}
		if len(out) > 0 {
			return out
		}
	}
	return []error{err}
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// shortPath is path relative to the working folder when it is inside it,
// else under ~ when it is in the home folder.
func shortPath(path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	if cwd, err := os.Getwd(); err == nil && cwd != "/" {
		if rel, err := filepath.Rel(cwd, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return rel
		}
	}
	if home, err := os.UserHomeDir(); err == nil && home != "/" && strings.HasPrefix(path, home+"/") {
		return "~" + path[len(home):]
	}
	return path
}
