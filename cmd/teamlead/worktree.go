package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/textsafe"
	"github.com/teamlead/teamlead/internal/trust"
	"github.com/teamlead/teamlead/internal/worktree"
)

// placeAgents moves each agent that works in a worktree there before any
// starts: the worktree is made (or found again after a restart) and the
// agent's dir becomes the worktree's (Repo keeps the folder the team file
// names). A worktree that cannot be made stops the start with the reason.
// It returns what of each repository's shared git dir the agents' sandboxes
// keep read-only (worktree.Tree.Shared), and what to tell in Activity: an
// agent's objects set aside (worktree.ImportObjectsOrSetAside).
func placeAgents(team *config.Team) (shared, notes []string, err error) {
	var trees []worktree.Tree
	own := map[string]string{} // agent → its worktree
	seen := map[string]bool{}
	for i := range team.Agents {
		a := &team.Agents[i]
		if a.Branch == "" {
			continue
		}
		t, err := worktree.Ensure(team.WorktreeOf(*a))
		if err != nil && !errors.Is(err, worktree.ErrSubmodule) {
			return nil, nil, fmt.Errorf("agent %s works in a worktree (worktree: in %s): %w", a.Name, team.File, err)
		}
		a.Repo, a.Dir = a.Dir, t.Dir
		// What it committed before a console was killed, copied now.
		note, err := worktree.ImportObjectsOrSetAside(t)
		if err != nil {
			return nil, nil, fmt.Errorf("agent %s's worktree: %w", a.Name, err)
		}
		if note != "" {
			notes = append(notes, note)
		}
		trees = append(trees, t)
		own[a.Name] = t.Path
		if a.Confined, err = t.Confined(); err != nil {
			return nil, nil, fmt.Errorf("agent %s's repository: %w", a.Name, err)
		}
		files, err := t.Shared()
		if err != nil {
			return nil, nil, fmt.Errorf("agent %s's repository: %w", a.Name, err)
		}
		for _, f := range files {
			if !seen[f] {
				seen[f] = true
				shared = append(shared, f)
			}
		}
	}
	// A worktree is its agent's alone: read-only to the team's other
	// agents (red team 13a, finding 6: dev wrote a Makefile into qa's
	// worktree, and teamlead diff qa showed it as qa's work).
	// So is its git dir (HEAD, index, logs, a rebase's todo) and its object
	// folder to the agents that work in the checkout itself, who write the
	// rest of the .git (red team 13c, finding 4).
	for i := range team.Agents {
		a := &team.Agents[i]
		for _, t := range trees {
			if t.Path != own[a.Name] && !worktree.Inside(a.Dir, t.Path) {
				a.Confined = append(a.Confined, worktree.Bind{Path: t.Path})
			}
			if a.Branch == "" {
				a.Confined = append(a.Confined, t.Private()...)
			}
		}
	}
	// The repository's objects are read-only to the agents that work
	// outside it (worktree.Tree.Outside); the git folder of the checkout
	// an agent works in keeps what runs programs read-only to every agent
	// (worktree.CheckoutGit).
	for i := range team.Agents {
		if a := &team.Agents[i]; a.Branch == "" {
			files, err := worktree.CheckoutGit(a.Dir)
			if err != nil {
				return nil, nil, fmt.Errorf("agent %s's folder: %w", a.Name, err)
			}
			for _, f := range files {
				if !seen[f] {
					seen[f] = true
					shared = append(shared, f)
				}
			}
			// Its own object folder: the checkout's objects read-only
			// (worktree.CheckoutObjects); what it wrote before a console
			// was killed, copied now.
			note, err := worktree.ImportCheckoutOrSetAside(a.Dir, a.Name)
			if err != nil {
				return nil, nil, fmt.Errorf("agent %s's folder: %w", a.Name, err)
			}
			if note != "" {
				notes = append(notes, note)
			}
			objects, err := worktree.CheckoutObjects(a.Dir, a.Name)
			if err != nil {
				return nil, nil, fmt.Errorf("agent %s's folder: %w", a.Name, err)
			}
			a.Confined = append(a.Confined, objects...)
			bound := map[string]bool{}
			for _, t := range trees {
				for _, b := range t.Outside(a.Dir) {
					if !bound[b.Path] {
						bound[b.Path] = true
						a.Confined = append(a.Confined, b)
					}
				}
			}
		}
	}
	return shared, notes, nil
}

