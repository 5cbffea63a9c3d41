package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Seed 001 rule 5 end to end, through [ROUTE] envelopes: a low-risk action
// is approved by the policy without the human; a destructive one waits in
// the human's queue, survives a restart of the console, and its denial
// reaches the agent; approve-always writes a rule that the next request
// hits without asking.
func TestPermissionsByRoute(t *testing.T) {
	work := t.TempDir()
	tm := newTeam(t,
		agentDef{name: "dev", role: "developer", dir: work, flags: []string{"--raw"}, script: `
route to=team-lead type=permission task=T-1 body="Bash(go test ./...)"
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=permission task=T-1 body="Bash(rm -rf /var/lib/postgresql)"
expect is waiting for the human
expect ^\[/ROUTE\]
route to=team-lead type=permission task=T-1 body="Bash(npm install left-pad)"
expect is waiting for the human
expect ^\[/ROUTE\]
idle
`},
	)
	c := tm.start()
	waitFor(t, 20e9, "two requests waiting", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "p-2") && strings.Contains(out, "p-3")
	})
	if got := tm.received("dev"); !strings.Contains(got, "permission: p-1") || !strings.Contains(got, "Bash(go test ./...) approved by policy") {
		t.Errorf("dev got %q", got)
	}
	// The console dies; the requests are still waiting after the restart.
	c.kill()
	tm.write("restart.yaml", []agentDef{{name: "dev", role: "developer", dir: work, flags: []string{"--raw"}, script: `
expect ^verdict: denied
expect ^\[/ROUTE\]
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=permission task=T-1 body="Bash(npm install left-pad)"
expect ^verdict: approved
expect ^\[/ROUTE\]
idle
`}})
	c = tm.start()
	defer c.stop()
	if out := tm.mustCLI("inbox"); !strings.Contains(out, "p-2") || !strings.Contains(out, "p-3") {
		t.Fatalf("pending requests lost in the restart:\n%s", out)
	}
	tm.mustCLI("deny", "p-2", "not on a shared machine")
	tm.mustCLI("approve", "p-3", "prefix")
	got := tm.waitReceived("dev", "permission: p-4")
	for _, want := range []string{"verdict: denied", "by human: not on a shared machine", "permission: p-3\nverdict: approved"} {
		if !strings.Contains(strings.ReplaceAll(got, "\r", "\n"), want) {
			t.Errorf("dev lacks %q in %q", want, got)
		}
	}
	policy, err := os.ReadFile(filepath.Join(tm.dir, "permissions.yaml"))
	if err != nil || !strings.Contains(string(policy), "Bash(npm install left-pad:*)") || !strings.Contains(string(policy), "approve always p-3 for dev") {
		t.Fatalf("approve-always wrote no rule: %v\n%s", err, policy)
	}
	waitFor(t, 10e9, "p-4 decided by the new rule", func() bool {
		for _, r := range auditJSON(t, tm, "--kind", "permission") {
			f := r["fields"].(map[string]any)
			if r["msg_id"] == "p-4" && f["status"] == "approved" && f["decided_by"] == "policy" && strings.Contains(f["rule"].(string), "npm install") {
				return true
			}
		}
		return false
	})
}

// Red team 9a, finding 11, end to end: approving `npm install --
// left-pad` by prefix writes a rule for that package (a dry run shows it
// first and decides nothing), so another package still waits for the
// human; approving always a request the policy allows by now says it was
// approved once and adds nothing.
func TestApprovePrefixKeepsTheOperand(t *testing.T) {
	work := t.TempDir()
	tm := newTeam(t, agentDef{name: "dev", role: "developer", dir: work, flags: []string{"--raw"}, script: `
route to=team-lead type=permission task=T-1 body="Bash(npm install -- left-pad)"
expect is waiting for the human
route to=team-lead type=permission task=T-1 body="Bash(npm install left-pad)"
expect is waiting for the human
route to=team-lead type=permission task=T-1 body="Bash(npm install 'left-pad')"
expect is waiting for the human
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=permission task=T-1 body="Bash(npm install -- is-number)"
expect is waiting for the human
idle
`})
	c := tm.start()
	defer c.stop()
	waitFor(t, 20e9, "three requests waiting", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "p-1") && strings.Contains(out, "p-2") && strings.Contains(out, "p-3")
	})
	policy := filepath.Join(tm.dir, "permissions.yaml")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", "p-1", "prefix", "--dry-run"}, "dry run: approving p-1 (dev: Bash(npm install -- left-pad)) always would add Bash(npm install -- left-pad:*) to dev's rules in the policy file. Nothing was changed\n"},
		{[]string{"approve", "p-1", "prefix"}, "approved p-1 (dev: Bash(npm install -- left-pad)) always: Bash(npm install -- left-pad:*) added to " + policy + "\n"},
		{[]string{"approve", "p-2", "prefix"}, "approved p-2 (dev: Bash(npm install left-pad)) always: Bash(npm install left-pad:*) added to " + policy + "\n"},
	} {
		if out := tm.mustCLI(tc.args...); out != tc.want {
			t.Errorf("teamlead %s printed\n%q\nwant\n%q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
	out := tm.mustCLI("approve", "p-3", "prefix")
	if !strings.HasPrefix(out, "approved p-3 (dev: Bash(npm install 'left-pad')) once; no rule added: the policy allows it already (Bash(npm install left-pad:*) at "+policy+":") {
		t.Errorf("approve p-3 prefix printed %q", out)
	}
	waitFor(t, 20e9, "p-4 waiting for the human", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "p-4")
	})
	text, err := os.ReadFile(policy)
	_, added, _ := strings.Cut(string(text), "\nagents:\n")
	if err != nil || strings.Contains(added, "Bash(npm install:*)") || strings.Count(added, "approve always p-") != 2 {
		t.Errorf("the rules added: %v\n%s", err, added)
	}
}

