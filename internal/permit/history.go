package permit

import (
	"context"
	"crypto/sha256"
	"io"
	"os"
	"os/exec"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/worktree"
)

// A secret committed once stays in the repository's history after the
// file is removed: git log -p, git show REV, git diff REV1 REV2, git
// reflog -p, git cat-file -p SHA and git grep PATTERN REV print it. Those
// commands ask when the history has ever held a credential file (by
// name: .env.production, secrets.yaml, id_rsa …); git cat-file --batch…
// and git grep of a revision always ask. git log, git log --oneline, git
// show --stat, git diff of the working tree and git diff --cached, which
// print no old content, stay allowed unless a message holds a token
// (history14b.go).

// historyLister is an FS that can list the files a repository's history
// ever added (OSFS runs git, bounded; see historyNames).
type historyLister interface {
	HistoryNames(gitDir string) ([]string, error)
	// Pending lists the files git add SCOPE... (or commit -a: tracked
	// only) would stage: untracked files git does not ignore and
	// modified ones.
	Pending(workTree string, tracked bool, scope []string) ([]string, error)
}

// historyTimeout bounds one git run of the policy.
const historyTimeout = 3 * time.Second

var historyCache struct {
	sync.Mutex
	m map[string]historyEntry
}

type historyEntry struct {
	key   [32]byte
	names []string
}

// HistoryNames lists every path a commit reachable from any ref or reflog
// entry added (git log --all --reflog --diff-filter=A --name-only),
// cached until a ref or the reflog changes. git runs with the settings
// that could start a program turned off (no pager, fsmonitor, signature
// check, external diff or textconv), no work tree and a time limit: about
// 0.2 s for 5,000 commits, once; a history too long for the limit is an
// error (the caller asks).
func (o OSFS) HistoryNames(gitDir string) ([]string, error) {
	key := refsFingerprint(gitDir)
	historyCache.Lock()
	if e, ok := historyCache.m[gitDir]; ok && e.key == key {
		historyCache.Unlock()
		return e.names, nil
	}
	historyCache.Unlock()
	out, err := runGit(o.Isolate, gitDir, "", "log", "--all", "--reflog", "--format=", "--name-only", "--no-renames",
		"--diff-filter=A", "--no-ext-diff", "--no-textconv", "-z")
	if err != nil {
		return nil, err
	}
	names := strings.Split(strings.Trim(out, "\x00\n"), "\x00")
	historyCache.Lock()
	if historyCache.m == nil {
		historyCache.m = map[string]historyEntry{}
	}
	historyCache.m[gitDir] = historyEntry{key: key, names: names}
	historyCache.Unlock()
	return names, nil
}

// Pending lists what git add or commit -a could stage in the scope: the
// tracked files (tracked), or those and the untracked files git does not
// ignore. git ls-files, not git status: status may hash a file whose
// index entry is racy through the repository's clean filter, a program
// .git/config names, which an agent can write; ls-files reads no file's
// content. Tracked files count whether or not they changed (more asks,
// never a program run). Same guards and limit as HistoryNames.
func (o OSFS) Pending(workTree string, tracked bool, scope []string) ([]string, error) {
	args := []string{"ls-files", "-z", "--cached"}
	if !tracked {
		args = append(args, "--others", "--exclude-standard")
	}
	out, err := runGit(o.Isolate, "", workTree, append(append(args, "--"), scope...)...)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range strings.Split(out, "\x00") {
		if e != "" {
			names = append(names, e)
		}
	}
	return names, nil
}

// runGit runs git for the policy: no pager, no optional locks, settings
// that run programs overridden, the caller's GIT_ variables dropped.
func runGit(isolate func(*exec.Cmd), gitDir, workTree string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), historyTimeout)
	defer cancel()
	pre := []string{"--no-pager", "--no-optional-locks", "-c", "core.fsmonitor=false", "-c", "log.showSignature=false",
		"-c", "core.untrackedCache=false", "-c", "diff.external=", "-c", "core.hooksPath=/dev/null", "-c", "gpg.program=false"}
	if gitDir != "" {
		pre = append(pre, "--git-dir="+gitDir)
	}
	cmd := exec.CommandContext(ctx, worktree.GitPath(), append(pre, args...)...)
	cmd.Dir = workTree
	if workTree == "" {
		cmd.Dir = gitDir
	}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1")
	if isolate != nil {
		isolate(cmd)
	}
	out, err := cmd.Output()
	return string(out), err
}

