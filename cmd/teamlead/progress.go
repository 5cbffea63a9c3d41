package main

import (
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/report"
)

func newProgressCmd(g *globals) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "progress",
		Short: "Show each agent's workflow progress file (seed 003): steps, next step, errors, stalls",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			team, err := config.LoadTeam(g.config)
			if err != nil {
				return err
			}
			states := readProgress(team)
			out := cmd.OutOrStdout()
			switch format {
			case "json":
				enc := json.NewEncoder(out)
				for _, st := range states {
					v := map[string]any{"agent": st.Agent, "path": st.Path, "missing": st.Missing, "workflow": st.Workflow,
						"changed": st.ModTime, "stalled": progress.Stalled(st, time.Now(), team.Progress.Stall)}
					if st.Err != nil {
						v["error"] = st.Err.Error()
					}
					if err := enc.Encode(v); err != nil {
						return err
					}
				}
				return nil
			case "table":
				for _, st := range states {
					for _, l := range report.Workflow(st, time.Now(), team.Progress.Stall, 0) {
						fmt.Fprintln(out, l)
					}
				}
				return nil
			}
			return fmt.Errorf("--format: %q: use table or json", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "table", "table or json (one file per line)")
	return cmd
}

// readProgress reads every agent's progress file and the extra paths.
func readProgress(team *config.Team) []progress.State {
	var out []progress.State
	read := func(agent, path string) {
		st := progress.State{Agent: agent, Path: path}
		data, err := os.ReadFile(path)
		if err != nil {
			st.Missing = true
			out = append(out, st)
			return
		}
		if fi, err := os.Stat(path); err == nil {
			st.ModTime = fi.ModTime()
		}
		st.Workflow, st.Err = progress.Parse(data)
		out = append(out, st)
	}
	files := progress.Paths(team.AgentDirs())
	for _, a := range team.Agents {
		read(a.Name, files[a.Name])
	}
	for _, p := range team.Progress.Paths {
		read("", p)
	}
	return out
}
