package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/worktree"
)

// teamlead diff shows the merge after the agent's parts: the files the
// agent's diff hides named first, its stat, and its patch where it is not
// the committed one (red team 12a, finding 3).
func TestPrintDiffShowsTheMerge(t *testing.T) {
	readme := worktree.File{Path: "README", Status: "M", Added: 1}
	c := worktree.Changes{Base: "0123456789abcdef", Head: "fedcba9876543210",
		Committed: worktree.Part{Files: []worktree.File{readme}, Patch: "diff --git a/README b/README\n+wording\n"},
		Merge: worktree.Preview{Into: "main", Head: "aaaabbbbccccdddd", At: "fedcba9876543210", Tree: "eeeeffff00001111",
			Changes: worktree.Part{Files: []worktree.File{readme, {Path: "scripts/check.sh", Status: "M", Removed: 1}},
				Patch: "diff --git a/README b/README\n+wording\ndiff --git a/scripts/check.sh b/scripts/check.sh\n-set -eu\n"},
			Unseen: []worktree.Unseen{{Path: "scripts/check.sh", Why: "merging also changes scripts/check.sh: main changed it after the worktree was made, the branch has it as before"}}}}
	tr := worktree.Tree{Branch: "teamlead/dev", Path: "/w/dev"}
	for _, stat := range []bool{true, false} {
		var b bytes.Buffer
		if err := printDiff(&b, tr, c, stat, false); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"what merging into main (at aaaabbbbcccc) changes, 2 files", "! merging also changes scripts/check.sh", "scripts/check.sh | 1 -"} {
			if !strings.Contains(out, want) {
				t.Errorf("stat %v: no %q in:\n%s", stat, want, out)
			}
		}
		if strings.Contains(out, "-set -eu") == stat {
			t.Errorf("stat %v: the merge's patch shown %v:\n%s", stat, !stat, out)
		}
	}
	var b bytes.Buffer
	if err := printDiff(&b, tr, c, true, true); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Merge struct {
			Head   string            `json:"head"`
			Tree   string            `json:"tree"`
			Unseen []worktree.Unseen `json:"unseen"`
		} `json:"merge"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil || doc.Merge.Tree != "eeeeffff00001111" || len(doc.Merge.Unseen) != 1 {
		t.Fatalf("json %v: %s", err, b.String())
	}
}
