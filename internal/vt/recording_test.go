package vt

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// recording describes one capture of a real program in testdata/ (see
// capture_test.go for how they are made).
type recording struct {
	Name        string `json:"name"`
	File        string `json:"file"`
	Cols        int    `json:"cols"`
	Rows        int    `json:"rows"`
	Command     string `json:"command"`
	Checkpoints []int  `json:"checkpoints"` // byte offsets worth comparing at
}

func loadRecordings(t testing.TB) ([]recording, map[string][]byte) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "recordings.json"))
	if err != nil {
		t.Fatalf("read the recordings manifest: %v", err)
	}
	var recs []recording
	if err := json.Unmarshal(b, &recs); err != nil {
		t.Fatalf("testdata/recordings.json: %v", err)
	}
	data := map[string][]byte{}
	for _, r := range recs {
		d, err := os.ReadFile(filepath.Join("testdata", r.File))
		if err != nil {
			t.Fatal(err)
		}
		data[r.Name] = d
	}
	return recs, data
}
