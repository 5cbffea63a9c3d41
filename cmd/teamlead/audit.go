package main

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
)

type auditFlags struct {
	agent, task, typ, kind string
	since, until           string
	format                 *formatFlag
	limit                  int
	follow                 bool
	compliance             bool
	newest                 bool
	export                 bool
	out                    string
	decision, status       string
	nats, team             string
}

func newAuditCmd(g *globals) *cobra.Command {
	f := &auditFlags{}
	cmd := &cobra.Command{
		Use:   "audit",
		Short: "Show the audit trail: messages, deliveries, refusals, agent lifecycle; or export consultations for compliance",
		Long: "Audit prints the append-only audit log, filtered. --since and --until take RFC 3339\n" +
			"(2026-11-21T10:00:00Z), a date (2026-11-21), or a duration meaning that long ago (90m, 7d).\n\n" +
			"--export writes a compliance export of the consultations created in the period:\n" +
			"each with its participants, request, verdicts, events, conditions, resolution, lineage and\n" +
			"the decisions it held, under a header with the period, the filters, the time of the export,\n" +
			"summary statistics and the consultations missing an agent, their decision, a response or a\n" +
			"resolution time. --format md (the default), json (one document) or csv (one row per\n" +
			"consultation, no header block); --out FILE writes the file atomically. Filters: --agent, --task, --decision, --status, --since, --until.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.export {
				return exportAudit(cmd, g, f)
			}
			return audit(cmd, g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.agent, "agent", "", "only records about this agent (as sender, recipient or subject)")
	fl.StringVar(&f.task, "task", "", "only this task")
	fl.StringVar(&f.typ, "type", "", "only this message type (question, status, ...)")
	fl.StringVar(&f.kind, "kind", "", "only this record kind (message, delivered, refusal, reformat, inbox, human, agent, ...)")
	fl.StringVar(&f.since, "since", "", "from this time on")
	fl.StringVar(&f.until, "until", "", "before this time")
	f.format = addFormat(cmd, "csv")
	fl.Lookup("format").Usage = "table, json (one object a line) or csv; with --export: md, json or csv"
	fl.IntVar(&f.limit, "limit", 0, "at most this many records (0: all)")
	fl.BoolVar(&f.newest, "newest", false, "newest first (with --limit: the latest records)")
	fl.BoolVar(&f.follow, "follow", false, "keep printing new records as they happen (needs a running console)")
	fl.BoolVar(&f.export, "export", false, "write a compliance export of the consultations (see above)")
	fl.BoolVar(&f.compliance, "compliance", false, "check that the Team Lead only assigned, relayed, reported status, requested approval and closed")
	fl.StringVar(&f.out, "out", "", "with --export: write to this file (atomically) instead of stdout")
	fl.StringVar(&f.decision, "decision", "", "with --export: only this decision type")
	fl.StringVar(&f.status, "status", "", "with --export: only consultations with this status")
	fl.StringVar(&f.nats, "nats", "", "read the team's records from this NATS server (where its console publishes them), e.g. on another machine (env TEAMLEAD_NATS)")
	fl.StringVar(&f.team, "team", "", "with --nats: the team's name on NATS (default: the team file's bus.name)")
	return cmd
}

// compliance prints seed 001's compliance check over the records matching
// the filters; it fails when the Team Lead did anything else.
func compliance(cmd *cobra.Command, g *globals, q store.Query) error {
	src, err := openSource(g)
	if err != nil {
		return err
	}
	defer src.close()
	c := report.NewCompliance()
	if err := src.scan(q, c.Add); err != nil {
		return err
	}
	if err := report.WriteCompliance(cmd.OutOrStdout(), *c); err != nil {
		return err
	}
	if len(c.Violations) > 0 {
		return fmt.Errorf("%d Team Lead actions outside the permitted ones", len(c.Violations))
	}
	return nil
}

