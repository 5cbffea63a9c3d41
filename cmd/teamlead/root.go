package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

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
	root.AddCommand(newRunCmd(g), newAgentsCmd(g), newSendCmd(g), newInboxCmd(g), newAnswerCmd(g), newAskCmd(g), newQuestionsCmd(g), newEscalateCmd(g), newReassignCmd(g), newValidateCmd(g), newProgressCmd(g), newConsultsCmd(g), newAcknowledgeCmd(g), newAuditCmd(g), newVersionCmd())
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

// storeDir is where the Badger store lives inside the state directory.
func (g *globals) storeDir() string { return filepath.Join(g.state, "store") }
