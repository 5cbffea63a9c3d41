package worktree

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// Each worktree agent writes its branch's refs and their logs to folders
// of its own, <common>/teamlead-refs/<id>/heads and …/logs, which its
// sandbox shows at refs/heads/<the branch's folder> and
// logs/refs/heads/<the branch's folder>. When that folder of the
// repository was writable to every worktree agent, one agent moved
// another's branch, and what the human merged as qa's work was dev's (red
// team 12a, finding 7). The console takes the agent's own branch from its
// folder into the repository as it copies its objects (syncRefs: the
// commit must be the human's by then, copied and checked), and puts the
// repository's other branches of that folder in each agent's, so that QA
// still reads teamlead/dev; what an agent does to those copies stays in
// its own folder.
const refsFolder = "teamlead-refs"

// The remote-tracking refs are the agent's own the same way, in
// …/remotes and …/remote-logs, shown at refs/remotes and
// logs/refs/remotes: writable in the repository, they let an agent forge
// origin/main, and your git merge --ff-only origin/main took its commit
// as upstream's (red team 14a, finding 7). Its fetches stay in its
// folder; at each start the folder is made anew from your remote-tracking
// refs (copyRemotes).

// agentRefs are an agent's folders of refs and logs.
type agentRefs struct{ heads, logs, remotes, remoteLogs string }

// privateRefs makes the agent's folders of refs and logs, and returns
// them. Anything but a folder where one is expected is replaced.
func privateRefs(common, id, branch string) (agentRefs, error) {
	dir := filepath.Join(common, refsFolder, id)
	a := agentRefs{filepath.Join(dir, "heads"), filepath.Join(dir, "logs"), filepath.Join(dir, "remotes"), filepath.Join(dir, "remote-logs")}
	for _, d := range []string{filepath.Join(common, refsFolder), dir, a.heads, a.logs, a.remotes, a.remoteLogs} {
		if err := realFolder(d); err != nil {
			return agentRefs{}, err
		}
	}
	// Whose folder it is, for the console copying the others' branches
	// into it (outside the folder: the agent cannot change it).
	if err := writeFileAtomic(filepath.Join(common, refsFolder, id+".branch"), []byte(branch+"\n")); err != nil {
		return agentRefs{}, err
	}
	return a, nil
}

// copyRemotes makes the agent's folder of remote-tracking refs anew from
// the repository's: what it holds (the agent's earlier fetches, anything
// it put there) is removed, links not followed.
func copyRemotes(repo, remotes, remoteLogs string) error {
	for _, d := range []string{remotes, remoteLogs} {
		ents, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range ents {
			if err := os.RemoveAll(filepath.Join(d, e.Name())); err != nil {
				return err
			}
		}
	}
	out, err := runner{dir: repo}.run("for-each-ref", "--format=%(refname) %(objectname)", "refs/remotes/")
	if err != nil {
		return err
	}
	for _, l := range strings.Split(string(out), "\n") {
		name, id, ok := strings.Cut(strings.TrimPrefix(l, "refs/remotes/"), " ")
		if !ok || !isCommitID(id) || name == "" {
			continue // a symbolic one (origin/HEAD) shows as its target's id; one of another kind is skipped
		}
		parts := strings.Split(name, "/")
		d := remotes
		for _, p := range parts[:len(parts)-1] {
			if p == "" || p == "." || p == ".." {
				d = ""
				break
			}
			d = filepath.Join(d, p)
			if err := realFolder(d); err != nil {
				return err
			}
		}
		if d != "" {
			writeRefID(filepath.Join(d, parts[len(parts)-1]), id)
		}
	}
	return nil
}

