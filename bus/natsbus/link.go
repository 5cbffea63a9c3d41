package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/bus/wire"
)

// The link between the console and a node (a machine that runs some of
// the team's agents) travels on two streams of the team's:
//
//   - deliveries, console → node: teamlead.<team>.deliver.<agent>, one
//     durable consumer per agent, acknowledged by the node once the agent
//     has read the text; a node away finds them waiting when it is back;
//   - events, node → console: teamlead.<team>.ev.<node>.<agent> (what the
//     agent wrote, parsed; its state; what it read), one durable consumer
//     of the console's, acknowledged once the console committed the event.
//
// Both publish with message ids inside the duplicate window, and both
// sides tolerate a repeat beyond it (a delivery is typed at most once more
// after a crash, as on one machine; an event the console has is dropped by
// its id).

// Event is what a node reports about one of its agents.
type Event struct {
	Node  string          `json:"node"`
	Agent string          `json:"agent"`
	Epoch string          `json:"epoch"` // the node's run: Seq starts again with a new one
	Seq   uint64          `json:"seq"`   // the event's place among the node's
	Kind  string          `json:"kind"`  // what Data holds: block, state, delivered, undeliverable, ...
	Data  json.RawMessage `json:"data,omitempty"`
}

// ID is the event's message id.
func (e Event) ID() string { return e.Node + "-" + e.Epoch + "-" + strconv.FormatUint(e.Seq, 10) }

// linkNames are the streams and subjects of one team's link.
type linkNames struct {
	Names
	team                       string // the team as one token
	deliverStream, eventStream string
	deliverPrefix, eventPrefix string
}

func linkNamesOf(team string) linkNames {
	n := NamesOf(team)
	t := token(team)
	return linkNames{Names: n, team: t, deliverStream: n.Stream + "_DELIVER", eventStream: n.Stream + "_EVENTS",
		deliverPrefix: "teamlead." + t + ".deliver", eventPrefix: "teamlead." + t + ".ev"}
}

func (l linkNames) deliverSubject(agent string) string { return l.deliverPrefix + "." + token(agent) }

func (l linkNames) eventSubject(node, agent string) string {
	return l.eventPrefix + "." + token(node) + "." + token(agent)
}

// consumerName is a durable consumer's name: NATS takes letters, digits,
// - and _ there.
func consumerName(prefix, name string) string { return prefix + "_" + token(name) }

// deliverAckWait is how long a node has to confirm a delivery before the
// server offers it again (also to the node itself after it restarted); a
// node still waiting for its agent to read says so with Waiting every
// WaitingEvery.
const (
	deliverAckWait = 5 * time.Second
	WaitingEvery   = 2 * time.Second
)

// ensureLink creates (or checks) both streams of the link.
func ensureLink(ctx context.Context, js jetstream.JetStream, l linkNames) error {
	for _, c := range []jetstream.StreamConfig{
		{Name: l.deliverStream, Description: "teamlead: text for agents on other machines to read",
			Subjects: []string{l.deliverPrefix + ".>"}, Storage: jetstream.FileStorage, Duplicates: duplicateWindow,
			Retention: jetstream.WorkQueuePolicy},
		{Name: l.eventStream, Description: "teamlead: what agents on other machines wrote and did",
			Subjects: []string{l.eventPrefix + ".>"}, Storage: jetstream.FileStorage, Duplicates: duplicateWindow,
			Retention: jetstream.WorkQueuePolicy},
	} {
		if _, err := js.CreateOrUpdateStream(ctx, c); err != nil {
			return fmt.Errorf("JetStream stream %s: %w", c.Name, err)
		}
	}
	return nil
}

// Console is the console's end of the link.
type Console struct {
	js jetstream.JetStream
	l  linkNames
}

// OpenConsole creates the link's streams.
func OpenConsole(ctx context.Context, nc *nats.Conn, team string) (*Console, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	l := linkNamesOf(team)
	if err := ensureLink(ctx, js, l); err != nil {
		return nil, err
	}
	return &Console{js: js, l: l}, nil
}

// Deliver publishes d for its agent's node; it returns once the server
// stored it (a repeat of the same delivery id is stored once).
func (c *Console) Deliver(ctx context.Context, d wire.Delivery) error {
	data, err := json.Marshal(d)
	if err != nil {
		return err
	}
	_, err = c.js.Publish(ctx, c.l.deliverSubject(d.Agent), data, jetstream.WithMsgID("d-"+strconv.FormatUint(d.ID, 10)))
	if err != nil {
		return fmt.Errorf("delivery %d to %s: %w", d.ID, d.Agent, err)
	}
	return nil
}

// Received is an event with the way to confirm it.
type Received struct {
	Event
	// Done tells the server the console has the event (committed it):
	// it is not offered again.
	Done func() error
}

