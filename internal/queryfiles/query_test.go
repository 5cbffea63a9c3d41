package queryfiles

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"
)

// readTestdata returns a file from testdata.
func readTestdata(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

const seedQuery = "query-20260115-001.yaml"
const seedResponse = "query-20260115-001-response.yaml"

func TestParseQuerySeedExample(t *testing.T) {
	q, err := ParseQuery(seedQuery, readTestdata(t, seedQuery))
	if err != nil {
		t.Fatal(err)
	}
	want := &Query{
		File:      seedQuery,
		ID:        "query-20260115-001",
		From:      "developer",
		To:        []string{"architect"},
		Timestamp: "2026-01-15T10:30:00Z",
		Time:      time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC),
		Context: Context{
			CurrentTask: "Implementing real-time updates for dashboard",
			Reference:   ".spc/docs/architecture/dashboard.md:L45-50",
		},
		Question: `The architecture spec mentions "real-time updates" but doesn't specify
the transport mechanism. Given our requirements for:
- 1000+ concurrent users
- Server-to-client updates only
- Mobile browser support

Which approach should I implement?
`,
		Options: []string{
			"WebSocket: Full duplex, but more complex",
			"SSE (Server-Sent Events): Simpler, sufficient for one-way",
			"Long polling: Most compatible, higher latency",
		},
		Priority: PriorityBlocker,
		Status:   StatusPending,
	}
	if !reflect.DeepEqual(q, want) {
		t.Fatalf("got  %#v\nwant %#v", q, want)
	}
}

func TestParseQueryShapes(t *testing.T) {
	const base = "id: q-1\nfrom: developer\nquestion: Which one?\n"
	tests := []struct {
		name  string
		yaml  string
		check func(*testing.T, *Query)
	}{
		{"to as a list", base + "to: [architect, designer]\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.To, []string{"architect", "designer"})
		}},
		{"to as a block list with a null and a duplicate", base + "to:\n  - architect\n  -\n  - architect\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.To, []string{"architect"})
		}},
		{"to separated by commas", base + "to: architect, designer\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.To, []string{"architect", "designer"})
		}},
		{"defaults", base + "to: qa\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Priority, PriorityMedium)
			assertEqual(t, q.Status, StatusPending)
			assertEqual(t, q.Time, time.Time{})
		}},
		{"case and spaces in enums", base + "to: qa\npriority: ' High '\nstatus: Answered\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Priority, PriorityHigh)
			assertEqual(t, q.Status, StatusAnswered)
		}},
		{"unknown keys kept", base + "to: qa\ntags: [a, b]\ncontext:\n  current_task: x\n  ticket: 42\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Extra, map[string]any{"tags": []any{"a", "b"}})
			assertEqual(t, q.Context.Extra, map[string]any{"ticket": 42})
		}},
		{"unquoted option with a colon reads as text", base + "to: qa\noptions:\n  - WebSocket: full duplex\n  - SSE\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Options, []string{"WebSocket: full duplex", "SSE"})
		}},
		{"one option as text", base + "to: qa\noptions: only this\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Options, []string{"only this"})
		}},
		{"context as text", base + "to: qa\ncontext: fixing the login\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Context.CurrentTask, "fixing the login")
		}},
		{"timestamp with a space and an offset", base + "to: qa\ntimestamp: 2026-01-15 11:30:00+01:00\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Time.UTC(), time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC))
		}},
		{"unreadable timestamp kept as text", base + "to: qa\ntimestamp: '{ISO-8601}'\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.Timestamp, "{ISO-8601}")
			assertEqual(t, q.Time, time.Time{})
		}},
		{"byte order mark, CRLF and aliases", "\xef\xbb\xbfid: q-1\r\nfrom: &a developer\r\nto: *a\r\nquestion: Why?\r\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.To, []string{"developer"})
		}},
		{"a number as id", "id: 42\nfrom: pm\nto: qa\nquestion: x\n", func(t *testing.T, q *Query) {
			assertEqual(t, q.ID, "42")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery("query-x.yaml", []byte(tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, q)
		})
	}
}

