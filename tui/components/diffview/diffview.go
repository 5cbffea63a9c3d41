// Package diffview shows what an agent changed in its worktree: the files
// of each part (committed, staged, unstaged), then what merging would
// change in the person's branch (its patch too where that is not the
// committed one), and then the unified diffs, coloured, in one document
// the person scrolls. Everything in it came
// from the agent's files, so every line is defanged before it is shown.
package diffview

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/textsafe"
	"github.com/teamlead/teamlead/internal/worktree"
	"github.com/teamlead/teamlead/tui/style"
)

// Model is the diff of one agent.
type Model struct {
	merge         worktree.Preview // the merge shown (Changes.Merge)
	st            *style.Styles
	width, height int
	agent         string
	lines         []string // the document, each line styled and cut to width
	raw           []line   // the document before styling
	offset        int      // the first line shown
	loading       bool
	err           string
}

type lineKind int

const (
	plain lineKind = iota
	heading
	file
	hunk
	added
	removed
	meta
	note
	warn
)

type line struct {
	kind lineKind
	text string
}

// New returns an empty view.
func New(st *style.Styles) Model { return Model{st: st} }

// Loading shows that agent's diff is being read.
func (m *Model) Loading(agent string) {
	m.agent, m.loading, m.err, m.raw, m.offset, m.merge = agent, true, "", nil, 0, worktree.Preview{}
	m.render()
}

// Agent is the agent whose diff this is.
func (m Model) Agent() string { return m.agent }

// Merge is the merge shown (its At "" before it is): what a merge from
// this view merges.
func (m Model) Merge() worktree.Preview { return m.merge }

// SetError shows why the diff could not be read.
func (m *Model) SetError(agent string, err error) {
	m.agent, m.loading, m.err, m.raw, m.offset, m.merge = agent, false, textsafe.Line(err.Error()), nil, 0, worktree.Preview{}
	m.render()
}

// Set shows agent's changes in t.
func (m *Model) Set(agent string, t worktree.Tree, c worktree.Changes) {
	m.agent, m.loading, m.err, m.merge = agent, false, "", c.Merge
	var doc []line
	add := func(k lineKind, s string) { doc = append(doc, line{k, s}) }
	add(heading, fmt.Sprintf("%s at %.12s since %.12s, in %s", t.Branch, c.Head, c.Base, t.Path))
	parts := []struct {
		name string
		p    worktree.Part
	}{{"committed", c.Committed}, {"staged", c.Staged}, {"unstaged", c.Unstaged}}
	total := 0
	for _, p := range parts {
		total += len(p.p.Files)
	}
	if total == 0 {
		add(note, "no changes since the worktree was made")
	}
	files := func(fs []worktree.File) {
		for _, f := range fs {
			name := f.Shown()
			if f.OldPath != "" {
				name = textsafe.Line(f.OldPath) + " → " + f.Shown()
			}
			counts := fmt.Sprintf("+%d −%d", f.Added, f.Removed)
			if f.Binary {
				counts = "binary"
			}
			add(file, fmt.Sprintf(" %s %s  %s", f.Status, name, counts))
		}
	}
	for _, p := range parts {
		if len(p.p.Files) == 0 {
			continue
		}
		add(plain, "")
		add(heading, fmt.Sprintf("%s — %d %s", p.name, len(p.p.Files), plural(len(p.p.Files), "file", "files")))
		files(p.p.Files)
	}
	mp := c.Merge
	if mp.Err != "" || mp.At != "" {
		add(plain, "")
	}
	switch into := cmp.Or(mp.Into, "your checkout"); {
	case mp.Err == "" && mp.At == "": // no preview
	case mp.Err != "":
		add(warn, "merge: cannot tell what merging would change: "+mp.Err)
	case mp.UpToDate:
		add(note, fmt.Sprintf("merge: %s has all of it already", into))
	case len(mp.Conflicts) > 0:
		add(warn, fmt.Sprintf("merge into %s: conflicts in %s; M would change nothing", into, textsafe.Line(strings.Join(mp.Conflicts, ", "))))
	default:
		add(heading, fmt.Sprintf("merging into %s at %.12s changes — %d %s", into, mp.Head, len(mp.Changes.Files), plural(len(mp.Changes.Files), "file", "files")))
		for _, u := range mp.Unseen {
			add(warn, " ! "+u.Why)
		}
		files(mp.Changes.Files)
		if mp.Same(c.Committed) {
			add(note, " (the committed diff below is what the merge changes)")
		}
	}
	if mp.Changes.Patch != "" && !mp.Same(c.Committed) {
		add(plain, "")
		add(heading, "── merge: what merging changes in "+cmp.Or(mp.Into, "your checkout")+" ──")
		for _, l := range strings.Split(strings.TrimRight(mp.Changes.Patch, "\n"), "\n") {
			add(kindOf(l), l)
		}
	}
	for _, p := range parts {
		if p.p.Patch == "" {
			continue
		}
		add(plain, "")
		add(heading, "── "+p.name+" ──")
		for _, l := range strings.Split(strings.TrimRight(p.p.Patch, "\n"), "\n") {
			add(kindOf(l), l)
		}
	}
	m.raw = doc
	m.offset = min(m.offset, m.maxOffset())
	m.render()
}

