package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/primer"
)

func newPrimerCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "primer AGENT",
		Short: "Print the protocol primer AGENT is taught at start: its name, role, team, and how to write [ROUTE] messages",
		Long: "Primer prints the instructions teamlead hands AGENT when it starts, generated from the team file:\n" +
			"who it is, its teammates, the [ROUTE] envelope with an example of each message type, <gap>\n" +
			"questions, consultations and the mandatory rules of its role, query and progress files, the\n" +
			"handoff to QA (and, for a QA agent, the review contract) and permission requests.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			team, err := g.team()
			if err != nil {
				return err
			}
			text, err := primer.Text(team, args[0])
			if err != nil {
				return err
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), text)
			return err
		},
	}
}
