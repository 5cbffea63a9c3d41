package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
)

type auditFlags struct {
	agent, task, typ, kind string
	since, until           string
	format                 string
	limit                  int
	follow                 bool
}

func newAuditCmd(g *globals) *cobra.Command {
	f := &auditFlags{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit trail: messages, deliveries, refusals, agent lifecycle",
		Long: "Audit prints the append-only audit log, filtered. --since and --until take RFC 3339\n" +
			"(2026-11-21T10:00:00Z), a date (2026-11-21), or a duration meaning that long ago (90m).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return audit(cmd, g, f) },
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "only records about this agent (as sender, recipient or subject)")
	fl.StringVar(&f.task, "task", "", "only this task")
	fl.StringVar(&f.typ, "type", "", "only this message type (question, status, ...)")
	fl.StringVar(&f.kind, "kind", "", "only this record kind (message, delivered, refusal, reformat, inbox, human, agent, ...)")
	fl.StringVar(&f.since, "since", "", "from this time on")
	fl.StringVar(&f.until, "until", "", "before this time")
	fl.StringVar(&f.format, "format", "table", "table, json (one object per line) or csv")
	fl.IntVar(&f.limit, "limit", 0, "at most this many records (0: all)")
	fl.BoolVar(&f.follow, "follow", false, "keep printing new records as they happen (needs a running console)")
	return cmd
}

func audit(cmd *cobra.Command, g *globals, f *auditFlags) error {
	now := time.Now()
	q := store.Query{Agent: f.agent, Task: f.task, Type: f.typ, Kind: f.kind, Limit: f.limit}
	var err error
	if q.Since, err = parseWhen(f.since, now); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(f.until, now); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	w, err := report.NewWriter(cmd.OutOrStdout(), f.format)
	if err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	c, err := g.client()
	switch {
	case err == nil && f.follow:
		q.Limit = 0
		err = c.Watch(">", q, func(r store.Record) error {
			if err := w.Write(r); err != nil {
				return err
			}
			return w.Close() // flush each line while following
		})
	case err == nil:
		err = c.Audit(q, w.Write)
	case errors.Is(err, control.ErrNoConsole) && !f.follow:
		var st *store.Store
		if st, err = openReadOnly(g); err == nil {
			err = st.Scan(q, w.Write)
			st.Close()
		}
	case errors.Is(err, control.ErrNoConsole):
		return fmt.Errorf("--follow needs a running console: %w", err)
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return err
}

// parseWhen reads a time bound: RFC 3339, a date, or a duration ago.
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: use RFC 3339 (2026-11-21T10:00:00Z), a date (2026-11-21) or a duration ago (90m)", s)
}
