package queryfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestUpsertIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".spc", "queries") // made by UpsertIndex
	asked := time.Date(2026, 1, 15, 11, 30, 0, 0, time.FixedZone("CET", 3600))
	q, err := ParseQuery("/x/"+seedQuery, readTestdata(t, seedQuery))
	if err != nil {
		t.Fatal(err)
	}
	first := NewIndexEntry(q)
	assertEqual(t, first, IndexEntry{ID: "query-20260115-001", File: seedQuery, From: "developer",
		To: []string{"architect"}, Priority: PriorityBlocker, Status: StatusPending, Asked: q.Time})

	steps := []struct {
		name  string
		given []IndexEntry
		want  []IndexEntry
	}{
		{"add to a missing index", []IndexEntry{first},
			[]IndexEntry{first}},
		{"add a second, by file when it has no id",
			[]IndexEntry{{File: "query-b.yaml", From: "qa", To: []string{"pm", "developer"}, Priority: PriorityLow, Status: StatusPending, Asked: asked}},
			[]IndexEntry{first, {File: "query-b.yaml", From: "qa", To: []string{"pm", "developer"}, Priority: PriorityLow, Status: StatusPending, Asked: asked.UTC()}}},
		{"update fields, keeping the others and the order",
			[]IndexEntry{{ID: "query-20260115-001", Status: StatusAnswered, Answered: asked, Response: seedResponse, Consult: "c-4"}},
			[]IndexEntry{
				{ID: "query-20260115-001", File: seedQuery, From: "developer", To: []string{"architect"}, Priority: PriorityBlocker,
					Status: StatusAnswered, Asked: q.Time, Answered: asked.UTC(), Response: seedResponse, Consult: "c-4"},
				{File: "query-b.yaml", From: "qa", To: []string{"pm", "developer"}, Priority: PriorityLow, Status: StatusPending, Asked: asked.UTC()}}},
	}
	for _, step := range steps {
		got, err := UpsertIndex(dir, step.given...)
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		assertEqual(t, got, step.want)
		loaded, err := LoadIndex(dir)
		if err != nil {
			t.Fatalf("%s: load: %v", step.name, err)
		}
		assertEqual(t, loaded, step.want)
	}
	data, _ := os.ReadFile(IndexPath(dir))
	t.Logf("index:\n%s", data)
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestLoadIndex(t *testing.T) {
	tests := []struct {
		name    string
		data    string // "" for no file
		want    []IndexEntry
		corrupt bool
	}{
		{"no index", "", nil, false},
		{"empty", "# nothing yet\n", []IndexEntry{}, false},
		{"empty list", "[]\n", []IndexEntry{}, false},
		{"lenient entry", "- id: q-1\n  to: architect, designer\n  priority: Blocker\n  asked: 2026-01-15 10:30:00\n  answered: soon\n  note: kept? no\n",
			[]IndexEntry{{ID: "q-1", To: []string{"architect", "designer"}, Priority: PriorityBlocker,
				Asked: time.Date(2026, 1, 15, 10, 30, 0, 0, time.UTC)}}, false},
		{"a mapping", "queries:\n  - id: q-1\n", nil, true},
		{"bad yaml", "- id: q-1\n  from: [\n", nil, true},
		{"an entry that is text", "- q-1\n", nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.data != "" {
				writeFile(t, IndexPath(dir), tt.data)
			}
			got, err := LoadIndex(dir)
			if errors.Is(err, ErrCorruptIndex) != tt.corrupt {
				t.Fatalf("error %v, corrupt %v", err, tt.corrupt)
			}
			if !tt.corrupt {
				assertEqual(t, got, tt.want)
			}
		})
	}
}

func TestUpsertIndexCorrupt(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, IndexPath(dir), "{{{ not an index")
	entry := IndexEntry{ID: "q-1", File: "query-1.yaml", Status: StatusPending}
	got, err := UpsertIndex(dir, entry)
	if !errors.Is(err, ErrCorruptIndex) {
		t.Fatalf("want the corruption reported, got %v", err)
	}
	t.Log(err)
	assertEqual(t, got, []IndexEntry{entry})
	loaded, err := LoadIndex(dir)
	if err != nil {
		t.Fatal(err)
	}
	assertEqual(t, loaded, []IndexEntry{entry})
	kept, err := os.ReadFile(IndexPath(dir) + ".corrupt")
	if err != nil || string(kept) != "{{{ not an index" {
		t.Errorf("the unreadable index was not kept: %q, %v", kept, err)
	}
	if _, err := UpsertIndex(dir, entry); err != nil {
		t.Errorf("after the rebuild: %v", err)
	}
}
