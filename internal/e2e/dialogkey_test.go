package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red team 18b, finding 1: the human approves a dialog whose program has
// gone (nothing reads the terminal); the key typed for it must not stay in
// the input queue and answer the next, different dialog — a floor rm -rf
// here. The key is taken back (said in the audit), the next dialog is a
// request of its own, and it reads no key.
func TestDialogKeyUnreadDoesNotAnswerNextDialog(t *testing.T) {
	dir := t.TempDir()
	goFile := filepath.Join(dir, "go")
	rec2 := filepath.Join(dir, "second.in")
	script := bin.mockagent + ` -e 'dialog claude-code git push --force origin main
exit 0'
while [ ! -e ` + goFile + ` ]; do sleep 0.05; done
` + bin.mockagent + ` --raw --record ` + rec2 + ` -e 'write \e[2J\e[H
dialog claude-code rm -rf /srv/prod
timeout 20s
expectkey 1
say GOT-STALE-KEY
idle'
sleep 1000`
	tm := newTeam(t, agentDef{name: "c", role: "developer", preset: "claude-code", command: []string{"sh", "-c", script}})
	c := tm.start()
	defer c.stop()
	pending := func(action string) string {
		for _, r := range auditJSON(t, tm, "--kind", "permission") {
			f := r["fields"].(map[string]any)
			if f["action"] == action && f["status"] == "pending" {
				return r["msg_id"].(string)
			}
		}
		return ""
	}
	waitFor(t, 30e9, "the push dialog as a request", func() bool { return pending("Bash(git push --force origin main)") != "" })
	id := pending("Bash(git push --force origin main)")
	out := tm.mustCLI("approve", id)
	if !strings.Contains(out, "waiting for the agent to read it") {
		t.Errorf("approve claims more than is known: %q", out)
	}
	waitFor(t, 20e9, "the unread key taken back in the audit", func() bool {
		audit, _ := tm.cli("audit", "--kind", "permission")
		return strings.Contains(audit, "was not read; taken back")
	})
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30e9, "the rm dialog as a request of its own", func() bool { return pending("Bash(rm -rf /srv/prod)") != "" })
	if b, _ := os.ReadFile(rec2); len(b) > 0 {
		t.Fatalf("the second dialog read a stale key: %q", b)
	}
	if out, _ := tm.cli("peek", "c"); strings.Contains(out, "GOT-STALE-KEY") {
		t.Fatalf("the rm dialog was answered by the stale key:\n%s", out)
	}
}

// Red team 21b, finding 1: a dialog replaced on the screen by another
// withdraws its request, so approving it types nothing into the dialog
// that replaced it (one y answered rm -rf ~ for npm install left-pad).
func TestApprovingAReplacedDialogTypesNothing(t *testing.T) {
	dir := t.TempDir()
	rec := filepath.Join(dir, "keys.in")
	script := bin.mockagent + ` --raw --record ` + rec + ` -e 'dialog claude-code npm install left-pad
sleep 3s
write \e[2J\e[H
dialog claude-code rm -rf /srv/prod
timeout 30s
expectkey 1
say GOT-KEY
idle'`
	tm := newTeam(t, agentDef{name: "c", role: "developer", preset: "claude-code", command: []string{"sh", "-c", script}})
	c := tm.start()
	defer c.stop()
	status := func(action string) (id, st string) { // as the last record says
		for _, r := range auditJSON(t, tm, "--kind", "permission") {
			if f := r["fields"].(map[string]any); f["action"] == action {
				id, _ = r["msg_id"].(string)
				st, _ = f["status"].(string)
			}
		}
		return id, st
	}
	waitFor(t, 30e9, "the npm dialog as a request", func() bool { id, _ := status("Bash(npm install left-pad)"); return id != "" })
	waitFor(t, 30e9, "the rm dialog as a request", func() bool { id, _ := status("Bash(rm -rf /srv/prod)"); return id != "" })
	waitFor(t, 10e9, "the npm request withdrawn", func() bool { _, st := status("Bash(npm install left-pad)"); return st == "withdrawn" })
	id, _ := status("Bash(npm install left-pad)")
	if out, err := tm.cli("approve", id); err == nil {
		t.Errorf("approving the replaced dialog's request: %s", out)
	}
	if b, _ := os.ReadFile(rec); len(b) > 0 {
		t.Fatalf("the rm dialog read a key: %q", b)
	}
	if out, _ := tm.cli("peek", "c"); strings.Contains(out, "GOT-KEY") {
		t.Fatalf("the rm dialog was answered:\n%s", out)
	}
}