// refsFingerprint sums what moves when history changes: HEAD, packed-refs,
// the loose refs and the size of the reflogs (bounded walk). It runs in the
// console with no time limit, in a git folder an agent may have made: no
// file is read through a link (its target is summed), nor a FIFO (which
// held the policy, and every permission request behind it), nor past
// 64 MiB (a link to /dev/zero would fill the console's memory).
func refsFingerprint(gitDir string) [32]byte {
	h := sha256.New()
	sum := func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			return
		}
		h.Write([]byte(p))
		switch {
		case fi.Mode()&os.ModeSymlink != 0:
			to, _ := os.Readlink(p)
			h.Write([]byte("->" + to))
		case fi.Mode().IsRegular():
			h.Write([]byte(itoa(int(fi.Size()))))
			if f, err := fsutil.OpenRegular(p, syscall.O_NOFOLLOW); err == nil {
				_, _ = io.Copy(h, io.LimitReader(f, 64<<20))
				f.Close()
			}
		}
	}
	sum(path.Join(gitDir, "HEAD"))
	sum(path.Join(gitDir, "packed-refs"))
	if fi, err := os.Lstat(path.Join(gitDir, "logs/HEAD")); err == nil {
		h.Write([]byte("logs/HEAD" + itoa(int(fi.Size()))))
	}
	n := 0
	var walk func(d string)
	walk = func(d string) {
		ents, err := os.ReadDir(d)
		if err != nil {
			return
		}
		for _, e := range ents {
			if n++; n > 20000 {
				return
			}
			p := path.Join(d, e.Name())
			if e.IsDir() {
				walk(p)
			} else {
				sum(p)
			}
		}
	}
	walk(path.Join(gitDir, "refs"))
	var s [32]byte
	copy(s[:], h.Sum(nil))
	return s
}

// historyCredential reports a credential file the history of the
// repository found from every one of dirs has held (the first found), or
// why it cannot tell (no repository lister, git failed or ran too long).
func (e Env) historyCredential(dirs []string) (found string, known bool) {
	hl, ok := e.FS.(historyLister)
	if !ok || len(dirs) == 0 {
		return "", false
	}
	for _, d := range dirs {
		cfg, ok := e.repoConfig(d)
		if !ok {
			return "", false
		}
		names, err := hl.HistoryNames(path.Dir(cfg))
		if err != nil {
			return "", false
		}
		for _, n := range names {
			if isCredential(n) {
				return n, true
			}
		}
	}
	return "", true
}

// gitContentOpts are options of log, show, reflog and whatchanged that
// print the changes of commits (their lines), and gitSummaryOpts those
// that make show print names and counts only.
var (
	gitContentShort = "puUcL"
	gitContentLong  = []string{"--patch", "--patch-with-stat", "--patch-with-raw", "--cc", "--unified", "--word-diff",
		"--color-words", "--text", "--binary", "--full-index", "--dd", "--remerge-diff", "--function-context"}
	gitSummaryOpts = []string{"--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--no-patch",
		"--summary", "--raw", "--dirstat", "--compact-summary", "--format", "--pretty", "--oneline"}
)

