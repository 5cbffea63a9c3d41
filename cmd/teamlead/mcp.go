package main

import (
	"github.com/mark3labs/mcp-go/server"
	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/mcptools"
)

func newMCPCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "The team's tools for an agent's CLI (an MCP server on stdin/stdout, started by the CLI)",
		Long: "Mcp serves the Model Context Protocol on stdin and stdout: the tools send_message, ask_question,\n" +
			"request_consultation, give_verdict, announce_decision, hand_off, file_review, read_inbox and\n" +
			"list_team, which an agent's CLI shows as mcp__teamlead__<tool>. Each call is the envelope it\n" +
			"names, sent as the agent whose process started this server (the console asks the kernel, and\n" +
			"read_inbox reads that agent's messages; TEAMLEAD_AGENT is not asked); its\n" +
			"result is the Team Lead's acknowledgement or refusal, which is then not typed into the agent.\n" +
			"The console registers it with the CLIs whose preset says how (mcp: in presets.yaml).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := g.running()
			if err != nil {
				return err
			}
			return server.ServeStdio(mcptools.New(c, version))
		},
	}
}
