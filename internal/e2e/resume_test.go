package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestAgentResumesItsConversation: an agent CLI whose preset says how to
// resume (resume: ["--resume", "{session}"]) and whose hook gave its
// conversation id is started back into that conversation after the console
// was SIGKILLed; --fresh starts a new one; an id that is not one (an option
// an agent could slip into its own command line) is not kept; a
// conversation the CLI refuses (it exits at once) is forgotten, and the
// restart is a new one.
func TestAgentResumesItsConversation(t *testing.T) {
	tm := newTeamWith(t, "presets:\n  resumer:\n    resume: [\"--resume\", \"{session}\"]\n")
	argvLog := filepath.Join(tm.dir, "argv.log")
	next := filepath.Join(tm.dir, "next-session")
	agent := filepath.Join(tm.dir, "agent.sh")
	script := fmt.Sprintf(`#!/bin/sh
echo "start: $*" >> %[1]s
case "$*" in *"--resume gone-1"*) exit 1;; esac
echo dev ready
printf '{"hook_event_name":"Stop","session_id":"%%s"}' "$(cat %[2]s)" | %[3]s hook
exec sleep 600
`, argvLog, next, bin.teamlead)
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	setNext := func(id string) {
		if err := os.WriteFile(next, []byte(id), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	starts := func() []string {
		b, _ := os.ReadFile(argvLog)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	waitStarts := func(n int) []string {
		t.Helper()
		waitFor(t, 20*time.Second, fmt.Sprintf("start %d of the agent", n), func() bool { return len(starts()) >= n && starts()[0] != "" })
		return starts()
	}
	sessions := func() string { return tm.mustCLI("audit", "--kind", "session") }
	tm.write("team.yaml", []agentDef{{name: "dev", preset: "resumer", restart: "on-failure", command: []string{agent, "--flag"}}})

	setNext("conv-1")
	c := tm.start()
	if got := waitStarts(1)[0]; got != "start: --flag" {
		t.Fatalf("first start: %q", got)
	}
	waitFor(t, 20*time.Second, "the conversation recorded", func() bool { return strings.Contains(sessions(), "conversation conv-1") })
	c.kill()

	c = tm.start()
	if got := waitStarts(2)[1]; got != "start: --resume conv-1 --flag" {
		t.Fatalf("after a SIGKILL the agent was not resumed: %q", got)
	}
	waitFor(t, 20*time.Second, "the resume recorded", func() bool { return strings.Contains(sessions(), "resumed conversation conv-1") })
	c.stop()

	setNext("--dangerously-skip-permissions")
	c = tm.start("--fresh")
	if got := waitStarts(3)[2]; got != "start: --flag" {
		t.Fatalf("--fresh: %q", got)
	}
	waitFor(t, 20*time.Second, "the forged id refused", func() bool { return strings.Contains(c.out.String(), "which is not one") })
	c.stop()
	c = tm.start()
	if got := waitStarts(4)[3]; got != "start: --resume conv-1 --flag" {
		t.Fatalf("the forged id was kept, or the last good one lost: %q", got)
	}
	c.stop()

	// The CLI refuses the conversation (it exits 1 at once): forgotten,
	// and the restart is a new conversation.
	setNext("gone-1")
	c = tm.start("--fresh")
	if got := waitStarts(5)[4]; got != "start: --flag" {
		t.Fatalf("--fresh: %q", got)
	}
	waitFor(t, 20*time.Second, "gone-1 recorded", func() bool { return strings.Contains(sessions(), "conversation gone-1") })
	c.stop()
	setNext("conv-2")
	c = tm.start()
	waitFor(t, 30*time.Second, "the refused resume forgotten and a new start", func() bool {
		s := starts()
		return len(s) >= 7 && s[5] == "start: --resume gone-1 --flag" && s[6] == "start: --flag"
	})
	waitFor(t, 20*time.Second, "the refusal recorded, and the new conversation", func() bool {
		s := sessions()
		return strings.Contains(s, "conversation gone-1 could not be resumed") && strings.Contains(s, "conversation conv-2")
	})
	c.stop()
}
