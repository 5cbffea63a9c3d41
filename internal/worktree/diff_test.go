package worktree

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, "old name.txt"), strings.Repeat("a fairly long line that stays put\n", 10))
	write(t, filepath.Join(repo, "gone.txt"), "bye\n")
	commit(t, repo, "more files")
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	p := func(name string) string { return filepath.Join(tr.Path, name) }

	// Committed: a rename, a deletion, a binary file, an edit.
	run(t, tr.Path, "mv", "old name.txt", "new name.txt")
	run(t, tr.Path, "rm", "-q", "gone.txt")
	write(t, p("image.bin"), "\x00\x01\x02binary")
	write(t, p("README"), "hello\nworld\n")
	commit(t, tr.Path, "agent commit")
	// Staged: a file whose name holds a space, and one a newline.
	write(t, p("with space.txt"), "one\ntwo\n")
	write(t, p("new\nline.txt"), "x\n")
	run(t, tr.Path, "add", "with space.txt", "new\nline.txt")
	// Unstaged: an edit, an untracked text file and an untracked binary.
	write(t, p("README"), "hello\n")
	write(t, p("untracked ünïcode.txt"), "a\nb\nc\n")
	write(t, p("blob.dat"), "\x00\xff")

	c, err := Diff(tr)
	if err != nil {
		t.Fatal(err)
	}
	if c.Base != tr.Base || c.Head != run(t, tr.Path, "rev-parse", "HEAD") {
		t.Errorf("Base, Head = %s, %s", c.Base, c.Head)
	}
	check := func(part string, got []File, want []File) {
		t.Helper()
		sort := func(fs []File) {
			slices.SortFunc(fs, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
		}
		sort(got)
		sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s files:\n got %+v\nwant %+v", part, got, want)
		}
	}
	check("committed", c.Committed.Files, []File{
		{Path: "README", Status: "M", Added: 1},
		{Path: "gone.txt", Status: "D", Removed: 1},
		{Path: "image.bin", Status: "A", Binary: true},
		{Path: "new name.txt", OldPath: "old name.txt", Status: "R"},
	})
	check("staged", c.Staged.Files, []File{
		{Path: "new\nline.txt", Status: "A", Added: 1},
		{Path: "with space.txt", Status: "A", Added: 2},
	})
	check("unstaged", c.Unstaged.Files, []File{
		{Path: "README", Status: "M", Removed: 1},
		{Path: "blob.dat", Status: "A", Binary: true},
		{Path: "untracked ünïcode.txt", Status: "A", Added: 3},
	})
	for name, part := range map[string]Part{"committed": c.Committed, "staged": c.Staged, "unstaged": c.Unstaged} {
		if !strings.HasPrefix(part.Patch, "diff --git ") || strings.Contains(part.Patch, "\x1b[") {
			t.Errorf("%s patch:\n%s", name, part.Patch)
		}
	}
	if !strings.Contains(c.Committed.Patch, "+world") || !strings.Contains(c.Unstaged.Patch, "+b\n") {
		t.Error("patches lack their lines")
	}
	stat := c.Stat()
	for _, want := range []string{"committed:\n", "old name.txt => new name.txt", "image.bin", "| Bin", "staged:\n", "2 files changed, 3 insertions(+), 0 deletions(-)", "unstaged:\n"} {
		if !strings.Contains(stat, want) {
			t.Errorf("Stat lacks %q:\n%s", want, stat)
		}
	}
}

func TestPartStat(t *testing.T) {
	p := Part{Files: []File{
		{Path: "a.go", Status: "M", Added: 2, Removed: 1},
		{Path: "long/path.go", Status: "A", Added: 400},
		{Path: "img.png", Status: "A", Binary: true},
	}}
	want := "" +
		" a.go         | 3 +-\n" +
		" long/path.go | 400 " + strings.Repeat("+", 40) + "\n" +
		" img.png      | Bin\n" +
		" 3 files changed, 402 insertions(+), 1 deletion(-)\n"
	if got := p.Stat(); got != want {
		t.Errorf("Stat:\n%s\nwant:\n%s", got, want)
	}
	if (Part{}).Stat() != "" {
		t.Error("empty part should render nothing")
	}
}

