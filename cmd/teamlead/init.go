package main

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/primer"
)

func newInitCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "init [DIR]",
		Short: "Write a starter team.yaml for the agent CLIs on PATH (claude, codex, gemini, copilot, opencode, aider), or the demo team",
		Long: "Init writes DIR/team.yaml (DIR defaults to the current folder) with one agent per agent CLI it\n" +
			"finds on PATH — claude, codex, gemini, copilot, opencode, aider, given the roles developer, review, testing and qa\n" +
			"in that order — commented so that you can edit it. With none found it writes the demo team of\n" +
			"scripted mockagent agents. consultations.yaml and answerers.yaml are copied beside it from the\n" +
			"defaults when missing. An existing team.yaml is kept unless --force.",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := "."
			if len(args) == 1 {
				dir = args[0]
			}
			res, err := primer.WriteStarter(dir, primer.StarterOptions{Force: force})
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if res.Demo {
				fmt.Fprintln(out, "no agent CLI found on PATH (claude, codex, gemini, copilot, opencode, aider): wrote the demo team of scripted agents")
			}
			var agents []string
			for _, a := range res.Agents {
				agents = append(agents, fmt.Sprintf("%s (%s, %s)", a.Name, a.Role, a.Command[0]))
			}
			fmt.Fprintf(out, "wrote %s: %s\n", res.Team, strings.Join(agents, ", "))
			for _, f := range res.Written[1:] {
				fmt.Fprintf(out, "wrote %s\n", filepath.Join(dir, f))
			}
			for _, f := range res.Kept {
				fmt.Fprintf(out, "kept %s (already there)\n", filepath.Join(dir, f))
			}
			for _, n := range res.Notes {
				fmt.Fprintln(out, "note:", n)
			}
			fmt.Fprintf(out, "next: teamlead primer %s --config %s   (what it will be taught)\n      teamlead run --config %s\n",
				res.Agents[0].Name, res.Team, res.Team)
			return nil
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing team.yaml")
	return cmd
}
