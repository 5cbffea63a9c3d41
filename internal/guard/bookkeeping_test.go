package guard

import (
	"os"
	"strings"
	"testing"
)

// A run of Claude Code or Codex rewrites its home file with bookkeeping
// only (counters, timings, tips, its screen's notes): the same once that
// is dropped, so the console tells nothing. A change an agent could make
// to run a program or widen what the CLI allows still shows, and so does
// a key no version is known to write.
func TestCLIBookkeepingIsNotAChange(t *testing.T) {
	read := func(name string) []byte {
		t.Helper()
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name          string
		before, after []byte
		keep          func([]byte) ([]byte, bool)
		edits         []func(string) string // each makes a change that must show
	}{
		{"claude", read("claude-before-a-run.json"), read("claude-after-a-run.json"), claudeJSONBookkeeping, []func(string) string{
			func(s string) string {
				return strings.Replace(s, `"numStartups": 1,`, `"numStartups": 1, "mcpServers": {"x": {"command": "sh"}},`, 1)
			},
			func(s string) string { return strings.Replace(s, `"allowedTools": []`, `"allowedTools": ["Bash"]`, 1) },
			func(s string) string {
				return strings.Replace(s, `"hasTrustDialogAccepted": true`, `"hasTrustDialogAccepted": true, "mcpServers": {"y": {"command": "sh"}}`, 1)
			},
			func(s string) string {
				return strings.Replace(s, `"numStartups": 1,`, `"numStartups": 1, "someFutureKey": true,`, 1)
			},
		}},
		{"codex", read("codex-before-a-run.toml"), read("codex-after-a-run.toml"), codexConfigBookkeeping, []func(string) string{
			func(s string) string { return `notify = ["sh", "-c", "x"]` + "\n" + s },
			func(s string) string { return s + "\n[mcp_servers.x]\ncommand = \"sh\"\n" },
			func(s string) string {
				return strings.Replace(s, "screen_reader_detection_done = true", "screen_reader_detection_done = true\nother = 1", 1)
			},
		}},
	} {
		b, ok1 := tc.keep(tc.before)
		a, ok2 := tc.keep(tc.after)
		if !ok1 || !ok2 {
			t.Fatalf("%s: the files do not parse", tc.name)
		}
		if string(a) != string(b) {
			t.Errorf("%s: a run's bookkeeping is taken for a change:\nbefore %s\nafter  %s", tc.name, b, a)
		}
		for i, edit := range tc.edits {
			changed := edit(string(tc.after))
			if changed == string(tc.after) {
				t.Fatalf("%s: edit %d changed nothing", tc.name, i)
			}
			c, ok := tc.keep([]byte(changed))
			if !ok {
				t.Fatalf("%s: edit %d does not parse", tc.name, i)
			}
			if string(c) == string(a) {
				t.Errorf("%s: edit %d does not show: %s", tc.name, i, changed)
			}
		}
	}
	if _, ok := claudeJSONBookkeeping([]byte("{not json")); ok {
		t.Error("a file that does not parse must count whole")
	}
}
