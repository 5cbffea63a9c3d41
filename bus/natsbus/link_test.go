package natsbus

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/testwait"
)

func next[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v, ok := <-c:
		if !ok {
			t.Fatalf("%s: channel closed", what)
		}
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: nothing in 30s", what)
	}
	var zero T
	return zero
}

func none[T any](t *testing.T, c <-chan T, what string) {
	t.Helper()
	select {
	case v, ok := <-c:
		if ok {
			t.Fatalf("%s: got %+v", what, v)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

// Deliveries reach the agent's node one at a time, in order; one the node
// took but did not confirm (it was killed) is offered again to the next run.
func TestDeliveriesWaitForTheNode(t *testing.T) {
	srv := serve(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "nats"))
	defer srv.Close()
	ctx := context.Background()
	con, err := OpenConsole(ctx, connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= 3; i++ {
		if err := con.Deliver(ctx, wire.Delivery{ID: i, Agent: "dev", Text: "m" + string(rune('0'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	// Published again (a console that crashed before it recorded the
	// publish): stored once.
	if err := con.Deliver(ctx, wire.Delivery{ID: 2, Agent: "dev", Text: "m2"}); err != nil {
		t.Fatal(err)
	}
	if err := con.Deliver(ctx, wire.Delivery{ID: 9, Agent: "qa", Text: "for qa"}); err != nil {
		t.Fatal(err)
	}

	nodeCtx, kill := context.WithCancel(ctx)
	n, err := OpenNode(nodeCtx, connect(t, srv.URL()), "t", "box", "r1")
	if err != nil {
		t.Fatal(err)
	}
	ds, err := n.Deliveries(nodeCtx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	d := next(t, ds, "first delivery")
	if d.ID != 1 || d.Text != "m1" {
		t.Fatalf("first: %+v", d.Delivery)
	}
	none(t, ds, "a second before the first is read")
	if err := d.Waiting(); err != nil {
		t.Fatal(err)
	}
	if err := d.Done(); err != nil {
		t.Fatal(err)
	}
	d = next(t, ds, "second delivery")
	if d.ID != 2 {
		t.Fatalf("second: %+v", d.Delivery)
	}
	kill() // the node dies with delivery 2 typed, not confirmed

	n2, err := OpenNode(ctx, connect(t, srv.URL()), "t", "box", "r2")
	if err != nil {
		t.Fatal(err)
	}
	ds2, err := n2.Deliveries(ctx, "dev")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []uint64{2, 3} {
		d := next(t, ds2, "delivery after the restart")
		if d.ID != want {
			t.Fatalf("after the restart: got %d, want %d", d.ID, want)
		}
		if err := d.Done(); err != nil {
			t.Fatal(err)
		}
	}
	none(t, ds2, "a fourth delivery for dev")
}

// Events reach the console in the order the node reported them; those the
// console did not confirm come again to its next run, and nothing else.
func TestEventsReachTheConsole(t *testing.T) {
	srv := serve(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "nats"))
	defer srv.Close()
	ctx := context.Background()
	if _, err := OpenConsole(ctx, connect(t, srv.URL()), "t"); err != nil { // it makes the streams
		t.Fatal(err)
	}
	n, err := OpenNode(ctx, connect(t, srv.URL()), "t", "box", "r1")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		if err := n.Report(ctx, "dev", "block", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	cctx, kill := context.WithCancel(ctx)
	con, err := OpenConsole(cctx, connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	evs, err := con.Events(cctx)
	if err != nil {
		t.Fatal(err)
	}
	for want := uint64(1); want <= 3; want++ {
		ev := next(t, evs, "event")
		if ev.Seq != want || ev.Node != "box" || ev.Agent != "dev" || ev.Kind != "block" {
			t.Fatalf("event %d: %+v", want, ev.Event)
		}
		if err := ev.Done(); err != nil {
			t.Fatal(err)
		}
	}
	kill() // the console dies before it has events 4 and 5

	con2, err := OpenConsole(ctx, connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	evs2, err := con2.Events(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for want := uint64(4); want <= 5; want++ {
		ev := next(t, evs2, "event after the restart")
		if ev.Seq != want {
			t.Fatalf("after the restart: event %d, want %d", ev.Seq, want)
		}
		if err := ev.Done(); err != nil {
			t.Fatal(err)
		}
	}
	none(t, evs2, "a sixth event")
}

// A request about an agent reaches its node and the answer comes back; with
// no node, the console hears that it is unreachable. Presence reaches the
// console.
func TestControlAndPresence(t *testing.T) {
	srv := serve(t, "127.0.0.1:0", filepath.Join(t.TempDir(), "nats"))
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	con, err := OpenConsole(ctx, connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	if err := con.Control(ctx, "dev", Request{Op: "resize", Cols: 80, Rows: 24}); !errors.Is(err, ErrUnreachable) {
		t.Fatalf("no node: %v", err)
	}
	nodes, err := con.Nodes()
	if err != nil {
		t.Fatal(err)
	}
	defer nodes.Close()

	n, err := OpenNode(ctx, connect(t, srv.URL()), "t", "box", "r1")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Request, 1)
	if err := n.Serve(ctx, "dev", func(r Request) error {
		got <- r
		if r.Op == "stop" {
			return errors.New("not now")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := con.Control(ctx, "dev", Request{Op: "keys", Keys: []byte("ls\r")}); err != nil {
		t.Fatal(err)
	}
	if r := next(t, got, "the request"); r.Op != "keys" || string(r.Keys) != "ls\r" {
		t.Fatalf("node got %+v", r)
	}
	if err := con.Control(ctx, "dev", Request{Op: "stop"}); err == nil || err.Error() != "not now" {
		t.Fatalf("the node's refusal: %v", err)
	}

	n.Announce(ctx, []string{"dev"})
	testwait.Until(t, 10*time.Second, func() bool { return nodes.Reachable("box") },
		func() string { return "the node's presence never arrived" })
	if nodes.Reachable("other") {
		t.Fatal("a node never heard of is reachable")
	}
}
