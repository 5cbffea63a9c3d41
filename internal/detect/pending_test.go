package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestPendingRealScreens reads every captured input screen (capture -set
// input): typed text waiting in the input box, the same text submitted,
// and an Enter taken as a newline.
func TestPendingRealScreens(t *testing.T) {
	ds := presets(t)
	for _, in := range inputCaptures(t) {
		base := filepath.Base(in.base)
		for _, st := range in.Steps {
			rows := screen(t, base+"-"+st.Name)
			// Each screen is read for both texts: only the one on it waits.
			for _, text := range []string{in.Line, in.Lines} {
				want := st.Pending && onScreen(st.Name, text, in.Line)
				if got := Pending(rows, st.CursorY, text); got != want {
					t.Errorf("%s %s: Pending(%.30q…) = %v, want %v", base, st.Name, text, got, want)
				}
			}
			// Text in the input box is not a permission dialog.
			if m, ok := ds[in.preset()].Check(rows); ok {
				t.Errorf("%s %s: read as a dialog: %+v", base, st.Name, m)
			}
		}
	}
}

// inputCapture is one CLI's capture -set input: its .json.
type inputCapture struct {
	base  string // the path without .json
	CLI   string `json:"cli"`
	Line  string `json:"typed_line"`
	Lines string `json:"pasted_lines"`
	Steps []struct {
		Name    string `json:"name"`
		Pending bool   `json:"pending"`
		CursorY int    `json:"cursor_y"`
	} `json:"steps"`
}

// preset is the name of the capture's CLI's preset.
func (c inputCapture) preset() string {
	return map[string]string{"claude-code": "claude-code", "codex": "codex", "gemini-cli": "gemini"}[c.CLI]
}

// inputCaptures reads every testdata/*-input.json.
func inputCaptures(t *testing.T) []inputCapture {
	t.Helper()
	metas, err := filepath.Glob("testdata/*-input.json")
	if err != nil || len(metas) < 3 {
		t.Fatalf("input fixtures: %v %v (want Claude Code, Codex and Gemini CLI)", metas, err)
	}
	var out []inputCapture
	for _, path := range metas {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c := inputCapture{base: strings.TrimSuffix(path, ".json")}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if c.preset() == "" || len(c.Steps) < 5 {
			t.Fatalf("%s: cli %q with %d steps", path, c.CLI, len(c.Steps))
		}
		out = append(out, c)
	}
	return out
}

// onScreen says which text a capture step typed: the pasted lines in the
// "pasted" step, the one line otherwise.
func onScreen(step, text, line string) bool {
	if step == "pasted" {
		return text != line
	}
	return text == line
}

func TestPending(t *testing.T) {
	screen := []string{
		"> earlier message about the parser, please.",
		"",
		"│ > Summarise the notes for the parser, please.      │",
		"│                                                    │",
		"  status line",
	}
	text := "Summarise the notes for the parser, please."
	for _, c := range []struct {
		name   string
		screen []string
		y      int
		text   string
		want   bool
	}{
		{"on the cursor row, in a box", screen, 2, text, true},
		{"taken as a newline: blank row under it", screen, 3, text, true},
		{"the cursor elsewhere", screen, 4, text, false},
		{"taken as a newline twice", append([]string{"> " + text, "", ""}, "status"), 2, text, true},
		{"another text", screen, 2, "Something else entirely.", false},
		{"multi-line text: its last line", screen, 2, "First line\n\n  Summarise the notes for   the parser, please.\n\n", true},
		{"wrapped: only the end on the row", []string{"> Summarise the notes for the", "  parser, please."}, 1, text, true},
		{"a prompt glyph alone", []string{"> "}, 0, "x >", false},
		{"blank text", screen, 2, " \n ", false},
		{"cursor off the screen", screen, 9, text, false},
		{"cursor on the top blank row", []string{"", "x"}, 0, text, false},
	} {
		if got := Pending(c.screen, c.y, c.text); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

// FuzzPending: any screen, cursor and text; Pending never panics, and text
// written at the cursor's row end always reads as waiting.
func FuzzPending(f *testing.F) {
	f.Add("> Summarise the notes\n\nstatus", 1, "Summarise the notes")
	f.Add("│ > x │\n", 0, "x")
	f.Add("", -1, "")
	f.Fuzz(func(t *testing.T, scr string, y int, text string) {
		rows := SplitScreen(scr)
		_ = Pending(rows, y, text)
		tail := lastLine(text)
		if tail == "" || strings.ContainsAny(text, "│┃║▏▕") || !utf8.ValidString(text) || strings.ContainsFunc(text, unicode.IsControl) {
			return
		}
		rows = append(rows, "> "+tail)
		if !Pending(rows, len(rows)-1, text) {
			t.Errorf("text %q at the cursor's row end not waiting", text)
		}
	})
}
