package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
)

type consultFlags struct {
	agent, decision, status, since, until string
	format                                *formatFlag
	limit                                 int
}

func newConsultsCmd(g *globals) *cobra.Command {
	f := &consultFlags{}
	cmd := &cobra.Command{
		Use:   "consults",
		Short: "List consultations (one agent's request for another role's review of a decision), newest first, with summary statistics",
		Long: "Consults lists consultations, newest first, and summarises every one that matched\n" +
			"(also those past --limit). --since and --until bound the creation time and take RFC 3339\n" +
			"(2026-11-21T10:00:00Z), a date (2026-11-21), or a duration meaning that long ago (90m, 7d).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			now := time.Now()
			filter, err := f.filter(now)
			if err != nil {
				return err
			}
			if err := f.format.check(); err != nil {
				return err
			}
			var cs []consult.Consultation
			stats, err := queryConsults(g, filter, func(doc []byte) error {
				if f.format.json() {
					// Stored with the JSON a listing prints (snake_case, zero
					// times left out): passed through as it is.
					_, err := fmt.Fprintf(cmd.OutOrStdout(), "%s\n", doc)
					return err
				}
				var c consult.Consultation
				if err := json.Unmarshal(doc, &c); err != nil {
					return fmt.Errorf("a stored consultation is unreadable: %w", err)
				}
				cs = append(cs, c)
				return nil
			})
			if err != nil || f.format.json() {
				return err
			}
			return printConsults(cmd.OutOrStdout(), cs, stats, now)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "only consultations this agent asked or was asked")
	fl.StringVar(&f.decision, "decision", "", "only this decision type (infrastructure, code-complete, ...)")
	fl.StringVar(&f.status, "status", "", "pending, escalated, approved, concerns-raised, rejected, resolved or superseded")
	fl.StringVar(&f.since, "since", "", "created from this time on")
	fl.StringVar(&f.until, "until", "", "created before this time")
	f.format = addFormat(cmd)
	fl.IntVar(&f.limit, "limit", 100, "list at most this many, the newest (0: all); the summary counts every match")
	return cmd
}

// filter turns the flags into a query.
func (f *consultFlags) filter(now time.Time) (readmodel.ConsultFilter, error) {
	q := readmodel.ConsultFilter{Agent: f.agent, Decision: f.decision, Status: consult.Status(f.status), Limit: f.limit}
	var err error
	if q.Since, err = parseWhen(f.since, now); err != nil {
		return q, fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(f.until, now); err != nil {
		return q, fmt.Errorf("--until: %w", err)
	}
	if f.limit < 0 {
		return q, fmt.Errorf("--limit: %d: use 0 (all) or more", f.limit)
	}
	return q, nil
}

func printConsults(w io.Writer, cs []consult.Consultation, stats readmodel.ConsultStats, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATUS\tDECISION\tTASK\tREQUESTER\tCONSULTED\tAGE\tMANDATORY\tSUPERSEDES\tLAST WORD")
	for _, c := range cs {
		last := c.Body
		if n := len(c.Verdicts); n > 0 {
			last = c.Verdicts[n-1].Body
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%v\t%s\t%s\n", report.Cells(c.ID, c.Status, c.Decision, report.Dash(c.Task), c.Requester,
			c.Consulted+" ("+c.ConsultedRole+")", report.Age(now.Sub(c.Created)), c.Mandatory, report.Dash(c.Supersedes),
			strings.Join(strings.Fields(last), " "))...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, consultSummary(stats, len(cs)))
	return err
}

// consultSummary is the line under the table: the counts of every match.
func consultSummary(stats readmodel.ConsultStats, listed int) string {
	statusOrder := []consult.Status{consult.Pending, consult.Escalated, consult.Approved, consult.ConcernsRaised,
		consult.Rejected, consult.Resolved, consult.Superseded}
	var parts []string
	for _, s := range statusOrder {
		if stats.ByStatus[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", stats.ByStatus[s], s))
		}
	}
	var others []string
	for s, n := range stats.ByStatus {
		if !slices.Contains(statusOrder, s) && n > 0 {
			others = append(others, fmt.Sprintf("%d %s", n, report.Dash(string(s))))
		}
	}
	slices.Sort(others)
	line := fmt.Sprintf("%s: %s", plural(stats.Matched, "consultation"), strings.Join(append(parts, others...), ", "))
	if stats.Matched > 0 {
		line += fmt.Sprintf("; %d mandatory", stats.Mandatory)
	}
	if stats.Answered > 0 {
		line += fmt.Sprintf("; median time to the first verdict %s over %d answered", stats.MedianToVerdict.Round(time.Second), stats.Answered)
	}
	if listed < stats.Matched {
		line += fmt.Sprintf(" (the newest %d listed; --limit 0 lists all)", listed)
	}
	return line
}

// queryConsults asks the running console, or reads the store; both answer
// with readmodel.ScanConsultations.
func queryConsults(g *globals, f readmodel.ConsultFilter, fn func(doc []byte) error) (readmodel.ConsultStats, error) {
	src, err := openSource(g)
	if err != nil {
		return readmodel.ConsultStats{}, err
	}
	defer src.close()
	return src.consults(f, fn)
}
