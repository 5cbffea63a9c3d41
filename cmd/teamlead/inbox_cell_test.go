package main

import (
	"strings"
	"testing"
)

// teamlead inbox shows a request on two lines as two (red team 21b,
// finding 5).
func TestInboxCellShowsLineBreaks(t *testing.T) {
	if got := cell("Bash(npm install left-pad\nrm -rf ~)", 80); !strings.Contains(got, "left-pad ↵ rm -rf ~") {
		t.Fatalf("cell: %q", got)
	}
}
