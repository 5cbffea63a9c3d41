package report

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/store"
)

// A compliance export (`teamlead audit --export`) documents consultations
// for a reviewer (seed 002, user stories 4 and 5, FR-012..FR-014, SC-008):
// each consultation with its participants, request, every verdict and
// event, conditions, resolution, lineage and the decisions it held, plus a
// header (generation time, period, filters) with summary statistics and
// the records that lack what SC-008 requires.
//
// Formats:
//   - json: one JSON document (an object: header fields, "summary",
//     "incomplete_records", then the arrays "consultations" and
//     "decisions", one element per line), which jq, Python and spreadsheet
//     importers read whole;
//   - csv: RFC 4180, one row per consultation, verdicts, events and
//     decisions flattened into cells one per line; the header and summary
//     are not in it (use json or md for those); a cell that a spreadsheet
//     would take for a formula (starting with = + - @, a tab or a CR) is
//     prefixed with a single quote;
//   - md: a readable report: header, summary tables, incomplete records,
//     one section per consultation, and the decisions.
//
// Consultations are added one at a time and spooled to a temporary file as
// they come, so the header can carry the summary without holding them in
// memory; only the supersedes links, the ids of incomplete records and the
// decision records are kept.

// ExportFormats lists the formats of a compliance export.
var ExportFormats = []string{"json", "csv", "md"}

// ErrExportFormat means an export format is not one of ExportFormats.
var ErrExportFormat = errors.New("unknown export format")

// ExportVersion is the version of the export's layout (json: format_version).
const ExportVersion = 1

// Filter is one filter an export was made with, for its header.
type Filter struct {
	// Name is the filter (agent, decision, ...).
	Name string `json:"name"`
	// Value is what it selected.
	Value string `json:"value"`
}

// ExportInfo is what an export covers, for its header.
type ExportInfo struct {
	// Generated is when the export was made.
	Generated time.Time
	// Since and Until bound the period (zero: open).
	Since, Until time.Time
	// Filters are the filters besides the period.
	Filters []Filter
}

// ExportSummary is the statistics of an export.
type ExportSummary struct {
	// Consultations is how many were exported.
	Consultations int `json:"consultations"`
	// ByStatus counts them by status.
	ByStatus map[string]int `json:"by_status"`
	// ByDecision counts them by decision type.
	ByDecision map[string]int `json:"by_decision"`
	// Mandatory counts the mandatory ones.
	Mandatory int `json:"mandatory"`
	// Answered counts those with at least one verdict.
	Answered int `json:"answered"`
	// Resolved counts those with a resolution time.
	Resolved int `json:"resolved"`
	// MedianToVerdict is the median time from creation to the first verdict.
	MedianToVerdict Duration `json:"median_to_first_verdict"`
	// MedianToResolution is the median time from creation to resolution.
	MedianToResolution Duration `json:"median_to_resolution"`
	// Complete counts the records with everything SC-008 requires.
	Complete int `json:"complete"`
	// Incomplete counts the others; IncompleteOpen of them are still open.
	Incomplete     int `json:"incomplete"`
	IncompleteOpen int `json:"incomplete_open"`
	// DecisionsBlocked and DecisionsFinal count the decision records.
	DecisionsBlocked int `json:"decisions_blocked"`
	DecisionsFinal   int `json:"decisions_final"`
}

// Duration is a time.Duration that reads as text ("1h2m3s") in JSON.
type Duration time.Duration

// MarshalText renders d as time.Duration does.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	*d = Duration(v)
	return err
}

// Incomplete is a record that lacks something SC-008 requires.
type Incomplete struct {
	// ID is the consultation.
	ID string `json:"id"`
	// Status is its status.
	Status string `json:"status"`
	// Open is set while it still waits for a verdict or an answer to concerns.
	Open bool `json:"open"`
	// Missing lists what it lacks.
	Missing []string `json:"missing"`
}

// Exporter writes a compliance export: Add each consultation, newest
// first, then Close.
type Exporter struct {
	w         io.Writer
	format    string
	info      ExportInfo
	decisions []store.Record
	byTriple  map[string][]int // requester/decision/task → indexes in decisions
	spool     *os.File
	spoolW    *bufio.Writer
	supersede map[string]string // id → the id it supersedes
	succeeded map[string]string // id → the id that superseded it
	sum       ExportSummary
	waits     []time.Duration
	resolves  []time.Duration
	missing   []Incomplete
	closed    bool
}

