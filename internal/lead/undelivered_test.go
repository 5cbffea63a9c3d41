package lead

import (
	"errors"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/questions"
)

// Issue 12 item 7: an answer for an agent that has exited is not taken as
// delivered. Nothing is recorded or typed, the item stays pending, and the
// error says what to do; once the agent runs again the answer goes
// through. (Before, the item was closed as answered and the delivery was
// undelivered.)
func TestAnswerToExitedAgentStaysPending(t *testing.T) {
	l := team()
	l.Block("qa", parse1(t, "[ROUTE]\nto: team-lead\ntype: blocker\ntask: T-1\nbody: ship it?\n[/ROUTE]"), t0)
	l.AgentState("qa", wire.StateExited, nil, t0)
	out, err := l.Answer("m-1", "yes", t0)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "qa has exited and is not restarting") ||
		!strings.Contains(err.Error(), "m-1 stays pending") || !strings.Contains(err.Error(), "teamlead drop m-1") {
		t.Errorf("err %v", err)
	}
	if len(out.Records)+len(out.Deliveries) != 0 {
		t.Errorf("recorded or typed: %+v", out)
	}
	if items := l.Inbox(); len(items) != 1 || items[0].ID != "m-1" {
		t.Fatalf("inbox %+v", items)
	}
	l.AgentState("qa", wire.StateRunning, nil, t0)
	out, err = l.Answer("m-1", "yes", t0)
	if err != nil || len(deliveriesTo(out, "qa")) != 1 || out.Deliveries[0].Kind != DeliverAnswer || kinds(out) != string(wire.KindAnswered) {
		t.Fatalf("err %v out %+v", err, out)
	}
}

// The same for a routed question (q-…): the human's answer is refused, the
// question stays pending, and the human can drop it.
func TestAnswerQuestionOfExitedAskerStaysPendingUntilDropped(t *testing.T) {
	l := team()
	q, _, err := l.Ask(questions.Ask{Asker: "qa", Topic: "release", Text: "ship it?"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	l.AgentState("qa", wire.StateFailed, nil, t0)
	out, err := l.AnswerQuestion(q.ID, questions.Requester, "yes", t0)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "qa has failed") || !strings.Contains(err.Error(), q.ID+" stays pending") {
		t.Errorf("err %v", err)
	}
	if len(out.Records)+len(out.Deliveries) != 0 {
		t.Errorf("recorded or typed: %+v", out)
	}
	if qs := l.Questions(); len(qs) != 1 || qs[0].Status != questions.Pending {
		t.Fatalf("questions %+v", qs)
	}
	out, err = l.Drop(q.ID, "", t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Deliveries) != 0 || !strings.Contains(kinds(out), "question-dropped") {
		t.Errorf("drop %+v", out)
	}
	if len(l.Questions()) != 0 {
		t.Errorf("still pending after the drop")
	}
	if _, err := l.Drop(q.ID, "", t0); !errors.Is(err, questions.ErrNotPending) {
		t.Errorf("second drop: %v", err)
	}
}

// Dropping an inbox item closes it, and a restart keeps it closed.
func TestDropInboxItem(t *testing.T) {
	l := team()
	first := l.Block("qa", parse1(t, "[ROUTE]\nto: team-lead\ntype: blocker\ntask: T-1\nbody: ship it?\n[/ROUTE]"), t0)
	out, err := l.Drop("m-1", "qa was removed", t0)
	if err != nil || kinds(out) != string(wire.KindDropped) || out.Records[0].Reason != "qa was removed" {
		t.Fatalf("err %v out %+v", err, out)
	}
	if len(l.Inbox()) != 0 {
		t.Errorf("inbox %+v", l.Inbox())
	}
	if items := RestoreInbox(append(first.Records, out.Records...)); len(items) != 0 {
		t.Errorf("restored %+v", items)
	}
	if _, err := l.Drop("m-9", "", t0); !errors.Is(err, ErrNoItem) {
		t.Errorf("unknown item: %v", err)
	}
}

// teamlead send to an exited agent fails with a clear error and records
// nothing (it used to exit 0, and the text was undelivered).
func TestHumanSendToExitedAgentFails(t *testing.T) {
	l := team()
	l.AgentState("qa", wire.StateExited, nil, t0)
	out, err := l.HumanSend("qa", "hello", t0)
	if !errors.Is(err, ErrNotRunning) || !strings.Contains(err.Error(), "not sent: qa has exited and is not restarting, so nothing was typed") {
		t.Errorf("err %v", err)
	}
	if len(out.Records)+len(out.Deliveries) != 0 {
		t.Errorf("recorded or typed: %+v", out)
	}
}

// A human's text or answer that could not be typed after all (the agent
// exited while it waited) comes back to the human's queue.
func TestUndeliverableHumanTextComesBackToTheInbox(t *testing.T) {
	l := team()
	out := l.Undeliverable(wire.Delivery{ID: 7, Agent: "qa", Kind: DeliverAnswer, MsgID: "q-0001", From: "team-lead", Text: "the answer text"}, "agent gone", t0)
	items := l.Inbox()
	if len(items) != 1 || items[0].ID != "u-7" || !strings.Contains(items[0].Body, "the answer to q-0001 could not be typed into qa (agent gone)") ||
		!strings.Contains(items[0].Body, "the answer text") {
		t.Fatalf("inbox %+v", items)
	}
	if !strings.Contains(kinds(out), string(wire.KindUndelivered)) || !strings.Contains(kinds(out), string(wire.KindInbox)) {
		t.Errorf("records %s", kinds(out))
	}
}

// An agent that exited and restarts at once (its state event says final:
// false) is not gone: the answer waits for the new process.
func TestAnswerToRestartingAgentIsTaken(t *testing.T) {
	l := team()
	l.Block("qa", parse1(t, "[ROUTE]\nto: team-lead\ntype: blocker\ntask: T-1\nbody: ship it?\n[/ROUTE]"), t0)
	l.AgentState("qa", wire.StateExited, map[string]string{"final": "false"}, t0)
	if out, err := l.Answer("m-1", "yes", t0); err != nil || len(deliveriesTo(out, "qa")) != 1 {
		t.Fatalf("err %v out %+v", err, out)
	}
	if _, err := l.HumanSend("qa", "hi", t0); err != nil {
		t.Fatal(err)
	}
}
