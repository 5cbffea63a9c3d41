package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/internal/store"
)

// AuditOptions size the audit figures: a store of Records audit records
// and Consultations consultations spread over Days, queried Runs times
// each, and Export consultations exported.
type AuditOptions struct {
	// Dir is where the store is built (removed by the caller).
	Dir string
	// Records is how many audit records the store holds.
	Records int
	// Consultations is how many consultations it holds.
	Consultations int
	// Days is the span of their times, ending now.
	Days int
	// Runs is how many times each query is timed.
	Runs int
	// Export is about how many consultations the export figures export.
	Export int
	// Seed seeds the generated history.
	Seed int64
}

// AuditResult is the audit and consultation query latency with a large
// store, against reading one meta key of the same store, and the export speed.
type AuditResult struct {
	// Records, Consultations and Days describe the store.
	Records, Consultations, Days int
	// StoreBytes is the store's size on disk.
	StoreBytes int64
	// Build is how long building the store took.
	Build time.Duration
	// Baseline is reading one meta key (Store.Meta): a transaction and a
	// point read, the least any query costs.
	Baseline Summary
	// Queries are the timed queries.
	Queries []QueryFigure
	// Exports are the export figures.
	Exports []ExportFigure
}

// QueryFigure is one timed query.
type QueryFigure struct {
	// Name says what the query asks.
	Name string
	// Latency is its distribution over the runs.
	Latency Summary
	// Returned is how many items it returned; Matched how many matched
	// (what the statistics count), -1 when it keeps no statistics.
	Returned, Matched int
	// Target is the highest acceptable p99.
	Target time.Duration
}

// ExportFigure is one export's speed.
type ExportFigure struct {
	// Format is md, csv or json.
	Format string
	// Consultations is how many were exported, Bytes the file's size.
	Consultations int
	Bytes         int64
	// Took is the time from the query to the file closed.
	Took time.Duration
}

// BytesPerSec is the export's output rate.
func (e ExportFigure) BytesPerSec() float64 { return float64(e.Bytes) / e.Took.Seconds() }

// auditAgents is the generated team: name and role.
var auditAgents = [][2]string{{"pm", "pm"}, {"arch", "architect"}, {"sec", "security"}, {"design", "designer"},
	{"dev1", "developer"}, {"dev2", "developer"}, {"dev3", "developer"}, {"review", "review"}, {"testing", "testing"},
	{"qa", "qa"}, {"writer", "writer"}, {"ops", "developer"}}

// auditKinds is the mix of record kinds, with weights.
var auditKinds = []struct {
	kind   wire.Kind
	typ    string
	weight int
}{
	{"message", "status", 30}, {"message", "task", 8}, {"message", "question", 6}, {"message", "answer", 6},
	{"delivered", "", 25}, {"consult", "consult", 6}, {"decision-blocked", "decision", 2}, {"decision-final", "decision", 2},
	{"refusal", "", 3}, {"reformat", "", 3}, {"agent", "", 2}, {"human", "", 2}, {"inbox", "question", 5},
}

// MeasureAudit builds the store and times the queries and exports.
func MeasureAudit(o AuditOptions, progress io.Writer) (*AuditResult, error) {
	if progress == nil {
		progress = io.Discard
	}
	res := &AuditResult{Records: o.Records, Consultations: o.Consultations, Days: o.Days}
	dir := filepath.Join(o.Dir, "audit-store")
	now := time.Now()
	start := time.Now()
	if err := buildAuditStore(dir, o, now); err != nil {
		return nil, err
	}
	res.Build = time.Since(start)
	res.StoreBytes = dirSize(dir)
	fmt.Fprintf(progress, "tlbench:   built in %.1f s (%.0f MB)\n", res.Build.Seconds(), float64(res.StoreBytes)/1e6)
	st, err := store.Open(dir, store.Options{ReadOnly: true})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	if _, ok := st.MetaIndexOf(lead.MetaConsult); !ok {
		return nil, fmt.Errorf("the consultation index was not built")
	}
	if err := res.timeQueries(st, o, now); err != nil {
		return nil, err
	}
	for _, format := range []string{"md", "csv"} {
		fig, err := timeExport(st, filepath.Join(o.Dir, "export."+format), format, o, now)
		if err != nil {
			return nil, err
		}
		res.Exports = append(res.Exports, fig)
	}
	return res, nil
}

// auditQuery is one query of the figures; run returns what it returned and matched.
type auditQuery struct {
	name   string
	target time.Duration
	run    func() (returned, matched int, err error)
}

