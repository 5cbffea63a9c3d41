package queryfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// seedAnswer is the seed example's response as a Response.
func seedAnswer(t *testing.T) Response {
	t.Helper()
	r, err := ParseResponse(seedResponse, readTestdata(t, seedResponse))
	if err != nil {
		t.Fatal(err)
	}
	return *r
}

func TestParseResponseSeedExample(t *testing.T) {
	r := seedAnswer(t)
	assertEqual(t, r.QueryID, "query-20260115-001")
	assertEqual(t, r.From, "architect")
	assertEqual(t, r.Timestamp, time.Date(2026, 1, 15, 10, 45, 0, 0, time.UTC))
	assertEqual(t, r.Recommendation, "SSE")
	assertEqual(t, r.AdditionalContext, "I've updated the architecture doc to specify this.\nSee: .spc/docs/architecture/dashboard.md:L45-55\n")
	if len(r.Answer) < 300 || r.Answer[:12] != "Use **SSE (S" {
		t.Errorf("answer %q", r.Answer)
	}
}

// TestWriteResponseSeedExample: writing the seed's response next to the
// seed's query gives the seed's response file byte for byte.
func TestWriteResponseSeedExample(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".spc", "queries")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	queryPath := filepath.Join(dir, seedQuery)
	writeFile(t, queryPath, string(readTestdata(t, seedQuery)))
	path, err := WriteResponse(queryPath, seedAnswer(t))
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, path, filepath.Join(dir, seedResponse))
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := readTestdata(t, seedResponse); string(got) != string(want) {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestResponseRoundTrip(t *testing.T) {
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.FixedZone("CET", 3600))
	tests := []struct {
		name string
		in   Response
		want Response // as read back
	}{
		{"one line",
			Response{QueryID: "q-1", From: "human", Timestamp: at, Answer: "Use SSE."},
			Response{QueryID: "q-1", From: "human", Timestamp: at.UTC(), Answer: "Use SSE."}},
		{"multi-line without a final newline becomes a block ending in one",
			Response{QueryID: "q-2", From: "architect", Timestamp: at, Answer: "a\n\n  b\r\nc", Recommendation: "SSE", AdditionalContext: "x\ny\n\n\n"},
			Response{QueryID: "q-2", From: "architect", Timestamp: at.UTC(), Answer: "a\n\n  b\nc\n", Recommendation: "SSE", AdditionalContext: "x\ny\n"}},
		{"text YAML would misread",
			Response{QueryID: "123", From: "null", Timestamp: at, Answer: "yes: no # really", Recommendation: "- [x]"},
			Response{QueryID: "123", From: "null", Timestamp: at.UTC(), Answer: "yes: no # really", Recommendation: "- [x]"}},
		{"leading spaces and trailing spaces in a block",
			Response{QueryID: "q-3", From: "qa", Timestamp: at, Answer: "  indented\nline with trailing space \n"},
			Response{QueryID: "q-3", From: "qa", Timestamp: at.UTC(), Answer: "  indented\nline with trailing space \n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			queryPath := filepath.Join(t.TempDir(), "query-x.yaml")
			path, err := WriteResponse(queryPath, tt.in)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadResponse(path)
			if err != nil {
				t.Fatal(err)
			}
			assertEqual(t, *got, tt.want)
		})
	}
}

func TestWriteResponseRefusesMissingFields(t *testing.T) {
	queryPath := filepath.Join(t.TempDir(), "query-x.yaml")
	for _, r := range []Response{{From: "a", Answer: "b"}, {QueryID: "q", Answer: "b"}, {QueryID: "q", From: "a", Answer: " \n"}} {
		if _, err := WriteResponse(queryPath, r); !errors.Is(err, ErrMissingField) {
			t.Errorf("%+v: %v", r, err)
		}
	}
	if _, err := os.Stat(ResponsePath(queryPath)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a response was written: %v", err)
	}
}

func TestWriteResponseZeroTimeIsNow(t *testing.T) {
	before := time.Now().Add(-time.Second)
	path, err := WriteResponse(filepath.Join(t.TempDir(), "query-x.yaml"), Response{QueryID: "q", From: "a", Answer: "b"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := ReadResponse(path)
	if err != nil {
		t.Fatal(err)
	}
	if r.Timestamp.Before(before) || r.Timestamp.After(time.Now().Add(time.Second)) || r.Timestamp.Location() != time.UTC {
		t.Errorf("timestamp %v", r.Timestamp)
	}
}

func TestResponsePath(t *testing.T) {
	for in, want := range map[string]string{
		"query-20260115-001.yaml":     "query-20260115-001-response.yaml",
		"/a/.spc/queries/query-x.yml": "/a/.spc/queries/query-x-response.yaml",
	} {
		assertEqual(t, ResponsePath(in), want)
	}
}

func TestParseResponseErrors(t *testing.T) {
	for name, tt := range map[string]struct {
		yaml     string
		sentinel error
	}{
		"missing answer": {"query_id: q\nfrom: a\n", ErrMissingField},
		"empty":          {"", ErrIncomplete},
		"misspelt":       {"query_id: q\nfrom: a\nanswr: b\n", ErrInvalid},
		"bad yaml":       {"query_id: q\n from: a\nanswer: b\n", ErrBadYAML},
	} {
		if _, err := ParseResponse("r.yaml", []byte(tt.yaml)); !errors.Is(err, tt.sentinel) {
			t.Errorf("%s: %v, want %v", name, err, tt.sentinel)
		}
	}
}

// An answer comes minutes after its query was read: by then the agent may
// have put a link in place of its queries folder, to a folder its sandbox
// keeps read-only (the human's checkout, for a worktree agent). The
// console writes neither the response nor the index through it, nor moves
// the index it finds there.
func TestWritesFollowNoLinkedFolder(t *testing.T) {
	root := t.TempDir()
	human := filepath.Join(root, "checkout", "docs")
	dir := filepath.Join(root, "agent", ".spc", "queries")
	for _, d := range []string{human, dir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(human, "index.yaml"), "title: the human's site\n")
	queryPath := filepath.Join(dir, seedQuery)
	writeFile(t, queryPath, string(readTestdata(t, seedQuery)))
	if err := os.Rename(dir, dir+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(human, dir); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteResponse(queryPath, seedAnswer(t)); !errors.Is(err, ErrLinked) {
		t.Errorf("response through a linked folder: %v", err)
	}
	if _, err := UpsertIndex(dir, IndexEntry{ID: "q", File: seedQuery}); !errors.Is(err, ErrLinked) {
		t.Errorf("index through a linked folder: %v", err)
	}
	entries, _ := os.ReadDir(human)
	if len(entries) != 1 || entries[0].Name() != "index.yaml" {
		t.Errorf("the human's folder holds %v", entries)
	}
	if b, _ := os.ReadFile(filepath.Join(human, "index.yaml")); string(b) != "title: the human's site\n" {
		t.Errorf("the human's index.yaml: %q", b)
	}
}
