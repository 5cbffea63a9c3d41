package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
)

// globals are the flags every subcommand shares, and the console the
// command line found for the folder it runs in.
type globals struct {
	config string
	state  string
	// configSet and stateSet say the user named the team file or the state
	// folder (flag or environment); discover that the command line was
	// parsed by the root command, so what was not named may be looked up
	// (tests that build one command leave it off).
	configSet, stateSet, discover bool
	resolved                      bool
	resolveErr                    error
	// found is the console recorded for this folder (running or stopped).
	found *control.Registration
}

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "teamlead",
		Short:         "Lead a team of AI coding agents from one terminal",
		Long:          "teamlead runs agent CLIs (Claude Code, Codex, Gemini CLI, Aider, any program) over PTYs,\nrelays [ROUTE] messages between them, and keeps every message in an embedded store.",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRun: func(cmd *cobra.Command, _ []string) {
			g.discover = true
			g.configSet = cmd.Flags().Changed("config") || os.Getenv("TEAMLEAD_CONFIG") != ""
			g.stateSet = cmd.Flags().Changed("state") || os.Getenv("TEAMLEAD_STATE") != ""
		},
	}
	root.PersistentFlags().StringVar(&g.config, "config", envOr("TEAMLEAD_CONFIG", "configs/team.yaml"), "team file (env TEAMLEAD_CONFIG; default: the running console's for this folder, else configs/team.yaml)")
	root.PersistentFlags().StringVar(&g.state, "state", envOr("TEAMLEAD_STATE", defaultState()), "state directory: store and control socket (env TEAMLEAD_STATE; default: the running console's for this folder, else this)")
	root.AddCommand(newRunCmd(g), newAgentsCmd(g), newSendCmd(g), newInboxCmd(g), newAskCmd(g), newQuestionsCmd(g), newValidateCmd(g), newProgressCmd(g), newConsultsCmd(g), newTasksCmd(g), newHookCmd(g), newAuditCmd(g), newPrimerCmd(g), newInitCmd(), newDoctorCmd(g), newConfigCmd(g), newVersionCmd(), newWorktreeCmd(g), newDiffCmd(g), newMergeCmd(g), newMCPCmd(g), newNodeCmd(g))
	root.AddCommand(actionCmds(g)...)
	root.AddCommand(newPermissionsCmd(g), newNATSPermissionsCmd(g))
	return root
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// defaultState is the per-user data directory: $XDG_DATA_HOME/teamlead,
// else ~/.local/share/teamlead.
func defaultState() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "teamlead")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "share", "teamlead")
	}
	return ".teamlead"
}

// insideAgent reports whether the command runs in an agent's shell, where
// the console's socket is given (TEAMLEAD_SOCKET).
func insideAgent() bool {
	return os.Getenv("TEAMLEAD_SOCKET") != "" && os.Getenv("TEAMLEAD_STATE") == ""
}

// resolve finds the console for the folder the command runs in, unless
// --state (or TEAMLEAD_STATE) names one: a console records where it runs
// (control.Register), so a command run in the same folder, or one below,
// or with the same --config, finds its state folder and team file.
func (g *globals) resolve() error {
	if !g.discover || g.resolved {
		return g.resolveErr
	}
	g.resolved = true
	if g.stateSet || insideAgent() {
		return nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return nil
	}
	config, _ := filepath.Abs(g.config)
	r, _, ok, err := control.Find(dir, config, g.configSet)
	if err != nil {
		g.resolveErr = err
		return err
	}
	if ok {
		g.found, g.state = &r, r.State
		if !g.configSet {
			g.config = r.Config
		}
	}
	return nil
}

// client connects to the running console: through TEAMLEAD_SOCKET inside
// an agent (the console sets it), else the socket of the console found for
// this folder or named by --state. Its ErrNoConsole says where it looked.
func (g *globals) client() (*control.Client, error) {
	if insideAgent() {
		return control.NewClientAt(os.Getenv("TEAMLEAD_SOCKET"))
	}
	if err := g.resolve(); err != nil {
		return nil, err
	}
	c, err := control.NewClient(g.state)
	if errors.Is(err, control.ErrNoConsole) {
		return nil, g.notFound(err, false)
	}
	return c, err
}

// running is client for commands that need a running console.
func (g *globals) running() (*control.Client, error) { return g.client() }

// notFound says that no console runs (noStore: and there is no store to
// read either), where the command looked, and what to do; it wraps cause.
func (g *globals) notFound(cause error, noStore bool) error {
	state := g.state
	if abs, err := filepath.Abs(state); err == nil {
		state = abs
	}
	var what string
	switch {
	case g.found != nil:
		what = fmt.Sprintf("no console is running for this folder: the last one started in %s (team file %s, state %s) has stopped", g.found.Dir, g.found.Config, g.found.State)
		if noStore {
			what += ", and its state folder holds no store"
		}
		what += fmt.Sprintf("; start it again with `teamlead run --config %s --state %s`", g.found.Config, g.found.State)
	case g.stateSet:
		what = fmt.Sprintf("no console is running on %s", filepath.Join(state, control.SocketName))
		if noStore {
			what += fmt.Sprintf(" and %s holds no store", state)
		}
		what += fmt.Sprintf("; start one with `teamlead run --state %s`, or pass the --state of the console you mean", g.state)
	default:
		dir, _ := os.Getwd()
		reg, err := control.RegistryDir()
		if err != nil {
			reg = "(no registry folder: " + err.Error() + ")"
		}
		what = fmt.Sprintf("no console is running for this folder (%s): none was started here or in a folder above (looked in %s), and none runs on the default state folder %s", dir, reg, state)
		if noStore {
			what += ", which holds no store"
		}
		what += "; start one with `teamlead run`, or pass --state DIR"
		what += elsewhere()
	}
	return &notFoundError{msg: what, cause: cause}
}

