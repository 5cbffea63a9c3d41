package main

import (
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/tasks"
)

func newTasksCmd(g *globals) *cobra.Command {
	var state string
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "tasks [ID]",
		Short: "List tasks and their state (in-progress, in-review, passed, failed, blocked), or show one's history",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := format.check(); err != nil {
				return err
			}
			all, err := listTasks(g)
			if err != nil {
				return err
			}
			var ts []tasks.Task
			for _, t := range all {
				if (len(args) == 0 || t.ID == args[0]) && (state == "" || string(t.State) == state) {
					ts = append(ts, t)
				}
			}
			sort.SliceStable(ts, func(i, j int) bool { return ts[i].Updated.After(ts[j].Updated) })
			if len(args) == 1 && len(ts) == 0 {
				return fmt.Errorf("no task %s", args[0])
			}
			w := cmd.OutOrStdout()
			return printList(w, format, ts, nil, func() error {
				if len(args) == 1 {
					return printTask(w, ts[0])
				}
				return printTasks(w, ts, time.Now())
			})
		},
	}
	format = addFormat(cmd)
	cmd.Flags().StringVar(&state, "status", "", "only tasks in this state: in-progress, in-review, passed, failed or blocked")
	return cmd
}

// listTasks asks the running console, or reads the store.
func listTasks(g *globals) ([]tasks.Task, error) {
	if c, err := g.client(); err == nil {
		return c.Tasks()
	} else if !errors.Is(err, control.ErrNoConsole) {
		return nil, err
	}
	st, err := openReadOnly(g)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	ts, err := readmodel.StoredTasks(st)
	if err != nil {
		return nil, err
	}
	spent, err := readmodel.StoredTaskSpend(st)
	return readmodel.WithSpend(ts, spent), err
}

func printTasks(w io.Writer, ts []tasks.Task, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TASK\tSTATE\tDEVELOPER\tQA\tREVIEWS\tTOKENS\tIN STATE\tLAST")
	count := map[tasks.State]int{}
	for _, t := range ts {
		count[t.State]++
		since, last := t.Created, ""
		if n := len(t.History); n > 0 {
			since, last = t.History[n-1].At, t.History[n-1].Note
		}
		if t.State == tasks.StateInReview && t.LastReview != nil && len(t.LastReview.Missing) > 0 {
			last = "sent back: " + t.LastReview.Missing[0]
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", report.Cells(t.ID, t.State, report.Dash(t.Developer), report.Dash(t.QA), t.Reviews,
			t.Spent(), now.Sub(since).Round(time.Second), clipText(last, 60))...)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	var parts []string
	for _, s := range []tasks.State{tasks.StateInProgress, tasks.StateInReview, tasks.StatePassed, tasks.StateFailed, tasks.StateBlocked} {
		if count[s] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[s], s))
		}
	}
	if len(parts) == 0 {
		parts = []string{"none"}
	}
	_, err := fmt.Fprintf(w, "%s: %s\n", plural(len(ts), "task"), strings.Join(parts, ", "))
	return err
}

func printTask(w io.Writer, t tasks.Task) error {
	fmt.Fprintf(w, "%s  %s  developer %s  QA %s  reviews %d  tokens %s\n", t.ID, t.State, report.Dash(t.Developer), report.Dash(t.QA), t.Reviews, t.Spent())
	for _, h := range t.History {
		fmt.Fprintf(w, "  %s  %s → %s  by %s  %s\n", h.At.Local().Format("2006-01-02 15:04:05"), report.Dash(string(h.From)), h.To, report.Dash(h.By), h.Note)
	}
	if r := t.LastReview; r != nil {
		fmt.Fprintf(w, "last review: %s, %d commands, %d failed\n", report.Dash(string(r.Decision)), len(r.Commands), len(r.Failed()))
		for _, m := range r.Missing {
			fmt.Fprintf(w, "  missing: %s\n", m)
		}
	}
	return nil
}

func clipText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