// An agent controls its worktree's .gitattributes and can usually write
// the shared git config: nothing this package runs may start the programs
// configured there.
func TestNoRepositoryPrograms(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	marker := filepath.Join(t.TempDir(), "ran")
	script := filepath.Join(t.TempDir(), "evil.sh")
	write(t, script, "#!/bin/sh\necho \"$0 $*\" >> '"+marker+"'\ncat\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	// The agent commits attributes routing everything through them, and
	// leaves a change whose stat differs but size does not, so git must
	// read (and would filter) the content.
	write(t, filepath.Join(tr.Path, ".gitattributes"), "* diff=x\n*.txt filter=y\n*.md filter=z=odd\n")
	write(t, filepath.Join(tr.Path, "README"), "HELLO\n")
	write(t, filepath.Join(tr.Path, "a.txt"), "text\n")
	write(t, filepath.Join(tr.Path, "b.md"), "doc\n")
	write(t, filepath.Join(tr.Path, "untracked.txt"), "u\n")
	run(t, tr.Path, "add", ".gitattributes", "a.txt", "b.md")
	for _, kv := range [][2]string{
		{"diff.x.command", script + " ext"},
		{"diff.x.textconv", script + " textconv"},
		{"diff.external", script + " external"},
		{"filter.y.clean", script + " clean"},
		{"filter.y.required", "true"},
		{"filter.z=odd.clean", script + " odd-clean"},
		{"core.fsmonitor", script + " fsmonitor"},
	} {
		run(t, repo, "config", kv[0], kv[1])
	}
	write(t, filepath.Join(tr.Path, "a.txt"), "TEXT\n")
	write(t, filepath.Join(tr.Path, "b.md"), "DOC\n")
	if _, err := os.Stat(marker); err == nil {
		t.Fatalf("setup already ran the script: %s", read(t, marker))
	}

	if _, err := Diff(tr); err != nil {
		t.Fatal(err)
	}
	if _, err := Status(tr); err != nil {
		t.Fatal(err)
	}
	if err := Remove(tr, false); err == nil {
		t.Fatal("Remove of a dirty worktree succeeded")
	}
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("a repository-configured program ran:\n%s", b)
	}

	// The setup is live: plain git diff does run them.
	_ = exec.Command("git", "-C", tr.Path, "diff").Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("plain git diff ran no configured program: the test proves nothing")
	}
}

// A file name holding line breaks takes one line of a stat, its breaks
// shown: red team 13a (finding 3) named a file "zz", 60 line breaks and a
// forged stat, and the merge prompt showed only the forged lines.
func TestStatShowsOneLinePerFile(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	forged := "zz" + strings.Repeat("\n", 60) + " NOTES.md | 3 +++\n README.md"
	write(t, filepath.Join(tr.Path, forged), "x\n")
	write(t, filepath.Join(tr.Path, "Makefile"), "all:\n\ttouch pwned\n")
	commit(t, tr.Path, "work")
	p, err := PreviewMerge(tr, "")
	if err != nil {
		t.Fatal(err)
	}
	stat := p.Changes.Stat()
	if lines := strings.Count(stat, "\n"); lines != 3 {
		t.Fatalf("%d lines for 2 files:\n%s", lines, stat)
	}
	if !strings.Contains(stat, "Makefile") || !strings.Contains(stat, `zz\u000a`) {
		t.Fatalf("stat:\n%s", stat)
	}
}

// The committed part of teamlead diff takes the human's attributes, not a
// .gitattributes the agent put in its worktree: `* -diff` there showed
// every committed file as binary (red team 14a, finding 9).
func TestCommittedDiffTakesNoAttributesOfTheAgents(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	_, own := ownFolder(t, tr)
	write(t, filepath.Join(tr.Path, "Makefile"), "all:\n\ttouch pwned\n")
	agentCommit(t, tr, own, "make")
	write(t, filepath.Join(tr.Path, ".gitattributes"), "* -diff\n")
	c, err := Diff(tr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Committed.Patch, "+\ttouch pwned") || strings.Contains(c.Committed.Patch, "Binary files") {
		t.Errorf("committed patch:\n%s", c.Committed.Patch)
	}
}
