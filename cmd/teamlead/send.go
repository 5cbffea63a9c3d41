package main

import (
	"io"
	"strings"

	"github.com/spf13/cobra"
)

func newSendCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "send AGENT TEXT...",
		Short: "Type text into an agent as the human (TEXT '-' reads stdin)",
		Long: "Send types TEXT into AGENT's terminal through the running console, then the agent's\n" +
			"submit key, exactly as if the human typed it. The text is recorded in the audit log.",
		Args: cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			text := strings.Join(args[1:], " ")
			if text == "-" {
				b, err := io.ReadAll(cmd.InOrStdin())
				if err != nil {
					return err
				}
				text = strings.TrimRight(string(b), "\n")
			}
			c, err := g.running()
			if err != nil {
				return err
			}
			done, err := c.Send(args[0], text)
			if err != nil {
				return err
			}
			return printDone(cmd.OutOrStdout(), done, "sent to "+args[0])
		},
	}
}
