package permit

import (
	"errors"
	"os/exec"
	"path"
	"regexp"
	"strings"
)

// Red team 16b, finding 1: git keeps objects no ref or reflog reaches: a
// .env added and reset (a dangling blob), a dropped stash, a staged file.
// git ls-files -s and ls -R .git/objects give their ids, and git cat-file
// -p ID, git show ID:, git diff ID ID printed the secrets the history scan
// (history.go), which walks what refs reach, never saw. So an object named
// by id is looked at itself: a blob's content, a tree's files, and the
// commits an id reaches that no ref does.

// objectLooker is an FS that can look at the object a revision names.
type objectLooker interface {
	// ObjectSecret reports a key, token or credential file in what rev
	// names (found says where); resolved is false when git knows no such object.
	ObjectSecret(gitDir, rev string) (found string, resolved bool, err error)
}

// objectIDRev matches a revision that starts with an object id (abbreviated
// or whole), as ID, ID^{blob}, ID~2 or ID:path.
var objectIDRev = regexp.MustCompile(`^[0-9a-fA-F]{4,64}([~^:@].*)?$`)

// emptyTree is git's empty tree (SHA-1): a tree's content is its diff from it.
const emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

// ObjectSecret resolves rev with git (same guards as HistoryNames) and
// looks at what it names: a blob's content; a tree's files (names and
// content, as a diff from the empty tree); for a commit, the changes of
// the commits it reaches that no ref or reflog entry does (the others are
// the history scan's).
func (o OSFS) ObjectSecret(gitDir, rev string) (string, bool, error) {
	spec := rev
	if !strings.Contains(rev, ":") {
		spec += "^{}" // a tag: what it points at
	}
	sha, err := runGit(o.Isolate, gitDir, "", "rev-parse", "--verify", "--quiet", "--end-of-options", spec)
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return "", false, nil // no such object
		}
		return "", false, err
	}
	sha = strings.TrimSpace(sha)
	typ, err := runGit(o.Isolate, gitDir, "", "cat-file", "-t", sha)
	if err != nil {
		return "", true, err
	}
	var patch string
	switch strings.TrimSpace(typ) {
	case "blob":
		size, err := runGit(o.Isolate, gitDir, "", "cat-file", "-s", sha)
		if err != nil {
			return "", true, err
		}
		if n := atoiOr(strings.TrimSpace(size), readScan+1); n > readScan {
			return "the blob " + rev + " (too large to look through for keys and tokens)", true, nil
		}
		body, err := runGit(o.Isolate, gitDir, "", "cat-file", "blob", sha)
		if err != nil {
			return "", true, err
		}
		if why, ok := contentSecret([]byte(body)); ok {
			return "the blob " + rev + why, true, nil
		}
		return "", true, nil
	case "tree":
		patch, err = runGit(o.Isolate, gitDir, "", "diff-tree", "-r", "-p", "-U0", "--no-renames", "--no-ext-diff",
			"--no-textconv", "--no-color", emptyTree, sha)
	case "commit":
		patch, err = runGit(o.Isolate, gitDir, "", "log", "-p", "--cc", "-U0", "--format=", "--no-renames", "--no-ext-diff",
			"--no-textconv", "--no-color", sha, "--not", "--all", "--reflog")
	default:
		return "", true, nil
	}
	if err != nil {
		return "", true, err
	}
	if len(patch) > maxPatchScan {
		return "", true, errTooMany
	}
	if names := patchSecrets(patch); len(names) > 0 {
		return names[0] + " as " + rev + " holds it", true, nil
	}
	for _, l := range strings.Split(patch, "\n") {
		if n, ok := strings.CutPrefix(l, "+++ b/"); ok && isCredential(unquoteGitPath(n)) {
			return n + " as " + rev + " holds it", true, nil
		}
	}
	return "", true, nil
}

// atoiOr is s as a number, or or when it is not one.
func atoiOr(s string, or int) int {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' || n > 1<<40 {
			return or
		}
		n = n*10 + int(c-'0')
	}
	if s == "" {
		return or
	}
	return n
}

// printsObjects reports a git command that prints the content of the
// objects its revisions name.
func printsObjects(g gitInfo, ops []Word, opts []string) bool {
	switch g.sub {
	case "cat-file":
		if hasShort(opts, "p") || hasLong(opts, "--textconv", "--filters") {
			return true
		}
		return len(ops) > 0 && (ops[0].Value == "blob" || ops[0].Value == "tree" || ops[0].Value == "commit" || ops[0].Value == "tag")
	case "show":
		return !hasShort(opts, "s") && !(hasLong(opts, gitSummaryOpts...) && !hasShort(opts, "p") && !hasLong(opts, "--patch"))
	case "diff":
		return !hasLong(opts, "--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--summary", "--dirstat", "--compact-summary", "--quiet", "--exit-code") || hasShort(opts, "p") || hasLong(opts, "--patch")
	case "blame", "annotate":
		return true
	case "log", "whatchanged", "reflog":
		return hasShort(opts, gitContentShort) || hasLong(opts, gitContentLong...) || g.sub == "whatchanged"
	}
	return false
}

