package queryfiles

import (
	"errors"
	"strings"
	"testing"
)

// FuzzParseQuery: arbitrary bytes never panic; a parsed query has its
// required fields, and an error is a FieldError matching a sentinel. Setting
// the status of a parsed query never panics and keeps it a query.
func FuzzParseQuery(f *testing.F) {
	f.Add(readTestdata(f, seedQuery))
	f.Add(readTestdata(f, seedResponse))
	f.Add([]byte("id: q\nfrom: a\nto: [b, c]\nquestion: x\noptions:\n  - A: b\npriority: High\nstatus: \"pending\"\n"))
	f.Add([]byte("{id: q, from: a, to: b, question: x, status: 'answered'}"))
	f.Add([]byte("\xef\xbb\xbfid: &a q\r\nfrom: *a\r\nto: *a\r\nquestion: |\r\n  x\r\ncontext: {k: &b [*b]}\r\n"))
	f.Add([]byte("a: &x [*x]\nid: *x\n"))
	f.Add([]byte("id: q\nfrom: a\nto: b\nquestion: x\nstatus:\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		q, err := ParseQuery("query-f.yaml", data)
		if (q == nil) == (err == nil) {
			t.Fatalf("query %v with error %v", q, err)
		}
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("%v is not a FieldError", err)
			}
			n := 0
			for _, s := range []error{ErrBadYAML, ErrMissingField, ErrInvalid, ErrIncomplete} {
				if errors.Is(err, s) {
					n++
				}
			}
			if n == 0 || !strings.HasPrefix(err.Error(), "query-f.yaml") {
				t.Fatalf("%v: matches no sentinel or does not name the file", err)
			}
			return
		}
		if q.ID == "" || q.From == "" || len(q.To) == 0 || strings.TrimSpace(q.Question) == "" {
			t.Fatalf("parsed without a required field: %+v", q)
		}
		if !q.Priority.Valid() || !q.Status.Valid() {
			t.Fatalf("parsed with priority %q, status %q", q.Priority, q.Status)
		}
		next := StatusAnswered
		if q.Status == next {
			next = StatusResolved
		}
		out, err := withStatus("query-f.yaml", data, next)
		if err == nil {
			got, err := ParseQuery("query-f.yaml", out)
			if err != nil || got.Status != next {
				t.Fatalf("after setting the status: %+v, %v\n%s", got, err, out)
			}
		}
		_, _ = ParseResponse("r.yaml", data)
	})
}
