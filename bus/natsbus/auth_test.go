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
// agents takes — read their deliveries, report about them, say it runs,
// answer requests about them — and nothing else: no records, no
// deliveries, no events under another node's name, no other agent's
// deliveries or requests. The console's token does everything, and a
// wrong password nothing.
func TestNodePermissions(t *testing.T) {
	srv, err := ServeTeam("127.0.0.1:0", filepath.Join(t.TempDir(), "nats"), "console-token-0123456789", "t",
		map[string]NodeAuth{"box1": {Password: "box1-secret", Agents: []string{"far"}}, "box2": {Password: "box2-secret", Agents: []string{"other"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	con, err := OpenConsole(ctx, connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(srv.srv.ClientURL(), "nats://")
	nodeURL := func(user, pass string) string { return "nats://" + user + ":" + pass + "@" + host }
	if _, err := nats.Connect(nodeURL(NodeUser("box1"), "wrong")); err == nil {
		t.Fatal("a wrong password connected")
	}
	var mu sync.Mutex
	var violations []string
	seen := func(subject string) bool {
		mu.Lock()
		defer mu.Unlock()
		for _, v := range violations {
			if strings.Contains(v, "Permissions Violation") && strings.Contains(v, subject) {
				return true
			}
		}
		return false
	}
	nc, err := nats.Connect(nodeURL(NodeUser("box1"), "box1-secret"), nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
		mu.Lock()
		violations = append(violations, err.Error())
		mu.Unlock()
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	n, err := OpenNode(ctx, nc, "t", "box1", "e1")
	if err != nil {
		t.Fatal(err)
	}
	// What it may do.
	if err := con.Deliver(ctx, wire.Delivery{ID: 1, Agent: "far", Text: "hello"}); err != nil {
		t.Fatal(err)
	}
	ds, err := n.Deliveries(ctx, "far")
	if err != nil {
		t.Fatal(err)
	}
	if d := next(t, ds, "far's delivery"); d.Text != "hello" || d.Done() != nil {
		t.Fatalf("delivery %+v", d)
	}
	if err := n.Report(ctx, "far", wire.NodeOutput, wire.NodeOutputEvent{Data: []byte("hi")}); err != nil {
		t.Fatal(err)
	}
	if err := n.Serve(ctx, "far", func(Request) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if err := con.Control(ctx, "far", Request{Op: "keys", Keys: []byte("x")}); err != nil {
		t.Fatalf("a request about its agent: %v", err)
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
	c1, cancel := short()
	_, err = js.Publish(c1, "teamlead.t.rec.route.dev", []byte(`{"kind":"message"}`))
	cancel()
	refused("publishing a record", err)
	c2, cancel := short()
	_, err = js.Publish(c2, "teamlead.t.deliver.far", []byte(`{"id":9,"agent":"far","text":"forged"}`))
	cancel()
	refused("delivering to an agent", err)
	c3, cancel := short()
	other := &Node{js: n.js, l: n.l, name: "box2", epoch: "e1"}
	refused("reporting as box2", other.Report(c3, "other", wire.NodeOutput, wire.NodeOutputEvent{Data: []byte("forged")}))
	cancel()
	c4, cancel := short()
	_, err = n.Deliveries(c4, "other")
	cancel()
	refused("reading box2's agent's deliveries", err)
	c5, cancel := short()
	_, err = js.CreateOrUpdateStream(c5, jetstream.StreamConfig{Name: "TEAMLEAD_t_DELIVER", Subjects: []string{"teamlead.t.deliver.>"}, MaxMsgs: 1})
	cancel()
	refused("changing a stream", err)
	if _, err := nc.Subscribe("teamlead.t.ctl.other", func(*nats.Msg) {}); err == nil {
		_ = nc.Flush()
	}
	waitFor(t, func() bool { _ = nc.Flush(); return seen("teamlead.t.ctl.other") }, "the server refusing a subscription to another agent's requests")
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