// syncRefs brings the repository's branch of the agent of t and the
// agent's own copy together: the agent's move is taken when the human has
// not moved the branch since the last look (the commit must be in the
// repository's objects by then: ImportObjects copies first), else the
// human's (a first start, a branch the human reset) is put in the agent's
// folder. Then the repository's other branches of the same folder are
// copied into the agent's, and a move taken is copied into the other
// agents' folders at once. A no-op for an agent whose folder was never
// made (not in a sandbox, or a branch with no folder).
func syncRefs(t Tree) error {
	dir, leaf := filepath.Dir(t.Branch), filepath.Base(t.Branch)
	if t.GitDir == "" || t.Repo == "" || dir == "." {
		return nil
	}
	common := filepath.Dir(filepath.Dir(t.GitDir))
	id := filepath.Base(t.GitDir)
	heads := filepath.Join(common, refsFolder, id, "heads")
	if st, err := os.Lstat(heads); err != nil || !st.IsDir() {
		return nil
	}
	r := runner{dir: t.Repo}
	ref := "refs/heads/" + t.Branch
	branches, err := branchesIn(r, dir)
	if err != nil {
		return err
	}
	human := branches[leaf]
	syncedFile := filepath.Join(common, refsFolder, id+".synced")
	synced, agent := readRefID(syncedFile), readRefID(filepath.Join(heads, leaf))
	switch {
	case agent != "" && agent != human && (synced == "" || synced == human):
		if out, err := r.run("cat-file", "-t", agent); err != nil || line(out) != "commit" {
			return fmt.Errorf("%w: agent %s's branch %s names %s, which is no commit the repository holds: look at its worktree, and ask it to commit again", ErrObjectsChanged, id, t.Branch, agent)
		}
		if _, err := r.run("update-ref", "-m", "teamlead: agent "+id+" moved its branch", ref, agent, human); err != nil {
			// Another teamlead process (a diff while the console looks)
			// may have taken it first.
			if now, lerr := branchesIn(r, dir); lerr != nil || now[leaf] != agent {
				return err
			}
		}
		human = agent
		shareBranch(common, id, t.Branch, agent)
	case human != "" && agent != human:
		writeRefID(filepath.Join(heads, leaf), human)
	}
	if human != synced {
		if err := writeFileAtomic(syncedFile, []byte(human+"\n")); err != nil {
			return err
		}
	}
	for name, commit := range branches {
		if name != leaf && readRefID(filepath.Join(heads, name)) != commit {
			writeRefID(filepath.Join(heads, name), commit)
		}
	}
	return nil
}

// branchesIn maps the names of the repository's branches in the folder
// dir of refs/heads (not below it) to their commits.
func branchesIn(r runner, dir string) (map[string]string, error) {
	prefix := "refs/heads/" + filepath.ToSlash(dir) + "/"
	out, err := r.run("for-each-ref", "--format=%(refname) %(objectname)", prefix)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		name, id, ok := strings.Cut(strings.TrimPrefix(l, prefix), " ")
		if ok && !strings.Contains(name, "/") && isCommitID(id) {
			m[name] = id
		}
	}
	return m, nil
}

// shareBranch puts branch at commit into every other agent's folder of
// refs that shows the same folder of the repository's.
func shareBranch(common, self, branch, commit string) {
	ents, _ := os.ReadDir(filepath.Join(common, refsFolder))
	for _, e := range ents {
		if !e.IsDir() || e.Name() == self {
			continue
		}
		b, err := fsutil.ReadRegular(filepath.Join(common, refsFolder, e.Name()+".branch"))
		if err != nil || filepath.Dir(strings.TrimSpace(string(b))) != filepath.Dir(branch) {
			continue
		}
		heads := filepath.Join(common, refsFolder, e.Name(), "heads")
		if st, err := os.Lstat(heads); err == nil && st.IsDir() {
			writeRefID(filepath.Join(heads, filepath.Base(branch)), commit)
		}
	}
}

// readRefID is the commit id a loose ref file holds, "" when it is not a
// regular file holding one (a symbolic ref, a link, anything else the
// agent put there).
func readRefID(path string) string {
	st, err := os.Lstat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > 100 {
		return ""
	}
	b, err := fsutil.ReadHead(path, 100, syscall.O_NOFOLLOW)
	if id := strings.TrimSpace(string(b)); err == nil && len(id) >= 40 && isCommitID(id) {
		return id
	}
	return ""
}

// writeRefID puts a loose ref holding id at path, in an agent's folder:
// replaced whole by rename, never written through a link. One the agent
// made a folder is left: its own copy, which it broke.
func writeRefID(path, id string) {
	_ = fsutil.WriteFileAtomic(path, []byte(id+"\n"), 0o644)
}