// timeQueries times each query Runs times, interleaved with the baseline.
func (r *AuditResult) timeQueries(st *store.Store, o AuditOptions, now time.Time) error {
	day := 24 * time.Hour
	audit := func(q store.Query) func() (int, int, error) {
		return func() (int, int, error) {
			recs, err := st.Query(q)
			return len(recs), -1, err
		}
	}
	consults := func(f readmodel.ConsultFilter) func() (int, int, error) {
		return func() (int, int, error) {
			cs, stats, err := readmodel.QueryConsultations(st, f)
			return len(cs), stats.Matched, err
		}
	}
	queries := []auditQuery{
		{"audit --agent dev2 --since 7d --newest --limit 100", AuditTarget,
			audit(store.Query{Agent: "dev2", Since: now.Add(-7 * day), Reverse: true, Limit: 100})},
		{"audit --agent sec --kind consult --since 47d --until 40d --newest --limit 100", AuditTarget,
			audit(store.Query{Agent: "sec", Kind: "consult", Since: now.Add(-47 * day), Until: now.Add(-40 * day), Reverse: true, Limit: 100})},
		{"consults --decision infrastructure --status approved", AuditTarget,
			consults(readmodel.ConsultFilter{Decision: "infrastructure", Status: consult.Approved, Limit: 100})},
		{"consults --agent arch --since 30d", AuditTarget, consults(readmodel.ConsultFilter{Agent: "arch", Since: now.Add(-30 * day), Limit: 100})},
		{"consults, no filter (statistics over all; SC-006 target)", SC006Target, consults(readmodel.ConsultFilter{Limit: 100})},
	}
	lat := make([][]time.Duration, len(queries))
	var base []time.Duration
	r.Queries = make([]QueryFigure, len(queries))
	for run := range o.Runs {
		t := time.Now()
		if _, ok, err := st.Meta(fmt.Sprintf("%sc-%d", lead.MetaConsult, 1+run%max(o.Consultations, 1))); err != nil || !ok && o.Consultations > 0 {
			return fmt.Errorf("baseline meta read: %v (found %v)", err, ok)
		}
		base = append(base, time.Since(t))
		for i, q := range queries {
			t := time.Now()
			n, m, err := q.run()
			if err != nil {
				return fmt.Errorf("%s: %w", q.name, err)
			}
			lat[i] = append(lat[i], time.Since(t))
			r.Queries[i].Name, r.Queries[i].Returned, r.Queries[i].Matched, r.Queries[i].Target = q.name, n, m, q.target
		}
	}
	r.Baseline = Summarize(base)
	for i := range queries {
		r.Queries[i].Latency = Summarize(lat[i])
	}
	return nil
}

// timeExport exports the consultations of the last days that hold about
// o.Export of them to path, as `teamlead audit --export` does.
func timeExport(st *store.Store, path, format string, o AuditOptions, now time.Time) (ExportFigure, error) {
	fig := ExportFigure{Format: format}
	span := time.Duration(o.Days) * 24 * time.Hour
	if o.Consultations > o.Export {
		span = time.Duration(float64(span) * float64(o.Export) / float64(o.Consultations))
	}
	f := readmodel.ConsultFilter{Since: now.Add(-span)}
	start := time.Now()
	out, err := os.Create(path)
	if err != nil {
		return fig, err
	}
	defer out.Close()
	var decisions []store.Record
	for _, kind := range []wire.Kind{wire.KindDecisionBlocked, wire.KindDecisionFinal} {
		if err := st.Scan(store.Query{Kind: kind, Since: f.Since}, func(r store.Record) error {
			decisions = append(decisions, r)
			return nil
		}); err != nil {
			return fig, err
		}
	}
	x, err := report.NewExporter(out, format, report.ExportInfo{Generated: now, Since: f.Since}, decisions)
	if err != nil {
		return fig, err
	}
	stats, err := readmodel.ScanConsultations(st, f, x.AddJSON)
	if err != nil {
		return fig, err
	}
	if err := x.Close(); err != nil {
		return fig, err
	}
	if err := out.Close(); err != nil {
		return fig, err
	}
	fig.Took = time.Since(start)
	fig.Consultations = stats.Matched
	if fi, err := os.Stat(path); err == nil {
		fig.Bytes = fi.Size()
	}
	return fig, os.Remove(path)
}

// buildAuditStore writes the generated history, in large batches.
func buildAuditStore(dir string, o AuditOptions, now time.Time) error {
	st, err := store.Open(dir, store.Options{MinFreeBytes: -1})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := readmodel.EnsureConsultIndex(st); err != nil {
		return err
	}
	g := &history{rng: rand.New(rand.NewPCG(uint64(o.Seed), 0xa0d17)), now: now, span: time.Duration(o.Days) * 24 * time.Hour}
	const recordBatch, consultBatch = 2000, 500
	for from := 0; from < o.Records; from += recordBatch {
		b := &store.Batch{}
		for i := from; i < min(from+recordBatch, o.Records); i++ {
			b.Records = append(b.Records, g.record(i, o.Records))
		}
		if err := st.Commit(b); err != nil {
			return err
		}
	}
	for from := 0; from < o.Consultations; from += consultBatch {
		b := &store.Batch{Meta: map[string]string{}}
		for i := from; i < min(from+consultBatch, o.Consultations); i++ {
			c := g.consultation(i, o.Consultations)
			js, err := json.Marshal(c)
			if err != nil {
				return err
			}
			b.Meta[lead.MetaConsult+c.ID] = string(js)
		}
		if err := st.Commit(b); err != nil {
			return err
		}
	}
	return nil
}