// NewExporter starts an export to w in format (json, csv or md) with the
// decision records (decision-blocked and decision-final, in time order) of
// the same period.
func NewExporter(w io.Writer, format string, info ExportInfo, decisions []store.Record) (*Exporter, error) {
	if !slices.Contains(ExportFormats, format) {
		return nil, fmt.Errorf("%w %q: use one of %s", ErrExportFormat, format, strings.Join(ExportFormats, ", "))
	}
	spool, err := os.CreateTemp("", "teamlead-export-*.jsonl")
	if err != nil {
		return nil, fmt.Errorf("export: spool file: %w", err)
	}
	x := &Exporter{w: w, format: format, info: info, decisions: decisions, byTriple: map[string][]int{},
		spool: spool, spoolW: bufio.NewWriterSize(spool, 256<<10), supersede: map[string]string{}, succeeded: map[string]string{},
		sum: ExportSummary{ByStatus: map[string]int{}, ByDecision: map[string]int{}}}
	for i, r := range decisions {
		k := triple(r.Agent, r.Fields["decision"], r.Task)
		x.byTriple[k] = append(x.byTriple[k], i)
		switch r.Kind {
		case "decision-blocked":
			x.sum.DecisionsBlocked++
		case "decision-final":
			x.sum.DecisionsFinal++
		}
	}
	return x, nil
}

// triple is the key a decision and its consultations share.
func triple(agent, decision, task string) string { return agent + "\x00" + decision + "\x00" + task }

// AddJSON adds one consultation as stored (JSON).
func (x *Exporter) AddJSON(doc []byte) error {
	var c consult.Consultation
	if err := json.Unmarshal(doc, &c); err != nil {
		return fmt.Errorf("export: a stored consultation is unreadable: %w", err)
	}
	x.count(&c)
	if _, err := x.spoolW.Write(doc); err != nil {
		return fmt.Errorf("export: spool: %w", err)
	}
	if err := x.spoolW.WriteByte('\n'); err != nil {
		return fmt.Errorf("export: spool: %w", err)
	}
	return nil
}

// Add adds one consultation.
func (x *Exporter) Add(c consult.Consultation) error {
	doc, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return x.AddJSON(doc)
}

// count adds c to the summary, the lineage links and the incomplete records.
func (x *Exporter) count(c *consult.Consultation) {
	s := &x.sum
	s.Consultations++
	s.ByStatus[string(c.Status)]++
	s.ByDecision[c.Decision]++
	if c.Mandatory {
		s.Mandatory++
	}
	if len(c.Verdicts) > 0 {
		s.Answered++
		x.waits = append(x.waits, c.Verdicts[0].At.Sub(c.Created))
	}
	if at := resolvedAt(c); !at.IsZero() {
		s.Resolved++
		x.resolves = append(x.resolves, at.Sub(c.Created))
	}
	if c.Supersedes != "" {
		x.supersede[c.ID] = c.Supersedes
		x.succeeded[c.Supersedes] = c.ID
	}
	if miss := missing(c); len(miss) > 0 {
		s.Incomplete++
		open := isOpen(c)
		if open {
			s.IncompleteOpen++
		}
		x.missing = append(x.missing, Incomplete{ID: c.ID, Status: string(c.Status), Open: open, Missing: miss})
	} else {
		s.Complete++
	}
}

// isOpen reports whether c still waits for a verdict or an answer to its concerns.
func isOpen(c *consult.Consultation) bool {
	return c.Open() || c.Status == consult.ConcernsRaised
}

// resolvedAt is when c was resolved: its ResolvedAt, or for a record kept
// before that existed, the time of the verdict that closed it.
func resolvedAt(c *consult.Consultation) time.Time {
	if !c.ResolvedAt.IsZero() {
		return c.ResolvedAt
	}
	if n := len(c.Verdicts); n > 0 && !isOpen(c) {
		if v := c.Verdicts[n-1].Verdict; v == consult.Approved || v == consult.Rejected || v == consult.Resolved {
			return c.Verdicts[n-1].At
		}
	}
	return time.Time{}
}

