package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The agent CLIs' own permission dialogs, imitated by mockagent as their
// captured screens show them, read by each preset's detector: a low-risk
// command is approved by the policy with the dialog's own key, without the
// human; a destructive one waits for the human, nothing is typed into the
// agent while its dialog is up, and the human's decision presses the
// right key.
func TestDialogsAnsweredByPolicyAndHuman(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "claude", role: "developer", preset: "claude-code", flags: []string{"--raw"}, script: `
dialog claude-code go test ./...
expectkey 1
write \e[2J\e[H
say ran the tests
dialog claude-code rm -rf /srv/data
expectkey 1
write \e[2J\e[H
say removed the data
idle
`},
		agentDef{name: "codex", role: "developer", preset: "codex", flags: []string{"--raw"}, script: `
dialog codex git push --force origin main
expectkey \e
write \e[2J\e[H
say did not push
idle
`},
		agentDef{name: "gemini", role: "developer", preset: "gemini", flags: []string{"--raw"}, script: `
dialog gemini go vet ./...
expectkey 1
write \e[2J\e[H
say vetted
idle
`},
	)
	c := tm.start()
	defer c.stop()
	// The policy answers the low-risk ones by itself.
	waitFor(t, 20e9, "the tests approved by policy", func() bool {
		return strings.Contains(tm.received("claude"), "1") && strings.Contains(tm.received("gemini"), "1")
	})
	waitFor(t, 20e9, "two requests for the human", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "p-") && strings.Count(out, "permission") >= 2
	})
	inbox := tm.mustCLI("inbox")
	if !strings.Contains(inbox, "Bash(rm -rf /srv/data)") || !strings.Contains(inbox, "Bash(git push --force origin main)") {
		t.Fatalf("inbox:\n%s", inbox)
	}
	// While claude's dialog waits, a message for it is held back.
	tm.mustCLI("send", "claude", "hello while the dialog is up")
	ids := map[string]string{}
	for _, r := range auditJSON(t, tm, "--kind", "permission") {
		f := r["fields"].(map[string]any)
		if f["status"] == "pending" {
			ids[f["action"].(string)] = r["msg_id"].(string)
		}
	}
	before := tm.received("claude")
	if strings.Contains(before, "hello") {
		t.Fatalf("typed into an open dialog: %q", before)
	}
	tm.mustCLI("approve", ids["Bash(rm -rf /srv/data)"])
	tm.mustCLI("deny", ids["Bash(git push --force origin main)"], "never on main")
	got := tm.waitReceived("claude", "hello while the dialog is up")
	if i, j := strings.LastIndex(got, "1"), strings.Index(got, "hello"); i < 0 || i > j {
		t.Errorf("the message was typed before the dialog was answered: %q", got)
	}
	waitFor(t, 20e9, "codex's dialog refused with Esc", func() bool { return strings.Contains(tm.received("codex"), "\x1b") })
	for _, r := range auditJSON(t, tm, "--kind", "permission") {
		f := r["fields"].(map[string]any)
		if f["action"] == "Bash(go test ./...)" && f["status"] == "approved" && f["decided_by"] != "policy" {
			t.Errorf("go test decided by %v", f["decided_by"])
		}
	}
	if _, err := os.Stat(tm.dir + "/.claude/settings.local.json"); err != nil {
		t.Errorf("the Claude Code hooks were not installed for the claude-code agent: %v", err)
	}
	// Each preset's way of handing over the protocol primer: Claude Code's
	// system-prompt flag, Codex's AGENTS.md, Gemini CLI's GEMINI.md.
	if b, err := os.ReadFile(tm.input("claude") + ".system-prompt"); err != nil || !strings.Contains(string(b), "You are **claude**, role **developer**") {
		t.Errorf("claude's system prompt: %v %.200q", err, b)
	}
	for _, f := range []string{"AGENTS.md", "GEMINI.md"} {
		if b, err := os.ReadFile(tm.dir + "/" + f); err != nil || !strings.Contains(string(b), "<!-- teamlead primer: begin -->") || !strings.Contains(string(b), "[ROUTE]") {
			t.Errorf("%s: %v %.200q", f, err, b)
		}
	}
}

// A message-mode agent (Aider's preset) is taught the primer as its first
// message, and the [ROUTE] and <gap> examples in it, echoed back by its
// terminal, are not taken for its own messages.
func TestPrimerTypedAsFirstMessage(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "aider", role: "developer", preset: "aider", script: "expect ^## Permissions\nsay got the primer\nidle\n"},
	)
	c := tm.start()
	defer c.stop()
	got := tm.waitReceived("aider", "## Permissions")
	if !strings.Contains(got, "You are **aider**, role **developer**") {
		t.Errorf("aider received %.300q", got)
	}
	waitFor(t, 20e9, "the primer recorded", func() bool { return len(auditJSON(t, tm, "--kind", "primer")) == 1 })
	for _, kind := range []string{"message", "gap", "reformat", "refusal"} {
		if recs := auditJSON(t, tm, "--kind", kind); len(recs) != 0 {
			t.Errorf("the primer's echo was read as the agent's %s: %v", kind, recs)
		}
	}
}

// A screen that looks like a dialog its preset's detector cannot read
// gets no typing either: a relayed message's "1" answered such a dialog
// (red team 19b, finding 5). The message is typed once it is gone.
func TestNothingTypedIntoADialogTheDetectorCannotRead(t *testing.T) {
	tm := newTeam(t)
	cleared := filepath.Join(tm.dir, "cleared")
	tm.write("team.yaml", []agentDef{{name: "cx", role: "developer", preset: "codex", flags: []string{"--raw"}, script: `
say ready
dialog claude-code rm -rf /srv/data
sleep 2s
writefile ` + cleared + ` x
write \e[2J\e[H
say cleared
expect 1 hello
say got it
idle
`}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 20*time.Second, "the unreadable dialog told", func() bool {
		return strings.Contains(c.out.String(), "matched nothing on a screen that looks like a dialog")
	}, func() string { return c.out.String() })
	tm.mustCLI("send", "cx", "1 hello")
	tm.waitReceived("cx", "1 hello")
	if _, err := os.Stat(cleared); err != nil {
		t.Fatalf("the message was typed while the dialog was up: %q", tm.received("cx"))
	}
}
