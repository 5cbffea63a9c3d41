package engine

import (
	"errors"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/protocol"
)

// A node speaks only for agents whose host: names a node: an event about
// one of the console's own agents, or about no agent, is refused.
func TestRemoteEventOnlyForAgentsOfANode(t *testing.T) {
	r := startEngine(t, "", testAgent{name: "dev", script: "sleep 600\n"})
	for _, agent := range []string{"dev", "nobody"} {
		if err := r.e.RemoteEvent(agent, wire.NodeOutput, []byte(`{"data":"W1JPVVRFXQ=="}`)); !errors.Is(err, ErrNotRemote) {
			t.Errorf("an event about %s: %v, want ErrNotRemote", agent, err)
		}
	}
}

// The console and its nodes type a delivery the same way: one rule, in
// wire, over the lead's kinds.
func TestDeliveryTypingFollowsTheLeadsKinds(t *testing.T) {
	for _, c := range []struct {
		d    wire.Delivery
		want string
	}{
		{wire.Delivery{Kind: lead.DeliverAck}, wire.TypeAck},
		{wire.Delivery{Kind: lead.DeliverNotice}, wire.TypeNotice},
		{wire.Delivery{Kind: lead.DeliverHuman}, wire.TypeUrgent},
		{wire.Delivery{Kind: lead.DeliverRelay, Type: protocol.TypeBlocker}, wire.TypeUrgent},
		{wire.Delivery{Kind: lead.DeliverRelay, Type: "status"}, wire.TypeMessage},
	} {
		if got := c.d.Typing(); got != c.want {
			t.Errorf("%+v: %s, want %s", c.d, got, c.want)
		}
	}
}
