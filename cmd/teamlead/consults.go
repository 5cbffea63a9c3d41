package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/report"
)

type consultFlags struct {
	agent, decision, status, since, until, format string
}

func newConsultsCmd(g *globals) *cobra.Command {
	f := &consultFlags{}
	cmd := &cobra.Command{
		Use:   "consults",
		Short: "List consultations (seed 002), newest first, with summary statistics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			since, err := parseWhen(f.since, now)
			if err != nil {
				return fmt.Errorf("--since: %w", err)
			}
			until, err := parseWhen(f.until, now)
			if err != nil {
				return fmt.Errorf("--until: %w", err)
			}
			all, err := listConsults(g)
			if err != nil {
				return err
			}
			var cs []consult.Consultation
			for _, c := range all {
				if (f.agent == "" || c.Requester == f.agent || c.Consulted == f.agent) && (f.decision == "" || c.Decision == f.decision) &&
					(f.status == "" || string(c.Status) == f.status) && (since.IsZero() || !c.Created.Before(since)) && (until.IsZero() || c.Created.Before(until)) {
					cs = append(cs, c)
				}
			}
			if f.format == "json" {
				enc := json.NewEncoder(cmd.OutOrStdout())
				for _, c := range cs {
					if err := enc.Encode(c); err != nil {
						return err
					}
				}
				return nil
			}
			if f.format != "table" {
				return fmt.Errorf("--format: %q: use table or json", f.format)
			}
			return printConsults(cmd.OutOrStdout(), cs, now)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "only consultations this agent asked or was asked")
	fl.StringVar(&f.decision, "decision", "", "only this decision type (infrastructure, code-complete, ...)")
	fl.StringVar(&f.status, "status", "", "pending, approved, concerns-raised, rejected, resolved or superseded")
	fl.StringVar(&f.since, "since", "", "from this time on")
	fl.StringVar(&f.until, "until", "", "before this time")
	fl.StringVar(&f.format, "format", "table", "table or json (one per line)")
	return cmd
}

func printConsults(w io.Writer, cs []consult.Consultation, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tDECISION\tTASK\tREQUESTER\tCONSULTED\tAGE\tMANDATORY\tSUPERSEDES\tLAST WORD")
	count := map[consult.Status]int{}
	for _, c := range cs {
		count[c.Status]++
		last := c.Body
		if n := len(c.Verdicts); n > 0 {
			last = c.Verdicts[n-1].Body
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\n", c.ID, c.Status, c.Decision, report.Dash(c.Task), c.Requester,
			c.Consulted+" ("+c.ConsultedRole+")", report.Age(now.Sub(c.Created)), c.Mandatory, report.Dash(c.Supersedes),
			strings.Join(strings.Fields(last), " "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var parts []string
	for _, s := range []consult.Status{consult.Pending, consult.Approved, consult.ConcernsRaised, consult.Rejected, consult.Resolved, consult.Superseded} {
		if count[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[s], s))
		}
	}
	_, err := fmt.Fprintf(w, "%d consultations: %s\n", len(cs), strings.Join(parts, ", "))
	return err
}

// listConsults asks the running console, or reads the store.
func listConsults(g *globals) ([]consult.Consultation, error) {
	if c, err := g.client(); err == nil {
		return c.Consults()
	} else if !errors.Is(err, control.ErrNoConsole) {
		return nil, err
	}
	st, err := openReadOnly(g)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return engine.StoredConsultations(st)
}
