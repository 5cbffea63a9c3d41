package worktree

import (
	"bytes"
	"crypto/sha1"
	"encoding/hex"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// forgeIndex writes the index entry of what git add staged back to the id
// was, keeping the stat data git trusts, as red team 14d did by hand.
func forgeIndex(t *testing.T, repo, staged, was string) {
	t.Helper()
	path := filepath.Join(repo, ".git", "index")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	from, _ := hex.DecodeString(staged)
	to, _ := hex.DecodeString(was)
	body := b[:len(b)-sha1.Size]
	if bytes.Count(body, from) != 1 {
		t.Fatalf("the staged id is %d times in the index", bytes.Count(body, from))
	}
	body = bytes.Replace(body, from, to, 1)
	sum := sha1.Sum(body)
	if err := os.WriteFile(path, append(body, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A changed file whose index entry was written back to the old content's
// id, with the new file's stat, shows clean in git status and is told
// (red team 14d, finding 2).
func TestForgedIndexIsTold(t *testing.T) {
	repo := newRepo(t)
	write(t, filepath.Join(repo, "Makefile"), "all:\n\ttrue\n")
	write(t, filepath.Join(repo, "notes.txt"), "a\n")
	commit(t, repo, "make")
	old := run(t, repo, "rev-parse", "HEAD:Makefile")
	var f Forged
	if got, err := f.Look(repo); err != nil || got != nil {
		t.Fatalf("first look: %v, %v", got, err)
	}
	write(t, filepath.Join(repo, "Makefile"), "all:\n\ttouch pwned\n")
	write(t, filepath.Join(repo, "notes.txt"), "b\n") // changed, and shown
	// Older than the index, so that git trusts its stat (a file as new as
	// the index is looked at again: git's "racy" check).
	past := time.Now().Add(-time.Minute)
	if err := os.Chtimes(filepath.Join(repo, "Makefile"), past, past); err != nil {
		t.Fatal(err)
	}
	run(t, repo, "add", "Makefile")
	forgeIndex(t, repo, run(t, repo, "rev-parse", ":Makefile"), old)
	if got := run(t, repo, "status", "--porcelain"); got != "M notes.txt" {
		t.Fatalf("git status after the forgery: %q", got)
	}
	got, err := f.Look(filepath.Join(repo, "sub"))
	if err != nil || len(got) != 1 || got[0] != "Makefile" {
		t.Fatalf("forged: %v, %v", got, err)
	}
	// Undone (git sees it again once its stat changes): nothing told.
	run(t, repo, "update-index", "--add", "--cacheinfo", "100644,"+old+",Makefile")
	run(t, repo, "checkout", "--", "Makefile", "notes.txt")
	if got, err := f.Look(repo); err != nil || got != nil {
		t.Errorf("after git checkout: %v, %v", got, err)
	}
}
