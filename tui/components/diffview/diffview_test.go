package diffview

import (
	"errors"
	"strings"
	"testing"

	"github.com/charmbracelet/lipgloss"

	"github.com/teamlead/teamlead/internal/worktree"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui/golden"
	"github.com/teamlead/teamlead/tui/style"
)

func sample() (worktree.Tree, worktree.Changes) {
	t := worktree.Tree{Branch: "teamlead/dev", Path: "/src/app-worktrees/dev"}
	c := worktree.Changes{Base: "0123456789abcdef0123", Head: "fedcba9876543210",
		Committed: worktree.Part{Files: []worktree.File{{Path: "feature.go", Status: "A", Added: 3}, {Path: "README", Status: "M", Added: 1, Removed: 1}},
			Patch: "diff --git a/README b/README\nindex 1..2 100644\n--- a/README\n+++ b/README\n@@ -1 +1 @@\n-app\n+app, with a feature\n" +
				"diff --git a/feature.go b/feature.go\nnew file mode 100644\n--- /dev/null\n+++ b/feature.go\n@@ -0,0 +1,3 @@\n+package app\n+\n+func Feature() {}\n"},
		Unstaged: worktree.Part{Files: []worktree.File{{Path: "logo.png", Status: "A", Binary: true}, {Path: "old.go", OldPath: "older.go", Status: "R"}},
			Patch: "diff --git a/logo.png b/logo.png\nBinary files /dev/null and b/logo.png differ\n"},
	}
	c.Merge = worktree.Preview{Into: "main", Head: "aaaabbbbccccdddd", At: c.Head, Tree: "eeeeffff00001111",
		Changes: worktree.Part{Files: append(append([]worktree.File{}, c.Committed.Files...), worktree.File{Path: "check.sh", Status: "M", Removed: 1}),
			Patch: c.Committed.Patch + "diff --git a/check.sh b/check.sh\n--- a/check.sh\n+++ b/check.sh\n@@ -1,2 +1 @@\n-set -eu\n echo ok\n"},
		Unseen: []worktree.Unseen{{Path: "check.sh", Why: "merging also changes check.sh: main changed it after the worktree was made, the branch has it as before"}}}
	return t, c
}

func TestView(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	tr, c := sample()
	m.SetSize(60, 12)
	m.Set("dev", tr, c)
	golden.Assert(t, "wide-top", m.View())
	m.PageDown()
	golden.Assert(t, "wide-page2", m.View())
	m.SetSize(30, 8)
	m.End()
	golden.Assert(t, "narrow-end", m.View())
	for _, l := range strings.Split(m.View(), "\n") {
		if w := lipgloss.Width(l); w > 30 {
			t.Errorf("line %q is %d wide", l, w)
		}
	}
	if first, total := m.Position(); first+8-1 != total {
		t.Errorf("at the end: first %d of %d", first, total)
	}
}

// What an agent put in its files cannot drive the human's terminal.
func TestViewDefangs(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	m.SetSize(80, 10)
	c := worktree.Changes{Unstaged: worktree.Part{Files: []worktree.File{{Path: "x\x1b]52;c;aGk=\x07", Status: "A"}},
		Patch: "+rm -rf ~/ \x1b[2K\r\x1b[1A\x1b[2Kgo test ./...\n"}}
	m.Set("dev", worktree.Tree{Branch: "teamlead/dev"}, c)
	v := m.View()
	if strings.Contains(v, "\x1b]52") || strings.Contains(v, "\x1b[2K") || strings.Contains(v, "\r") || strings.Contains(v, "\x07") {
		t.Fatalf("raw control characters in the view: %q", v)
	}
	if !strings.Contains(v, `\u001b[2K`) {
		t.Fatalf("the escape is not shown: %q", v)
	}
}

func TestLoadingAndError(t *testing.T) {
	th, _ := themes.Load("dark")
	m := New(style.New(th, true))
	m.SetSize(50, 5)
	m.Loading("dev")
	if !strings.Contains(m.View(), "reading the diff of dev") {
		t.Errorf("loading: %q", m.View())
	}
	m.SetError("dev", errors.New("agent dev does not work in a worktree"))
	if !strings.Contains(m.View(), "does not work in a worktree") {
		t.Errorf("error: %q", m.View())
	}
}