// missing lists what c lacks of SC-008's requesting agent, consulted agent,
// decision context (type and request), response and resolution timestamp.
func missing(c *consult.Consultation) []string {
	var out []string
	if c.Requester == "" {
		out = append(out, "requesting agent")
	}
	if c.Consulted == "" {
		out = append(out, "consulted agent")
	}
	if c.Decision == "" || strings.TrimSpace(c.Body) == "" {
		out = append(out, "decision context")
	}
	if len(c.Verdicts) == 0 {
		out = append(out, "response")
	}
	if resolvedAt(c).IsZero() {
		out = append(out, "resolution timestamp")
	}
	return out
}

// conditions are the conditions and recommendations of c: the bodies of
// the verdicts that let it pass (PROTOCOL.md section 5 puts them there).
func conditions(c *consult.Consultation) []string {
	var out []string
	for _, v := range c.Verdicts {
		if (v.Verdict == consult.Approved || v.Verdict == consult.Resolved) && strings.TrimSpace(v.Body) != "" {
			out = append(out, v.Body)
		}
	}
	return out
}

// lineage is the chain of consultations c supersedes, nearest first.
func (x *Exporter) lineage(c *consult.Consultation) []string {
	var out []string
	for id := c.Supersedes; id != "" && !slices.Contains(out, id) && id != c.ID; id = x.supersede[id] {
		out = append(out, id)
	}
	return out
}

// heldDecisions are the decision records c's requester made about c's
// decision type on c's task.
func (x *Exporter) heldDecisions(c *consult.Consultation) []store.Record {
	var out []store.Record
	for _, i := range x.byTriple[triple(c.Requester, c.Decision, c.Task)] {
		out = append(out, x.decisions[i])
	}
	return out
}

// summary finishes the statistics.
func (x *Exporter) summary() ExportSummary {
	s := x.sum
	s.MedianToVerdict, s.MedianToResolution = Duration(medianOf(x.waits)), Duration(medianOf(x.resolves))
	return s
}

// medianOf is the median of ds (the mean of the middle two for an even count).
func medianOf(ds []time.Duration) time.Duration {
	n := len(ds)
	if n == 0 {
		return 0
	}
	slices.Sort(ds)
	if n%2 == 0 {
		return (ds[n/2-1] + ds[n/2]) / 2
	}
	return ds[n/2]
}

// Close writes the export and removes the spool.
func (x *Exporter) Close() error {
	if x.closed {
		return nil
	}
	x.closed = true
	defer os.Remove(x.spool.Name())
	defer x.spool.Close()
	if err := x.spoolW.Flush(); err != nil {
		return fmt.Errorf("export: spool: %w", err)
	}
	if _, err := x.spool.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("export: spool: %w", err)
	}
	bw := bufio.NewWriterSize(x.w, 256<<10)
	var r renderer
	switch x.format {
	case "json":
		r = &jsonRenderer{x: x, w: bw}
	case "csv":
		r = &csvRenderer{x: x, w: csv.NewWriter(bw)}
	default:
		r = &mdRenderer{x: x, w: bw}
	}
	if err := r.head(); err != nil {
		return err
	}
	sc := bufio.NewScanner(x.spool)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	first := true
	for sc.Scan() {
		var c consult.Consultation
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return fmt.Errorf("export: spool: %w", err)
		}
		if err := r.consultation(&c, first); err != nil {
			return err
		}
		first = false
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("export: spool: %w", err)
	}
	if err := r.tail(); err != nil {
		return err
	}
	return bw.Flush()
}

// renderer writes one format.
type renderer interface {
	head() error
	consultation(c *consult.Consultation, first bool) error
	tail() error
}

// stamp renders a time for an export: UTC, RFC 3339 with nanoseconds; "" when zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// ---- json

// jsonRenderer writes one JSON document.
type jsonRenderer struct {
	x *Exporter
	w *bufio.Writer
}

// exportDoc is the JSON form of one consultation in an export.
type exportDoc struct {
	ID            string          `json:"id"`
	Created       string          `json:"created"`
	Requester     string          `json:"requester"`
	RequesterRole string          `json:"requester_role"`
	Consulted     string          `json:"consulted"`
	ConsultedRole string          `json:"consulted_role"`
	Decision      string          `json:"decision"`
	Task          string          `json:"task"`
	Mandatory     bool            `json:"mandatory"`
	Request       string          `json:"request"`
	Status        string          `json:"status"`
	Verdicts      []exportVerdict `json:"verdicts"`
	Events        []exportEvent   `json:"events"`
	Conditions    []string        `json:"conditions"`
	Resolution    exportResolve   `json:"resolution"`
	Lineage       exportLineage   `json:"lineage"`
	Decisions     []exportDecide  `json:"decisions"`
	Deadline      string          `json:"deadline,omitempty"`
	Escalations   int             `json:"escalations,omitempty"`
	Complete      bool            `json:"complete"`
	Missing       []string        `json:"missing,omitempty"`
}

