package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/store"
)

func TestComplianceOf(t *testing.T) {
	recs := []store.Record{
		{Seq: 1, Kind: "message", From: "dev"},
		{Seq: 2, Kind: "delivered", From: "dev", Fields: map[string]string{"delivery": "relay"}},
		{Seq: 3, Kind: "delivered", From: "team-lead", Fields: map[string]string{"delivery": "ack"}},
		{Seq: 4, Kind: "refusal", From: "dev", Reason: "coordination-only role", MsgID: "m-3", Task: "T-1", Fields: map[string]string{"delegate": "dev2"}},
		{Seq: 5, Kind: "task", Fields: map[string]string{"state": "in-review"}},
		{Seq: 6, Kind: "task", Fields: map[string]string{"state": "passed"}},
		{Seq: 7, Kind: "permission", Fields: map[string]string{"decided_by": "policy", "status": "approved"}},
		{Seq: 8, Kind: "inbox", From: "qa"},
		{Seq: 9, Kind: "delivered", From: "human", Fields: map[string]string{"delivery": "human"}},
	}
	c := ComplianceOf(recs)
	if len(c.Violations) != 0 || c.Actions[ActRelay] != 1 || c.Actions[ActStatus] != 1 || c.Actions[ActAssign] != 1 ||
		c.Actions[ActClose] != 1 || c.Actions[ActApproval] != 1 || c.Actions[ActApprovalRequest] != 1 || len(c.Refused) != 1 {
		t.Fatalf("%+v", c)
	}
	var b bytes.Buffer
	WriteCompliance(&b, c)
	if !strings.Contains(b.String(), "COMPLIANT") || !strings.Contains(b.String(), "m-3 from dev, task T-1 → dev2") {
		t.Errorf("%s", b.String())
	}
	// Text typed into an agent under an unknown delivery kind is a violation.
	c = ComplianceOf(append(recs, store.Record{Seq: 10, Kind: "delivered", From: "team-lead", To: []string{"dev"}, Fields: map[string]string{"delivery": "code"}}))
	b.Reset()
	WriteCompliance(&b, c)
	if len(c.Violations) != 1 || !strings.Contains(b.String(), "NOT COMPLIANT: 1 actions") || !strings.Contains(b.String(), "seq 10") {
		t.Errorf("%s", b.String())
	}
}
