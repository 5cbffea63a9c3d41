package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
)

func newInboxCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "inbox",
		Short: "List what waits for you: blockers sent to team-lead, workflows to resume (questions: teamlead questions)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			items, err := inboxItems(g)
			if err != nil {
				return err
			}
			return printInbox(cmd.OutOrStdout(), items, time.Now())
		},
	}
}

func inboxItems(g *globals) ([]lead.InboxItem, error) {
	c, err := g.client()
	if err == nil {
		return c.Inbox()
	}
	if !errors.Is(err, control.ErrNoConsole) {
		return nil, err
	}
	st, err := openReadOnly(g)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	var recs []store.Record
	err = st.Scan(store.Query{}, func(r store.Record) error {
		if r.Kind == lead.KindInbox || r.Kind == lead.KindAnswered {
			recs = append(recs, r)
		}
		return nil
	})
	return lead.RestoreInbox(recs), err
}

func printInbox(w io.Writer, items []lead.InboxItem, now time.Time) error {
	if len(items) == 0 {
		_, err := fmt.Fprintln(w, "nothing waits for you")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tFROM\tTYPE\tTASK\tAGE\tTEXT")
	for _, it := range items {
		text := strings.ReplaceAll(strings.TrimSpace(it.Body), "\n", " ")
		if topic := it.Extra["topic"]; topic != "" {
			text = "(" + topic + ") " + text
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", it.ID, it.From, it.Type, report.Dash(it.Task), report.Age(now.Sub(it.Since)), text)
	}
	return tw.Flush()
}