// elsewhere names the consoles running for other folders, so that a
// command run in the wrong folder says where to run it: ""
// when none runs.
func elsewhere() string {
	regs, err := control.Registrations()
	if err != nil {
		return ""
	}
	var where []string
	for _, r := range regs {
		if r.Live() {
			where = append(where, fmt.Sprintf("%s (--state %s)", r.Dir, r.State))
		}
	}
	if len(where) == 0 {
		return ""
	}
	slices.Sort(where)
	if len(where) > 3 {
		where = append(where[:3], fmt.Sprintf("%d more", len(where)-3))
	}
	return "; a console runs in " + strings.Join(where, ", ") + ": run the command there, or pass its --state"
}

// notFoundError is notFound's error: its message says it all, and it
// still is its cause (control.ErrNoConsole, store.ErrNoStore).
type notFoundError struct {
	msg   string
	cause error
}

func (e *notFoundError) Error() string { return e.msg }
func (e *notFoundError) Unwrap() error { return e.cause }

// team loads the team file: --config, else the running console's.
func (g *globals) team() (*config.Team, error) {
	if !g.configSet {
		if err := g.resolve(); err != nil {
			return nil, err
		}
	}
	return config.LoadTeam(g.config)
}

// storeDir is where the Badger store lives inside the state directory
// (after resolve, for a command that reads it).
func (g *globals) storeDir() string { return filepath.Join(g.state, agents.StoreDir) }

// consoleCmd is a command that asks the running console to change one
// thing: do gets the client and the arguments and returns what changed, in
// a line, which is printed on success.
func consoleCmd(g *globals, use, short string, args cobra.PositionalArgs, do func(c *control.Client, args []string) (string, error)) *cobra.Command {
	return &cobra.Command{
		Use:   use,
		Short: short,
		Args:  args,
		RunE: func(cmd *cobra.Command, a []string) error {
			c, err := g.running()
			if err != nil {
				return err
			}
			done, err := do(c, a)
			if err != nil {
				return err
			}
			return printDone(cmd.OutOrStdout(), done, cmd.Name()+" "+a[0])
		},
	}
}

// printDone prints what an operation changed; a console older than this
// command says nothing, and then the command's words stand in.
func printDone(w io.Writer, done, fallback string) error {
	if done == "" {
		done = fallback + ": done"
	}
	_, err := fmt.Fprintln(w, done)
	return err
}

// approveCmd approves a permission request once, or always at a scope;
// --dry-run prints the rules approving always would add, and decides
// nothing.
func approveCmd(g *globals) *cobra.Command {
	var dryRun bool
	cmd := consoleCmd(g, "approve PERMISSION-ID [exact|prefix|dir|tool] [all]",
		"Approve a permission request once; with a scope, approve always: a rule for this agent (all: every agent) is added to the policy file (--dry-run: print the rules, decide nothing)",
		cobra.RangeArgs(1, 3), func(c *control.Client, a []string) (string, error) {
			switch {
			case dryRun && len(a) == 1:
				return "", fmt.Errorf("--dry-run shows what approving always adds: name a scope (exact, prefix, dir or tool); approving once adds nothing")
			case dryRun:
				return c.PlanAlways(a[0], strings.Join(a[1:], " "))
			case len(a) == 1:
				return c.Answer(a[0], "approve")
			}
			return c.Answer(a[0], "always "+strings.Join(a[1:], " "))
		})
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "print the rules approving always would add to the policy file, and decide nothing")
	return cmd
}

// actionCmds are the commands that act on one item through the console.
func actionCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{
		consoleCmd(g, "answer ID TEXT...", "Answer a question (q-…), an inbox item (m-…), a consultation (c-…: approve|concerns|reject|acknowledge …) or a permission request (p-…: approve|always [scope] [all]|deny …)",
			cobra.MinimumNArgs(2), func(c *control.Client, a []string) (string, error) { return c.Answer(a[0], strings.Join(a[1:], " ")) }),
		approveCmd(g),
		consoleCmd(g, "deny PERMISSION-ID [MESSAGE...]", "Deny a permission request; the message reaches the agent",
			cobra.MinimumNArgs(1), func(c *control.Client, a []string) (string, error) {
				return c.Answer(a[0], strings.TrimSpace("deny "+strings.Join(a[1:], " ")))
			}),
		consoleCmd(g, "escalate ID", "Escalate a question or a consultation now, to the next step of its chain",
			cobra.ExactArgs(1), func(c *control.Client, a []string) (string, error) { return c.Escalate(a[0]) }),
		consoleCmd(g, "reassign ID ANSWERER", "Give a question to another answerer (agent/x, human/y, team/z, tool/w), or a consultation to another agent of its role",
			cobra.ExactArgs(2), func(c *control.Client, a []string) (string, error) { return c.Reassign(a[0], a[1]) }),
		consoleCmd(g, "drop ID [REASON...]", "Drop a question (q-…) or an inbox item (m-…, u-…) without answering it, e.g. when the agent that asked has exited; nothing is typed into anyone",
			cobra.MinimumNArgs(1), func(c *control.Client, a []string) (string, error) { return c.Drop(a[0], strings.Join(a[1:], " ")) }),
		consoleCmd(g, "acknowledge CONSULT-ID", "Accept the concerns raised on a consultation, so they no longer hold the decision",
			cobra.ExactArgs(1), func(c *control.Client, a []string) (string, error) { return c.Acknowledge(a[0]) }),
	}
}
