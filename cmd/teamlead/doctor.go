package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/doctor"
	"github.com/teamlead/teamlead/internal/report"
)

func newDoctorCmd(g *globals) *cobra.Command {
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "doctor",
		Short: "Check what teamlead needs on this machine (agent CLIs, team file, folders, state folder, terminal) and say what to do about each problem",
		Long: "Doctor checks, one line each: every agent's program (or, with no team file, the agent CLIs\n" +
			"teamlead knows: claude, codex, gemini, copilot, opencode, aider) and its version against the one its preset was\n" +
			"captured from; that the team file loads; that the agents' folders can be written (hooks, primer\n" +
			"files); the state folder (writable, free space, a console running on it); the terminal (size,\n" +
			"colours, tmux or screen); and what the kernel lets agents do that the console cannot stop.\n" +
			"Each line is ok, warning or problem, with what was found and what to do. The exit status is 1\n" +
			"when there is a problem (warnings do not count).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := format.check(); err != nil {
				return err
			}
			// The console found for this folder, if any, gives the state
			// folder and the team file, as for every other command.
			var ambiguous error
			if err := g.resolve(); err != nil {
				ambiguous = err
			}
			checks := doctor.Run(doctor.Options{Config: g.config, ConfigNamed: g.configSet || g.found != nil, State: g.state})
			if ambiguous != nil {
				checks = append([]doctor.Check{{Check: "console", Status: doctor.Problem, Finding: ambiguous.Error(),
					Fix: "pass --state DIR to say which console's state folder to check"}}, checks...)
			}
			return printDoctor(cmd.OutOrStdout(), format, checks)
		},
	}
	format = addFormat(cmd)
	return cmd
}

// printDoctor prints the checks, one line each, and fails when one of
// them is a problem.
func printDoctor(w io.Writer, format *formatFlag, checks []doctor.Check) error {
	problems, warnings := doctor.Count(checks, doctor.Problem), doctor.Count(checks, doctor.Warning)
	err := printList(w, format, checks, nil, func() error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STATUS\tCHECK\tFINDING — FIX")
		for _, c := range checks {
			what := c.Check
			if c.Subject != "" {
				what += " " + c.Subject
			}
			line := c.Finding
			if c.Fix != "" {
				line += " — " + c.Fix
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", report.Cells(c.Status, what, line)...)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		if problems == 0 {
			fmt.Fprintf(w, "no problems (%s)\n", plural(warnings, "warning"))
		}
		return nil
	})
	if err != nil || problems == 0 {
		return err
	}
	var which []string
	for _, c := range checks {
		if c.Status == doctor.Problem {
			which = append(which, strings.TrimSpace(c.Check+" "+c.Subject))
		}
	}
	fix := "fix it as its line says"
	if problems > 1 {
		fix = "fix them as their lines say"
	}
	return fmt.Errorf("%s (%s); %s, then run teamlead doctor again", plural(problems, "problem"), strings.Join(which, ", "), fix)
}
