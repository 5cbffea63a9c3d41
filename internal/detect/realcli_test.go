//go:build realcli

package detect

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestRealCLIDialogs runs the real CLIs (installed as in
// testdata/README.md; TEAMLEAD_CLAUDE_BIN, TEAMLEAD_CODEX_BIN,
// TEAMLEAD_GEMINI_BIN, TEAMLEAD_COPILOT_BIN and TEAMLEAD_OPENCODE_BIN point
// elsewhere) against the scripted model server
// through the capture tool, which answers each permission dialog with the
// keys the shipped preset's detector reads off it: the approval must
// reach the model server as the tool's result and delete build/, the
// denial must leave build/ alone, and the detector must read the fresh
// dialog (and not the quoting reply). A CLI not installed is skipped.
//
//	go test -tags realcli -run TestRealCLIDialogs -timeout 20m ./internal/detect/
func TestRealCLIDialogs(t *testing.T) {
	ds := presets(t)
	for _, c := range []struct {
		name, cli, preset, env, bin string
		extra                       []string
	}{
		{"claude-code", "claude", "claude-code", "TEAMLEAD_CLAUDE_BIN", "/work/.cache/clis/claude/node_modules/.bin/claude", nil},
		{"claude-code-classic", "claude", "claude-code", "TEAMLEAD_CLAUDE_BIN", "/work/.cache/clis/claude/node_modules/.bin/claude",
			[]string{"-tag", "classic", "-env", "CLAUDE_CODE_DISABLE_ALTERNATE_SCREEN=1"}},
		{"codex", "codex", "codex", "TEAMLEAD_CODEX_BIN", "/work/.cache/clis/codex/node_modules/.bin/codex", nil},
		{"gemini", "gemini", "gemini", "TEAMLEAD_GEMINI_BIN", "/work/.cache/clis/gemini/node_modules/.bin/gemini", []string{"-chunk", "64"}},
		{"copilot", "copilot", "copilot", "TEAMLEAD_COPILOT_BIN", "/work/.cache/clis/copilot/node_modules/.bin/copilot", nil},
		{"opencode", "opencode", "opencode", "TEAMLEAD_OPENCODE_BIN", "/work/.cache/clis/opencode/node_modules/.bin/opencode", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			bin := c.bin
			if b := os.Getenv(c.env); b != "" {
				bin = b
			}
			if _, err := os.Stat(bin); err != nil {
				t.Skipf("%s not installed: %v", c.cli, err)
			}
			out := t.TempDir()
			args := append([]string{"run", "../fakemodel/capture", "-set", "dialog", "-cli", c.cli, "-bin", bin,
				"-out", out, "-work", t.TempDir(), "-only", "bash,quote"}, c.extra...)
			cmd := exec.Command("go", args...)
			b, err := cmd.CombinedOutput()
			t.Logf("%s", b)
			if err != nil {
				t.Fatalf("capture: %v", err)
			}
			jsons, _ := filepath.Glob(filepath.Join(out, "*-bash.json"))
			if len(jsons) != 1 {
				t.Fatalf("captured %v", jsons)
			}
			var meta struct {
				Detected struct{ Tool, Action, Approve, Deny string }
				Approve  struct {
					ToolResult bool   `json:"tool_result_seen"`
					Effect     string `json:"effect"`
				}
				Deny struct {
					Effect string `json:"effect"`
				}
			}
			js, _ := os.ReadFile(jsons[0])
			if err := json.Unmarshal(js, &meta); err != nil {
				t.Fatal(err)
			}
			if meta.Detected.Tool != "Bash" || meta.Detected.Action != "rm -rf build/" {
				t.Errorf("detected %+v", meta.Detected)
			}
			if !meta.Approve.ToolResult || meta.Approve.Effect != "build/ removed" || meta.Deny.Effect != "build/ still there" {
				t.Errorf("approve %+v, deny %+v", meta.Approve, meta.Deny)
			}
			base := jsons[0][:len(jsons[0])-len(".json")]
			for suffix, want := range map[string]bool{"": true, "-approved": false, "-denied": false} {
				b, err := os.ReadFile(base + suffix + ".screen.txt")
				if err != nil {
					t.Fatal(err)
				}
				if _, ok := ds[c.preset].Check(SplitScreen(string(b))); ok != want {
					t.Errorf("%s%s: dialog %v, want %v", filepath.Base(base), suffix, ok, want)
				}
			}
			quotes, _ := filepath.Glob(filepath.Join(out, "*-quote.screen.txt"))
			for _, q := range quotes {
				b, _ := os.ReadFile(q)
				if m, ok := ds[c.preset].Check(SplitScreen(string(b))); ok || m.Kind != KindIdle {
					t.Errorf("%s: %+v", filepath.Base(q), m)
				}
			}
		})
	}
}