type exportVerdict struct {
	At      string `json:"at"`
	By      string `json:"by"`
	Verdict string `json:"verdict"`
	Body    string `json:"body"`
}

type exportEvent struct {
	At   string `json:"at"`
	Kind string `json:"kind"`
	By   string `json:"by"`
	To   string `json:"to,omitempty"`
	Body string `json:"body"`
}

type exportResolve struct {
	Status string `json:"status"`
	At     string `json:"at"`
}

type exportLineage struct {
	Supersedes   []string `json:"supersedes"`
	SupersededBy string   `json:"superseded_by,omitempty"`
}

type exportDecide struct {
	At       string `json:"at"`
	Seq      uint64 `json:"seq"`
	Agent    string `json:"agent"`
	Decision string `json:"decision"`
	Task     string `json:"task"`
	Outcome  string `json:"outcome"`
	HeldBy   string `json:"held_by,omitempty"`
	Context  string `json:"context,omitempty"`
}

// outcome names a decision record's result.
func outcome(r store.Record) string {
	return strings.TrimPrefix(string(r.Kind), "decision-")
}

func decideDoc(r store.Record) exportDecide {
	return exportDecide{At: stamp(r.Time), Seq: r.Seq, Agent: r.Agent, Decision: r.Fields["decision"], Task: r.Task,
		Outcome: outcome(r), HeldBy: r.Reason, Context: r.Body}
}

// doc builds the export form of c.
func (x *Exporter) doc(c *consult.Consultation) exportDoc {
	d := exportDoc{ID: c.ID, Created: stamp(c.Created), Requester: c.Requester, RequesterRole: c.RequesterRole,
		Consulted: c.Consulted, ConsultedRole: c.ConsultedRole, Decision: c.Decision, Task: c.Task, Mandatory: c.Mandatory,
		Request: c.Body, Status: string(c.Status), Verdicts: []exportVerdict{}, Events: []exportEvent{},
		Conditions: conditions(c), Resolution: exportResolve{Status: string(c.Status), At: stamp(resolvedAt(c))},
		Lineage: exportLineage{Supersedes: x.lineage(c), SupersededBy: x.succeeded[c.ID]}, Decisions: []exportDecide{},
		Deadline: stamp(c.Deadline), Escalations: c.Escalations, Missing: missing(c)}
	d.Complete = len(d.Missing) == 0
	for _, v := range c.Verdicts {
		d.Verdicts = append(d.Verdicts, exportVerdict{At: stamp(v.At), By: v.By, Verdict: string(v.Verdict), Body: v.Body})
	}
	for _, e := range c.Events {
		d.Events = append(d.Events, exportEvent{At: stamp(e.At), Kind: e.Kind, By: e.By, To: e.To, Body: e.Body})
	}
	for _, r := range x.heldDecisions(c) {
		d.Decisions = append(d.Decisions, decideDoc(r))
	}
	if d.Conditions == nil {
		d.Conditions = []string{}
	}
	if d.Lineage.Supersedes == nil {
		d.Lineage.Supersedes = []string{}
	}
	return d
}

func (j *jsonRenderer) head() error {
	x := j.x
	filters := x.info.Filters
	if filters == nil {
		filters = []Filter{}
	}
	incomplete := x.missing
	if incomplete == nil {
		incomplete = []Incomplete{}
	}
	head := []struct {
		key string
		val any
	}{
		{"export", "teamlead consultation audit"},
		{"format_version", ExportVersion},
		{"generated_at", stamp(x.info.Generated)},
		{"period", map[string]string{"since": stamp(x.info.Since), "until": stamp(x.info.Until)}},
		{"filters", filters},
		{"summary", x.summary()},
		{"incomplete_records", incomplete},
	}
	j.w.WriteString("{\n")
	for _, h := range head {
		v, err := marshal(h.val)
		if err != nil {
			return err
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, v, "  ", "  "); err != nil {
			return err
		}
		fmt.Fprintf(j.w, "  %q: %s,\n", h.key, ind.Bytes())
	}
	_, err := j.w.WriteString("  \"consultations\": [")
	return err
}