// Events yields the nodes' events in the order each node published them,
// until ctx ends. An event not confirmed with Done is offered again after
// a while (and after a console restart).
func (c *Console) Events(ctx context.Context) (<-chan Received, error) {
	cons, err := c.js.CreateOrUpdateConsumer(ctx, c.l.eventStream, jetstream.ConsumerConfig{
		Durable: "console", AckPolicy: jetstream.AckExplicitPolicy, AckWait: deliverAckWait,
		MaxAckPending: 4096, DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("JetStream consumer of %s: %w", c.l.eventStream, err)
	}
	return pump(ctx, cons, func(m jetstream.Msg) (Received, bool) {
		var ev Event
		if json.Unmarshal(m.Data(), &ev) != nil || m.Subject() != c.l.eventSubject(ev.Node, ev.Agent) {
			// Not an event, or one whose subject names another node or
			// agent than it says (a node may publish only under its own
			// name): never offered again.
			_ = m.Term()
			return Received{}, false
		}
		return Received{Event: ev, Done: m.Ack}, true
	})
}

// Node is a node's end of the link.
type Node struct {
	js    jetstream.JetStream
	l     linkNames
	name  string
	epoch string
	seq   uint64
}

// OpenNode opens the link for the node called name; epoch names this run
// of it (event ids are unique within it).
func OpenNode(ctx context.Context, nc *nats.Conn, team, name, epoch string) (*Node, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	l := linkNamesOf(team)
	// The console makes the link's streams: a node may not (the console's
	// own server lets it only read and report, auth.go).
	for _, s := range []string{l.deliverStream, l.eventStream} {
		if _, err := js.Stream(ctx, s); err != nil {
			return nil, fmt.Errorf("JetStream stream %s: %w (has the team's console started with this NATS server? it makes the streams)", s, err)
		}
	}
	return &Node{js: js, l: l, name: name, epoch: epoch}, nil
}

// Report publishes an event about agent; it returns once the server
// stored it. Not safe for concurrent use: events keep the order of the
// calls.
func (n *Node) Report(ctx context.Context, agent, kind string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	n.seq++
	ev := Event{Node: n.name, Agent: agent, Epoch: n.epoch, Seq: n.seq, Kind: kind, Data: raw}
	b, _ := json.Marshal(ev)
	if _, err := n.js.Publish(ctx, n.l.eventSubject(n.name, agent), b, jetstream.WithMsgID(ev.ID())); err != nil {
		n.seq--
		return fmt.Errorf("event %s of %s: %w", kind, agent, err)
	}
	return nil
}

// Delivery is text for an agent of the node, with the ways to settle it.
type Delivery struct {
	wire.Delivery
	// Done tells the server the agent read it: it is not offered again.
	Done func() error
	// Waiting tells the server the agent has not read it yet, but will:
	// it is not offered again for another deliverAckWait.
	Waiting func() error
}

// Deliveries yields the text waiting for agent, oldest first, until ctx
// ends. One at a time: the next comes once the last was settled with Done
// (or its wait ran out), as an agent reads one message at a time.
func (n *Node) Deliveries(ctx context.Context, agent string) (<-chan Delivery, error) {
	cons, err := n.js.CreateOrUpdateConsumer(ctx, n.l.deliverStream, jetstream.ConsumerConfig{
		Durable: consumerName("agent", agent), FilterSubject: n.l.deliverSubject(agent),
		AckPolicy: jetstream.AckExplicitPolicy, AckWait: deliverAckWait, MaxAckPending: 1,
		DeliverPolicy: jetstream.DeliverAllPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("JetStream consumer of %s for %s: %w", n.l.deliverStream, agent, err)
	}
	return pump(ctx, cons, func(m jetstream.Msg) (Delivery, bool) {
		var d wire.Delivery
		if json.Unmarshal(m.Data(), &d) != nil {
			_ = m.Term()
			return Delivery{}, false
		}
		return Delivery{Delivery: d, Done: m.Ack, Waiting: m.InProgress}, true
	})
}

// pump yields what conv makes of each message of cons until ctx ends.
func pump[T any](ctx context.Context, cons jetstream.Consumer, conv func(jetstream.Msg) (T, bool)) (<-chan T, error) {
	it, err := cons.Messages()
	if err != nil {
		return nil, err
	}
	out := make(chan T)
	go func() {
		<-ctx.Done()
		it.Stop()
	}()
	go func() {
		defer close(out)
		for {
			m, err := it.Next()
			if err != nil {
				if errors.Is(err, jetstream.ErrMsgIteratorClosed) || ctx.Err() != nil {
					return
				}
				// A heartbeat missed, a reconnect: the iterator carries on.
				select {
				case <-time.After(100 * time.Millisecond):
				case <-ctx.Done():
					return
				}
				continue
			}
			v, ok := conv(m)
			if !ok {
				continue
			}
			select {
			case out <- v:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}
