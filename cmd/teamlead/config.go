package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/guard"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/trust"
)

func newConfigCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Look at and accept changes to teamlead's own files (team, policy, answerers, consultations, presets) made while agents ran",
		Long: "A console remembers the team file, the permission policy and the answerers, consultations and presets files\n" +
			"it started with and watches them while agents run: agents run as your user and could write them. A change\n" +
			"seen then is not used by the next console until you have looked at it and accepted it here (run these with\n" +
			"no console running on the state).",
	}
	diff := &cobra.Command{
		Use:   "diff [FILE...]",
		Short: "Show what changed in teamlead's files since they were last accepted, as a unified diff",
		RunE:  func(cmd *cobra.Command, args []string) error { return configDiff(cmd, g, args) },
	}
	accept := &cobra.Command{
		Use:   "accept [FILE...]",
		Short: "Accept the files as `config diff` last showed them (all that changed, or the FILEs named): the next console uses them",
		RunE:  func(cmd *cobra.Command, args []string) error { return configAccept(cmd, g, args) },
	}
	cmd.AddCommand(diff, accept)
	return cmd
}

// guardState opens the state's store for writing (no console may run on
// it) and returns the guard's record and the files it knows, now.
func guardState(g *globals) (*store.Store, guard.State, guard.Snapshot, error) {
	if err := g.resolve(); err != nil {
		return nil, guard.State{}, nil, err
	}
	st, err := store.Open(g.storeDir(), store.Options{})
	switch {
	case errors.Is(err, store.ErrLocked):
		return nil, guard.State{}, nil, fmt.Errorf("a console runs on %s: stop it first (a change is looked at before a console starts)", g.state)
	case errors.Is(err, store.ErrNoStore):
		return nil, guard.State{}, nil, g.notFound(err, true)
	case err != nil:
		return nil, guard.State{}, nil, err
	}
	s, _, err := guard.Load(st)
	if err != nil {
		st.Close()
		return nil, guard.State{}, nil, err
	}
	var paths []string
	for p := range s.Accepted {
		paths = append(paths, p)
	}
	for p := range s.Changed {
		if !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	return st, s, guard.Take(paths), nil
}

// pick returns the files of want (all of have when want is empty), as the
// guard names them; an unknown one is an error.
func pick(have []string, want []string) ([]string, error) {
	if len(want) == 0 {
		return have, nil
	}
	var out []string
	for _, w := range want {
		abs, err := filepath.Abs(w)
		if err != nil || !slices.Contains(have, abs) {
			return nil, fmt.Errorf("%s is not one of the files the console watches (%d of them: the team file, its policy, answerers, consultations and presets)", w, len(have))
		}
		out = append(out, abs)
	}
	return out, nil
}

func configDiff(cmd *cobra.Command, g *globals, args []string) error {
	st, s, now, err := guardState(g)
	if err != nil {
		return err
	}
	defer st.Close()
	files, err := pick(s.Unaccepted(now, otherConsoles(g)), args)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if len(files) == 0 {
		fmt.Fprintln(out, "nothing waits for you: no file changed while agents ran")
		return nil
	}
	for _, p := range files {
		fmt.Fprintf(out, "%s (content %s):\n%s\n", whatChanged(s, p), shortKey(now[p]), s.Diff(p, now[p]))
	}
	// Accept takes the files only as shown here.
	s.Show(now, files...)
	if err := guard.Save(st, s); err != nil {
		return err
	}
	fmt.Fprintln(out, "If you made these changes, accept them: teamlead config accept (it takes the files only as shown here); if not, undo them (git checkout, or edit the file back).")
	return nil
}

// whatChanged says of file p what the guard knows: when it changed, or
// that what was accepted of it is not known.
func whatChanged(s guard.State, p string) string {
	if s.Forgot(p) {
		return p + " is not on record as accepted: the store was rebuilt from the team's stream, which does not carry what you accepted, so it is shown whole"
	}
	when := "while the last console ran (it did not end cleanly, so when is not known)"
	if !s.Running {
		when = "while no console of this team ran, and another team's console has run on this machine (its agents could have written it)"
	}
	if t, ok := s.Changed[p]; ok {
		when = "while agents ran, seen at " + t.Format("2006-01-02 15:04:05")
	}
	return p + " changed " + when
}

// shortKey names a file's content for the human: the start of its hash.
func shortKey(f guard.File) string {
	if k := f.Key(); len(k) > 12 {
		return "sha256 " + k[:12]
	}
	return f.Key()
}

func configAccept(cmd *cobra.Command, g *globals, args []string) error {
	if why := trust.InsideAgent(); why != "" {
		return fmt.Errorf("refused: only the human may accept changes to teamlead's files: %s", why)
	}
	st, s, now, err := guardState(g)
	if err != nil {
		return err
	}
	defer st.Close()
	files, err := pick(s.Unaccepted(now, otherConsoles(g)), args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fmt.Fprintln(cmd.OutOrStdout(), "nothing to accept: no file changed while agents ran")
		return nil
	}
	// What the human looked at, not what is there now: an agent can change
	// a file between the two commands (red team 9a, finding 14).
	if moved := s.NotAsShown(now, files...); len(moved) > 0 {
		sort.Strings(moved)
		return fmt.Errorf("nothing accepted: %s changed since `teamlead config diff` showed it (or it was not shown yet); look again with teamlead config diff%s, then accept", strings.Join(moved, ", "), stateArg(g))
	}
	s.Accept(now, files...)
	if len(args) == 0 {
		s.Running = false // every difference is accepted: what a killed console left is explained
	}
	if err := guard.Save(st, s); err != nil {
		return err
	}
	sort.Strings(files)
	for _, p := range files {
		fmt.Fprintf(cmd.OutOrStdout(), "accepted %s as config diff showed it (content %s)\n", p, shortKey(now[p]))
	}
	return nil
}

// otherConsoles reports that a console of another state folder has run on
// this machine (the registry keeps every console the person ran): its
// agents' sandboxes may not protect this team's files, so no change to
// them is taken without the human's word (red team 9a).
func otherConsoles(g *globals) bool {
	regs, err := control.Registrations()
	if err != nil {
		return true // cannot tell: the strict way
	}
	mine, _ := filepath.Abs(g.state)
	for _, r := range regs {
		if r.State != mine {
			return true
		}
	}
	return false
}
