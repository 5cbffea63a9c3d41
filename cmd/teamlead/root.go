package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
)

// globals are the flags every subcommand shares.
type globals struct {
	config string
	state  string
}

func newRootCmd() *cobra.Command {
	g := &globals{}
	root := &cobra.Command{
		Use:           "teamlead",
		Short:         "Lead a team of AI coding agents from one terminal",
		Long:          "teamlead runs agent CLIs (Claude Code, Codex, Gemini CLI, Aider, any program) over PTYs,\nrelays [ROUTE] messages between them, and keeps every message in an embedded store.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.config, "config", envOr("TEAMLEAD_CONFIG", "configs/team.yaml"), "team file (env TEAMLEAD_CONFIG)")
	root.PersistentFlags().StringVar(&g.state, "state", envOr("TEAMLEAD_STATE", defaultState()), "state directory: store and control socket (env TEAMLEAD_STATE)")
	root.AddCommand(newRunCmd(g), newAgentsCmd(g), newSendCmd(g), newInboxCmd(g), newAskCmd(g), newQuestionsCmd(g), newValidateCmd(g), newProgressCmd(g), newConsultsCmd(g), newTasksCmd(g), newHookCmd(g), newAuditCmd(g), newPrimerCmd(g), newInitCmd(), newVersionCmd())
	root.AddCommand(actionCmds(g)...)
	root.AddCommand(newPermissionsCmd(g))
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

// client connects to the running console: through TEAMLEAD_SOCKET inside
// an agent (the console sets it), else the state directory's socket.
func (g *globals) client() (*control.Client, error) {
	if sock := os.Getenv("TEAMLEAD_SOCKET"); sock != "" && os.Getenv("TEAMLEAD_STATE") == "" {
		return control.NewClientAt(sock)
	}
	return control.NewClient(g.state)
}

// running is client for commands that need a running console: its error
// says how to start one.
func (g *globals) running() (*control.Client, error) {
	c, err := g.client()
	if err != nil {
		return nil, fmt.Errorf("%w; start one with: teamlead run", err)
	}
	return c, nil
}

// team loads the team file.
func (g *globals) team() (*config.Team, error) { return config.LoadTeam(g.config) }

// storeDir is where the Badger store lives inside the state directory.
func (g *globals) storeDir() string { return filepath.Join(g.state, "store") }

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

// actionCmds are the commands that act on one item through the console.
func actionCmds(g *globals) []*cobra.Command {
	return []*cobra.Command{
		consoleCmd(g, "answer ID TEXT...", "Answer a question (q-…), an inbox item (m-…), a consultation (c-…: approve|concerns|reject|acknowledge …) or a permission request (p-…: approve|always [scope] [all]|deny …)",
			cobra.MinimumNArgs(2), func(c *control.Client, a []string) (string, error) { return c.Answer(a[0], strings.Join(a[1:], " ")) }),
		consoleCmd(g, "approve PERMISSION-ID [exact|prefix|dir|tool] [all]", "Approve a permission request once; with a scope, approve always: a rule for this agent (all: every agent) is added to the policy file",
			cobra.RangeArgs(1, 3), func(c *control.Client, a []string) (string, error) {
				if len(a) == 1 {
					return c.Answer(a[0], "approve")
				}
				return c.Answer(a[0], "always "+strings.Join(a[1:], " "))
			}),
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
