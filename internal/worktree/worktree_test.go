package worktree

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestEnsureCreates(t *testing.T) {
	repo := newRepo(t)
	head := run(t, repo, "rev-parse", "HEAD")
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	want := Tree{
		Path:   filepath.Join(filepath.Dir(repo), "repo-worktrees", "alice"),
		Branch: "teamlead/alice",
		Base:   head,
		Repo:   repo,
	}
	want.Dir = want.Path
	got := tr
	got.GitDir = ""
	if got != want {
		t.Fatalf("tree = %+v\nwant %+v", got, want)
	}
	if read(t, filepath.Join(tr.Path, "README")) != "hello\n" {
		t.Error("worktree lacks the main checkout's files")
	}
	if b := read(t, filepath.Join(tr.GitDir, baseFile)); strings.TrimSpace(b) != head {
		t.Errorf("recorded base %q, want %s", b, head)
	}
	if br := run(t, tr.Path, "symbolic-ref", "--short", "HEAD"); br != "teamlead/alice" {
		t.Errorf("worktree on %q", br)
	}
}

func TestEnsureReusesAfterRestart(t *testing.T) {
	repo := newRepo(t)
	first := ensure(t, Spec{Repo: repo, Agent: "alice"})
	write(t, filepath.Join(first.Path, "README"), "agent's edit\n")
	write(t, filepath.Join(first.Path, "notes.txt"), "untracked\n")
	write(t, filepath.Join(repo, "README"), "user's edit\n") // main dirty: fine on reuse
	commit(t, repo, "main moves on")

	second := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if second != first {
		t.Fatalf("second Ensure = %+v, want %+v", second, first)
	}
	if read(t, filepath.Join(first.Path, "README")) != "agent's edit\n" || read(t, filepath.Join(first.Path, "notes.txt")) != "untracked\n" {
		t.Fatal("reuse touched the agent's files")
	}
	opened, err := Open(Spec{Repo: repo, Agent: "alice"})
	if err != nil || opened != first {
		t.Fatalf("Open = %+v, %v", opened, err)
	}
	if _, err := Open(Spec{Repo: repo, Agent: "nobody"}); !errors.Is(err, ErrNoWorktree) {
		t.Fatalf("Open of a missing worktree: %v", err)
	}
}

func TestEnsureRecreatesOnKeptBranch(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	write(t, filepath.Join(tr.Path, "work.txt"), "done\n")
	commit(t, tr.Path, "agent work")
	if err := Remove(tr, false); err != nil {
		t.Fatal(err)
	}
	again := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if again.Base != tr.Base {
		t.Errorf("base after re-creation = %s, want the fork point %s", again.Base, tr.Base)
	}
	if read(t, filepath.Join(again.Path, "work.txt")) != "done\n" {
		t.Error("the kept branch's commit is missing")
	}
}

func TestEnsureDirtyCheckout(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, "README"), "uncommitted\n")
	_, err := Ensure(Spec{Repo: repo, Agent: "alice"})
	if !errors.Is(err, ErrDirtyCheckout) || !strings.Contains(err.Error(), "README") || !strings.Contains(err.Error(), "stash") {
		t.Fatalf("new branch from a dirty checkout: %v", err)
	}
	run(t, repo, "branch", "teamlead/bob")
	if _, err := Ensure(Spec{Repo: repo, Agent: "bob"}); err != nil {
		t.Fatalf("existing branch from a dirty checkout: %v", err)
	}
}

func TestEnsureBranchCheckedOutElsewhere(t *testing.T) {
	repo := newRepo(t)
	other := filepath.Join(filepath.Dir(repo), "by-hand")
	run(t, repo, "worktree", "add", "-q", "-b", "teamlead/alice", other)
	_, err := Ensure(Spec{Repo: repo, Agent: "alice"})
	if !errors.Is(err, ErrBranchCheckedOut) || !strings.Contains(err.Error(), other) {
		t.Fatalf("branch in another worktree: %v", err)
	}
	_, err = Ensure(Spec{Repo: repo, Agent: "bob", Branch: "main"})
	if !errors.Is(err, ErrBranchCheckedOut) || !strings.Contains(err.Error(), repo) {
		t.Fatalf("branch of the main checkout: %v", err)
	}
}