// gitHistoryHits: git commands that print old content of the repository
// (see above).
func gitHistoryHits(g gitInfo, cwds cwdSet, env Env) []hit {
	if hs := objectIDHits(g, cwds, env); hs != nil {
		return hs
	}
	ops, opts := operands(g.args)
	paths, pathsGiven := gitPathspec(g.args)
	always := func(why string) []hit {
		return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " " + joinValues(g.args) + " " + why}}
	}
	content := false
	switch g.sub {
	case "log", "whatchanged", "reflog":
		content = hasShort(opts, gitContentShort) || hasLong(opts, gitContentLong...) || g.sub == "whatchanged" && hasShort(opts, "p")
	case "stash":
		// stash list -p and stash show -p print the stashes' changes
		// (red team 14b, finding 8)
		if len(ops) == 0 || ops[0].Value != "list" && ops[0].Value != "show" {
			return nil
		}
		content = hasShort(opts, gitContentShort) || hasLong(opts, gitContentLong...)
	case "show":
		summary := hasShort(opts, "s") || hasLong(opts, gitSummaryOpts...) && !hasShort(opts, "p") && !hasLong(opts, "--patch")
		if hasLong(opts, "--oneline", "--format", "--pretty") && !hasLong(opts, "--no-patch", "--stat", "--name-only", "--name-status", "--shortstat", "--numstat") && !hasShort(opts, "s") {
			summary = false // git show --oneline REV still prints the diff
		}
		content = !summary
		if len(ops) > 0 {
			allPaths := true
			for _, o := range ops {
				allPaths = allPaths && strings.Contains(o.Value, ":")
			}
			content = content && !allPaths // REV:path alone: judged as a path, and by what the history held there
		}
		if hs := revPathHits(g, ops, cwds, env); hs != nil {
			return hs
		}
	case "diff":
		if hasLong(opts, "--stat", "--shortstat", "--numstat", "--name-only", "--name-status", "--summary", "--dirstat", "--compact-summary", "--quiet", "--exit-code") && !hasShort(opts, "p") && !hasLong(opts, "--patch") {
			return nil
		}
		if hs := revPathHits(g, ops, cwds, env); hs != nil {
			return hs
		}
		if hs := diffContentHits(g, ops, opts, cwds, env); hs != nil {
			return hs
		}
		for _, o := range beforeDashDash(g.args) {
			if strings.Contains(o.Value, ":") || pathExists(o, cwds, env) {
				continue // REV:path is judged as a path; a file is the working tree's
			}
			if o.Value != "HEAD" && o.Value != "@" {
				content = true
			}
		}
	case "cat-file":
		if hasLong(opts, "--batch-all-objects", "--batch", "--batch-command") {
			return always("prints objects of the whole repository (or names read when it runs), deleted credentials too")
		}
		content = hasShort(opts, "p") || hasLong(opts, "--textconv", "--filters")
		for _, o := range ops {
			if o.Value == "blob" {
				content = true
			}
		}
		if content && len(ops) == 1 && (ops[0].Value == "HEAD" || ops[0].Value == "@") {
			return nil // the commit object itself
		}
		if hs := revPathHits(g, ops, cwds, env); hs != nil {
			return hs
		}
	case "blame", "annotate":
		// git blame FILE prints the work tree's file (judged as a read of
		// it); with a revision, that revision's: judged by what the
		// history held there.
		for _, o := range ops {
			if !pathExists(o, cwds, env) {
				content = true
			}
		}
		if !content {
			return nil
		}
		var named []Word
		for _, o := range ops {
			if pathExists(o, cwds, env) {
				named = append(named, o)
			}
		}
		paths, pathsGiven = append(paths, named...), pathsGiven || len(named) > 0
	case "grep":
		sopts, sops, _ := searchWords(g.args, "git grep")
		explicit := false
		for _, o := range sopts {
			if o.name == "-e" || o.name == "-f" || o.name == "--regexp" || o.name == "--file" {
				explicit = true
			}
		}
		if !explicit && len(sops) > 0 {
			sops = sops[1:]
		}
		for _, o := range sops {
			if o.Value == "--" {
				break
			}
			if strings.Contains(o.Value, ":") {
				continue // REV:path: judged as a path
			}
			if !pathExists(o, cwds, env) && !pathsGiven || pathsGiven && !inWords(o, paths) {
				return always("searches revision " + o.Raw + ": old content, deleted credentials too")
			}
		}
		return nil
	default:
		return nil
	}
	if !content {
		return nil
	}
	plain := pathsGiven
	for _, p := range paths {
		if p.Dynamic || p.Glob || strings.ContainsAny(p.Value, "*?[:") || isCredential(p.Value) {
			plain = false
		}
	}
	if env.FS == nil {
		return nil // pure: the repository is not looked at
	}
	if !plain {
		found, known := env.historyCredential(cwds.dirs)
		switch {
		case !known:
			return always("prints old content of the repository, whose history could not be looked through for credentials here")
		case found != "":
			return always("prints old content of the repository, whose history holds the credential file " + found)
		}
	}
	// by content too: a token committed in an ordinary file (red team 13b,
	// finding 2: git log -p, git show HEAD printed settings.py's key)
	names, known := env.historySecretNames(cwds.dirs)
	if !known {
		if plain {
			return nil // pure or no lister: the paths named are not credentials by name
		}
		return always("prints old content of the repository, whose history could not be looked through for keys and tokens here")
	}
	for _, n := range names {
		if !plain || pathspecCovers(paths, n, cwds, env) {
			return always("prints old content of the repository, whose history holds a key or token in " + n)
		}
	}
	return nil
}

