package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/tui/golden"
)

// et0 is the base time of the export fixture.
var et0 = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

// exportFixture is a small history: a rejection resubmitted and approved
// with conditions, concerns addressed then approved, one still pending,
// and an old record kept before resolution times were (no request body).
func exportFixture() ([]consult.Consultation, []store.Record) {
	at := func(m int) time.Time { return et0.Add(time.Duration(m) * time.Minute) }
	cs := []consult.Consultation{
		{ID: "c-5", Requester: "dev", RequesterRole: "developer", Consulted: "review", ConsultedRole: "review",
			Decision: "code-complete", Task: "T-9", Mandatory: true, Status: consult.Pending, Created: at(300),
			Body: "Ready for review: | pipes | and <tags>", Deadline: at(540)},
		{ID: "c-4", Requester: "arch", RequesterRole: "architect", Consulted: "design", ConsultedRole: "designer",
			Decision: "design-impact", Task: "T-7", Mandatory: true, Status: consult.Approved, Created: at(200),
			Body: "Redis for sessions changes the login flow",
			Verdicts: []consult.Verdict{
				{By: "design", Verdict: consult.ConcernsRaised, Body: "The *remember me* box goes away.", At: at(230)},
				{By: "design", Verdict: consult.Approved, Body: "Approved: keep a 30-day cookie.\nRecommend a notice.", At: at(260)}},
			Events:     []consult.Event{{Kind: consult.EventAddressed, By: "arch", To: "design", Body: "Cookie kept for 30 days.", At: at(245)}},
			ResolvedAt: at(260)},
		{ID: "c-3", Requester: "arch", RequesterRole: "architect", Consulted: "sec", ConsultedRole: "security",
			Decision: "infrastructure", Task: "T-1", Mandatory: true, Status: consult.Approved, Supersedes: "c-1", Created: at(100),
			Body:       "Private bucket behind CloudFront, signed URLs",
			Verdicts:   []consult.Verdict{{By: "sec", Verdict: consult.Approved, Body: "Condition: URLs expire within 15 minutes.", At: at(110)}},
			ResolvedAt: at(110)},
		{ID: "c-2", Requester: "qa", RequesterRole: "qa", Consulted: "dev", ConsultedRole: "developer", Decision: "feasibility",
			Status: consult.Approved, Created: at(50),
			Verdicts: []consult.Verdict{{By: "dev", Verdict: consult.Approved, Body: "", At: at(55)}}},
		{ID: "c-1", Requester: "arch", RequesterRole: "architect", Consulted: "sec", ConsultedRole: "security",
			Decision: "infrastructure", Task: "T-1", Mandatory: true, Status: consult.Superseded, Created: at(0),
			Body:       "Public S3 bucket for uploads",
			Verdicts:   []consult.Verdict{{By: "sec", Verdict: consult.Rejected, Body: "No public buckets: uploads hold personal data.", At: at(20)}},
			ResolvedAt: at(20)},
	}
	ds := []store.Record{
		{Seq: 11, Time: at(0), Kind: "decision-blocked", Agent: "arch", From: "arch", Type: "decision", Task: "T-1",
			Body: "Public S3 bucket", Reason: "c-1 (sec, security): pending, just asked", Fields: map[string]string{"decision": "infrastructure"}},
		{Seq: 40, Time: at(120), Kind: "decision-final", Agent: "arch", From: "arch", Type: "decision", Task: "T-1",
			Body: "Private bucket", Fields: map[string]string{"decision": "infrastructure"}},
		{Seq: 77, Time: at(301), Kind: "decision-blocked", Agent: "dev", From: "dev", Type: "decision", Task: "T-9",
			Reason: "c-5 (review, review): pending, just asked", Fields: map[string]string{"decision": "code-complete"}},
	}
	return cs, ds
}