func TestEnsureDetachedHead(t *testing.T) {
	repo := newRepo(t)
	run(t, repo, "checkout", "-q", "--detach")
	head := run(t, repo, "rev-parse", "HEAD")
	_, err := Ensure(Spec{Repo: repo, Agent: "alice"})
	if !errors.Is(err, ErrDetachedHead) || !strings.Contains(err.Error(), head[:12]) || !strings.Contains(err.Error(), "git switch") {
		t.Fatalf("detached HEAD: %v", err)
	}
}

func TestEnsureNotRepository(t *testing.T) {
	_, err := Ensure(Spec{Repo: t.TempDir(), Agent: "alice"})
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("plain folder: %v", err)
	}
	_, err = Ensure(Spec{Repo: filepath.Join(t.TempDir(), "missing"), Agent: "alice"})
	if !errors.Is(err, ErrNotRepository) {
		t.Fatalf("missing folder: %v", err)
	}
}

func TestEnsureEmptyRepository(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "empty")
	run(t, filepath.Dir(dir), "init", "-q", "-b", "main", dir)
	_, err := Ensure(Spec{Repo: dir, Agent: "alice"})
	if !errors.Is(err, ErrNoCommits) {
		t.Fatalf("empty repository: %v", err)
	}
}

func TestEnsureBadNames(t *testing.T) {
	repo := newRepo(t)
	for _, s := range []Spec{
		{Repo: repo, Agent: ""},
		{Repo: repo, Agent: "../escape"},
		{Repo: repo, Agent: "a/b"},
		{Repo: repo, Agent: "-x"},
		{Repo: repo, Agent: "ok", Branch: "-x"},
		{Repo: repo, Agent: "ok", Branch: "bad..name"},
	} {
		if _, err := Ensure(s); !errors.Is(err, ErrBadName) {
			t.Errorf("Ensure(%+v) = %v, want ErrBadName", s, err)
		}
	}
}

func TestEnsureSubfolder(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: filepath.Join(repo, "sub", "dir"), Agent: "alice"})
	if tr.Repo != repo {
		t.Errorf("Repo = %s, want the top %s", tr.Repo, repo)
	}
	if want := filepath.Join(tr.Path, "sub", "dir"); tr.Dir != want {
		t.Errorf("Dir = %s, want %s", tr.Dir, want)
	}
	if _, err := os.Stat(filepath.Join(tr.Dir, "code.go")); err != nil {
		t.Error(err)
	}
}

func TestEnsurePathTaken(t *testing.T) {
	repo := newRepo(t)
	root := filepath.Join(t.TempDir(), "trees")
	write(t, filepath.Join(root, "alice", "keep.txt"), "someone's\n")
	_, err := Ensure(Spec{Repo: repo, Agent: "alice", Root: root})
	if !errors.Is(err, ErrPathTaken) {
		t.Fatalf("non-empty folder: %v", err)
	}
	if read(t, filepath.Join(root, "alice", "keep.txt")) != "someone's\n" {
		t.Fatal("the folder was touched")
	}
	// A worktree of another repository is not ours either.
	other := newRepo(t)
	run(t, other, "worktree", "add", "-q", "-b", "x", filepath.Join(root, "bob"))
	if _, err := Ensure(Spec{Repo: repo, Agent: "bob", Root: root}); !errors.Is(err, ErrPathTaken) {
		t.Fatalf("another repository's worktree: %v", err)
	}
	// An empty folder is fine.
	if err := os.MkdirAll(filepath.Join(root, "carol"), 0o755); err != nil {
		t.Fatal(err)
	}
	ensure(t, Spec{Repo: repo, Agent: "carol", Root: root})
}