// agentTree finds the worktree of the team's agent name, never making one.
func agentTree(g *globals, name string) (worktree.Tree, error) {
	team, err := config.LoadTeam(g.config)
	if err != nil {
		return worktree.Tree{}, err
	}
	for _, a := range team.Agents {
		if a.Name != name {
			continue
		}
		if a.Branch == "" {
			return worktree.Tree{}, fmt.Errorf("agent %s does not work in a worktree (add worktree: true to it in %s)", name, team.File)
		}
		t, err := worktree.Open(team.WorktreeOf(a))
		if errors.Is(err, worktree.ErrNoWorktree) {
			return t, fmt.Errorf("agent %s has no worktree yet: teamlead run makes it (%w)", name, err)
		}
		return t, err
	}
	return worktree.Tree{}, fmt.Errorf("no agent %q in %s", name, team.File)
}

// humanOnly refuses what only the person may do when an agent's process
// asks (trust.InsideAgent).
func humanOnly(what string) error {
	if why := trust.InsideAgent(); why != "" {
		return fmt.Errorf("refusing to %s: %s; only you can, from your own terminal", what, why)
	}
	return nil
}

// humansTree is agentTree for what only the person may do with it (what).
func humansTree(g *globals, agent, what string) (worktree.Tree, error) {
	if err := humanOnly(what); err != nil {
		return worktree.Tree{}, err
	}
	return agentTree(g, agent)
}

// confirm asks the person at the terminal; yes skips the question. With no
// terminal to ask on, the answer is no.
func confirm(cmd *cobra.Command, question string, yes bool) (bool, error) {
	if yes {
		return true, nil
	}
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !term.IsTerminal(in.Fd()) {
		return false, fmt.Errorf("%s: no terminal to ask you on; add --yes to go ahead", question)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "%s [y/N] ", question)
	line, _ := bufio.NewReader(in).ReadString('\n')
	return strings.EqualFold(strings.TrimSpace(line), "y") || strings.EqualFold(strings.TrimSpace(line), "yes"), nil
}

func newWorktreeCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "worktree",
		Short: "List the agents' git worktrees, or remove one",
		Long: "An agent with worktree: true (or a branch name) in the team file works in a git worktree\n" +
			"of its own, on branch teamlead/<agent> (or the one named), made by teamlead run from the\n" +
			"current HEAD of the repository its dir names. Nothing is ever removed automatically.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return listWorktrees(cmd, g) },
	}
	var force bool
	rm := &cobra.Command{
		Use:   "rm AGENT",
		Short: "Remove an agent's worktree (refused while it holds uncommitted work, unless --force); the branch is kept",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := humansTree(g, args[0], "remove a worktree")
			if err != nil {
				return err
			}
			if err := worktree.Remove(t, force); err != nil {
				if errors.Is(err, worktree.ErrUncommitted) {
					return fmt.Errorf("%w\n(teamlead diff %s shows it; --force removes it anyway)", err, args[0])
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "removed %s; branch %s is kept (git branch -D %s deletes it)\n", t.Path, t.Branch, t.Branch)
			return nil
		},
	}
	rm.Flags().BoolVar(&force, "force", false, "remove it even with uncommitted changes or untracked files (they are lost)")
	cmd.AddCommand(rm)
	return cmd
}

