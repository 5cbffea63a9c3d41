package worktree

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestParseWorktreeList(t *testing.T) {
	out := "worktree /r\x00HEAD abc\x00branch refs/heads/main\x00\x00" +
		"worktree /r-worktrees/a b\nc\x00HEAD def\x00detached\x00prunable gitdir file points to non-existent location\x00\x00" +
		"worktree /bare\x00bare\x00\x00"
	got := parseWorktreeList([]byte(out))
	want := []listed{
		{Path: "/r", Head: "abc", Branch: "refs/heads/main"},
		{Path: "/r-worktrees/a b\nc", Head: "def", Prunable: true},
		{Path: "/bare", Bare: true},
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got %+v\nwant %+v", got, want)
	}
}

func TestParseStatus(t *testing.T) {
	out := " M a b\x00R  new\x00old\x00?? new\nline\x00"
	if got, want := parseStatus([]byte(out)), []string{"a b", "new", "new\nline"}; !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestFilterName(t *testing.T) {
	for key, want := range map[string]string{
		"filter.lfs.smudge": "lfs", "filter.a.b.clean": "a.b", "filter.x=y.process": "x=y",
		"filter.clean": "", "core.fsmonitor": "",
	} {
		if got, _ := filterName(key); got != want {
			t.Errorf("filterName(%q) = %q, want %q", key, got, want)
		}
	}
}

// changesOutput renders files as git diff --raw --numstat -z would.
func changesOutput(files []File) string {
	var raw, num strings.Builder
	for _, f := range files {
		fmt.Fprintf(&raw, ":100644 100644 %s %s %s", strings.Repeat("1", 40), strings.Repeat("2", 40), f.Status)
		counts := fmt.Sprintf("%d\t%d\t", f.Added, f.Removed)
		if f.Binary {
			counts = "-\t-\t"
		}
		if f.OldPath != "" {
			fmt.Fprintf(&raw, "100\x00%s\x00%s\x00", f.OldPath, f.Path)
			fmt.Fprintf(&num, "%s\x00%s\x00%s\x00", counts, f.OldPath, f.Path)
		} else {
			fmt.Fprintf(&raw, "\x00%s\x00", f.Path)
			fmt.Fprintf(&num, "%s%s\x00", counts, f.Path)
		}
	}
	return raw.String() + num.String()
}

// FuzzParsers feeds every -z parser arbitrary bytes (they must not panic)
// and round-trips a file list built from the fuzzed names and counts.
func FuzzParsers(f *testing.F) {
	f.Add([]byte(":100644 100644 a b M\x00x\x001\t2\tx\x00"), "a b", "old\nname", uint16(3), uint16(1), false)
	f.Add([]byte("worktree /a\x00HEAD x\x00\x00"), ":colon", "", uint16(0), uint16(0), true)
	f.Add([]byte(" M a\x00R  b\x00c\x00"), "ünï\tcode", "-\t-\t", uint16(9), uint16(9), false)
	f.Fuzz(func(t *testing.T, data []byte, path, old string, added, removed uint16, binary bool) {
		parseChanges(data)
		parseWorktreeList(data)
		parseStatus(data)
		parseNUL(data)
		if path == "" || strings.ContainsRune(path, 0) || strings.ContainsRune(old, 0) || old == path {
			return
		}
		a := File{Path: path, Status: "M", Added: int(added), Removed: int(removed), Binary: binary}
		if binary {
			a.Added, a.Removed = 0, 0
		}
		if old != "" {
			a.OldPath, a.Status = old, "R"
		}
		b := File{Path: path + "/second", Status: "A", Added: 1}
		want := []File{a, b}
		if got := parseChanges([]byte(changesOutput(want))); !slices.Equal(got, want) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
		}
	})
}