func TestEnsureOtherBranch(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	run(t, tr.Path, "switch", "-q", "-c", "elsewhere")
	_, err := Ensure(Spec{Repo: repo, Agent: "alice"})
	if !errors.Is(err, ErrOtherBranch) || !strings.Contains(err.Error(), "elsewhere") {
		t.Fatalf("worktree switched away: %v", err)
	}
}

func TestEnsureFolderDeletedByHand(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if err := os.RemoveAll(tr.Path); err != nil {
		t.Fatal(err)
	}
	again := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if _, err := os.Stat(filepath.Join(again.Path, "README")); err != nil {
		t.Fatal(err)
	}
}

func TestEnsureSubmodule(t *testing.T) {
	repo := newRepo(t)
	lib := filepath.Join(filepath.Dir(repo), "lib")
	run(t, filepath.Dir(lib), "init", "-q", "-b", "main", lib)
	write(t, filepath.Join(lib, "lib.txt"), "library\n")
	commit(t, lib, "lib")
	run(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	commit(t, repo, "add submodule")

	// Git's default refuses file:// submodules when git itself clones
	// them: the error must name the submodule.
	tr, err := Ensure(Spec{Repo: repo, Agent: "alice"})
	if !errors.Is(err, ErrSubmodule) || !strings.Contains(err.Error(), "vendor/lib") {
		t.Fatalf("local submodule under the default protocol policy: %v", err)
	}
	if tr.Path == "" {
		t.Fatal("the worktree should be returned with ErrSubmodule")
	}

	// A user who allows file:// in their own config gets it checked out.
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[protocol \"file\"]\n\tallow = always\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	tr = ensure(t, Spec{Repo: repo, Agent: "bob"})
	if read(t, filepath.Join(tr.Path, "vendor", "lib", "lib.txt")) != "library\n" {
		t.Fatal("submodule not checked out")
	}
}

func TestRemoveWithSubmodule(t *testing.T) {
	repo := newRepo(t)
	lib := filepath.Join(filepath.Dir(repo), "lib")
	run(t, filepath.Dir(lib), "init", "-q", "-b", "main", lib)
	write(t, filepath.Join(lib, "lib.txt"), "library\n")
	commit(t, lib, "lib")
	run(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	commit(t, repo, "add submodule")
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[protocol \"file\"]\n\tallow = always\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if err := Remove(tr, false); !errors.Is(err, ErrHasSubmodules) {
		t.Fatalf("unforced: %v", err)
	}
	if err := Remove(tr, true); err != nil {
		t.Fatal(err)
	}
}

// An agent's worktree folder that became a link is not followed: the
// checkout would go wherever it points.
func TestWorktreeFolderThatIsALinkIsRefused(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	elsewhere := t.TempDir()
	if err := os.RemoveAll(tr.Path); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, tr.Path); err != nil {
		t.Fatal(err)
	}
	if _, err := Ensure(Spec{Repo: repo, Agent: "dev"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Fatalf("Ensure through a link: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Fatalf("checked out where the link points: %v", entries)
	}
}

// Confined keeps the human's checkout and shared git dir read-only and
// lets the agent write what committing on its branch needs; a worktree
// inside the checkout stays writable, and a branch without a folder
// leaves refs/heads read-only (its commits then fail: the agent is told
// by git, and the human's branches are safe).
func TestConfined(t *testing.T) {
	repo := newRepo(t)
	common := filepath.Join(repo, ".git")
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	got, err := tr.Confined()
	if err != nil {
		t.Fatal(err)
	}
	want := []Bind{{Path: repo},
		{Path: filepath.Join(common, "objects"), From: filepath.Join(common, "teamlead-objects", "alice"), Writable: true},
		{Path: filepath.Join(common, "objects", "info", "main"), From: filepath.Join(common, "objects")},
		{Path: filepath.Join(common, "objects", "info", "alternates"), From: filepath.Join(common, "teamlead-objects", "alice", "info", "alternates")},
		{Path: tr.GitDir, Writable: true},
		{Path: filepath.Join(common, "refs", "remotes"), From: filepath.Join(common, "teamlead-refs", "alice", "remotes"), Writable: true},
		{Path: filepath.Join(common, "logs", "refs", "remotes"), From: filepath.Join(common, "teamlead-refs", "alice", "remote-logs"), Writable: true},
		{Path: filepath.Join(common, "refs", "heads", "teamlead"), From: filepath.Join(common, "teamlead-refs", "alice", "heads"), Writable: true},
		{Path: filepath.Join(common, "logs", "refs", "heads", "teamlead"), From: filepath.Join(common, "teamlead-refs", "alice", "logs"), Writable: true},
		{Path: filepath.Join(tr.Path, ".git")}, {Path: filepath.Join(tr.GitDir, "commondir")}, {Path: filepath.Join(tr.GitDir, "gitdir")},
		{Path: filepath.Join(tr.GitDir, "config.worktree")}, {Path: filepath.Join(tr.GitDir, "teamlead-base")}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Confined:\n got %v\nwant %v", got, want)
	}

	nested := ensure(t, Spec{Repo: repo, Agent: "bob", Branch: "bob", Root: filepath.Join(repo, "trees")})
	got, err = nested.Confined()
	if err != nil {
		t.Fatal(err)
	}
	if got[len(got)-6] != (Bind{Path: nested.Path, Writable: true}) || !slices.Contains(got, Bind{Path: nested.GitDir, Writable: true}) ||
		got[len(got)-5] != (Bind{Path: filepath.Join(nested.Path, ".git")}) {
		t.Errorf("a nested worktree on a branch without a folder: %v", got)
	}
}

// The folders of the branch's refs and logs, bound writable in the
// agent's sandbox, outlive the human's git gc, which packs the refs and
// removes the folders it emptied: a folder removed takes its bind out of
// the agent's mount namespace, and the agent could no longer commit (red
// team 13d, finding 5).
func TestBranchFoldersOutliveGC(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	if _, err := tr.Confined(); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "gc", "-q")
	run(t, repo, "worktree", "remove", "--force", tr.Path)
	run(t, repo, "branch", "-D", tr.Branch)
	run(t, repo, "pack-refs", "--all", "--prune")
	for _, d := range []string{"refs/heads/teamlead", "logs/refs/heads/teamlead"} {
		if st, err := os.Stat(filepath.Join(repo, ".git", filepath.FromSlash(d))); err != nil || !st.IsDir() {
			t.Errorf("%s after gc and the branch's removal: %v", d, err)
		}
	}
	if got := run(t, repo, "for-each-ref", "refs/heads/teamlead/"); got != "" {
		t.Errorf("the keep file read as a ref: %q", got)
	}
	if got := run(t, repo, "fsck", "--no-progress"); got != "" {
		t.Errorf("git fsck: %q", got)
	}
	// One an agent replaced by a link is made a file again.
	keep := filepath.Join(repo, ".git", "refs", "heads", "teamlead", keepName)
	if err := os.Remove(keep); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(t.TempDir(), "x"), keep); err != nil {
		t.Fatal(err)
	}
	if err := keepFolder(filepath.Dir(keep)); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(keep); err != nil || !st.Mode().IsRegular() {
		t.Errorf("keep file after a link: %v, %v", st, err)
	}
}

// A worktree whose files lead git elsewhere (written by an agent that ran
// outside a sandbox) is not confined but refused: the human's git there
// would take the configuration they point at.
func TestConfinedRefusesARedirectedWorktree(t *testing.T) {
	repo := newRepo(t)
	evil := t.TempDir()
	for name, tamper := range map[string]func(tr Tree){
		".git":      func(tr Tree) { write(t, filepath.Join(tr.Path, ".git"), "gitdir: "+evil+"\n") },
		"commondir": func(tr Tree) { write(t, filepath.Join(tr.GitDir, "commondir"), evil+"\n") },
		"gitdir":    func(tr Tree) { write(t, filepath.Join(tr.GitDir, "gitdir"), evil+"/.git\n") },
		"config.worktree link": func(tr Tree) {
			if err := os.Symlink(filepath.Join(evil, "config"), filepath.Join(tr.GitDir, "config.worktree")); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			tr := ensure(t, Spec{Repo: repo, Agent: strings.ReplaceAll(strings.ReplaceAll(name, ".", ""), " ", "-")})
			if _, err := tr.Confined(); err != nil {
				t.Fatalf("untouched: %v", err)
			}
			if name == "config.worktree link" {
				os.Remove(filepath.Join(tr.GitDir, "config.worktree"))
			}
			tamper(tr)
			if _, err := tr.Confined(); !errors.Is(err, ErrTampered) {
				t.Fatalf("Confined after %s changed: %v", name, err)
			}
		})
	}
}

// A commondir file in the repository's own .git (an agent's: git would
// take the config, hooks and attributes of the folder it names) stops
// teamlead's git in that checkout, and nothing that config names runs:
// not its fsmonitor on a status, not its gpg.program on a merge (red team
// 11a, findings 1 and 2).
func TestCommondirInTheRepositoryIsRefused(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	write(t, filepath.Join(tr.Path, "notes.md"), "notes\n")
	commit(t, tr.Path, "notes")
	ran := filepath.Join(t.TempDir(), "ran")
	evil := filepath.Join(t.TempDir(), "evil")
	script := filepath.Join(t.TempDir(), "evil.sh")
	write(t, script, "#!/bin/sh\necho \"$0 $*\" >> "+ran+"\nexit 1\n")
	if err := os.Chmod(script, 0o755); err != nil {
		t.Fatal(err)
	}
	common := filepath.Join(repo, ".git")
	for _, d := range []string{"objects", "refs", "logs", "worktrees", "HEAD"} {
		if err := os.MkdirAll(evil, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(common, d), filepath.Join(evil, d)); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(evil, "config"), "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = "+script+
		"\n[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = "+script+"\n")
	write(t, filepath.Join(common, "commondir"), evil+"\n")

	if _, err := previewAndMerge(tr, ""); !errors.Is(err, ErrForeignCommonDir) {
		t.Errorf("merge with a commondir in the repository's .git: %v", err)
	}
	if _, err := Status(tr); err != nil && !errors.Is(err, ErrForeignCommonDir) {
		t.Errorf("status: %v", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("the commondir's config ran a program: %s", read(t, ran))
	}
	// Removed, the merge goes through, unsigned whatever the config says.
	if err := os.Remove(filepath.Join(common, "commondir")); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "config", "commit.gpgSign", "true")
	run(t, repo, "config", "gpg.program", script)
	if _, err := previewAndMerge(tr, ""); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if _, err := os.Stat(ran); err == nil {
		t.Fatalf("the merge ran gpg.program: %s", read(t, ran))
	}
}

// A new worktree's submodules are checked out through Contain (the console
// runs them as an agent's process would).
func TestSubmoduleUpdateIsContained(t *testing.T) {
	repo := newRepo(t)
	lib := filepath.Join(filepath.Dir(repo), "lib")
	run(t, filepath.Dir(lib), "init", "-q", "-b", "main", lib)
	write(t, filepath.Join(lib, "lib.txt"), "library\n")
	commit(t, lib, "lib")
	run(t, repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", lib, "vendor/lib")
	commit(t, repo, "add submodule")
	global := filepath.Join(t.TempDir(), "gitconfig")
	write(t, global, "[protocol \"file\"]\n\tallow = always\n")
	t.Setenv("GIT_CONFIG_GLOBAL", global)
	var contained []string
	Contain = func(cmd *exec.Cmd) { contained = append(contained, strings.Join(cmd.Args[1:], " ")) }
	defer func() { Contain = nil }()
	tr := ensure(t, Spec{Repo: repo, Agent: "bob"})
	if read(t, filepath.Join(tr.Path, "vendor", "lib", "lib.txt")) != "library\n" {
		t.Fatal("submodule not checked out")
	}
	if len(contained) != 1 || !strings.Contains(contained[0], "submodule update --init") {
		t.Errorf("contained: %q", contained)
	}
}

// The agents that work outside the repository keep its objects read-only;
// those in the checkout or a worktree do not.
func TestOutside(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	common := filepath.Join(repo, ".git")
	want := []Bind{{Path: filepath.Join(common, "objects")}, {Path: filepath.Join(common, objectsFolder)}}
	if got := tr.Outside(t.TempDir()); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("elsewhere: %v", got)
	}
	for _, dir := range []string{repo, filepath.Join(repo, "sub"), tr.Path, filepath.Dir(repo)} {
		if got := tr.Outside(dir); got != nil {
			t.Errorf("%s: %v", dir, got)
		}
	}
}

// CheckoutGit makes .git/commondir name the folder itself, so a sandbox
// can keep it read-only; git and teamlead's git work on as before, and a
// commondir that leads elsewhere is refused (red team 13a, finding 2).
func TestCheckoutGit(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "dev"})
	files, err := CheckoutGit(filepath.Join(repo, "sub", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	gd := filepath.Join(repo, ".git")
	for _, want := range []string{filepath.Join(gd, "config"), filepath.Join(gd, "config.worktree"), filepath.Join(gd, "commondir"), filepath.Join(gd, "hooks"),
		filepath.Join(gd, "worktrees", "dev", "commondir"), filepath.Join(gd, "worktrees", "dev", "gitdir"), filepath.Join(tr.Path, ".git"),
		filepath.Join(gd, "worktrees", "dev", "config.worktree")} {
		if !slices.Contains(files, want) {
			t.Errorf("%s not among %v", want, files)
		}
	}
	if got := read(t, filepath.Join(gd, "commondir")); got != ".\n" {
		t.Fatalf("commondir = %q", got)
	}
	if got := run(t, repo, "rev-parse", "--path-format=absolute", "--git-common-dir"); got != gd {
		t.Errorf("git's common dir: %q", got)
	}
	if _, err := Status(tr); err != nil {
		t.Errorf("teamlead's git in the worktree: %v", err)
	}
	if _, err := PreviewMerge(tr, ""); err != nil {
		t.Errorf("teamlead's git in the checkout: %v", err)
	}
	write(t, filepath.Join(gd, "commondir"), t.TempDir()+"\n")
	if _, err := CheckoutGit(repo); !errors.Is(err, ErrForeignCommonDir) {
		t.Errorf("a commondir leading elsewhere: %v", err)
	}
	if got, err := CheckoutGit(t.TempDir()); got != nil || err != nil {
		t.Errorf("no checkout: %v, %v", got, err)
	}
}

// A folder made a link inside the shared git dir (an agent working in the
// checkout writes its refs) is not bound writable for a worktree agent:
// the bind would make the folder the link names writable in its sandbox.
func TestConfinedRefusesALinkOnTheWay(t *testing.T) {
	repo := newRepo(t)
	tr := ensure(t, Spec{Repo: repo, Agent: "alice"})
	heads := filepath.Join(repo, ".git", "refs", "heads")
	elsewhere := filepath.Join(t.TempDir(), "heads")
	if err := os.Rename(heads, elsewhere); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, heads); err != nil {
		t.Fatal(err)
	}
	if _, err := tr.Confined(); !errors.Is(err, ErrTampered) || !strings.Contains(err.Error(), heads+" is a link") {
		t.Fatalf("Confined with refs/heads a link: %v", err)
	}
}