// objectIDHits: a content printer given a revision by object id. What the
// id names is looked at; an id git does not know asks when the history or
// the index holds a credential (or cannot be looked through), since the
// object may be made before the command runs.
func objectIDHits(g gitInfo, cwds cwdSet, env Env) []hit {
	ops, opts := operands(g.args)
	if env.FS == nil || !printsObjects(g, ops, opts) {
		return nil
	}
	var revs []string
	for _, o := range ops {
		if o.Value == "--" {
			break
		}
		if o.Dynamic || pathExists(o, cwds, env) {
			continue
		}
		for _, r := range revisionEnds(o.Value) {
			if r = strings.TrimPrefix(r, "^"); objectIDRev.MatchString(r) {
				revs = append(revs, r)
			}
		}
	}
	if len(revs) == 0 {
		return nil
	}
	by := "git " + g.sub + " " + joinValues(g.args)
	one := func(why string) []hit { return []hit{{id: FloorCredentialRead, detail: by + " " + why}} }
	ol, ok := env.FS.(objectLooker)
	if !ok || len(cwds.dirs) != 1 {
		return one("prints objects named by id, which could not be looked at here")
	}
	_, cfg, ok := env.repoTop(cwds.dirs[0])
	if !ok {
		return nil // not a repository: git prints nothing
	}
	for _, r := range revs {
		found, resolved, err := ol.ObjectSecret(path.Dir(cfg), r)
		switch {
		case err != nil:
			return one("prints the object " + r + ", which could not be looked at here (" + err.Error() + ")")
		case found != "":
			return one("prints " + found + ": a key, token or credential file")
		case !resolved:
			if why, holds := env.repoHoldsCredential(cwds.dirs); holds {
				return one("names " + r + ", an object not known yet, in a repository that " + why)
			}
		}
	}
	return nil
}

// revisionEnds splits a range (A..B, A...B) into its ends; REV:path is
// one revision, whatever its path holds.
func revisionEnds(v string) []string {
	if strings.Contains(v, ":") {
		return []string{v}
	}
	return strings.Split(strings.ReplaceAll(v, "...", ".."), "..")
}

// repoHoldsCredential reports a repository whose history or index holds a
// credential, or that cannot be looked through for one.
func (e Env) repoHoldsCredential(dirs []string) (string, bool) {
	if found, known := e.historyCredential(dirs); !known || found != "" {
		return "holds a credential file in its history, or could not be looked through", true
	}
	if names, known := e.historySecretNames(dirs); !known || len(names) > 0 {
		return "holds a key or token in its history, or could not be looked through", true
	}
	if found, known := e.stagedSecret(dirs[0]); !known || found != "" {
		return "holds a key or token in its index, or could not be looked through", true
	}
	return "", false
}

// historyPrinters are the git commands that can print what a commit holds.
var historyPrinters = setOf("log", "show", "diff", "reflog", "whatchanged", "cat-file", "blame", "annotate", "grep",
	"format-patch", "stash", "archive", "bundle")

// commitShownHits: a commit of an index that holds a key or token makes it
// history, which a later part of the same request then prints (red team
// 16b, finding 2: git commit -qm wip && git show HEAD printed the .env git
// diff --cached was asked for). So the commit is judged as that diff is.
func (b *bashCheck) commitShownHits(g gitInfo, cwds cwdSet) []hit {
	if g.sub != "commit" || b.env.FS == nil {
		return nil
	}
	shown := false
	for _, o := range b.parts {
		if o.view.name == "git" && historyPrinters[parseGit(o.view.args).sub] {
			shown = true
		}
	}
	if !shown {
		return nil
	}
	by := "git commit " + joinValues(g.args) + " followed by a command that prints history"
	if len(cwds.dirs) != 1 {
		return []hit{{id: FloorCredentialRead, detail: by + ": the index it commits could not be looked through here"}}
	}
	switch found, known := b.env.stagedSecret(cwds.dirs[0]); {
	case !known:
		return []hit{{id: FloorCredentialRead, detail: by + ": the index it commits could not be looked through for keys and tokens here"}}
	case found != "":
		return []hit{{id: FloorCredentialRead, detail: by + ": the index it commits holds a key or token in " + found}}
	}
	return nil
}