// teamlead hook answers a Claude Code PreToolUse payload (the documented
// JSON shape) through the running console, as the agent's own CLI would
// run it: from inside the agent's session. A low-risk call is allowed at
// once; a destructive one waits for the human and gets the human's "deny".
func TestHookAnswersClaudeCodePayload(t *testing.T) {
	work := t.TempDir()
	payload := func(name, cmd string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": work, "hook_event_name": "PreToolUse", "tool_name": "Bash",
			"tool_input": map[string]any{"command": cmd, "description": "x"}, "tool_use_id": "toolu_1", "permission_mode": "default"})
		p := filepath.Join(work, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	low, high := payload("low.json", "go build ./..."), payload("high.json", "git push --force origin main")
	// Claude Code runs its hooks in a session of their own (setsid): the
	// console still knows the agent, by the hook's ancestry.
	script := "echo agent ready; setsid -w " + bin.teamlead + " hook < " + low + " > " + filepath.Join(work, "low.out") + "; " +
		bin.teamlead + " hook < " + high + " > " + filepath.Join(work, "high.out") + "; echo hooks done; exec sleep 600"
	tm := newTeam(t, agentDef{name: "claude", role: "developer", dir: work, command: []string{"/bin/sh", "-c", script}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 20e9, "the destructive call waiting for the human", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "p-2")
	})
	lowOut, _ := os.ReadFile(filepath.Join(work, "low.out"))
	if !strings.Contains(string(lowOut), `"permissionDecision":"allow"`) || !strings.Contains(string(lowOut), `"hookEventName":"PreToolUse"`) {
		t.Errorf("low-risk hook answer %s", lowOut)
	}
	tm.mustCLI("deny", "p-2", "force pushes need a review")
	var highOut []byte
	waitFor(t, 20e9, "the hook's answer", func() bool {
		highOut, _ = os.ReadFile(filepath.Join(work, "high.out"))
		return len(highOut) > 0
	})
	if !strings.Contains(string(highOut), `"permissionDecision":"deny"`) || !strings.Contains(string(highOut), "force pushes need a review") {
		t.Errorf("high-risk hook answer %s", highOut)
	}
}

// A console started with a relative --state gives its agents the control
// socket's absolute path: they run in their own folders (a hook in a
// Claude Code project would not find the console otherwise).
func TestAgentsGetAnAbsoluteSocket(t *testing.T) {
	work := t.TempDir()
	out := filepath.Join(work, "socket.txt")
	tm := newTeam(t, agentDef{name: "a", dir: work, command: []string{"/bin/sh", "-c", "echo ready; echo $TEAMLEAD_SOCKET > " + out + "; exec sleep 600"}})
	cmd := exec.Command(bin.teamlead, "run", "--headless", "--config", tm.config, "--state", "relative-state", "--grace", "1s")
	cmd.Dir = tm.dir
	cmd.Env = tm.env()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	var got []byte
	waitFor(t, 20e9, "the agent's TEAMLEAD_SOCKET", func() bool {
		got, _ = os.ReadFile(out)
		return len(got) > 0
	})
	if want := filepath.Join(tm.dir, "relative-state", "teamlead.sock"); strings.TrimSpace(string(got)) != want {
		t.Errorf("TEAMLEAD_SOCKET=%q, want %q", got, want)
	}
}

// A permission request that names nothing is refused at the socket, not
// put in the human's inbox as "no text" (red team 17b, finding 3).
func TestEmptyPermissionRequestIsRefused(t *testing.T) {
	work := t.TempDir()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "reply.txt")
	script := "echo agent ready; E2E_RAW_REQUEST='{\"cmd\":\"permission\"}' " + self + " > " + out + " 2>&1; exec sleep 600"
	tm := newTeam(t, agentDef{name: "a", dir: work, command: []string{"/bin/sh", "-c", script}})
	c := tm.start()
	defer c.stop()
	var reply []byte
	waitFor(t, 20e9, "the console's answer", func() bool {
		reply, _ = os.ReadFile(out)
		return strings.Contains(string(reply), "reply:")
	})
	if !strings.Contains(string(reply), "names what it asks for") {
		t.Errorf("the empty request was not refused: %s", reply)
	}
	if inbox := tm.mustCLI("inbox"); strings.Contains(inbox, "p-1") {
		t.Errorf("the empty request reached the inbox:\n%s", inbox)
	}
}