func (j *jsonRenderer) consultation(c *consult.Consultation, first bool) error {
	v, err := marshal(j.x.doc(c))
	if err != nil {
		return err
	}
	if !first {
		j.w.WriteByte(',')
	}
	j.w.WriteString("\n    ")
	_, err = j.w.Write(v)
	return err
}

func (j *jsonRenderer) tail() error {
	if j.x.sum.Consultations > 0 {
		j.w.WriteString("\n  ")
	}
	j.w.WriteString("],\n  \"decisions\": [")
	for i, r := range j.x.decisions {
		v, err := marshal(decideDoc(r))
		if err != nil {
			return err
		}
		if i > 0 {
			j.w.WriteByte(',')
		}
		j.w.WriteString("\n    ")
		j.w.Write(v)
	}
	if len(j.x.decisions) > 0 {
		j.w.WriteString("\n  ")
	}
	_, err := j.w.WriteString("]\n}\n")
	return err
}

// marshal is json.Marshal without escaping <, > and & (the export is not HTML).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// ---- csv

// csvRenderer writes one row per consultation.
type csvRenderer struct {
	x *Exporter
	w *csv.Writer
}

// exportCSVHeader is the csv export's header row.
var exportCSVHeader = []string{"id", "created", "requester", "requester_role", "consulted", "consulted_role", "decision", "task",
	"mandatory", "request", "status", "verdict_count", "first_verdict_at", "final_verdict", "final_verdict_by", "final_verdict_at",
	"verdicts", "events", "conditions", "resolved_at", "supersedes", "superseded_by", "decisions", "complete", "missing"}

func (r *csvRenderer) head() error { return r.w.Write(exportCSVHeader) }

func (r *csvRenderer) consultation(c *consult.Consultation, _ bool) error {
	d := r.x.doc(c)
	var firstAt, final, finalBy, finalAt string
	if n := len(d.Verdicts); n > 0 {
		firstAt = d.Verdicts[0].At
		final, finalBy, finalAt = d.Verdicts[n-1].Verdict, d.Verdicts[n-1].By, d.Verdicts[n-1].At
	}
	var verdicts, events, decisions []string
	for _, v := range d.Verdicts {
		verdicts = append(verdicts, fmt.Sprintf("%s %s %s: %s", v.At, v.By, v.Verdict, OneLine(v.Body)))
	}
	for _, e := range d.Events {
		events = append(events, fmt.Sprintf("%s %s %s%s: %s", e.At, e.Kind, e.By, arrow(e.To), OneLine(e.Body)))
	}
	for _, dd := range d.Decisions {
		decisions = append(decisions, decisionLine(dd))
	}
	conds := make([]string, len(d.Conditions))
	for i, s := range d.Conditions {
		conds[i] = OneLine(s)
	}
	row := []string{d.ID, d.Created, d.Requester, d.RequesterRole, d.Consulted, d.ConsultedRole, d.Decision, d.Task,
		strconv.FormatBool(d.Mandatory), d.Request, d.Status, strconv.Itoa(len(d.Verdicts)), firstAt, final, finalBy, finalAt,
		strings.Join(verdicts, "\n"), strings.Join(events, "\n"), strings.Join(conds, "\n"), d.Resolution.At,
		strings.Join(d.Lineage.Supersedes, " "), d.Lineage.SupersededBy, strings.Join(decisions, "\n"),
		strconv.FormatBool(d.Complete), strings.Join(d.Missing, "; ")}
	for i, v := range row {
		row[i] = inert(v)
	}
	if err := r.w.Write(row); err != nil {
		return err
	}
	return r.w.Error()
}

func (r *csvRenderer) tail() error {
	r.w.Flush()
	return r.w.Error()
}

// inert keeps a spreadsheet from reading a cell as a formula.
func inert(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		return "'" + v
	}
	return v
}

// decisionLine renders a decision record on one line.
func decisionLine(d exportDecide) string {
	s := fmt.Sprintf("%s %s %s", d.At, d.Outcome, Dash(d.Decision))
	if d.HeldBy != "" {
		s += " held by " + OneLine(d.HeldBy)
	}
	return s
}

// arrow renders " → to" when to is set.
func arrow(to string) string {
	if to == "" {
		return ""
	}
	return " → " + to
}

