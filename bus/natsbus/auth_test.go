package natsbus

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/bus/wire"
)

// A node connects with its own password and may do what running its own
// agents takes, and nothing else (checkNodeLimits); the console's token
// does everything, and a wrong password nothing.
func TestNodePermissions(t *testing.T) {
	srv, err := ServeTeam("127.0.0.1:0", filepath.Join(t.TempDir(), "nats"), "console-token-0123456789", "t",
		map[string]NodeAuth{"box1": {Password: "box1-secret", Agents: []string{"far"}}, "box2": {Password: "box2-secret", Agents: []string{"other"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	host := strings.TrimPrefix(srv.srv.ClientURL(), "nats://")
	nodeURL := func(user, pass string) string { return "nats://" + user + ":" + pass + "@" + host }
	if _, err := nats.Connect(nodeURL(NodeUser("box1"), "wrong")); err == nil {
		t.Fatal("a wrong password connected")
	}
	con, err := OpenConsole(context.Background(), connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	checkNodeLimits(t, con, nodeURL(NodeUser("box1"), "box1-secret"))
}

// violations records the permission violations a server reports to a
// connection.
type violations struct {
	mu  sync.Mutex
	all []string
}

func (v *violations) handler(_ *nats.Conn, _ *nats.Subscription, err error) {
	v.mu.Lock()
	v.all = append(v.all, err.Error())
	v.mu.Unlock()
}

// seen reports whether the server refused subject.
func (v *violations) seen(subject string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, s := range v.all {
		if strings.Contains(s, "Permissions Violation") && strings.Contains(s, `"`+subject+`"`) {
			return true
		}
	}
	return false
}

func (v *violations) list() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.all...)
}

// checkNodeLimits connects node box1 of team t (its agent far; box2 runs
// other) at url, as its own user, and checks what it may do — read far's
// deliveries, report about far, say it runs, pass far's requests to the
// console and answer the console's about far — and what the server
// refuses it: the team's records (a human's answer among them), a
// delivery, an event under box2's name or about box2's agent, another
// agent's deliveries (also through a consumer of its own filtered on
// them), a stream, the human's requests to an agent (focus mode's keys),
// box2's agents' requests, and the console's and the other nodes'
// replies. con is the team's console.
func checkNodeLimits(t *testing.T, con *Console, url string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var refusals violations
	nc, err := nats.Connect(url, nats.CustomInboxPrefix(NodeInbox("t", "box1")), nats.ErrorHandler(refusals.handler))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	n, err := OpenNode(ctx, nc, "t", "box1", "e1")
	if err != nil {
		t.Fatal(err)
	}

	// What it may do.
	evs, err := con.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nodes, err := con.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	defer nodes.Close()
	answer := func(node, agent string, req []byte) []byte { return []byte(node + "/" + agent + ": " + string(req)) }
	refuse := func(node, agent, reply string) {
		t.Errorf("%s/%s's request on its own inbox refused: %s", node, agent, reply)
	}
	if err := con.Doors(ctx, answer, refuse); err != nil {
		t.Fatal(err)
	}
	if err := con.Deliver(ctx, wire.Delivery{ID: 1, Agent: "far", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	ds, err := n.Deliveries(ctx, "far")
	if err != nil {
		t.Fatal(err)
	}
	d := next(t, ds, "far's delivery")
	if d.Text != "hello" || d.Waiting() != nil || d.Done() != nil {
		t.Fatalf("delivery %+v", d)
	}
	if err := n.Report(ctx, "far", wire.NodeOutput, wire.NodeOutputEvent{Data: []byte("hi")}); err != nil {
		t.Fatal(err)
	}
	if ev := next(t, evs, "far's event"); ev.Node != "box1" || ev.Agent != "far" || ev.Done() != nil {
		t.Fatalf("event %+v", ev.Event)
	}
	if err := n.Serve(ctx, "far", func(Request) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := con.Control(ctx, "far", Request{Op: "keys", Keys: []byte("x")}); err != nil {
		t.Fatalf("a request about its agent: %v", err)
	}
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	got, err := n.Door(dctx, "far", []byte("ask"))
	dcancel()
	if err != nil || string(got) != "box1/far: ask" {
		t.Fatalf("far's request through its node: %q, %v", got, err)
	}
	n.Announce(ctx, []string{"far"})
	waitFor(t, func() bool { return nodes.Reachable("box1") }, "box1's presence")
	if v := refusals.list(); len(v) > 0 {
		t.Fatalf("the server refused the node what running its agents takes: %v", v)
	}

	// What it may not.
	short := func() (context.Context, context.CancelFunc) { return context.WithTimeout(ctx, time.Second) }
	js, _ := jetstream.New(nc)
	refused := func(what string, err error) {
		t.Helper()
		if err == nil {
			t.Errorf("%s: allowed", what)
		}
	}
	for what, subject := range map[string]string{
		"publishing a record":                  "teamlead.t.rec.route.dev",
		"publishing a human's answer":          "teamlead.t.rec.question.answer.q-1",
		"delivering to its own agent":          "teamlead.t.deliver.far",
		"delivering to another node's agent":   "teamlead.t.deliver.other",
		"reporting about box2's agent as box1": "teamlead.t.ev.box1.other",
	} {
		c, cancel := short()
		_, err = js.Publish(c, subject, []byte(`{"kind":"message","agent":"far","text":"forged"}`))
		cancel()
		refused(what, err)
	}
	c3, cancel := short()
	other := &Node{js: n.js, l: n.l, name: "box2", epoch: "e1"}
	refused("reporting as box2", other.Report(c3, "other", wire.NodeOutput, wire.NodeOutputEvent{Data: []byte("forged")}))
	cancel()
	c4, cancel := short()
	_, err = n.Deliveries(c4, "other")
	cancel()
	refused("reading box2's agent's deliveries", err)
	c5, cancel := short()
	_, err = js.CreateOrUpdateConsumer(c5, "TEAMLEAD_t_DELIVER", jetstream.ConsumerConfig{Durable: "agent_far", FilterSubject: "teamlead.t.deliver.other",
		AckPolicy: jetstream.AckExplicitPolicy})
	cancel()
	refused("its own consumer filtered on box2's agent's deliveries", err)
	c6, cancel := short()
	_, err = js.CreateOrUpdateConsumer(c6, "TEAMLEAD_t_DELIVER", jetstream.ConsumerConfig{Durable: "agent_far", FilterSubjects: []string{"teamlead.t.deliver.>"},
		AckPolicy: jetstream.AckExplicitPolicy})
	cancel()
	refused("its own consumer on every agent's deliveries", err)
	c7, cancel := short()
	_, err = js.CreateOrUpdateStream(c7, jetstream.StreamConfig{Name: "TEAMLEAD_t_DELIVER", Subjects: []string{"teamlead.t.deliver.>"}, MaxMsgs: 1})
	cancel()
	refused("changing a stream", err)
	c8, cancel := short()
	refused("deleting a stream", js.DeleteStream(c8, "TEAMLEAD_t_EVENTS"))
	cancel()
	// Core NATS: the server says so on the connection.
	for _, subject := range []string{
		"teamlead.t.ctl.far",         // the human's keys, as the console sends them
		"teamlead.t.ctl.other",       // … to another node's agent
		"teamlead.t.door.box2.other", // box2's agent's request
		"teamlead.t.node.box2",       // box2's presence
		"teamlead.t.state",           // the store's journal, which a rebuild replays
		"$KV.TEAMLEAD_Q_t.q-1",       // the bucket of questions the human reads
		"teamlead.t.rec.human.send.far",
	} {
		_ = nc.Publish(subject, []byte(`{"op":"keys","keys":"eA=="}`))
		waitFor(t, func() bool { _ = nc.Flush(); return refusals.seen(subject) }, "the server refusing a publish on "+subject)
	}
	for _, subject := range []string{
		"teamlead.t.ctl.other", // another agent's requests
		"teamlead.t.rec.>",     // the team's records
		"teamlead.t.door.>",    // the agents' requests to the console
		"_INBOX.>",             // the console's and the other nodes' replies
		NodeInbox("t", "box2") + ".>",
	} {
		if _, err := nc.Subscribe(subject, func(*nats.Msg) {}); err == nil {
			_ = nc.Flush()
		}
		waitFor(t, func() bool { _ = nc.Flush(); return refusals.seen(subject) }, "the server refusing a subscription to "+subject)
	}
}

// An event whose subject names another node than its payload is dropped:
// a node may speak only under its own name.
func TestEventUnderAnotherNodesNameDropped(t *testing.T) {
	srv := serve(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "nats"))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nc := connect(t, srv.URL())
	con, err := OpenConsole(ctx, nc, "t")
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	forged := Event{Node: "box1", Agent: "far", Epoch: "e", Seq: 1, Kind: wire.NodeOutput}
	b, _ := json.Marshal(forged)
	if _, err := js.Publish(ctx, con.l.eventSubject("box2", "far"), b); err != nil {
		t.Fatal(err)
	}
	n, err := OpenNode(ctx, nc, "t", "box1", "e2")
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Report(ctx, "far", wire.NodeOutput, wire.NodeOutputEvent{Data: []byte("real")}); err != nil {
		t.Fatal(err)
	}
	evs, err := con.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if ev := next(t, evs, "the real event"); ev.Epoch != "e2" {
		t.Fatalf("got %+v: the forged event came through", ev.Event)
	}
}