// kindOf classifies a line of a unified diff.
func kindOf(l string) lineKind {
	switch {
	case strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "diff --git "),
		strings.HasPrefix(l, "index "), strings.HasPrefix(l, "new file"), strings.HasPrefix(l, "deleted file"),
		strings.HasPrefix(l, "similarity "), strings.HasPrefix(l, "rename "), strings.HasPrefix(l, "Binary files"):
		return meta
	case strings.HasPrefix(l, "@@"):
		return hunk
	case strings.HasPrefix(l, "+"):
		return added
	case strings.HasPrefix(l, "-"):
		return removed
	}
	return plain
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// SetSize sets the view's size in cells.
func (m *Model) SetSize(w, h int) {
	m.width, m.height = max(w, 1), max(h, 1)
	m.offset = min(m.offset, m.maxOffset())
	m.render()
}

func (m Model) maxOffset() int { return max(len(m.raw)-m.height, 0) }

// Scroll moves the view by n lines (positive: further down the document).
func (m *Model) Scroll(n int) { m.offset = max(0, min(m.offset+n, m.maxOffset())) }

// PageDown and PageUp move by a screen, less a line of context.
func (m *Model) PageDown() { m.Scroll(max(m.height-1, 1)) }

// PageUp moves back by a screen.
func (m *Model) PageUp() { m.Scroll(-max(m.height-1, 1)) }

// End shows the end of the document.
func (m *Model) End() { m.offset = m.maxOffset() }

// Position says where the view is: its first line shown and the document's
// length.
func (m Model) Position() (first, total int) { return m.offset + 1, len(m.raw) }

func (m *Model) render() {
	m.lines = m.lines[:0]
	switch {
	case m.loading:
		m.lines = append(m.lines, m.st.Muted.Render("reading the diff of "+m.agent+"…"))
		return
	case m.err != "":
		for _, l := range strings.Split(ansi.Wrap(m.err, m.width, " "), "\n") {
			m.lines = append(m.lines, m.st.Error.Render(l))
		}
		return
	}
	for _, l := range m.raw {
		text := ansi.Truncate(textsafe.Line(strings.ReplaceAll(l.text, "\t", "    ")), m.width, "…")
		switch l.kind {
		case heading:
			text = m.st.Title.Render(text)
		case file, meta:
			text = m.st.Muted.Render(text)
		case hunk:
			text = m.st.Accent.Render(text)
		case added:
			text = m.st.Ok.Render(text)
		case removed:
			text = m.st.Error.Render(text)
		case note:
			text = m.st.Muted.Render(text)
		case warn:
			text = m.st.Error.Render(text)
		}
		m.lines = append(m.lines, text)
	}
}

// View draws the visible lines.
func (m Model) View() string {
	if m.loading || m.err != "" {
		return strings.Join(m.lines, "\n")
	}
	end := min(m.offset+m.height, len(m.lines))
	return strings.Join(m.lines[m.offset:end], "\n")
}
