package e2e

import (
	"strings"
	"testing"
)

// A blocker sent to team-lead waits in the human's inbox, survives a restart of
// the console, and the human's answer reaches the asker as a [ROUTE] from
// team-lead.
func TestInboxAnswer(t *testing.T) {
	tm := newTeam(t, agentDef{name: "dev", flags: []string{"--raw"}, script: `
route to=team-lead type=blocker task=T-9 body="May I drop the legacy API?"
idle
`})
	c := tm.start()
	tm.waitReceived("dev", "it is in the human's queue")
	c.stop()

	offline := tm.mustCLI("inbox")
	if !strings.Contains(offline, "m-1") || !strings.Contains(offline, "May I drop the legacy API?") || !strings.Contains(offline, "T-9") {
		t.Fatalf("inbox without a console:\n%s", offline)
	}
	// The restarted dev asks again (a new question); both are pending.
	c = tm.start()
	tm.waitReceived("dev", "received m-2")
	live := tm.mustCLI("inbox")
	if !strings.Contains(live, "m-1") || !strings.Contains(live, "m-2") {
		t.Fatalf("inbox after restart:\n%s", live)
	}
	tm.mustCLI("answer", "m-1", "Yes,", "after", "the", "release.")
	want := typed("[ROUTE]", "from: team-lead", "to: dev", "type: answer", "task: T-9", "reply-to: m-1", "body: Yes, after the release.", "[/ROUTE]")
	got := tm.waitReceived("dev", "reply-to: m-1")
	if !strings.Contains(got, want) {
		t.Errorf("dev received\n%q\nwant it to contain\n%q", got, want)
	}
	if out := tm.mustCLI("inbox"); strings.Contains(out, "m-1 ") || !strings.Contains(out, "m-2") {
		t.Errorf("after answering m-1:\n%s", out)
	}
	if out, err := tm.cli("answer", "m-1", "again"); err == nil || !strings.Contains(out, "no such pending item") {
		t.Errorf("answering twice: %v\n%s", err, out)
	}
	c.stop()
}
