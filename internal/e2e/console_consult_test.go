package e2e

import (
	"strings"
	"testing"
	"time"
)

// The person at the console sees the architect's infrastructure decision
// blocked on the consultations board, approves the consultation that holds
// it with keys, and the decision sent again passes; the tasks board shows
// the task the decision named.
func TestConsoleConsultationsBoardApproves(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "arch", role: "architect", flags: []string{"--raw"}, script: `
route to=team-lead type=decision decision=infrastructure task=T-1 body="Move uploads to a private S3 bucket"
timeout 2m
expect ^verdict: approved
expect ^\[/ROUTE\]
route to=team-lead type=decision decision=infrastructure task=T-1 body="Move uploads to a private S3 bucket"
idle
`},
		agentDef{name: "sec", role: "security", flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.startInTmux(160, 45)
	c.waitScreen("the blocked badge", "1 decision blocked")

	c.keys("6")
	c.waitScreen("the consultations board", "Consultations — 1 open · 1 decision blocked",
		"BLOCKED: arch's infrastructure decision on T-1 — held by c-1 (sec: pending", "▶ c-1  pending")
	c.keys("Enter")
	c.waitScreen("the detail", "Consultation c-1", "Move uploads to a private S3 bucket", "opened by arch")
	c.keys("Escape")
	// The board again before the next key: an Esc and a key that reach
	// the console in one read are one key, Alt+a.
	waitFor(t, 20*time.Second, "the detail closed", func() bool { return !strings.Contains(c.screen(), "opened by arch") },
		func() string { return "screen:\n" + c.screen() })
	c.keys("a")
	c.waitScreen("the verdict editor", "verdict on c-1, arch's infrastructure decision on T-1", "approve")
	c.text("keep the bucket private, keys in KMS")
	c.keys("Enter")
	c.waitScreen("the verdict taken", "c-1: approve sent; arch has it", "Consultations — 0 open ─", "c-1  approved")

	got := tm.waitReceived("arch", "verdict: approved")
	if !strings.Contains(got, typed("consult: c-1", "verdict: approved", "verdict-by: human", "body: keep the bucket private, keys in KMS")) {
		t.Errorf("arch received %q", got)
	}
	waitFor(t, 20*time.Second, "the decision to pass", func() bool {
		out, _ := tm.cli("audit", "--kind", "decision-final")
		return strings.Contains(out, "arch")
	}, func() string { out, _ := tm.cli("audit"); return "audit:\n" + out + "\nscreen:\n" + c.screen() })
	s := c.screen()
	if strings.Contains(s, "BLOCKED:") || strings.Contains(s, "decision blocked") {
		t.Errorf("still shown blocked after the approval:\n%s", s)
	}

	c.keys("7")
	c.waitScreen("the tasks board", "Tasks — 1 in progress", "T-1")
	c.keys("Enter")
	c.waitScreen("T-1's history", "Task T-1", "History", "started in-progress by arch")
	t.Log("\n" + c.screen())
}
