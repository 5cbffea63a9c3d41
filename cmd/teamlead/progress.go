package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/progresswatch"
	"github.com/teamlead/teamlead/internal/report"
)

func newProgressCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "progress",
		Short: "Show each agent's workflow progress file: steps, next step, errors, stalls",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := format.check(); err != nil {
				return err
			}
			team, err := g.team()
			if err != nil {
				return err
			}
			states := readProgress(team)
			out, now := cmd.OutOrStdout(), time.Now()
			return printList(out, format, states, func(st progress.State) any { return progressView(st, now, team.Progress.Stall) }, func() error {
				for _, st := range states {
					for _, l := range report.Workflow(st, now, team.Progress.Stall, 0) {
						fmt.Fprintln(out, l)
					}
				}
				return nil
			})
		},
	}
	format = addFormat(cmd)
	return cmd
}

// progressJSON is one progress file in `teamlead progress --format json`;
// the workflow's fields are named as the file names them (seed 003).
type progressJSON struct {
	Agent    string        `json:"agent,omitempty"`
	Path     string        `json:"path"`
	Missing  bool          `json:"missing,omitempty"`
	Error    string        `json:"error,omitempty"`
	Changed  time.Time     `json:"changed,omitzero"`
	Stalled  bool          `json:"stalled"`
	Workflow *workflowJSON `json:"workflow,omitempty"`
}

type workflowJSON struct {
	Version           string        `json:"version"`
	WorkflowID        string        `json:"workflow_id"`
	Task              string        `json:"task,omitempty"`
	PrimaryExpert     string        `json:"primary_expert,omitempty"`
	SupportingExperts []string      `json:"supporting_experts,omitempty"`
	Strategy          string        `json:"strategy,omitempty"`
	Status            string        `json:"status"`
	CurrentStep       int           `json:"current_step"`
	TotalSteps        int           `json:"total_steps"`
	Steps             []stepJSON    `json:"steps,omitempty"`
	NextStep          *nextStepJSON `json:"next_step,omitempty"`
	Artifacts         []string      `json:"artifacts,omitempty"`
	Errors            []string      `json:"errors,omitempty"`
	UpdatedAt         time.Time     `json:"updated_at,omitzero"`
}

type stepJSON struct {
	Step        int       `json:"step"`
	Expert      string    `json:"expert,omitempty"`
	Action      string    `json:"action,omitempty"`
	Status      string    `json:"status,omitempty"`
	DurationMS  int64     `json:"duration_ms,omitempty"`
	Artifacts   []string  `json:"artifacts,omitempty"`
	StartedAt   time.Time `json:"started_at,omitzero"`
	CompletedAt time.Time `json:"completed_at,omitzero"`
}

type nextStepJSON struct {
	Step    int    `json:"step,omitempty"`
	Expert  string `json:"expert,omitempty"`
	Action  string `json:"action,omitempty"`
	Context string `json:"context,omitempty"`
}

func progressView(st progress.State, now time.Time, stall time.Duration) progressJSON {
	v := progressJSON{Agent: st.Agent, Path: st.Path, Missing: st.Missing, Changed: st.ModTime, Stalled: progress.Stalled(st, now, stall)}
	if st.Err != nil {
		v.Error = st.Err.Error()
	}
	if w := st.Workflow; w != nil {
		wv := &workflowJSON{Version: w.Version, WorkflowID: w.WorkflowID, Task: w.Task, PrimaryExpert: w.Primary, SupportingExperts: w.Supporting,
			Strategy: w.Strategy, Status: w.Status, CurrentStep: w.CurrentStep, TotalSteps: w.TotalSteps, Artifacts: w.Artifacts, Errors: w.Errors, UpdatedAt: w.UpdatedAt}
		for _, s := range w.Steps {
			wv.Steps = append(wv.Steps, stepJSON{Step: s.Number, Expert: s.Expert, Action: s.Action, Status: s.Status, DurationMS: s.Duration.Milliseconds(),
				Artifacts: s.Artifacts, StartedAt: s.StartedAt, CompletedAt: s.CompletedAt})
		}
		if n := w.Next; n != nil {
			wv.NextStep = &nextStepJSON{Step: n.Number, Expert: n.Expert, Action: n.Action, Context: n.Context}
		}
		v.Workflow = wv
	}
	return v
}

// readProgress reads every agent's progress file and the extra paths.
func readProgress(team *config.Team) []progress.State {
	var out []progress.State
	read := func(agent, path string) { out = append(out, progresswatch.Read(agent, path)) }
	files := progress.Paths(team.AgentDirs())
	for _, a := range team.Agents {
		read(a.Name, files[a.Name])
	}
	for _, p := range team.Progress.Paths {
		read("", p)
	}
	return out
}
