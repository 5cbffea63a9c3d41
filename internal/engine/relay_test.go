package engine

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/testwait"
)

// Issue 12 item 6, end to end in the engine: a one-line block over 64 KiB
// from a real agent is refused, audited and answered with a notice naming
// the limit (it used to vanish).
func TestOversizedOneLineBlockRefusedWithNotice(t *testing.T) {
	r := startEngine(t, "", testAgent{name: "dev", role: "developer", script: `stty -echo -icanon
printf '[ROUTE] to: team-lead type: status task: T-9 body: %s [/ROUTE]\n' "$(head -c 100000 /dev/zero | tr '\0' x)"
exec cat >/dev/null
`})
	recs := r.waitRecords(wire.KindReformat, "the refusal", func(recs []store.Record) bool { return len(recs) > 0 })
	if !strings.Contains(recs[0].Reason, "64 KiB") || recs[0].Task != "T-9" || recs[0].Agent != "dev" {
		t.Errorf("refusal %+v", recs[0])
	}
	r.waitRecords(wire.KindDelivered, "the notice typed into dev", func(recs []store.Record) bool {
		for _, d := range recs {
			if d.Agent == "dev" && d.Fields["delivery"] == lead.DeliverNotice && d.Task == "T-9" {
				return true
			}
		}
		return false
	})
	if msgs := r.records(wire.KindMessage); len(msgs) != 0 {
		t.Errorf("the oversized block was relayed: %+v", msgs)
	}
}

// burstScript prints n one-line envelopes to team-lead as fast as it can
// (numbered, to check the order), then reads its input.
func burstScript(n int) string {
	return fmt.Sprintf(`stty -echo -icanon
for i in $(seq 1 %d); do printf '[ROUTE] to: team-lead type: status task: T-1 body: n%%d [/ROUTE]\n' "$i"; done
exec cat >/dev/null
`, n)
}

// checkInOrder checks that the messages are n1..nN, in that order.
func checkInOrder(t *testing.T, msgs []store.Record, n int) {
	t.Helper()
	if len(msgs) != n {
		t.Fatalf("%d messages recorded, want %d", len(msgs), n)
	}
	for i, m := range msgs {
		if want := fmt.Sprintf("n%d", i+1); m.Body != want {
			t.Fatalf("message %d is %q, want %q: out of order", i, m.Body, want)
		}
	}
}

// Issue 12 item 9: 5,000 envelopes in 0.35 s were all relayed at once.
// Past a burst, an agent's blocks are taken at lead.relay_rate: the excess
// waits, in order, none is dropped, and the human (and the agent) are told
// once for the flood.
func TestFloodControlHoldsInOrderAndTellsOnce(t *testing.T) {
	const n, burst, perSec = 300, 20, 100
	r := startEngine(t, fmt.Sprintf("lead:\n  relay_rate: %d\n  relay_burst: %d\n", perSec, burst),
		testAgent{name: "dev", role: "developer", script: burstScript(n)})
	msgs := r.waitRecords(wire.KindMessage, "every message", func(recs []store.Record) bool { return len(recs) >= n })
	checkInOrder(t, msgs, n)
	// The token bucket's guarantee, a lower bound that holds however
	// loaded the machine is: the last message could not be taken before
	// (n-burst)/rate seconds after the first.
	if spread, least := msgs[n-1].Time.Sub(msgs[0].Time), time.Duration(float64(n-burst-1)/perSec*float64(time.Second)); spread < least {
		t.Errorf("%d messages taken within %v; the rate allows no less than %v", n, spread, least)
	}
	floods := r.records(wire.KindFlood)
	if len(floods) != 1 || !strings.Contains(floods[0].Reason, "faster than 100 a second") {
		t.Errorf("flood records %+v", floods)
	}
	r.waitRecords(wire.KindFloodOver, "the end of the flood", func(recs []store.Record) bool { return len(recs) == 1 })
	items := r.e.Inbox()
	if len(items) != 1 || items[0].Type != string(wire.KindFlood) || items[0].From != "dev" {
		t.Errorf("inbox %+v", items)
	}
	if err := r.e.Drop(items[0].ID, ""); err != nil {
		t.Errorf("dropping the flood notice: %v", err)
	}
	if len(r.e.Inbox()) != 0 {
		t.Errorf("inbox after the drop: %+v", r.e.Inbox())
	}
}

// Stopping in the middle of a flood loses nothing: the held blocks are
// recorded as the engine stops, and their acknowledgements wait in the
// outbox for the next run.
func TestFloodHeldBlocksSurviveAStop(t *testing.T) {
	const n = 200
	r := startEngine(t, "lead:\n  relay_rate: 5\n  relay_burst: 10\n", testAgent{name: "dev", role: "developer", script: burstScript(n)})
	r.waitRecords(wire.KindFlood, "the flood", func(recs []store.Record) bool { return len(recs) == 1 })
	// Wait until the agent has printed everything (its screen shows the
	// last block), so that every block is either taken or held.
	testwait.Until(t, 30*time.Second, func() bool { return strings.Contains(r.e.Screen("dev").Render(0, 120, 40), fmt.Sprintf("n%d ", n)) },
		func() string { return "the agent did not print all its blocks" })
	// The parser runs on the reader goroutine: wait for the last block to
	// reach the engine (held or taken) by waiting for the queue to settle.
	r.waitRecords("", "the held queue to fill", func([]store.Record) bool {
		var taken, held int
		_ = r.e.do(func(time.Time) (lead.Output, error) {
			if f := r.e.floods["dev"]; f != nil {
				held = len(f.held)
			}
			return lead.Output{}, nil
		})
		taken = len(r.records(wire.KindMessage))
		return taken+held == n
	})
	if len(r.records(wire.KindMessage)) == n {
		t.Fatal("everything was taken before the stop: the test shows nothing")
	}
	r.stop()
	st, err := store.Open(filepath.Join(r.dir, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	msgs, _ := st.Query(store.Query{Kind: wire.KindMessage})
	checkInOrder(t, msgs, n)
	outbox, err := st.Outbox()
	if err != nil {
		t.Fatal(err)
	}
	if len(outbox) == 0 {
		t.Errorf("no acknowledgement waits for the next run")
	}
}
