package engine

import (
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/protocol"
)

// A message sent through an agent's tool is relayed and acknowledged in
// the call's answer; one over the agent's relay rate is refused, to be
// sent again, and nothing of it is relayed.
func TestRouteKeepsTheRelayRate(t *testing.T) {
	r := startEngine(t, "lead:\n  relay_rate: 0.001\n  relay_burst: 1\n",
		testAgent{name: "dev", script: "sleep 600\n"}, testAgent{name: "qa", script: "sleep 600\n"})
	env := protocol.Envelope{Headers: []protocol.Header{{Key: "to", Value: "qa"}, {Key: "type", Value: "status"}, {Key: "task", Value: "T-1"}}, Body: "first"}
	answers, refused, err := r.e.Route("dev", env)
	if err != nil || refused || len(answers) != 1 || !strings.Contains(answers[0], "relayed m-1 to qa") {
		t.Fatalf("first: %q %v %v", answers, refused, err)
	}
	env.Body = "second"
	answers, refused, err = r.e.Route("dev", env)
	if err != nil || !refused || len(answers) != 1 || !strings.Contains(answers[0], "slow down") {
		t.Fatalf("second, over the rate: %q %v %v", answers, refused, err)
	}
	msgs := r.records("message")
	if len(msgs) != 1 || msgs[0].Body != "first" {
		t.Fatalf("messages recorded: %+v", msgs)
	}
}
