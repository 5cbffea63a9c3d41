// Package report renders audit records for people and programs: one line
// per event for the headless console, and table, JSON or CSV for
// `teamlead audit`.
package report

import (
	"github.com/teamlead/teamlead/internal/textsafe"

	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// Formats lists the accepted --format values.
var Formats = []string{"table", "json", "csv"}

// Writer writes records in one format; Close flushes.
type Writer interface {
	Write(r store.Record) error
	Close() error
}

// NewWriter returns a Writer for format (table, json or csv).
func NewWriter(w io.Writer, format string) (Writer, error) {
	switch format {
	case "table", "":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "SEQ\tTIME\tKIND\tAGENT\tFROM\tTO\tTYPE\tTASK\tID\tDETAIL")
		return &tableWriter{tw: tw}, nil
	case "json":
		return &jsonWriter{enc: json.NewEncoder(w)}, nil
	case "csv":
		cw := csv.NewWriter(w)
		err := cw.Write(csvHeader)
		return &csvWriter{cw: cw}, err
	}
	return nil, fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

type tableWriter struct{ tw *tabwriter.Writer }

func (t *tableWriter) Write(r store.Record) error {
	detail := Detail(r)
	if r.Fields["error"] == "" {
		// Clipped to keep the table readable; an error is kept whole, as
		// its fix comes last.
		detail = clip(detail, 80)
	}
	_, err := fmt.Fprintf(t.tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", Cells(r.Seq, r.Time.Local().Format("2006-01-02 15:04:05.000"),
		r.Kind, Dash(r.Agent), Dash(r.From), Dash(strings.Join(r.To, ",")), Dash(r.Type), Dash(r.Task), Dash(r.MsgID), detail)...)
	return err
}

// Cells makes each string of a table row one safe line (textsafe.Line): a
// line break or tab an agent put in a field (a progress file's workflow
// id, a task) would otherwise start a row of its own making, one that reads
// as the human's (red team 19b, finding 7).
func Cells(vals ...any) []any {
	for i, v := range vals {
		if s, ok := v.(string); ok {
			vals[i] = textsafe.Line(s)
		}
	}
	return vals
}

func (t *tableWriter) Close() error { return t.tw.Flush() }

// jsonWriter writes one JSON object per line (JSON Lines), so exports stream.
type jsonWriter struct{ enc *json.Encoder }

func (j *jsonWriter) Write(r store.Record) error { return j.enc.Encode(r) }
func (j *jsonWriter) Close() error               { return nil }

var csvHeader = []string{"seq", "time", "kind", "subject", "agent", "from", "to", "type", "task", "msg_id", "body", "reason", "fields"}

type csvWriter struct{ cw *csv.Writer }

func (c *csvWriter) Write(r store.Record) error {
	return c.cw.Write([]string{strconv.FormatUint(r.Seq, 10), r.Time.UTC().Format("2006-01-02T15:04:05.000000000Z07:00"),
		string(r.Kind), r.Subject, r.Agent, r.From, strings.Join(r.To, ","), r.Type, r.Task, r.MsgID, r.Body, r.Reason, fields(r.Fields)})
}

func (c *csvWriter) Close() error {
	c.cw.Flush()
	return c.cw.Error()
}

// Line renders r as one line for the headless console's output.
func Line(r store.Record) string {
	ts := r.Time.Local().Format("15:04:05.000")
	// One line: a tab in an agent's text would draw rows of its own (the
	// ninth red team forged Activity rows with them), so it shows escaped.
	return fmt.Sprintf("%s  %-14s %s", ts, clip(textsafe.Line(string(r.Kind)), 14), clip(textsafe.Line(Summary(r)), 160))
}

// Summary says what r is about in a few words.
func Summary(r store.Record) string {
	tag := strings.TrimSpace(strings.Join(nonEmpty(r.Type, r.Task, r.MsgID), " "))
	if tag != "" {
		tag = "[" + tag + "] "
	}
	switch r.Kind {
	case wire.KindMessage:
		return fmt.Sprintf("%s → %s %s%s", r.From, strings.Join(r.To, ", "), tag, firstLine(r.Body))
	case wire.KindDelivered, wire.KindUndelivered:
		s := "to " + r.Agent // the human's words and notices have no message id
		if r.MsgID != "" {
			s = r.MsgID + " → " + r.Agent
		}
		if k := r.Fields["delivery"]; k != "" {
			s += " (" + k + ")"
		}
		if r.Reason != "" {
			s += ": " + r.Reason
		}
		return s
	case wire.KindAgent:
		s := r.Agent + " " + r.Reason
		if pid := r.Fields["pid"]; pid != "" && pid != "0" {
			s += " pid " + pid
		}
		if code, ok := r.Fields["exit_code"]; ok {
			s += " exit " + code
		}
		if n := r.Fields["restarts"]; n != "" && n != "0" {
			s += " restarts " + n
		}
		if e := r.Fields["error"]; e != "" {
			s += ": " + e
		}
		if iso := r.Fields["isolation"]; iso != "" && iso != "sandbox" {
			s += " (isolation " + iso + ")"
		}
		return s
	case wire.KindHuman:
		return "→ " + r.Agent + ": " + firstLine(r.Body)
	case wire.KindImpersonation:
		return fmt.Sprintf("%s: %s — %s", Impersonator(r.Agent, r.Fields), firstLine(r.Body), firstLine(r.Reason))
	case wire.KindWarning:
		return firstLine(r.Body)
	case wire.KindInbox, wire.KindGap:
		s := r.From + " " + tag
		if t := r.Fields["topic"]; t != "" {
			s += "(" + t + ") "
		}
		return s + firstLine(r.Body)
	}
	return r.Agent + ": " + tag + Detail(r)
}

// Detail is the most telling text of r: its reason, else its body. An
// agent that could not start says why after its state: the audit table is
// where a person looks for it once the console has quit.
func Detail(r store.Record) string {
	if e := r.Fields["error"]; r.Kind == wire.KindAgent && e != "" {
		return firstLine(r.Reason + ": " + e)
	}
	if r.Reason != "" {
		return firstLine(r.Reason)
	}
	return firstLine(r.Body)
}

func nonEmpty(vals ...string) []string {
	var out []string
	for _, v := range vals {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// Dash returns s, or "-" when s is empty, for table cells.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func fields(f map[string]string) string {
	keys := make([]string, 0, len(f))
	for k := range f {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+"="+f[k])
	}
	return strings.Join(parts, " ")
}

// Age renders a duration the way a queue shows it: 12s, 5m, 3h, 2d.
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Impersonator names whose refusal a record is: the agent (or a detached
// process of one), and the process when the record names it (a refusal
// of the sandbox's, a connect to a server of yours, names it in its text).
func Impersonator(agent string, fields map[string]string) string {
	who := agent
	if who == "" {
		who = "an agent's detached process"
	}
	if pid := fields["pid"]; pid != "" && pid != "0" {
		who += ", pid " + pid
		if cmd := fields["cmdline"]; cmd != "" {
			who += " (" + cmd + ")"
		}
	}
	return who
}