// export renders the fixture in format.
func export(t *testing.T, format string) string {
	t.Helper()
	cs, ds := exportFixture()
	var b bytes.Buffer
	x, err := NewExporter(&b, format, ExportInfo{Generated: et0.Add(24 * time.Hour), Since: et0, Until: et0.Add(24 * time.Hour),
		Filters: []Filter{{Name: "agent", Value: "any"}}}, ds)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		if err := x.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestExportGolden(t *testing.T) {
	for _, format := range ExportFormats {
		t.Run(format, func(t *testing.T) { golden.Assert(t, "export-"+format, export(t, format)) })
	}
}

func TestExportJSONIsOneDocument(t *testing.T) {
	var doc struct {
		FormatVersion int           `json:"format_version"`
		Summary       ExportSummary `json:"summary"`
		Incomplete    []Incomplete  `json:"incomplete_records"`
		Consultations []exportDoc   `json:"consultations"`
		Decisions     []exportDecide
	}
	if err := json.Unmarshal([]byte(export(t, "json")), &doc); err != nil {
		t.Fatalf("not one JSON document: %v", err)
	}
	s := doc.Summary
	if doc.FormatVersion != ExportVersion || s.Consultations != 5 || s.Complete != 3 || s.Incomplete != 2 || s.IncompleteOpen != 1 ||
		s.DecisionsBlocked != 2 || s.DecisionsFinal != 1 || s.Mandatory != 4 || s.Answered != 4 || s.Resolved != 4 {
		t.Errorf("summary %+v", s)
	}
	want := []Incomplete{{ID: "c-5", Status: "pending", Open: true, Missing: []string{"response", "resolution timestamp"}},
		{ID: "c-2", Status: "approved", Missing: []string{"decision context"}}}
	if fmt.Sprint(doc.Incomplete) != fmt.Sprint(want) {
		t.Errorf("incomplete %+v", doc.Incomplete)
	}
	c3 := doc.Consultations[2]
	if c3.ID != "c-3" || !slices.Equal(c3.Lineage.Supersedes, []string{"c-1"}) || len(c3.Decisions) != 2 || c3.Resolution.At == "" ||
		!slices.Equal(c3.Conditions, []string{"Condition: URLs expire within 15 minutes."}) {
		t.Errorf("c-3 %+v", c3)
	}
	if c1 := doc.Consultations[4]; c1.Lineage.SupersededBy != "c-3" || !c1.Complete {
		t.Errorf("c-1 %+v", c1)
	}
	if len(doc.Decisions) != 3 || doc.Decisions[0].HeldBy == "" {
		t.Errorf("decisions %+v", doc.Decisions)
	}
}

func TestExportCSVOneRowPerConsultation(t *testing.T) {
	rows, err := csv.NewReader(strings.NewReader(export(t, "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 || !slices.Equal(rows[0], exportCSVHeader) {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	col := func(row []string, name string) string { return row[slices.Index(exportCSVHeader, name)] }
	c4 := rows[2]
	if col(c4, "id") != "c-4" || col(c4, "verdict_count") != "2" || strings.Count(col(c4, "verdicts"), "\n") != 1 ||
		col(c4, "final_verdict") != "approved" || !strings.Contains(col(c4, "events"), "addressed arch → design") {
		t.Errorf("c-4 row %q", c4)
	}
}

func TestResolvedAtAndMissing(t *testing.T) {
	v := func(s consult.Status, m int) consult.Verdict {
		return consult.Verdict{By: "x", Verdict: s, At: et0.Add(time.Duration(m) * time.Minute)}
	}
	full := consult.Consultation{ID: "c-1", Requester: "a", Consulted: "b", Decision: "d", Body: "why", Created: et0}
	tests := []struct {
		name     string
		edit     func(c *consult.Consultation)
		resolved time.Duration // 0: none
		missing  []string
	}{
		{"resolved", func(c *consult.Consultation) {
			c.Status, c.Verdicts, c.ResolvedAt = consult.Approved, []consult.Verdict{v(consult.Approved, 5)}, et0.Add(5*time.Minute)
		}, 5 * time.Minute, nil},
		{"old record: the closing verdict", func(c *consult.Consultation) {
			c.Status, c.Verdicts = consult.Rejected, []consult.Verdict{v(consult.Rejected, 7)}
		}, 7 * time.Minute, nil},
		{"concerns open", func(c *consult.Consultation) {
			c.Status, c.Verdicts = consult.ConcernsRaised, []consult.Verdict{v(consult.ConcernsRaised, 3)}
		}, 0, []string{"resolution timestamp"}},
		{"pending, nothing", func(c *consult.Consultation) {
			c.Status, c.Requester, c.Consulted, c.Decision = consult.Pending, "", "", ""
		}, 0, []string{"requesting agent", "consulted agent", "decision context", "response", "resolution timestamp"}},
		{"superseded before any verdict", func(c *consult.Consultation) { c.Status = consult.Superseded }, 0,
			[]string{"response", "resolution timestamp"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := full
			tt.edit(&c)
			at := resolvedAt(&c)
			if got := at.Sub(et0); (tt.resolved == 0) != at.IsZero() || !at.IsZero() && got != tt.resolved {
				t.Errorf("resolvedAt = %v", at)
			}
			if got := missing(&c); !slices.Equal(got, tt.missing) {
				t.Errorf("missing = %v, want %v", got, tt.missing)
			}
		})
	}
}

func TestExportRejectsUnknownFormat(t *testing.T) {
	if _, err := NewExporter(&bytes.Buffer{}, "xml", ExportInfo{}, nil); !errors.Is(err, ErrExportFormat) {
		t.Fatalf("xml: %v", err)
	}
}

// TestExportDoesNotHoldTheConsultations checks that added consultations go
// to the spool, not the heap: 8,000 of 4 KB each (32 MB) leave the heap
// nearly where it was until Close renders them one at a time.
func TestExportDoesNotHoldTheConsultations(t *testing.T) {
	x, err := NewExporter(&countingWriter{}, "md", ExportInfo{Generated: et0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("a long request body ", 100) // 2 KB, twice in each
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 8000 {
		c := consult.Consultation{ID: fmt.Sprintf("c-%d", i), Requester: "arch", Consulted: "sec", Decision: "infrastructure",
			Body: body, Status: consult.Approved, Created: et0, ResolvedAt: et0.Add(time.Minute),
			Verdicts: []consult.Verdict{{By: "sec", Verdict: consult.Approved, Body: body, At: et0.Add(time.Minute)}}}
		if err := x.Add(c); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapAlloc) - int64(before.HeapAlloc); grew > 8<<20 {
		t.Errorf("the heap grew by %d MB while adding 32 MB of consultations", grew>>20)
	}
	if err := x.Close(); err != nil {
		t.Fatal(err)
	}
}

// countingWriter discards what it is given.
type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }

func TestEscapes(t *testing.T) {
	for _, c := range []struct{ in, md, csv string }{
		{"plain text", "plain text", "plain text"},
		{"a | b\nc", `a \| b c`, "a | b\nc"},
		{"*bold* _it_ `code` <b> [link](x)", "\\*bold\\* \\_it\\_ \\`code\\` &lt;b> \\[link\\](x)", "*bold* _it_ `code` <b> [link](x)"},
		{"=HYPERLINK(\"x\")", `=HYPERLINK("x")`, `'=HYPERLINK("x")`},
		{"-1+2", "-1+2", "'-1+2"},
		{"@SUM(A1)", "@SUM(A1)", "'@SUM(A1)"},
	} {
		if got := cell(c.in); got != c.md {
			t.Errorf("cell(%q) = %q, want %q", c.in, got, c.md)
		}
		if got := inert(c.in); got != c.csv {
			t.Errorf("inert(%q) = %q, want %q", c.in, got, c.csv)
		}
	}
}

// A line break in a text put on one line is shown, never a plain space:
// the inbox read "npm install left-pad rm -rf ~" as one command with
// arguments (red team 21b, finding 5).
func TestFlatShowsLineBreaks(t *testing.T) {
	for in, want := range map[string]string{
		"Bash(npm install left-pad\nrm -rf ~)": "Bash(npm install left-pad ↵ rm -rf ~)",
		"a\r\nb\rc":                            "a ↵ b ↵ c",
		"  one   line  ":                       "one line",
	} {
		if got := Flat(in); got != want {
			t.Errorf("Flat(%q) = %q, want %q", in, got, want)
		}
	}
}
