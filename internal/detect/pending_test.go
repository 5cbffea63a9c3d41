package detect

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
)

// TestPendingRealScreens reads every captured input screen (capture -set
// input): typed text waiting in the input box, the same text submitted,
// an Enter taken as a newline, and a relayed envelope that Claude Code and
// Gemini CLI show as a paste placeholder (their presets' submit_pending).
func TestPendingRealScreens(t *testing.T) {
	ds := presets(t)
	placeholders := submitPending(t)
	for _, in := range inputCaptures(t) {
		base := filepath.Base(in.base)
		ph := placeholders[in.preset()]
		for _, st := range in.Steps {
			rows := screen(t, base+"-"+st.Name)
			// The text this step typed waits exactly when the capture
			// saw it waiting.
			typed := map[string]string{"pasted": in.Lines, "envelope": in.Envelope}[st.Name]
			if typed == "" {
				typed = in.Line
			}
			if got := Pending(rows, st.CursorY, typed, ph...); got != st.Pending {
				t.Errorf("%s %s: Pending(%.30q…) = %v, want %v", base, st.Name, typed, got, st.Pending)
			}
			// Once submitted, no text of the capture reads as waiting.
			for _, text := range []string{in.Line, in.Lines, in.Envelope} {
				if !st.Pending && Pending(rows, st.CursorY, text, ph...) {
					t.Errorf("%s %s: %.30q… reads as waiting", base, st.Name, text)
				}
			}
			// Text in the input box is not a permission dialog.
			if m, ok := ds[in.preset()].Check(rows); ok {
				t.Errorf("%s %s: read as a dialog: %+v", base, st.Name, m)
			}
		}
	}
}

// submitPending compiles each shipped preset's submit_pending.
func submitPending(t *testing.T) map[string][]*regexp.Regexp {
	t.Helper()
	var pf struct {
		Presets map[string]struct {
			SubmitPending []string `yaml:"submit_pending"`
		} `yaml:"presets"`
	}
	if err := yaml.Unmarshal(configs.Presets, &pf); err != nil {
		t.Fatal(err)
	}
	out := map[string][]*regexp.Regexp{}
	for name, p := range pf.Presets {
		for _, s := range p.SubmitPending {
			out[name] = append(out[name], regexp.MustCompile(s))
		}
	}
	return out
}

// inputCapture is one CLI's capture -set input: its .json.
type inputCapture struct {
	base  string // the path without .json
	CLI   string `json:"cli"`
	Line  string `json:"typed_line"`
	Lines string `json:"pasted_lines"`
	// Envelope is a relayed envelope (Claude Code and Gemini CLI show it
	// as a placeholder).
	Envelope string `json:"pasted_envelope"`
	Steps    []struct {
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
		if c.preset() == "" || len(c.Steps) < 8 || c.Envelope == "" {
			t.Fatalf("%s: cli %q with %d steps", path, c.CLI, len(c.Steps))
		}
		out = append(out, c)
	}
	return out
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