// An agent that works in the checkout writes its .git, worktrees/ too: a
// git dir of its own there whose gitdir names a worktree's folder was
// taken for that worktree's (the first in the folder's order), and the
// console wrote the worktree's base through the agent's link at
// teamlead-base into a file of the agent's choosing.
func TestPlantedWorktreeGitDirIsNotTaken(t *testing.T) {
	repo := newRepo(t)
	path := filepath.Join(filepath.Dir(repo), "repo-worktrees", "qa")
	planted := filepath.Join(repo, ".git", "worktrees", "a")
	victim := filepath.Join(t.TempDir(), "pre-commit")
	write(t, victim, "#!/bin/sh\nexit 0\n")
	// git does not take it for the worktree (its gitdir does not end in
	// /.git), teamlead did.
	write(t, filepath.Join(planted, "gitdir"), filepath.Join(path, "x")+"\n")
	write(t, filepath.Join(planted, "HEAD"), run(t, repo, "rev-parse", "HEAD")+"\n")
	if err := os.Symlink(victim, filepath.Join(planted, baseFile)); err != nil {
		t.Fatal(err)
	}
	tr, err := Ensure(Spec{Repo: repo, Agent: "qa"})
	if got := read(t, victim); got != "#!/bin/sh\nexit 0\n" {
		t.Fatalf("the console wrote through the agent's link: %q", got)
	}
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(repo, ".git", "worktrees", "qa"); tr.GitDir != want {
		t.Errorf("git dir %s, want %s", tr.GitDir, want)
	}
	// With a gitdir naming the worktree's .git exactly, as git's own does.
	write(t, filepath.Join(planted, "gitdir"), filepath.Join(path, ".git")+"\n")
	if tr, err := Open(Spec{Repo: repo, Agent: "qa"}); err != nil || tr.GitDir != filepath.Join(repo, ".git", "worktrees", "qa") {
		t.Errorf("Open: %s, %v", tr.GitDir, err)
	}
}

