package permit

import (
	"errors"
	"os"
	"os/exec"
	"path"
	"strings"
)

// Red team 16b, finding 8b: git switch, checkout, reset --keep, merge,
// rebase and cherry-pick write the files the target tree tracks over the
// untracked files git ignores (their default is --overwrite-ignore):
// git switch cfgbranch turned db.ini's password = hunter2-super-secret
// into the branch's password = changeme, and nothing brings it back. So
// when the tree of the revision they bring tracks a path present here
// and ignored, they ask as the other discards do.

// ignoredLooker is an FS that can tell which ignored files a tree would
// overwrite.
type ignoredLooker interface {
	// IgnoredOverwritten lists the ignored, untracked paths under top
	// (the work tree's top) that rev's tree tracks, or that lie in a
	// folder rev's tree tracks a file in place of; resolved is false when
	// git knows no such revision (the command then fails).
	IgnoredOverwritten(top, rev string) (paths []string, resolved bool, err error)
}

// maxIgnoredScan bounds what git's listings may print for one look (a
// tree of some 100,000 files): beyond it the overwrite is not looked for,
// and the command asks.
const maxIgnoredScan = 16 << 20

// IgnoredOverwritten runs git (the guards of runGit) for the ignored
// files present (folders of them as one entry, so node_modules costs a
// line) and, when there are any, for the paths rev's tree tracks.
func (o OSFS) IgnoredOverwritten(top, rev string) ([]string, bool, error) {
	if _, err := runGit(o.Isolate, "", top, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{tree}"); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, false, nil
		}
		return nil, false, err
	}
	ign, err := runGit(o.Isolate, "", top, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory")
	if err != nil || ign == "" {
		return nil, true, err
	}
	if len(ign) > maxIgnoredScan {
		return nil, true, errTooMany
	}
	tree, err := runGit(o.Isolate, "", top, "ls-tree", "-r", "-z", "--name-only", "--full-tree", "--end-of-options", rev)
	if err != nil {
		return nil, true, err
	}
	if len(tree) > maxIgnoredScan {
		return nil, true, errTooMany
	}
	return overwrittenIgnored(strings.Split(tree, "\x00"), strings.Split(ign, "\x00"), func(p string) bool {
		_, err := os.Lstat(path.Join(top, p))
		return err == nil
	}), true, nil
}

// overwrittenIgnored returns the ignored entries (files, or folders
// ending in /) that the tracked paths overwrite: a tracked file that is
// an ignored one, or that is present under an ignored folder, or a
// tracked file where an ignored path has a folder (git empties it).
func overwrittenIgnored(tracked, ignored []string, present func(string) bool) []string {
	files, dirs, parents := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, e := range ignored {
		if e == "" {
			continue
		}
		if d, ok := strings.CutSuffix(e, "/"); ok {
			dirs[d] = true
		} else {
			files[e] = true
		}
		for p := path.Dir(strings.TrimSuffix(e, "/")); p != "."; p = path.Dir(p) {
			parents[p] = true
		}
	}
	var out []string
	for _, t := range tracked {
		switch {
		case t == "":
		case files[t]:
			out = append(out, t)
		case parents[t] || dirs[t]:
			out = append(out, t+"/")
		default:
			for p := path.Dir(t); p != "."; p = path.Dir(p) {
				if dirs[p] && present(t) {
					out = append(out, t)
					break
				}
			}
		}
	}
	return out
}

// ignoredOverwriteHits: the command brings the trees of revs into the
// work trees found from dirs; an ignored file in the way asks, unless
// --no-overwrite-ignore (checkout, switch, merge) keeps it. Without an FS
// that runs git, nothing is looked at.
func ignoredOverwriteHits(g gitInfo, revs []Word, dirs []string, env Env) []hit {
	il, ok := env.FS.(ignoredLooker)
	if !ok || len(revs) == 0 {
		return nil
	}
	keep := false
	for _, a := range g.args {
		switch a.Value {
		case "--no-overwrite-ignore":
			keep = g.sub == "checkout" || g.sub == "switch" || g.sub == "merge"
		case "--overwrite-ignore":
			keep = false
		}
	}
	if keep {
		return nil
	}
	by := "git " + g.sub + " " + joinValues(g.args)
	for _, d := range dirs {
		top, _, ok := env.repoTop(d)
		if !ok {
			continue
		}
		for _, r := range revs {
			if r.Dynamic {
				continue // judged as a revision known only when it runs elsewhere
			}
			paths, _, err := il.IgnoredOverwritten(top, r.Value)
			switch {
			case err != nil:
				return []hit{{id: FloorGitDiscard, detail: by + " writes the tree of " + r.Raw + " over the files git ignores here, which could not be looked at (" + err.Error() + "): an ignored file in its way (.env, a local configuration) is overwritten"}}
			case len(paths) > 0:
				return []hit{{id: FloorGitDiscard, detail: by + " overwrites " + strings.Join(paths[:min(len(paths), 3)], ", ") +
					", untracked and ignored here, with the version " + r.Raw + " tracks (git's default is --overwrite-ignore; --no-overwrite-ignore keeps them)"}}
			}
		}
	}
	return nil
}
