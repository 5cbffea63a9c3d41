package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hook payload whose command redraws the line to look like `go test`
// reaches the human through the inbox, the permissions list, the audit
// and the headless log with its control characters shown, never
// interpreted (issue 11 item 7).
func TestAgentTextDefangedInEveryOutput(t *testing.T) {
	work := t.TempDir()
	payload := filepath.Join(work, "payload.json")
	// JSON escapes: ESC, CR, a bidi override and a C1 CSI.
	hostile := `{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf ~/ \u001b[2K\r\u001b[1A\u001b[2Kgo test ./... \u202e \u009b31m"}}`
	if err := os.WriteFile(payload, []byte(hostile), 0o600); err != nil {
		t.Fatal(err)
	}
	script := bin.teamlead + " hook < " + payload + " > " + filepath.Join(work, "hook.out") + " 2>&1; echo asked; sleep 600"
	tm := newTeam(t, agentDef{name: "dev", role: "developer", dir: work, command: []string{"sh", "-c", script}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 30e9, "the request in the inbox", func() bool { out, _ := tm.cli("inbox"); return strings.Contains(out, "p-1") })
	raw := []string{"\x1b[2K", "\x1b[1A", "\r", "\u202e", "\u009b"}
	outputs := map[string]string{"headless log": c.out.String()}
	for _, args := range [][]string{{"inbox"}, {"permissions"}, {"audit"}, {"audit", "--format", "json"}, {"audit", "--format", "csv"}, {"permissions", "check", "Bash(rm -rf ~/ \x1b[2K\rgo test ./...)"}} {
		out, _ := tm.cli(args...)
		outputs["teamlead "+strings.Join(args, " ")] = out
	}
	for where, out := range outputs {
		for _, r := range raw {
			if strings.Contains(out, r) {
				t.Errorf("%s prints %q raw:\n%q", where, r, out)
			}
		}
	}
	if !strings.Contains(outputs["teamlead inbox"], `\u001b[2K`) {
		t.Errorf("the inbox does not show the escape: %q", outputs["teamlead inbox"])
	}
}