func TestParseQueryErrors(t *testing.T) {
	const ok = "id: q-1\nfrom: developer\nto: architect\nquestion: Which one?\n"
	tests := []struct {
		name       string
		yaml       string
		sentinel   error
		incomplete bool
		msg        string // the whole message
	}{
		{"bad priority", "id: q-1\nfrom: a\nto: b\npriority: urgent\nquestion: x\n", ErrInvalid, false,
			`query-x.yaml:4: priority: "urgent" is not one of blocker, high, medium, low`},
		{"bad status", ok + "status: done\n", ErrInvalid, false,
			`query-x.yaml:5: status: "done" is not one of pending, answered, resolved`},
		{"priority cut short", ok + "priority: bloc", ErrInvalid, true,
			`query-x.yaml:5: priority: "bloc" is not one of blocker, high, medium, low (half-written? it is read again when it changes)`},
		{"missing question", "id: q-1\nfrom: a\nto: b\n", ErrMissingField, true,
			`query-x.yaml: question: missing; add "question: |" with the question indented on the lines below (half-written? it is read again when it changes)`},
		{"missing several", "id: q-1\n", ErrMissingField, true,
			`query-x.yaml: from: missing; add "from: <your agent name>" (also missing: to, question) (half-written? it is read again when it changes)`},
		{"empty to list", "id: q-1\nfrom: a\nto: []\nquestion: x\n", ErrMissingField, true, ""},
		{"blank question", "id: q-1\nfrom: a\nto: b\nquestion: '  '\n", ErrMissingField, true, ""},
		{"empty file", "", ErrIncomplete, true, "query-x.yaml: the file is empty (half-written? it is read again when it changes)"},
		{"only a comment", "# a query\n", ErrIncomplete, true, ""},
		{"null document", "~\n", ErrIncomplete, true, ""},
		{"unquoted colon in text", "id: q-1\nfrom: a\nto: b\nquestion: Which: A or B?\n", ErrBadYAML, false,
			`query-x.yaml:4: not valid YAML: mapping values are not allowed in this context (text containing ": " must be quoted, or written as a block: "question: |" and the text indented on the lines below)`},
		{"bad indentation", "id: q-1\n  from: a\nto: b\nquestion: x\n", ErrBadYAML, false, ""},
		{"quoted text cut short", "id: q-1\nfrom: a\nto: b\nquestion: \"Which", ErrBadYAML, true, ""},
		{"a list at the top", "- id: q-1\n", ErrInvalid, false,
			`query-x.yaml:1: want a mapping of fields (id: ..., from: ...), got a list`},
		{"a word at the top, cut", "id", ErrInvalid, true, ""},
		{"misspelt field", "id: q-1\nfrom: a\nto: b\nquestion: x\npriorty: high\n", ErrInvalid, false,
			`query-x.yaml:5: priorty: unknown field; did you mean "priority"? (fields are id, from, to, timestamp, context, question, options, priority, status)`},
		{"field in capitals", "id: q-1\nFrom: a\nto: b\nquestion: x\n", ErrInvalid, false, ""},
		{"misspelt context field", ok + "context:\n  refrence: a.md\n", ErrInvalid, false, ""},
		{"field given twice", ok + "status: pending\nstatus: answered\n", ErrInvalid, false,
			`query-x.yaml:6: status: given twice (first on line 5); keep one`},
		{"template placeholder", "id: q-1\nfrom: {agent-name}\nto: b\nquestion: x\n", ErrInvalid, false,
			`query-x.yaml:2: from: want text, got a mapping; quote it or write it as a block (from: |); {...} in the seed's template is a placeholder: write the value itself`},
		{"template values", "id: q-1\nfrom: a\nto: b\nquestion: x\npriority: blocker|high|medium|low\n", ErrInvalid, false,
			`query-x.yaml:5: priority: "blocker|high|medium|low" is not one of blocker, high, medium, low`},
		{"question as a list", "id: q-1\nfrom: a\nto: b\nquestion: [a]\n", ErrInvalid, false, ""},
		{"to as a mapping", "id: q-1\nfrom: a\nto: {x: y}\nquestion: x\n", ErrInvalid, false, ""},
		{"to item as a list", "id: q-1\nfrom: a\nto: [[x]]\nquestion: x\n", ErrInvalid, false, ""},
		{"option as a list", ok + "options:\n  - [a, b]\n", ErrInvalid, false, ""},
		{"options as a mapping", ok + "options: {a: b}\n", ErrInvalid, false, ""},
		{"context as a list", ok + "context: [a]\n", ErrInvalid, false, ""},
		{"a list as a key", ok + "? [a]\n: b\n", ErrInvalid, false, ""},
		{"invalid UTF-8", "id: q-1\nfrom: \xff\n", ErrBadYAML, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, err := ParseQuery("query-x.yaml", []byte(tt.yaml))
			if err == nil {
				t.Fatalf("parsed %+v, want an error", q)
			}
			if !errors.Is(err, tt.sentinel) {
				t.Errorf("%v does not match %v", err, tt.sentinel)
			}
			if got := errors.Is(err, ErrIncomplete); got != tt.incomplete {
				t.Errorf("%v: incomplete %v, want %v", err, got, tt.incomplete)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.File != "query-x.yaml" {
				t.Errorf("%v is not a FieldError naming the file", err)
			}
			if tt.msg != "" && err.Error() != tt.msg {
				t.Errorf("message\n got %s\nwant %s", err, tt.msg)
			}
		})
	}
}