// A FIFO an agent in the checkout put in .git/worktrees holds no start.
func TestCheckoutGitWaitsOnNoFIFO(t *testing.T) {
	repo := newRepo(t)
	wd := filepath.Join(repo, ".git", "worktrees", "x")
	if err := os.MkdirAll(wd, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(wd, "gitdir"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { _, err := CheckoutGit(repo); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("CheckoutGit waits on a FIFO for a worktree's gitdir")
	}
}

// An agent may work, without a worktree of teamlead's, in a checkout that
// is a linked worktree of the human's own (git worktree add): its .git is
// a file, in the agent's folder. Nothing of its git was kept read-only:
// the agent could point that file at a git folder of its own, whose
// core.fsmonitor the human's git status there ran, or write the
// repository's config and hooks.
func TestCheckoutGitOfALinkedWorktree(t *testing.T) {
	repo := newRepo(t)
	wt := filepath.Join(filepath.Dir(repo), "feature")
	run(t, repo, "worktree", "add", "-q", "-b", "feature", wt)
	files, err := CheckoutGit(filepath.Join(wt, "sub"))
	if err != nil {
		t.Fatal(err)
	}
	gd, own := filepath.Join(repo, ".git"), filepath.Join(repo, ".git", "worktrees", "feature")
	for _, want := range []string{filepath.Join(wt, ".git"), filepath.Join(own, "commondir"), filepath.Join(own, "gitdir"), filepath.Join(own, "config.worktree"),
		filepath.Join(gd, "config"), filepath.Join(gd, "config.worktree"), filepath.Join(gd, "hooks"), filepath.Join(gd, "info"), filepath.Join(gd, "objects", "info", "alternates")} {
		if !slices.Contains(files, want) {
			t.Errorf("%s not among %v", want, files)
		}
	}
	// One that already leads elsewhere stops the start.
	write(t, filepath.Join(wt, ".git"), "gitdir: "+t.TempDir()+"\n")
	if _, err := CheckoutGit(wt); !errors.Is(err, ErrTampered) {
		t.Errorf("a .git file leading elsewhere: %v", err)
	}
}
