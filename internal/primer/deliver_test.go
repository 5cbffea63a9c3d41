package primer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPlan(t *testing.T) {
	const text = "You are dev.\nUse [ROUTE]."
	cases := []struct {
		name, mode, arg string
		want            Delivery
		err             error
	}{
		{"flag", ModeFlag, "--append-system-prompt {primer}", Delivery{Args: []string{"--append-system-prompt", text}}, nil},
		{"flag inside a word", ModeFlag, "-c instructions={primer}", Delivery{Args: []string{"-c", "instructions=" + text}}, nil},
		{"flag with quotes", ModeFlag, `--system "the team: {primer}" --verbose`, Delivery{Args: []string{"--system", "the team: " + text, "--verbose"}}, nil},
		{"flag without placeholder", ModeFlag, "--append-system-prompt", Delivery{}, ErrMode},
		{"flag with an open quote", ModeFlag, `--x "{primer}`, Delivery{}, ErrMode},
		{"flag empty", ModeFlag, "  ", Delivery{}, ErrMode},
		{"file relative", ModeFile, "AGENTS.md", Delivery{File: filepath.Join("/work/dev", "AGENTS.md"), FileText: text}, nil},
		{"file in a subfolder", ModeFile, ".github/copilot-instructions.md", Delivery{File: "/work/dev/.github/copilot-instructions.md", FileText: text}, nil},
		{"file absolute", ModeFile, "/etc/agent/GEMINI.md", Delivery{File: "/etc/agent/GEMINI.md", FileText: text}, nil},
		{"file without name", ModeFile, "", Delivery{}, ErrMode},
		{"message", ModeMessage, "", Delivery{Message: text}, nil},
		{"message ignores arg", ModeMessage, "whatever", Delivery{Message: text}, nil},
		{"unknown mode", "env", "X", Delivery{}, ErrMode},
		{"no mode", "", "", Delivery{}, ErrMode},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Plan(text, c.mode, c.arg, "/work/dev")
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got %#v, want %#v", got, c.want)
			}
		})
	}
}

func TestFlagArgs(t *testing.T) {
	argv := []string{"--append-system-prompt", "{primer}", "--x={primer}!"}
	got, err := FlagArgs("P Q", argv)
	if err != nil || !reflect.DeepEqual(got, []string{"--append-system-prompt", "P Q", "--x=P Q!"}) {
		t.Errorf("got %q, %v", got, err)
	}
	if argv[1] != "{primer}" {
		t.Error("FlagArgs changed its argument")
	}
	if _, err := FlagArgs("P", []string{"--verbose"}); !errors.Is(err, ErrMode) {
		t.Errorf("no placeholder: %v", err)
	}
}

const (
	begin = BeginMarker + "\n"
	end   = EndMarker + "\n"
)