// historySecretNames lists the paths (from the work tree's top) whose
// committed content held a key or token, in the repositories of dirs;
// known is false when they could not be looked through.
func (e Env) historySecretNames(dirs []string) (names []string, known bool) {
	hl, ok := e.FS.(historyContentLister)
	if !ok || len(dirs) == 0 {
		return nil, false
	}
	for _, d := range dirs {
		top, cfg, ok := e.repoTop(d)
		if !ok {
			return nil, false
		}
		ns, err := hl.HistorySecrets(path.Dir(cfg))
		if err != nil {
			return nil, false
		}
		for _, n := range ns {
			names = append(names, path.Join(top, n))
		}
	}
	return names, true
}

// pathspecCovers reports a pathspec (files or folders) that holds abs.
func pathspecCovers(paths []Word, abs string, cwds cwdSet, env Env) bool {
	for _, p := range paths {
		rs, ok := cwds.resolve(p)
		if !ok {
			return true
		}
		for _, r := range rs {
			if within(abs, r) || within(abs, env.realPath(r)) {
				return true
			}
		}
	}
	return false
}

// revPathHits: REV:path prints what the history held at path (git show,
// cat-file, diff of REV:path), judged by the history's content there.
func revPathHits(g gitInfo, ops []Word, cwds cwdSet, env Env) []hit {
	if env.FS == nil {
		return nil
	}
	var named []Word
	for _, o := range ops {
		rev, p, ok := strings.Cut(o.Value, ":")
		if !ok || strings.Contains(o.Value, "://") || o.Dynamic {
			continue
		}
		if p == "" || rev == "" && strings.HasPrefix(p, "/") { // REV: (the tree), :/message
			continue
		}
		named = append(named, Word{Raw: p, Value: p})
	}
	if len(named) == 0 {
		return nil
	}
	names, known := env.historySecretNames(cwds.dirs)
	if !known {
		return nil // judged by the history's names and the work tree's file
	}
	for _, n := range names {
		for _, p := range named {
			rel := strings.TrimPrefix(path.Clean(p.Value), "./")
			if strings.HasSuffix(n, "/"+rel) || pathspecCovers([]Word{p}, n, cwds, env) {
				return []hit{{id: FloorCredentialRead, detail: "git " + g.sub + " " + joinValues(g.args) + " prints " + p.Value + " as the history holds it, and the history holds a key or token in " + n}}
			}
		}
	}
	return nil
}