// OneLine joins the lines of s with spaces (and collapses its runs of spaces).
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// Flat puts s on one line for a list on the screen: each line break shown
// as ↵, so that two lines never read as one (red team 21b, finding 5: the
// inbox showed "npm install left-pad rm -rf ~" for a request on two
// lines), and runs of spaces collapsed.
func Flat(s string) string {
	s = strings.NewReplacer("\r\n", " ↵ ", "\n", " ↵ ", "\r", " ↵ ").Replace(strings.TrimSpace(s))
	return strings.Join(strings.Fields(s), " ")
}

// ---- md

// mdRenderer writes a readable Markdown report.
type mdRenderer struct {
	x *Exporter
	w *bufio.Writer
}

func (m *mdRenderer) head() error {
	x, w := m.x, m.w
	s := x.summary()
	fmt.Fprintf(w, "# Consultation audit export\n\n")
	fmt.Fprintf(w, "- Generated: %s\n", stamp(x.info.Generated))
	fmt.Fprintf(w, "- Period: %s\n", period(x.info.Since, x.info.Until))
	var fs []string
	for _, f := range x.info.Filters {
		fs = append(fs, fmt.Sprintf("%s = %s", f.Name, f.Value))
	}
	fmt.Fprintf(w, "- Filters: %s\n", orNone(strings.Join(fs, ", ")))
	fmt.Fprintf(w, "- Format version: %d\n\n", ExportVersion)

	fmt.Fprintf(w, "## Summary\n\n| Measure | Value |\n|---|---|\n")
	rows := [][2]string{
		{"Consultations", strconv.Itoa(s.Consultations)},
		{"Complete records (requester, consulted agent, context, response, resolution time)", fmt.Sprintf("%d of %d", s.Complete, s.Consultations)},
		{"Incomplete records", fmt.Sprintf("%d (%d still open)", s.Incomplete, s.IncompleteOpen)},
		{"Mandatory", strconv.Itoa(s.Mandatory)},
		{"Answered (at least one verdict)", strconv.Itoa(s.Answered)},
		{"Resolved", strconv.Itoa(s.Resolved)},
		{"Median time to the first verdict", durationCell(s.MedianToVerdict, s.Answered)},
		{"Median time to resolution", durationCell(s.MedianToResolution, s.Resolved)},
		{"Decisions blocked", strconv.Itoa(s.DecisionsBlocked)},
		{"Decisions final", strconv.Itoa(s.DecisionsFinal)},
	}
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s |\n", r[0], r[1])
	}
	countTable(w, "Status", s.ByStatus)
	countTable(w, "Decision type", s.ByDecision)

	fmt.Fprintf(w, "\n## Incomplete records\n\n")
	if len(x.missing) == 0 {
		fmt.Fprintf(w, "None: every record has its requesting agent, consulted agent, decision context, response and resolution timestamp.\n")
	} else {
		fmt.Fprintf(w, "| ID | Status | Open | Missing |\n|---|---|---|---|\n")
		for _, in := range x.missing {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", cell(in.ID), cell(in.Status), yesNo(in.Open), cell(strings.Join(in.Missing, ", ")))
		}
	}
	_, err := fmt.Fprintf(w, "\n## Consultations\n")
	return err
}