func TestMerge(t *testing.T) {
	cases := []struct {
		name, existing, text, want string
		err                        error
	}{
		{"new file", "", "P1\nP2\n", begin + "P1\nP2\n" + end, nil},
		{"user text, appended after it", "# Mine\nkeep me\n", "P", "# Mine\nkeep me\n\n" + begin + "P\n" + end, nil},
		{"user text without final newline", "# Mine", "P", "# Mine\n\n" + begin + "P\n" + end, nil},
		{"user text ending in a blank line", "# Mine\n\n", "P", "# Mine\n\n" + begin + "P\n" + end, nil},
		{"block replaced, text before and after kept", "# Mine\nbefore\n\n" + begin + "old\nold2\n" + end + "\nafter\n  indented\n",
			"new", "# Mine\nbefore\n\n" + begin + "new\n" + end + "\nafter\n  indented\n", nil},
		{"block at the top", begin + "old\n" + end + "user\n", "new", begin + "new\n" + end + "user\n", nil},
		{"end marker is the last line, no newline", "user\n" + begin + "old\n" + EndMarker, "new", "user\n" + begin + "new\n" + EndMarker, nil},
		{"indented markers", "user\n  " + begin + "old\n  " + end, "new", "user\n" + begin + "new\n" + end, nil},
		{"same text again: unchanged", "a\n\n" + begin + "P\n" + end + "b\n", "P", "a\n\n" + begin + "P\n" + end + "b\n", nil},
		{"second block removed", "a\n" + begin + "x\n" + end + "b\n" + begin + "y\n" + end + "c\n", "new", "a\n" + begin + "new\n" + end + "b\nc\n", nil},
		{"CRLF file keeps CRLF", "mine\r\n" + BeginMarker + "\r\nold\r\n" + EndMarker + "\r\nafter\r\n", "n1\nn2",
			"mine\r\n" + BeginMarker + "\r\nn1\r\nn2\r\n" + EndMarker + "\r\nafter\r\n", nil},
		{"begin without end", "mine\n" + begin + "old\nmore user text\n", "new", "", ErrMarkers},
		{"end without begin", "mine\n" + end + "after\n", "new", "", ErrMarkers},
		{"nested begin", begin + "a\n" + begin + "b\n" + end, "new", "", ErrMarkers},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := Merge(c.existing, c.text)
			if !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Fatalf("err = %v, want %v", err, c.err)
			}
			if got != c.want {
				t.Errorf("got\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	read := func(p string) string {
		t.Helper()
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	// A new file, in a folder that does not exist yet.
	fresh := filepath.Join(dir, "new", "AGENTS.md")
	if err := WriteFile(dir, fresh, "primer one"); err != nil {
		t.Fatal(err)
	}
	if got := read(fresh); got != begin+"primer one\n"+end {
		t.Errorf("new file: %q", got)
	}

	// The user's file: text before and after the block survives two starts.
	user := filepath.Join(dir, "CLAUDE.md")
	if err := os.WriteFile(user, []byte("# House rules\nUse tabs.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, user, "primer one"); err != nil {
		t.Fatal(err)
	}
	withTail := read(user) + "\n## Added later by the user\nNo force pushes.\n"
	if err := os.WriteFile(user, []byte(withTail), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, user, "primer two\nline 2"); err != nil {
		t.Fatal(err)
	}
	want := "# House rules\nUse tabs.\n\n" + begin + "primer two\nline 2\n" + end + "\n## Added later by the user\nNo force pushes.\n"
	if got := read(user); got != want {
		t.Errorf("user file:\n%q\nwant\n%q", got, want)
	}
	if fi, _ := os.Stat(user); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}

	// The same primer again leaves the file alone.
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(user, old, old); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, user, "primer two\nline 2"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(user); !fi.ModTime().Equal(old) {
		t.Errorf("an unchanged primer rewrote the file (mtime %v)", fi.ModTime())
	}

	// A symbolic link is followed: the link stays, the target gets the block.
	target := filepath.Join(dir, "shared.md")
	if err := os.WriteFile(target, []byte("shared\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "GEMINI.md")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dir, link, "P"); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if got := read(target); got != "shared\n\n"+begin+"P\n"+end {
		t.Errorf("target: %q", got)
	}

	// A link out of the agent's folder, or to a file that is not
	// Markdown, is not followed: the target is untouched (the sixth red
	// team pointed AGENTS.md at the store's MANIFEST and at teamlead).
	outside := filepath.Join(t.TempDir(), "MANIFEST")
	code := filepath.Join(dir, "main.go")
	for _, tgt := range []string{outside, code} {
		if err := os.WriteFile(tgt, []byte("precious\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		evil := filepath.Join(dir, "AGENTS-"+filepath.Base(tgt)+".md")
		if err := os.Symlink(tgt, evil); err != nil {
			t.Fatal(err)
		}
		if err := WriteFile(dir, evil, "P"); err == nil {
			t.Errorf("%s written through", tgt)
		}
		if got := read(tgt); got != "precious\n" {
			t.Errorf("%s changed: %q", tgt, got)
		}
	}

	// Broken markers: an error naming the file, and the file untouched.
	broken := filepath.Join(dir, "broken.md")
	text := "mine\n" + begin + "half a block\nuser text\n"
	if err := os.WriteFile(broken, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(dir, broken, "P")
	if !errors.Is(err, ErrMarkers) || !strings.Contains(err.Error(), "broken.md") || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("err = %v", err)
	}
	if got := read(broken); got != text {
		t.Errorf("broken file changed: %q", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}