// diffContentHits: git diff --cached prints what is staged, and git diff
// (the work tree against the index) the changed tracked files: a key or
// token among them is printed.
func diffContentHits(g gitInfo, ops []Word, opts []string, cwds cwdSet, env Env) []hit {
	if env.FS == nil || len(cwds.dirs) != 1 || hasLong(opts, "--no-index") {
		return nil
	}
	for _, o := range ops {
		if o.Value == "--" {
			break
		}
		if !pathExists(o, cwds, env) && o.Value != "HEAD" && o.Value != "@" {
			return nil // a revision: the history's check decides
		}
	}
	by := "git diff " + joinValues(g.args)
	if hasLong(opts, "--cached", "--staged") || len(ops) > 0 && (ops[0].Value == "HEAD" || ops[0].Value == "@") {
		found, known := env.stagedSecret(cwds.dirs[0])
		switch {
		case !known:
			return []hit{{id: FloorCredentialRead, detail: by + " prints what is staged, which could not be looked through for keys and tokens here"}}
		case found != "":
			return []hit{{id: FloorCredentialRead, detail: by + " prints what is staged, and " + found + " holds a key or token"}}
		}
		if hasLong(opts, "--cached", "--staged") {
			return nil
		}
	}
	hl, ok := env.FS.(historyLister)
	if !ok {
		return nil
	}
	names, err := hl.Pending(cwds.dirs[0], true, nil)
	if err != nil {
		return []hit{{id: FloorCredentialRead, detail: by + " prints the changed tracked files, which could not be listed here (" + err.Error() + ")"}}
	}
	idx, top, _ := env.trackedIndex(cwds.dirs[0])
	budget := newScanBudget()
	for _, n := range names {
		abs := path.Join(cwds.dirs[0], n)
		if _, err := env.FS.Lstat(abs); err != nil || env.unchanged(idx, top, abs) {
			continue // removed (its indexed content is what was staged) or unchanged
		}
		if why, ok, _ := env.walkSecret(abs, budget); ok {
			return []hit{{id: FloorCredentialRead, detail: by + " prints the changed tracked file " + abs + why}}
		}
	}
	return nil
}

// beforeDashDash are a git command's operands before --: what follows is
// a pathspec, never a revision (git diff -- '*.go' is the work tree's).
func beforeDashDash(args []Word) []Word {
	var out []Word
	for _, a := range args {
		if a.Value == "--" {
			break
		}
		if !strings.HasPrefix(a.Value, "-") || a.Dynamic {
			out = append(out, a)
		}
	}
	return out
}

// gitPathspecPattern reports a pathspec git expands itself: a glob
// (git add '*.env' stages .env, quoted so that the shell leaves it) or
// magic (:/, :(glob)…).
func gitPathspecPattern(v string) bool {
	return strings.HasPrefix(v, ":") || strings.ContainsAny(v, "*?[")
}

// gitPathspec returns what follows -- in a git command.
func gitPathspec(args []Word) ([]Word, bool) {
	for i, a := range args {
		if a.Value == "--" {
			return args[i+1:], true
		}
	}
	return nil, false
}

func inWords(w Word, ws []Word) bool {
	for _, x := range ws {
		if x.Value == w.Value {
			return true
		}
	}
	return false
}

