package queryfiles

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSetStatus(t *testing.T) {
	const head = "# a comment at the top\nid: q-1   # trailing comment\n\nfrom: developer\nto: [architect]\nquestion: |\n  status: pending is not the field\n"
	tests := []struct {
		name   string
		before string
		status Status
		after  string
	}{
		{"plain value, comments and blank lines kept",
			head + "status: pending # set by the agent\n\n# the end\n", StatusAnswered,
			head + "status: answered # set by the agent\n\n# the end\n"},
		{"double quotes kept",
			head + "status: \"pending\"\n", StatusResolved,
			head + "status: \"resolved\"\n"},
		{"single quotes kept",
			head + "status: 'Pending'\n", StatusAnswered,
			head + "status: 'answered'\n"},
		{"status in the middle",
			"id: q-1\nstatus: pending\nfrom: a\nto: b\nquestion: x\n", StatusAnswered,
			"id: q-1\nstatus: answered\nfrom: a\nto: b\nquestion: x\n"},
		{"no status: a line is added",
			head + "priority: low", StatusAnswered,
			head + "priority: low\nstatus: answered\n"},
		{"CRLF and a byte order mark kept",
			"\xef\xbb\xbfid: q-1\r\nfrom: a\r\nto: b\r\nquestion: x\r\nstatus: pending\r\n", StatusResolved,
			"\xef\xbb\xbfid: q-1\r\nfrom: a\r\nto: b\r\nquestion: x\r\nstatus: resolved\r\n"},
		{"status as a block is re-encoded",
			"id: q-1\nfrom: a\nto: b\nquestion: x\nstatus: |\n  pending\n", StatusAnswered,
			"id: q-1\nfrom: a\nto: b\nquestion: x\nstatus: answered\n"},
		{"flow mapping",
			"{id: q-1, from: a, to: b, question: x, status: pending}\n", StatusAnswered,
			"{id: q-1, from: a, to: b, question: x, status: answered}\n"},
		{"empty status is re-encoded",
			"id: q-1 # c\nfrom: a\nto: b\nquestion: x\nstatus:\n", StatusAnswered,
			"id: q-1 # c\nfrom: a\nto: b\nquestion: x\nstatus: answered\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "query-x.yaml")
			writeFile(t, path, tt.before)
			if err := SetStatus(path, tt.status); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			assertEqual(t, string(got), tt.after)
			q, err := ReadQuery(path)
			if err != nil || q.Status != tt.status {
				t.Fatalf("read back: %+v, %v", q, err)
			}
		})
	}
}

// TestSetStatusSeedExample: on the seed's example only the status changes.
func TestSetStatusSeedExample(t *testing.T) {
	path := filepath.Join(t.TempDir(), seedQuery)
	seed := string(readTestdata(t, seedQuery))
	writeFile(t, path, seed)
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, st := range []Status{StatusAnswered, StatusResolved} {
		if err := SetStatus(path, st); err != nil {
			t.Fatal(err)
		}
		got, _ := os.ReadFile(path)
		assertEqual(t, string(got), strings.Replace(seed, "status: pending", "status: "+string(st), 1))
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the file's own 0600", fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestSetStatusNoChangeNoWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "query-x.yaml")
	writeFile(t, path, "id: q-1\nfrom: a\nto: b\nquestion: x\n")
	if err := os.Chmod(dir, 0o500); err != nil { // a write would fail
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if err := SetStatus(path, StatusPending); err != nil {
		t.Fatalf("pending by default: %v", err)
	}
}

func TestSetStatusErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "query-x.yaml")
	writeFile(t, path, "id: q-1\nfrom: a\n")
	if err := SetStatus(path, StatusAnswered); !errors.Is(err, ErrMissingField) {
		t.Errorf("incomplete query: %v", err)
	}
	if err := SetStatus(path, "done"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad status: %v", err)
	}
	if err := SetStatus(path+".missing", StatusAnswered); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestOffset(t *testing.T) {
	body := []byte("ab\né: ü\nx")
	for _, tt := range []struct{ line, col, want int }{
		{1, 1, 0}, {1, 3, 2}, {2, 1, 3}, {2, 4, 7}, {3, 1, 10}, {3, 2, 11}, {3, 3, -1}, {4, 1, -1}, {1, 4, -1},
	} {
		if got := offset(body, tt.line, tt.col); got != tt.want {
			t.Errorf("offset(%d, %d) = %d, want %d", tt.line, tt.col, got, tt.want)
		}
	}
}
