package permit

import (
	"strings"
	"testing"
)

// FuzzArchives: the floor's readers of archives, patches and tar command
// lines take anything without panicking, and every name they return is
// one the input holds.
func FuzzArchives(f *testing.F) {
	f.Add([]byte(tarOf(f, ".vscode/tasks.json")), "diff --git a/x b/y\nrename to z\n+++ b/\"q\\303\\251\"\t2020\n", "xzvf k.tar -C d --strip-components=1")
	f.Add([]byte(zipOf(f, "a/b")), "*** a/x\n--- a/x\nnew file mode 120000\n", "-xf - --one-top-level=.git")
	f.Add([]byte(gzipOf(f, tarOf(f, "z"))), "Index: x\n", "--extract --file")
	f.Fuzz(func(t *testing.T, archive []byte, patch, cmd string) {
		if members, why := archiveMembers(archive); why == "" {
			for _, m := range members {
				if len(m.name) > len(archive)*8+1024 {
					t.Fatalf("member name longer than the archive could hold: %d", len(m.name))
				}
			}
		}
		names, _ := patchTargets(patch)
		for _, n := range names {
			if n == "" || n == "/dev/null" {
				t.Fatalf("patchTargets returned %q", n)
			}
		}
		words, err := SplitShell("tar " + cmd)
		if err != nil || len(words) != 1 {
			return
		}
		ta := parseTar(words[0].Args[1:])
		for _, m := range ta.members {
			if !strings.Contains(cmd, m.Value) && !m.Dynamic && m.Raw != "" && !strings.Contains(cmd, m.Raw) {
				t.Fatalf("member %q is not in %q", m.Value, cmd)
			}
		}
	})
}

// TestPatchTargets: the names of unified, context and git diffs.
func TestPatchTargets(t *testing.T) {
	names, link := patchTargets("diff --git a/src/x.go b/src/y.go\nsimilarity index 90%\nrename from src/x.go\nrename to src/y.go\n" +
		"--- \"a/sp ace\"\t2024-01-01\n+++ \"b/.git/hooks/pre-commit\"\n*** 1,3 ****\n" +
		"diff --git a/l b/l\nnew file mode 120000\n")
	want := []string{"a/src/x.go", "b/src/y.go", "src/y.go", "a/sp ace", "b/.git/hooks/pre-commit", "a/l", "b/l"}
	if strings.Join(names, "|") != strings.Join(want, "|") {
		t.Errorf("names %q, want %q", names, want)
	}
	if link != "b/l" {
		t.Errorf("link %q, want b/l", link)
	}
}