// gitScopeStageHits: git add of a folder, ., -A or -u, and git commit -a,
// stage what git status lists in their scope (untracked files git does
// not ignore, modified ones): a credential among them (a .env that an
// edited .gitignore no longer ignores) is then printed by git diff
// --cached and published by the next push. Named files are judged as
// paths; --force by gitStageHits.
func gitScopeStageHits(g gitInfo, cwds cwdSet, env Env) []hit {
	if env.FS == nil {
		return nil
	}
	ops, opts := operands(g.args)
	var scope []string
	tracked := false
	switch g.sub {
	case "add":
		// -N (intent to add) is judged as an add: git diff then prints the
		// whole file (the eighth red team's git add -N . and git diff).
		if hasShort(opts, "f") || hasLong(opts, "--force") || hasShort(opts, "n") || hasLong(opts, "--dry-run") {
			return nil
		}
		if hasLong(opts, "--pathspec-from-file") {
			scope = append(scope, "\x00") // the paths are in a file, read when it runs
		}
		all := hasShort(opts, "Au") || hasLong(opts, "--all", "--update", "--no-ignore-removal")
		tracked = hasShort(opts, "u") || hasLong(opts, "--update")
		for _, o := range ops {
			if o.Value == "--" {
				continue
			}
			if o.Dynamic || o.Glob {
				scope = append(scope, "\x00")
				continue
			}
			if gitPathspecPattern(o.Value) {
				// git matches "*.env" and :(glob) itself, quoted or not:
				// git ls-files is given the same pathspec.
				scope = append(scope, o.Value)
				continue
			}
			abs, ok := cwds.resolve(o)
			if !ok {
				scope = append(scope, "\x00")
				continue
			}
			for _, a := range abs {
				if fi, err := env.FS.Lstat(a); err == nil && fi.IsDir() {
					scope = append(scope, o.Value)
				}
			}
		}
		if all && len(ops) == 0 {
			scope = []string{"."}
		}
	case "commit":
		if !hasShort(opts, "a") && !hasLong(opts, "--all") {
			return nil
		}
		scope, tracked = []string{"."}, true
	case "stash":
		// git stash records the changes as commits, which stash list -p and
		// show stash@{0} print: staging, as commit -a is (red team 14b, finding 8)
		if len(ops) > 0 && ops[0].Value != "push" && ops[0].Value != "save" && ops[0].Value != "--" {
			return nil
		}
		scope = []string{"."}
		tracked = !hasShort(opts, "ua") && !hasLong(opts, "--include-untracked", "--all")
	default:
		return nil
	}
	if len(scope) == 0 {
		return nil
	}
	by := "git " + g.sub + " " + joinValues(g.args)
	hl, ok := env.FS.(historyLister)
	for _, s := range scope {
		if s == "\x00" {
			ok = false
		}
	}
	if !ok || len(cwds.dirs) != 1 {
		return []hit{{id: FloorCredentialRead, detail: by + " stages files not known here, which may be credentials"}}
	}
	names, err := hl.Pending(cwds.dirs[0], tracked, scope)
	if err != nil {
		return []hit{{id: FloorCredentialRead, detail: by + " stages files git status could not list here (" + err.Error() + "), which may be credentials"}}
	}
	for _, n := range names {
		if isCredential(n) {
			return []hit{{id: FloorCredentialRead, detail: by + " stages " + n + ", a credential: every diff and show then prints it, and a push publishes it"}}
		}
	}
	// by content too, for the files whose stat data is not the index's
	// (an unchanged file stages nothing new): red team 13b, finding 2
	idx, top, _ := env.trackedIndex(cwds.dirs[0])
	budget := newScanBudget()
	for _, n := range names {
		abs := path.Join(cwds.dirs[0], n)
		if env.unchanged(idx, top, abs) {
			continue
		}
		if why, ok, _ := env.walkSecret(abs, budget); ok {
			return []hit{{id: FloorCredentialRead, detail: by + " stages " + abs + why + ": every diff and show then prints it, and a push publishes it"}}
		}
	}
	return nil
}

// historyContentLister is an FS that can tell which paths a repository's
// history, or its index, holds a key or token in (OSFS runs git, bounded).
type historyContentLister interface {
	// HistorySecrets lists the paths whose content added by a commit
	// reachable from any ref or reflog entry holds a key or token.
	HistorySecrets(gitDir string) ([]string, error)
	// StagedSecrets lists the paths whose staged content (what git diff
	// --cached prints) holds one.
	StagedSecrets(gitDir, workTree string) ([]string, error)
}

// maxPatchScan bounds the patch text the policy reads from git.
const maxPatchScan = 256 << 20

var historySecretCache struct {
	sync.Mutex
	m map[string]historyEntry
}

// HistorySecrets runs git log --all --reflog -p --cc -U0 (same guards and
// time limit as HistoryNames: no pager, external diff, textconv) and
// scans the lines each commit adds, per file, for keys and tokens; --cc
// adds what a merge brings that none of its parents has: a stash's
// work-tree commit is a merge of HEAD and the index (red team 14b,
// finding 8: git stash list -p printed a token git diff asked for); cached
// until a ref or the reflog moves. A history too long to read in the
// time limit, or larger than maxPatchScan, is an error (the caller asks).
func (o OSFS) HistorySecrets(gitDir string) ([]string, error) {
	key := refsFingerprint(gitDir)
	historySecretCache.Lock()
	if e, ok := historySecretCache.m[gitDir]; ok && e.key == key {
		historySecretCache.Unlock()
		return e.names, nil
	}
	historySecretCache.Unlock()
	out, err := runGit(o.Isolate, gitDir, "", "log", "--all", "--reflog", "-p", "--cc", "-U0", "--format=", "--no-renames",
		"--no-ext-diff", "--no-textconv", "--no-color")
	if err != nil {
		return nil, err
	}
	if len(out) > maxPatchScan {
		return nil, errTooMany
	}
	names := patchSecrets(out)
	historySecretCache.Lock()
	if historySecretCache.m == nil {
		historySecretCache.m = map[string]historyEntry{}
	}
	historySecretCache.m[gitDir] = historyEntry{key: key, names: names}
	historySecretCache.Unlock()
	return names, nil
}