func audit(cmd *cobra.Command, g *globals, f *auditFlags) error {
	if f.out != "" || f.decision != "" || f.status != "" {
		return errors.New("--out, --decision and --status go with --export; add --export, or leave them out")
	}
	now := time.Now()
	q := store.Query{Agent: f.agent, Task: f.task, Type: f.typ, Kind: wire.Kind(f.kind), Limit: f.limit, Reverse: f.newest}
	var err error
	if q.Since, err = parseWhen(f.since, now); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if q.Until, err = parseWhen(f.until, now); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	if f.follow && f.newest {
		return errors.New("--follow prints records as they come: leave out --newest")
	}
	if f.compliance {
		return compliance(cmd, g, q)
	}
	if err := f.format.check(); err != nil {
		return err
	}
	w, err := report.NewWriter(cmd.OutOrStdout(), f.format.value)
	if err != nil {
		return fmt.Errorf("--format: %w", err)
	}
	if f.nats != "" || os.Getenv("TEAMLEAD_NATS") != "" {
		if err := auditNATS(cmd.Context(), g, f, q, w.Write, w.Close); err != nil {
			return err
		}
		return w.Close()
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

// source answers audit and consultation queries: the running console over
// its socket, or else the store opened read-only.
type source struct {
	c  *control.Client
	st *store.Store
}

// openSource finds the running console, or opens the store read-only.
func openSource(g *globals) (*source, error) {
	c, err := g.client()
	if err == nil {
		return &source{c: c}, nil
	}
	if !errors.Is(err, control.ErrNoConsole) {
		return nil, err
	}
	st, err := openReadOnly(g)
	if err != nil {
		return nil, err
	}
	return &source{st: st}, nil
}

// scan streams the audit records matching q.
func (s *source) scan(q store.Query, fn func(store.Record) error) error {
	if s.c != nil {
		return s.c.Audit(q, fn)
	}
	return s.st.Scan(q, fn)
}

// consults streams the consultations matching f (readmodel.ScanConsultations).
func (s *source) consults(f readmodel.ConsultFilter, fn func(doc []byte) error) (readmodel.ConsultStats, error) {
	if s.c != nil {
		return s.c.QueryConsults(f, fn)
	}
	return readmodel.ScanConsultations(s.st, f, fn)
}

// close releases the store, if one was opened.
func (s *source) close() {
	if s.st != nil {
		s.st.Close()
	}
}

// exportAudit writes the compliance export of the consultations.
func exportAudit(cmd *cobra.Command, g *globals, f *auditFlags) error {
	switch {
	case f.follow || f.newest || f.limit != 0 || f.kind != "" || f.typ != "":
		return errors.New("--export covers whole consultations: leave out --follow, --newest, --limit, --kind and --type")
	}
	format := f.format.value
	if !cmd.Flags().Changed("format") {
		format = "md"
	}
	if !slices.Contains(report.ExportFormats, format) {
		return fmt.Errorf("--format: %q: an export is %s", format, strings.Join(report.ExportFormats, ", "))
	}
	now := time.Now()
	cf := readmodel.ConsultFilter{Agent: f.agent, Decision: f.decision, Status: consult.Status(f.status)}
	var err error
	if cf.Since, err = parseWhen(f.since, now); err != nil {
		return fmt.Errorf("--since: %w", err)
	}
	if cf.Until, err = parseWhen(f.until, now); err != nil {
		return fmt.Errorf("--until: %w", err)
	}
	info := report.ExportInfo{Generated: now, Since: cf.Since, Until: cf.Until}
	for _, fl := range []report.Filter{{Name: "agent", Value: f.agent}, {Name: "task", Value: f.task},
		{Name: "decision", Value: f.decision}, {Name: "status", Value: f.status}} {
		if fl.Value != "" {
			info.Filters = append(info.Filters, fl)
		}
	}
	src, err := openSource(g)
	if err != nil {
		return err
	}
	defer src.close()
	decisions, err := decisionRecords(src, cf, f.task)
	if err != nil {
		return err
	}
	write := func(w io.Writer) error {
		x, err := report.NewExporter(w, format, info, decisions)
		if err != nil {
			return err
		}
		_, err = src.consults(cf, func(doc []byte) error {
			if f.task != "" {
				var t struct {
					Task string `json:"task"`
				}
				if err := json.Unmarshal(doc, &t); err != nil || t.Task != f.task {
					return err
				}
			}
			return x.AddJSON(doc)
		})
		if cerr := x.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if f.out == "" {
		return write(cmd.OutOrStdout())
	}
	return writeAtomic(f.out, write)
}

// decisionRecords reads the decision-blocked and decision-final records of
// the export's period and filters, in the order they were made.
func decisionRecords(src *source, cf readmodel.ConsultFilter, task string) ([]store.Record, error) {
	var out []store.Record
	for _, kind := range []wire.Kind{wire.KindDecisionBlocked, wire.KindDecisionFinal} {
		q := store.Query{Kind: kind, Agent: cf.Agent, Task: task, Since: cf.Since, Until: cf.Until}
		err := src.scan(q, func(r store.Record) error {
			if cf.Decision == "" || r.Fields["decision"] == cf.Decision {
				out = append(out, r)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the decisions: %w", err)
		}
	}
	slices.SortFunc(out, func(a, b store.Record) int { return cmp.Compare(a.Seq, b.Seq) })
	return out, nil
}

// writeAtomic writes path through write into a temporary file beside it,
// synced and then renamed over path, so a reader never sees half a file.
func writeAtomic(path string, write func(io.Writer) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("--out: %w (check the folder exists and is writable)", err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing to remove
	if err := write(tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("--out: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("--out: %w", err)
	}
	return nil
}

// parseWhen reads a time bound: RFC 3339, a date, or a duration ago.
func parseWhen(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := parseAgo(s); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: use RFC 3339 (2026-11-21T10:00:00Z), a date (2026-11-21) or a duration ago (90m, 7d)", s)
}

// parseAgo reads a Go duration, also with whole days first: 7d, 1d12h.
func parseAgo(s string) (time.Duration, error) {
	days, rest, ok := strings.Cut(s, "d")
	if !ok {
		return time.ParseDuration(s)
	}
	n, err := strconv.Atoi(days)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q: not a number of days", s)
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest == "" {
		return d, nil
	}
	r, err := time.ParseDuration(rest)
	return d + r, err
}
