package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamlead/teamlead/internal/textsafe"
)

// File is one changed file.
type File struct {
	Path    string // path in the worktree (the new path of a rename)
	OldPath string // the old path of a rename or copy, else ""
	Status  string // git's letter: A added, M modified, D deleted, R renamed, C copied, T type changed, U unmerged
	Added   int    // lines added (0 for binary files)
	Removed int    // lines removed (0 for binary files)
	Binary  bool   // git found no lines to count
}

// Part is one slice of an agent's changes: its files and the unified diff.
type Part struct {
	Files []File
	Patch string // git diff output, no colour, repository diff programs not run
}

// Changes is an agent's work against the commit its worktree was created
// from, split by how far it got.
type Changes struct {
	Base      string // the worktree's recorded base commit
	Head      string // the worktree's HEAD commit
	Committed Part   // Base..HEAD
	Staged    Part   // HEAD against the index
	Unstaged  Part   // the index against the work tree, untracked files as added
	// Merge is what merging Head would change in the user's branch (Err
	// set when that could not be computed): not always Committed, when
	// the branch merged the user's later work and undid some of it.
	Merge Preview
}

// Diff returns the worktree's changes against its base, and what merging
// its HEAD would change in the user's branch (PreviewMerge). It never runs the
// repository's external diff, textconv or filter programs, and never
// touches the agent's index: each untracked file is diffed on its own
// (git diff --no-index), two git processes per file, rather than added
// with intent-to-add.
func Diff(t Tree) (Changes, error) {
	if err := ImportObjects(t); err != nil {
		return Changes{}, err
	}
	r, err := reader(t)
	if err != nil {
		return Changes{}, err
	}
	out, err := r.run("rev-parse", "--verify", "HEAD^{commit}")
	if err != nil {
		return Changes{}, err
	}
	c := Changes{Head: line(out)}
	if c.Base, err = baseOf(t); err != nil {
		return Changes{}, err
	}
	// Between two commits the diff needs no worktree: in the human's
	// checkout it takes the human's attributes, not a .gitattributes the
	// agent wrote into its own (red team 14a, finding 9: `* -diff` there
	// showed every committed file as "Binary files differ").
	if c.Committed, err = diffPart(runner{dir: t.Repo}, nil, c.Base, c.Head); err != nil {
		return Changes{}, err
	}
	if c.Staged, err = diffPart(r, nil, "--cached", c.Head); err != nil {
		return Changes{}, err
	}
	if c.Unstaged, err = diffPart(r, nil); err != nil {
		return Changes{}, err
	}
	out, err = r.run("ls-files", "--others", "--exclude-standard", "-z")
	if err != nil {
		return Changes{}, err
	}
	for _, path := range parseNUL(out) {
		if strings.HasSuffix(path, "/") {
			// A nested repository: git shows only its folder.
			c.Unstaged.Files = append(c.Unstaged.Files, File{Path: path, Status: "A"})
			continue
		}
		p, err := diffPart(r, []int{1}, "--no-index", "/dev/null", path)
		if err != nil {
			return Changes{}, err
		}
		c.Unstaged.Files = append(c.Unstaged.Files, p.Files...)
		c.Unstaged.Patch += p.Patch
	}
	if c.Merge, err = PreviewMerge(t, c.Head); err != nil {
		c.Merge = Preview{Err: err.Error()}
	}
	return c, nil
}

// baseOf is the worktree's base commit: t.Base, else the one recorded.
func baseOf(t Tree) (string, error) {
	if t.Base != "" {
		return t.Base, nil
	}
	b, err := os.ReadFile(filepath.Join(t.GitDir, baseFile))
	if err != nil {
		return "", fmt.Errorf("no base commit recorded for %s: call Ensure or Open for it first: %w", t.Path, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// diffPart runs git diff with what (revisions or --no-index paths) twice:
// once machine-readable for the file list, once as a patch.
func diffPart(r runner, ok []int, what ...string) (Part, error) {
	common := append([]string{"diff"}, diffSafety...)
	common = append(common, "-M", "--src-prefix=a/", "--dst-prefix=b/")
	list, err := r.runOK(ok, append(append(common, "--raw", "--numstat", "-z"), tail(what)...)...)
	if err != nil {
		return Part{}, err
	}
	patch, err := r.runOK(ok, append(common, tail(what)...)...)
	if err != nil {
		return Part{}, err
	}
	return Part{Files: parseChanges(list), Patch: string(patch)}, nil
}

// tail puts "--" before --no-index's paths so none reads as an option;
// revisions go before it.
func tail(what []string) []string {
	if len(what) == 3 && what[0] == "--no-index" {
		return []string{"--no-index", "--", what[1], what[2]}
	}
	return append(append([]string{}, what...), "--")
}

// Shown is the file's path as a screen shows it: a line break or control
// character in it made visible, never printed, so that one file's name
// cannot draw lines of a list of its own (red team 13a, finding 3: a name
// of 60 line breaks pushed the Makefile a merge added out of its prompt).
func (f File) Shown() string { return textsafe.Line(f.Path) }

// Stat renders the files like git diff --stat: one line per file and a
// total.
func (p Part) Stat() string {
	if len(p.Files) == 0 {
		return ""
	}
	names := make([]string, len(p.Files))
	width, most := 0, 0
	for i, f := range p.Files {
		names[i] = f.Shown()
		if f.OldPath != "" {
			names[i] = textsafe.Line(f.OldPath) + " => " + f.Shown()
		}
		width = max(width, len(names[i]))
		most = max(most, f.Added+f.Removed)
	}
	const bar = 40
	var b strings.Builder
	added, removed := 0, 0
	for i, f := range p.Files {
		added += f.Added
		removed += f.Removed
		if f.Binary {
			fmt.Fprintf(&b, " %-*s | Bin\n", width, names[i])
			continue
		}
		plus, minus := f.Added, f.Removed
		if most > bar { // scale, keeping at least one mark for any change
			plus, minus = scale(plus, most, bar), scale(minus, most, bar)
		}
		fmt.Fprintf(&b, " %-*s | %d %s%s\n", width, names[i], f.Added+f.Removed, strings.Repeat("+", plus), strings.Repeat("-", minus))
	}
	fmt.Fprintf(&b, " %d %s changed, %d %s(+), %d %s(-)\n", len(p.Files), plural(len(p.Files), "file", "files"),
		added, plural(added, "insertion", "insertions"), removed, plural(removed, "deletion", "deletions"))
	return b.String()
}

// Stat renders each non-empty part under a heading, for teamlead diff --stat.
func (c Changes) Stat() string {
	var b strings.Builder
	for _, p := range []struct {
		name string
		part Part
	}{{"committed", c.Committed}, {"staged", c.Staged}, {"unstaged", c.Unstaged}} {
		if s := p.part.Stat(); s != "" {
			fmt.Fprintf(&b, "%s:\n%s", p.name, s)
		}
	}
	return b.String()
}

func scale(n, most, width int) int {
	if n == 0 {
		return 0
	}
	return max(1, n*width/most)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
