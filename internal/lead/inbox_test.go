package lead

import (
	"errors"
	"testing"
)

func TestInboxAnswerRoundTrip(t *testing.T) {
	l := team()
	out := l.Block("dev", parse1(t, "[ROUTE]\nto: team-lead\ntype: blocker\ntask: T-9\nbody: The staging DB is down.\n[/ROUTE]"), t0)
	items := l.Inbox()
	if len(items) != 1 || items[0].ID != "m-1" || items[0].From != "dev" || items[0].Type != "blocker" || items[0].Task != "T-9" {
		t.Fatalf("inbox %+v", items)
	}
	ans, err := l.Answer("m-1", "Restarted it; try again.", t0)
	if err != nil {
		t.Fatal(err)
	}
	want := "[ROUTE]\nfrom: team-lead\nto: dev\ntype: answer\ntask: T-9\nreply-to: m-1\nbody: Restarted it; try again.\n[/ROUTE]"
	if len(ans.Deliveries) != 1 || ans.Deliveries[0].Agent != "dev" || ans.Deliveries[0].Text != want {
		t.Errorf("answer delivery %+v\nwant %q", ans.Deliveries, want)
	}
	if kinds(ans) != KindAnswered || ans.Records[0].MsgID != "m-1" || ans.Records[0].From != "human" {
		t.Errorf("records %+v", ans.Records)
	}
	if len(l.Inbox()) != 0 {
		t.Errorf("answered item still pending")
	}
	if _, err := l.Answer("m-1", "again", t0); !errors.Is(err, ErrNoItem) {
		t.Errorf("second answer: %v", err)
	}
	// The echo of the answer typed into dev is not read back.
	if again := l.Block("dev", parse1(t, want), t0); !again.Empty() {
		t.Errorf("answer echo read back: %+v", again)
	}
	// Rebuilt from the audit log, the queue is empty again.
	recs := append(out.Records, ans.Records...)
	if got := RestoreInbox(recs); len(got) != 0 {
		t.Errorf("restored %+v", got)
	}
	if got := RestoreInbox(out.Records); len(got) != 1 || got[0].ID != "m-1" {
		t.Errorf("restored before the answer: %+v", got)
	}
}

func TestGapGoesToInbox(t *testing.T) {
	l := team()
	out := l.Block("architect", parse1(t, "<gap>\n<topic>architecture.auth</topic>\n<question>Cookies or localStorage?</question>\n<urgency>high</urgency>\n</gap>"), t0)
	if kinds(out) != "gap,inbox" {
		t.Fatalf("records %s", kinds(out))
	}
	items := l.Inbox()
	if len(items) != 1 || items[0].Body != "Cookies or localStorage?" || items[0].Extra["topic"] != "architecture.auth" || items[0].ID != "m-1" {
		t.Errorf("inbox %+v", items)
	}
	if _, err := l.Answer("m-1", "", t0); err == nil {
		t.Error("empty answer accepted")
	}
}

func TestAnswerToExitedAgentIsRecorded(t *testing.T) {
	l := team()
	l.Block("qa", parse1(t, "[ROUTE]\nto: team-lead\ntype: question\ntask: T-1\nbody: ship it?\n[/ROUTE]"), t0)
	l.AgentState("qa", StateExited, nil, t0)
	out, err := l.Answer("m-1", "yes", t0)
	if err == nil || len(out.Deliveries) != 0 || kinds(out) != KindAnswered {
		t.Errorf("err %v, out %+v", err, out)
	}
}