func listWorktrees(cmd *cobra.Command, g *globals) error {
	team, err := config.LoadTeam(g.config)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "AGENT\tBRANCH\tAHEAD\tBEHIND\tCHANGES\tPATH")
	n := 0
	for _, a := range team.Agents {
		if a.Branch == "" {
			continue
		}
		n++
		t, err := worktree.Open(team.WorktreeOf(a))
		if err != nil {
			fmt.Fprintf(w, "%s\t%s\t-\t-\t-\t(%s)\n", a.Name, a.Branch, firstLine(err.Error()))
			continue
		}
		info, err := worktree.Status(t)
		if err != nil {
			fmt.Fprintf(w, "%s\t%s\t-\t-\t-\t%s (%s)\n", a.Name, a.Branch, t.Path, firstLine(err.Error()))
			continue
		}
		dirty := "none"
		if info.Dirty {
			dirty = "uncommitted"
		}
		if info.InProgress != "" {
			dirty += "; " + info.InProgress
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%s\t%s\n", a.Name, t.Branch, info.Ahead, info.Behind, dirty, t.Path)
	}
	if n == 0 {
		fmt.Fprintf(cmd.OutOrStdout(), "no agent of %s works in a worktree (worktree: true on an agent, or worktrees: {default: true})\n", team.File)
		return nil
	}
	return w.Flush()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

func newDiffCmd(g *globals) *cobra.Command {
	var stat bool
	var format *formatFlag
	cmd := &cobra.Command{
		Use:   "diff AGENT",
		Short: "Show what an agent changed in its worktree: committed, staged and unstaged, against where it started",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format.value != "text" && format.value != "json" {
				return fmt.Errorf("--format: %q: use text or json", format.value)
			}
			t, err := agentTree(g, args[0])
			if err != nil {
				return err
			}
			c, err := worktree.Diff(t)
			if err != nil {
				return err
			}
			return printDiff(cmd.OutOrStdout(), t, c, stat, format.value == "json")
		},
	}
	cmd.Flags().BoolVar(&stat, "stat", false, "only the files changed and their line counts")
	format = &formatFlag{formats: []string{"text", "json"}}
	cmd.Flags().StringVar(&format.value, "format", "text", "text or json (one document)")
	return cmd
}

// printDiff writes an agent's changes: as JSON, as --stat, or as the three
// unified diffs under headings.
func printDiff(w io.Writer, t worktree.Tree, c worktree.Changes, stat, asJSON bool) error {
	if asJSON {
		type part struct {
			Files []worktree.File `json:"files"`
			Patch string          `json:"patch,omitempty"`
		}
		type diffDoc struct {
			Branch    string `json:"branch"`
			Base      string `json:"base"`
			Head      string `json:"head"`
			Path      string `json:"path"`
			Committed part   `json:"committed"`
			Staged    part   `json:"staged"`
			Unstaged  part   `json:"unstaged"`
		}
		type mergeDoc struct {
			Into      string            `json:"into"`
			Head      string            `json:"head"`
			At        string            `json:"at"`
			Tree      string            `json:"tree,omitempty"`
			UpToDate  bool              `json:"up_to_date"`
			Conflicts []string          `json:"conflicts,omitempty"`
			Changes   part              `json:"changes"`
			Unseen    []worktree.Unseen `json:"unseen,omitempty"`
			Error     string            `json:"error,omitempty"`
		}
		doc := diffDoc{t.Branch, c.Base, c.Head, t.Path, part{c.Committed.Files, c.Committed.Patch},
			part{c.Staged.Files, c.Staged.Patch}, part{c.Unstaged.Files, c.Unstaged.Patch}}
		mp := c.Merge
		merge := mergeDoc{Into: mp.Into, Head: mp.Head, At: mp.At, Tree: mp.Tree, UpToDate: mp.UpToDate, Conflicts: mp.Conflicts,
			Changes: part{mp.Changes.Files, mp.Changes.Patch}, Unseen: mp.Unseen, Error: mp.Err}
		if stat {
			doc.Committed.Patch, doc.Staged.Patch, doc.Unstaged.Patch, merge.Changes.Patch = "", "", "", ""
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			diffDoc
			Merge mergeDoc `json:"merge"`
		}{doc, merge})
	}
	fmt.Fprintf(w, "%s in %s, since %.12s\n", t.Branch, t.Path, c.Base)
	if stat {
		_, err := io.WriteString(w, c.Stat())
		printMerge(w, c, false)
		return err
	}
	for _, p := range []struct {
		name string
		part worktree.Part
	}{{"committed", c.Committed}, {"staged", c.Staged}, {"unstaged", c.Unstaged}} {
		if len(p.part.Files) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n=== %s (%d files)\n%s", p.name, len(p.part.Files), p.part.Patch)
	}
	if len(c.Committed.Files)+len(c.Staged.Files)+len(c.Unstaged.Files) == 0 {
		fmt.Fprintln(w, "no changes")
	}
	printMerge(w, c, true)
	return nil
}