// history generates a team's audit trail and consultations.
type history struct {
	rng  *rand.Rand
	now  time.Time
	span time.Duration
}

// at is the time of the i-th of n items, spread evenly over the span.
func (h *history) at(i, n int) time.Time {
	return h.now.Add(-h.span + time.Duration(float64(h.span)*float64(i)/float64(n)))
}

func (h *history) agent() string { return auditAgents[h.rng.IntN(len(auditAgents))][0] }

// record is the i-th of n audit records.
func (h *history) record(i, n int) store.Record {
	w := h.rng.IntN(100)
	k := auditKinds[0]
	for _, c := range auditKinds {
		if w < c.weight {
			k = c
			break
		}
		w -= c.weight
	}
	from, to := h.agent(), h.agent()
	r := store.Record{Time: h.at(i, n), Kind: k.kind, Type: k.typ, Agent: from, From: from, To: []string{to},
		Task: fmt.Sprintf("T-%d", 1+h.rng.IntN(2000)), MsgID: fmt.Sprintf("m-%x", i),
		Subject: "route." + to, Body: sentence(h.rng, 8+h.rng.IntN(30))}
	switch k.kind {
	case "delivered":
		r.Agent, r.From, r.Body, r.Fields = to, "", "", map[string]string{"delivery": "relay"}
	case "decision-blocked":
		r.Fields, r.Reason = map[string]string{"decision": "infrastructure"}, fmt.Sprintf("c-%d (sec, security): pending", 1+h.rng.IntN(1000))
	case "decision-final", "consult":
		r.Fields = map[string]string{"decision": "infrastructure", "status": "approved"}
	case "refusal", "reformat":
		r.Reason = "missing task header"
	}
	return r
}

// consultation is the i-th of n consultations, most of them answered.
func (h *history) consultation(i, n int) consult.Consultation {
	decisions := []string{"infrastructure", "design-impact", "code-complete", "code-complete", "feasibility", "scope"}
	req, cons := auditAgents[h.rng.IntN(len(auditAgents))], auditAgents[h.rng.IntN(len(auditAgents))]
	created := h.at(i, n)
	c := consult.Consultation{ID: fmt.Sprintf("c-%d", i+1), Requester: req[0], RequesterRole: req[1], Consulted: cons[0],
		ConsultedRole: cons[1], Decision: decisions[h.rng.IntN(len(decisions))], Task: fmt.Sprintf("T-%d", 1+h.rng.IntN(2000)),
		Body: sentence(h.rng, 15+h.rng.IntN(40)), Mandatory: h.rng.IntN(3) > 0, Status: consult.Pending, Created: created}
	if h.rng.IntN(20) == 0 { // still open
		return c
	}
	at := created.Add(time.Duration(1+h.rng.IntN(240)) * time.Minute)
	switch w := h.rng.IntN(10); {
	case w < 6:
		c.Status = consult.Approved
	case w < 8:
		c.Status = consult.ConcernsRaised
		c.Verdicts = append(c.Verdicts, consult.Verdict{By: c.Consulted, Verdict: consult.ConcernsRaised, Body: sentence(h.rng, 20), At: at})
		c.Events = append(c.Events, consult.Event{Kind: consult.EventAddressed, By: c.Requester, To: c.Consulted, Body: sentence(h.rng, 15), At: at.Add(time.Hour)})
		at, c.Status = at.Add(2*time.Hour), consult.Approved
	default:
		c.Status = consult.Rejected
	}
	c.Verdicts = append(c.Verdicts, consult.Verdict{By: c.Consulted, Verdict: c.Status, Body: sentence(h.rng, 12+h.rng.IntN(20)), At: at})
	c.ResolvedAt = at
	return c
}

// benchWords are what generated bodies are made of.
var benchWords = strings.Fields("the store keeps every record of the team and its decisions so that a reviewer can follow " +
	"who asked whom about which change and what they answered with conditions on keys tokens buckets sessions")

// sentence is n words.
func sentence(rng *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(benchWords[rng.IntN(len(benchWords))])
	}
	return b.String()
}

// dirSize is the bytes of the files under dir.
func dirSize(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return nil
	})
	return n
}