func (m *mdRenderer) consultation(c *consult.Consultation, _ bool) error {
	d, w := m.x.doc(c), m.w
	fmt.Fprintf(w, "\n### %s — %s, %s\n\n", d.ID, orNone(d.Decision), d.Status)
	fields := [][2]string{
		{"Requester", who(d.Requester, d.RequesterRole)},
		{"Consulted", who(d.Consulted, d.ConsultedRole)},
		{"Decision", orNone(d.Decision)},
		{"Task", orNone(d.Task)},
		{"Mandatory", yesNo(d.Mandatory)},
		{"Created", d.Created},
		{"Resolution", resolution(d.Resolution)},
	}
	if d.Deadline != "" {
		fields = append(fields, [2]string{"Deadline", d.Deadline})
	}
	if d.Escalations > 0 {
		fields = append(fields, [2]string{"Escalations", strconv.Itoa(d.Escalations)})
	}
	lineage := "supersedes " + orNone(strings.Join(d.Lineage.Supersedes, " ← "))
	if d.Lineage.SupersededBy != "" {
		lineage += "; superseded by " + d.Lineage.SupersededBy
	}
	fields = append(fields, [2]string{"Lineage", lineage})
	if !d.Complete {
		fields = append(fields, [2]string{"Incomplete", strings.Join(d.Missing, ", ")})
	}
	for _, f := range fields {
		fmt.Fprintf(w, "- %s: %s\n", f[0], mdText(f[1]))
	}
	fmt.Fprintf(w, "\nRequest:\n\n%s\n", quote(d.Request))
	if len(d.Verdicts) > 0 {
		fmt.Fprintf(w, "\n| Verdict at | By | Verdict | Body |\n|---|---|---|---|\n")
		for _, v := range d.Verdicts {
			fmt.Fprintf(w, "| %s | %s | %s | %s |\n", v.At, cell(v.By), cell(v.Verdict), cell(v.Body))
		}
	} else {
		fmt.Fprintf(w, "\nNo verdict yet.\n")
	}
	if len(d.Events) > 0 {
		fmt.Fprintf(w, "\n| Event at | Kind | By | To | Body |\n|---|---|---|---|---|\n")
		for _, e := range d.Events {
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", e.At, cell(e.Kind), cell(e.By), cell(Dash(e.To)), cell(e.Body))
		}
	}
	if len(d.Conditions) > 0 {
		fmt.Fprintf(w, "\nConditions and recommendations:\n\n")
		for _, c := range d.Conditions {
			fmt.Fprintf(w, "- %s\n", mdText(OneLine(c)))
		}
	}
	if len(d.Decisions) > 0 {
		fmt.Fprintf(w, "\nDecisions by %s on %s for %s:\n\n", mdText(d.Requester), mdText(orNone(d.Decision)), mdText(orNone(d.Task)))
		for _, dd := range d.Decisions {
			fmt.Fprintf(w, "- %s\n", mdText(decisionLine(dd)))
		}
	}
	return nil
}

func (m *mdRenderer) tail() error {
	w := m.w
	fmt.Fprintf(w, "\n## Decisions\n\n")
	if len(m.x.decisions) == 0 {
		_, err := fmt.Fprintf(w, "None in the period.\n")
		return err
	}
	fmt.Fprintf(w, "| At | Seq | Agent | Decision | Task | Outcome | Held by |\n|---|---|---|---|---|---|---|\n")
	for _, r := range m.x.decisions {
		d := decideDoc(r)
		fmt.Fprintf(w, "| %s | %d | %s | %s | %s | %s | %s |\n", d.At, d.Seq, cell(d.Agent), cell(Dash(d.Decision)), cell(Dash(d.Task)),
			cell(d.Outcome), cell(Dash(d.HeldBy)))
	}
	return nil
}

// countTable writes a two-column table of counts, largest first.
func countTable(w io.Writer, title string, counts map[string]int) {
	if len(counts) == 0 {
		return
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return counts[keys[i]] > counts[keys[j]] || counts[keys[i]] == counts[keys[j]] && keys[i] < keys[j]
	})
	fmt.Fprintf(w, "\n| %s | Count |\n|---|---|\n", title)
	for _, k := range keys {
		fmt.Fprintf(w, "| %s | %d |\n", cell(orNone(k)), counts[k])
	}
}

// period renders an export's period.
func period(since, until time.Time) string {
	switch {
	case since.IsZero() && until.IsZero():
		return "all time"
	case until.IsZero():
		return "from " + stamp(since)
	case since.IsZero():
		return "until " + stamp(until) + " (exclusive)"
	}
	return "from " + stamp(since) + " until " + stamp(until) + " (exclusive)"
}

func durationCell(d Duration, n int) string {
	if n == 0 {
		return "-"
	}
	return time.Duration(d).String()
}

func resolution(r exportResolve) string {
	if r.At == "" {
		return r.Status + ", not resolved"
	}
	return r.Status + " at " + r.At
}

func who(name, role string) string {
	if role == "" {
		return orNone(name)
	}
	return orNone(name) + " (" + role + ")"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// mdEscaper escapes Markdown's inline syntax (a Replacer is immutable).
var mdEscaper = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "<", "&lt;", "[", `\[`, "]", `\]`, "|", `\|`)

// mdText escapes text for Markdown, on one line (also fit for a table cell).
func mdText(s string) string { return mdEscaper.Replace(OneLine(s)) }

// cell is mdText for a table cell.
func cell(s string) string { return mdText(s) }

// quote renders text as a Markdown block quote, line by line.
func quote(s string) string {
	if strings.TrimSpace(s) == "" {
		return "> (empty)"
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+strings.ReplaceAll(l, "<", "&lt;"), " ")
	}
	return strings.Join(lines, "\n")
}