// printMerge writes what merging the agent's HEAD would change in your
// branch (c.Merge): the files the agent's diff does not show as merged,
// then the stat and, with patch, the diff, unless it is the committed one.
func printMerge(w io.Writer, c worktree.Changes, patch bool) {
	p := c.Merge
	into := cmp.Or(p.Into, "your checkout")
	switch {
	case p.Err != "":
		fmt.Fprintf(w, "\nmerge: cannot tell what merging would change: %s\n", p.Err)
		return
	case p.UpToDate:
		fmt.Fprintf(w, "\nmerge: %s has all of it already\n", into)
		return
	case len(p.Conflicts) > 0:
		fmt.Fprintf(w, "\nmerge into %s: conflicts in %s (teamlead merge would change nothing)\n", into, textsafe.Line(strings.Join(p.Conflicts, ", ")))
		return
	}
	fmt.Fprintf(w, "\n=== merge: what merging into %s (at %.12s) changes, %d files\n", into, p.Head, len(p.Changes.Files))
	for _, u := range p.Unseen {
		fmt.Fprintf(w, "! %s\n", u.Why)
	}
	io.WriteString(w, p.Changes.Stat())
	switch {
	case p.Same(c.Committed):
		fmt.Fprintln(w, "(the same as the committed diff)")
	case patch:
		io.WriteString(w, p.Changes.Patch)
	}
}

func newMergeCmd(g *globals) *cobra.Command {
	var yes bool
	cmd := &cobra.Command{
		Use:   "merge AGENT",
		Short: "Merge an agent's branch into your checkout (asks you first; changes nothing on a conflict)",
		Long: "Merge computes the merge of the agent's branch into the branch checked out in the repository the\n" +
			"agent's dir names (git merge-tree --write-tree, git 2.38 or later), shows what it changes there\n" +
			"(files the agent's own diff does not show as merged are named first), asks you, then commits that\n" +
			"very tree as a merge commit and moves your branch and checkout to it. It changes nothing when that\n" +
			"checkout has uncommitted changes, is on no branch, moved since it was shown, or when the merge\n" +
			"would conflict (it names the files). Your repository's git hooks do not run: the agent could\n" +
			"have written them.",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := humansTree(g, args[0], "merge an agent's work into your checkout")
			if err != nil {
				return err
			}
			c, err := worktree.Diff(t)
			if err != nil {
				return err
			}
			p := c.Merge
			if p.Err != "" {
				return errors.New(p.Err)
			}
			out := cmd.OutOrStdout()
			if p.UpToDate || len(p.Conflicts) > 0 {
				// Nothing to ask: Merge changes nothing (it says why).
				m, err := worktree.Merge(t, p)
				if err == nil {
					fmt.Fprintf(out, "%s has nothing %s does not have already\n", t.Branch, m.Into)
				}
				return err
			}
			fmt.Fprintf(out, "merging %s at %.12s into %s (at %.12s) changes:\n", t.Branch, p.At, cmp.Or(p.Into, t.Repo), p.Head)
			for _, u := range p.Unseen {
				fmt.Fprintf(out, "! %s\n", u.Why)
			}
			io.WriteString(out, p.Changes.Stat())
			if len(p.Unseen) > 0 {
				fmt.Fprintf(out, "(teamlead diff %s shows the merge's patch)\n", args[0])
			}
			if n := len(c.Staged.Files) + len(c.Unstaged.Files); n > 0 {
				fmt.Fprintf(out, "(%d files changed in the worktree but not committed stay out of the merge)\n", n)
			}
			ok, err := confirm(cmd, fmt.Sprintf("merge %s at %.12s into %s? (exactly what is shown: later commits stay out)", t.Branch, p.At, t.Repo), yes)
			if err != nil || !ok {
				if err == nil {
					fmt.Fprintln(out, "not merged")
				}
				return err
			}
			m, err := worktree.Merge(t, p)
			if err != nil {
				return err
			}
			if m.Commit == "" {
				fmt.Fprintf(out, "%s has nothing %s does not have already\n", t.Branch, m.Into)
				return nil
			}
			done := fmt.Sprintf("merged %s into %s: %.12s, %d files", t.Branch, m.Into, m.Commit, m.Files)
			fmt.Fprintln(out, done)
			// In the running console's audit too, where there is one.
			if c, err := g.running(); err == nil {
				if _, err := c.Merged(args[0], done); err != nil {
					fmt.Fprintf(cmd.ErrOrStderr(), "teamlead: the merge is not in the console's audit: %v\n", err)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&yes, "yes", false, "merge without asking")
	return cmd
}