// TestParseQueryTruncated: every prefix of the seed's example either parses
// or is reported as incomplete or bad YAML; never a panic, never another error.
func TestParseQueryTruncated(t *testing.T) {
	data := readTestdata(t, seedQuery)
	counts := map[string]int{}
	for i := 0; i <= len(data); i++ {
		q, err := ParseQuery(seedQuery, data[:i])
		switch {
		case err == nil:
			if q.ID == "" || q.From == "" || len(q.To) == 0 || q.Question == "" {
				t.Fatalf("prefix %d parsed without a required field: %+v", i, q)
			}
			counts["parsed"]++
		case errors.Is(err, ErrIncomplete):
			counts["incomplete"]++
		case errors.Is(err, ErrBadYAML):
			counts["bad yaml"]++
		default:
			t.Fatalf("prefix %d (%q): %v", i, data[max(0, i-20):i], err)
		}
	}
	t.Logf("%d prefixes: %v", len(data)+1, counts)
	if counts["bad yaml"] != 0 {
		t.Errorf("%d prefixes read as bad YAML rather than incomplete", counts["bad yaml"])
	}
}

func TestIsQueryFile(t *testing.T) {
	tests := map[string]bool{
		"query-20260115-001.yaml":          true,
		"/a/.spc/queries/query-x.yml":      true,
		"query-20260115-001-response.yaml": false,
		"query-x-response.yml":             false,
		"index.yaml":                       false,
		"query-.yaml":                      false,
		".query-x.yaml.tmp-123":            false,
		"query-x.yaml~":                    false,
		"notes.txt":                        false,
	}
	for name, want := range tests {
		if got := IsQueryFile(name); got != want {
			t.Errorf("IsQueryFile(%q) = %v, want %v", name, got, want)
		}
	}
	if !IsResponseFile("query-x-response.yaml") || IsResponseFile("query-x.yaml") {
		t.Error("IsResponseFile")
	}
}

func TestReadQuery(t *testing.T) {
	path := filepath.Join(t.TempDir(), seedQuery)
	writeFile(t, path, string(readTestdata(t, seedQuery)))
	q, err := ReadQuery(path)
	if err != nil || q.File != path || q.ID != "query-20260115-001" {
		t.Fatalf("ReadQuery: %+v, %v", q, err)
	}
	if _, err := ReadQuery(path + ".missing"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, err := ReadQuery(filepath.Dir(path)); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("folder: %v", err)
	}
}

// assertEqual fails the test when got and want differ.
func assertEqual[T any](t *testing.T, got, want T) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %#v, want %#v", got, want)
	}
}

// writeFile writes a file, failing the test on error.
func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestReadFileOfAFifo: a FIFO an agent puts in a queries folder is refused
// as not a file at once, instead of holding the watcher until a writer
// comes.
func TestReadFileOfAFifo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "query-fifo.yaml")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, _, err := ReadFile(path); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) {
			t.Fatalf("err %v, want ErrNotRegular", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still reading a FIFO after 20 s")
	}
}

// A query file that is a link, or lies in a folder that is one, is not
// read: the watcher reads as the human, and its parse errors would tell
// the agent what a file its sandbox hides holds (red team 12a, finding 6).
func TestReadFileRefusesLinks(t *testing.T) {
	root := t.TempDir()
	secret := filepath.Join(root, "secret.log")
	queries := filepath.Join(root, "agent", ".spc", "queries")
	if err := os.MkdirAll(queries, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("the human typed: key: sk-1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(queries, "q1.yaml")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(filepath.Join(queries, "q1.yaml")); !errors.Is(err, ErrLinked) {
		t.Errorf("a query file that is a link: %v", err)
	}
	if err := os.WriteFile(filepath.Join(root, "q2.yaml"), []byte("id: q2\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	elsewhere := filepath.Join(root, "agent", "elsewhere")
	if err := os.Symlink(root, elsewhere); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(filepath.Join(elsewhere, "q2.yaml")); !errors.Is(err, ErrLinked) {
		t.Errorf("a query file in a folder that is a link: %v", err)
	}
	if err := os.WriteFile(filepath.Join(queries, "q3.yaml"), []byte("id: q3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadFile(filepath.Join(queries, "q3.yaml")); err != nil {
		t.Errorf("a plain query file: %v", err)
	}
}