// StagedSecrets runs git diff --cached -U0 (the index against HEAD: no
// file of the work tree is read, so no filter runs) and scans what it adds.
func (o OSFS) StagedSecrets(gitDir, workTree string) ([]string, error) {
	out, err := runGit(o.Isolate, gitDir, workTree, "diff", "--cached", "-U0", "--no-renames", "--no-ext-diff",
		"--no-textconv", "--no-color")
	if err != nil {
		return nil, err
	}
	if len(out) > maxPatchScan {
		return nil, errTooMany
	}
	return patchSecrets(out), nil
}

// patchSecrets returns the files of a patch whose added lines, taken
// together per file and commit, hold a key or token (a literal binary
// patch is taken as holding one: its lines are encoded). A combined diff
// (a merge's --cc: a stash's work-tree commit, an evil merge) has a column
// per parent: a line is added when a column says + and none says -. The
// --- and +++ lines are the header's only before a file's first hunk.
func patchSecrets(patch string) []string {
	var out []string
	seen := map[string]bool{}
	file := ""
	header, cols := false, 1
	var added strings.Builder
	flush := func() {
		if file != "" && added.Len() > 0 && !seen[file] {
			b := []byte(added.String())
			if hasPrivateKey(b) || hasToken(b) {
				seen[file] = true
				out = append(out, file)
			}
		}
		added.Reset()
	}
	for _, l := range strings.Split(patch, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "diff --cc ") || strings.HasPrefix(l, "diff --combined "):
			flush()
			file, header, cols = "", true, 1
		case header && strings.HasPrefix(l, "+++ "):
			file = unquoteGitPath(strings.TrimPrefix(l, "+++ "))
			file = strings.TrimPrefix(file, "b/")
			if file == "/dev/null" {
				file = ""
			}
		case strings.HasPrefix(l, "@@"):
			header = false
			cols = max(1, len(l)-len(strings.TrimLeft(l, "@"))-1) // @@@ is two parents
		case header && strings.HasPrefix(l, "GIT binary patch"):
			if file != "" && !seen[file] {
				seen[file] = true
				out = append(out, file)
			}
		case !header && len(l) >= cols && strings.Contains(l[:cols], "+") && !strings.Contains(l[:cols], "-"):
			added.WriteString(l[cols:])
			added.WriteByte('\n')
		}
	}
	flush()
	return out
}

// unquoteGitPath removes the quotes git puts around a path with special
// characters ("b/a\tb"); octal escapes are kept as written.
func unquoteGitPath(p string) string {
	if len(p) < 2 || p[0] != '"' || p[len(p)-1] != '"' {
		return p
	}
	p = p[1 : len(p)-1]
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '\\' && i+1 < len(p) {
			i++
			switch p[i] {
			case 't':
				b.WriteByte('\t')
			case 'n':
				b.WriteByte('\n')
			default:
				b.WriteByte(p[i])
			}
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

// stagedSecret reports a path whose staged content holds a key or token.
func (e Env) stagedSecret(dir string) (found string, known bool) {
	hl, ok := e.FS.(historyContentLister)
	if !ok {
		return "", false
	}
	top, cfg, ok := e.repoTop(dir)
	if !ok {
		return "", false
	}
	names, err := hl.StagedSecrets(path.Dir(cfg), top)
	if err != nil {
		return "", false
	}
	if len(names) > 0 {
		return names[0], true
	}
	return "", true
}
