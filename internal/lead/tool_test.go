package lead

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/protocol"
)

// A message sent through the tool is relayed like a printed one, and its
// acknowledgement comes back as the call's answer, never typed into the
// sender; a refusal comes back the same way.
func TestToolBlockAnswersInsteadOfTyping(t *testing.T) {
	l := New(Config{Members: []Member{{Name: "dev", Role: "developer"}, {Name: "architect", Role: "architect"}}})
	env := protocol.Envelope{Headers: []protocol.Header{{Key: "to", Value: "architect"}, {Key: "type", Value: "question"}, {Key: "task", Value: "T-1"}}, Body: "Which transport?"}
	out, answers, refused := l.ToolBlock("dev", env, t0)
	if refused || len(answers) != 1 || !strings.Contains(answers[0], "relayed m-1 to architect") {
		t.Fatalf("answers %q", answers)
	}
	for _, d := range out.Deliveries {
		if d.Agent == "dev" {
			t.Errorf("typed into the sender: %+v", d)
		}
	}
	if len(out.Deliveries) != 1 || out.Deliveries[0].Agent != "architect" || !strings.Contains(out.Deliveries[0].Text, "from: dev") {
		t.Fatalf("deliveries %+v", out.Deliveries)
	}

	// A spoofed sender cannot be given through the tool: it is the agent.
	env.Set("from", "architect")
	out, answers, _ = l.ToolBlock("dev", env, t0)
	if len(answers) != 1 || !strings.Contains(answers[0], "relayed m-2") || !strings.Contains(out.Deliveries[0].Text, "from: dev") {
		t.Fatalf("from: architect through dev's tool: %q %+v", answers, out.Deliveries)
	}

	// An unknown recipient: the refusal is the answer.
	bad := protocol.Envelope{Headers: []protocol.Header{{Key: "to", Value: "nobody"}, {Key: "type", Value: "status"}, {Key: "task", Value: "T-1"}}, Body: "hi"}
	out, answers, refused = l.ToolBlock("dev", bad, t0)
	if !refused || len(answers) != 1 || !strings.Contains(answers[0], "nobody") || len(out.Deliveries) != 0 {
		t.Fatalf("unknown recipient: %q %+v", answers, out.Deliveries)
	}
}
