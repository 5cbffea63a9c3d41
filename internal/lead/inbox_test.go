package lead

import (
	"errors"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
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
	if kinds(ans) != string(wire.KindAnswered) || ans.Records[0].MsgID != "m-1" || ans.Records[0].From != "human" {
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

func TestGapBecomesQuestion(t *testing.T) {
	l := team()
	out := l.Block("architect", parse1(t, "<gap>\n<topic>architecture.auth</topic>\n<question>Cookies or localStorage?</question>\n<urgency>high</urgency>\n</gap>"), t0)
	if kinds(out) != "gap,question,question-queue" {
		t.Fatalf("records %s", kinds(out))
	}
	qs := l.Questions()
	if len(qs) != 1 || qs[0].ID != "q-0001" || qs[0].Topic != "architecture.auth" || qs[0].Answerer != "human/requester" || qs[0].Urgency != "high" {
		t.Errorf("questions %+v", qs)
	}
	// The asker is told its question's id.
	d := deliveriesTo(out, "architect")
	if len(d) != 1 || !strings.Contains(d[0].Text, "question: q-0001") || !strings.Contains(d[0].Text, "routed to human/requester") || d[0].Kind != DeliverAck {
		t.Errorf("notice %+v", d)
	}
	if out.Meta["q/q-0001"] == "" || out.Meta["qs/pending/q-0001"] != "" || out.Meta["questions/next"] != "2" {
		t.Errorf("meta %v", out.Meta)
	}
	ans, err := l.AnswerQuestion("q-0001", "human/requester", "Cookies.", t0)
	if err != nil || len(deliveriesTo(ans, "architect")) != 1 {
		t.Fatalf("%v %+v", err, ans)
	}
	if len(ans.MetaDel) != 1 || ans.MetaDel[0] != "qs/pending/q-0001" {
		t.Errorf("status index not moved: %v %v", ans.MetaDel, ans.Meta)
	}
}

func TestGapWithoutQuestionGetsReformat(t *testing.T) {
	l := team()
	out := l.Block("architect", parse1(t, "<gap>\n<topic>architecture.auth</topic>\n</gap>"), t0)
	d := deliveriesTo(out, "architect")
	if len(d) != 1 || !strings.Contains(d[0].Text, "reformat: your ‹gap› block was not accepted: ‹gap› without <question>") {
		t.Errorf("%+v", d)
	}
}
