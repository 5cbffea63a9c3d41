package report

import (
	"testing"

	"github.com/teamlead/teamlead/internal/store"
)

// Issue 12 item 7: the human's answer to a question, passed on (delivered
// or not), is no action of the Team Lead's outside the permitted ones; nor
// is a delivery that typed nothing. audit --compliance blamed the Team
// Lead for both.
func TestComplianceDoesNotBlameTheLeadForTheHumansAnswer(t *testing.T) {
	recs := []store.Record{
		{Kind: "question-answer", Agent: "qa", MsgID: "q-0001", Body: "yes"},
		{Kind: "delivered", Agent: "qa", From: "team-lead", MsgID: "q-0001", Fields: map[string]string{"delivery": "answer"}},
		{Kind: "undelivered", Agent: "qa", From: "team-lead", MsgID: "q-0002", Fields: map[string]string{"delivery": "answer"}},
		{Kind: "undelivered", Agent: "qa", From: "dev", MsgID: "m-4", Reason: "qa is exited"},
		{Kind: "undelivered", Agent: "qa", From: "human", Fields: map[string]string{"delivery": "human"}},
	}
	c := ComplianceOf(recs)
	if len(c.Violations) != 0 {
		t.Errorf("violations %+v", c.Violations)
	}
	if c.Actions[ActRelay] != 1 {
		t.Errorf("actions %v", c.Actions)
	}
}
