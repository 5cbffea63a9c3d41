package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// BusResult is the bus alone, without agents: records committed to the
// console's store and read back by a subscriber, on the embedded bus (the
// baseline) and on NATS JetStream (an in-process server with a file
// store, as `teamlead run --nats-listen` starts: the store's Mirror
// publishes, a natsbus.Bus subscription reads), and deliveries from the
// console to a node over the link (published, received, acknowledged).
// Each is measured one record at a time (latency) and as a burst
// (throughput).
type BusResult struct {
	// Records is how many records each latency run sent one at a time,
	// and each burst held.
	Records int
	// Embedded, NATS and Link are the one-at-a-time latencies.
	Embedded, NATS, Link Summary
	// EmbeddedRate, NATSRate and LinkRate are the burst throughputs, records a second.
	EmbeddedRate, NATSRate, LinkRate float64
	// Lost lists records that never arrived.
	Lost []string
}

// busTimeout bounds the wait for one record or one burst.
const busTimeout = 30 * time.Second

// MeasureBus runs the bus figures in dir with n records each.
func MeasureBus(ctx context.Context, dir string, n int) (*BusResult, error) {
	res := &BusResult{Records: n}
	st, err := store.Open(filepath.Join(dir, "bus-store"), store.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()

	emb := bus.NewEmbedded(st)
	lat, rate, lost, err := busRun(st, emb, nil, n)
	if err != nil {
		return nil, fmt.Errorf("embedded bus: %w", err)
	}
	res.Embedded, res.EmbeddedRate, res.Lost = lat, rate, append(res.Lost, lost...)

	srv, err := natsbus.Serve("127.0.0.1:0", filepath.Join(dir, "bus-nats"), "bench")
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	nc, err := natsbus.Connect(natsbus.Config{URL: srv.URL(), Name: "tlbench"})
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	m, err := natsbus.StartMirror(nc, "bench", "e1", st)
	if err != nil {
		return nil, err
	}
	defer m.Close(time.Second)
	// The stream exists once the Mirror has published what the store
	// already holds (the embedded run's records).
	for deadline := time.Now().Add(busTimeout); m.Published() < st.LastSeq(); {
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the Mirror published %d of %d records in %s: %v", m.Published(), st.LastSeq(), busTimeout, m.Err())
		}
		time.Sleep(5 * time.Millisecond)
	}
	nb, err := natsbus.Open(ctx, nc, "bench", "", m)
	if err != nil {
		return nil, err
	}
	lat, rate, lost, err = busRun(st, nb, m, n)
	if err != nil {
		return nil, fmt.Errorf("NATS bus: %w", err)
	}
	res.NATS, res.NATSRate, res.Lost = lat, rate, append(res.Lost, lost...)

	lat, rate, lost, err = linkRun(ctx, nc, n)
	if err != nil {
		return nil, fmt.Errorf("NATS link: %w", err)
	}
	res.Link, res.LinkRate, res.Lost = lat, rate, append(res.Lost, lost...)
	return res, nil
}

// busRun commits records to st, publishes them on b (the embedded bus is
// told; the Mirror is woken) and times their arrival on a subscription
// that starts after every record already there.
func busRun(st *store.Store, b bus.Bus, m *natsbus.Mirror, n int) (Summary, float64, []string, error) {
	sub := b.Subscribe("bench.>", st.LastSeq())
	defer sub.Close()
	send := func(recs []store.Record) error {
		batch := store.Batch{Records: recs}
		if err := st.Commit(&batch); err != nil {
			return err
		}
		if m != nil {
			m.Wake()
		} else {
			b.Publish(batch.Records...)
		}
		return nil
	}
	recv := func(want int) (int, error) {
		got := 0
		deadline := time.After(busTimeout)
		for got < want {
			select {
			case r, ok := <-sub.C:
				if !ok {
					return got, fmt.Errorf("the subscription ended after %d of %d records", got, want)
				}
				if r.Kind == natsbus.KindError {
					return got, fmt.Errorf("bus error: %s", r.Body)
				}
				got++
			case <-deadline:
				return got, nil
			}
		}
		return got, nil
	}
	var lats []time.Duration
	var lost []string
	for i := range n {
		start := time.Now()
		if err := send([]store.Record{{Kind: wire.KindMessage, Subject: "bench.one", Body: strconv.Itoa(i)}}); err != nil {
			return Summary{}, 0, nil, err
		}
		got, err := recv(1)
		if err != nil {
			return Summary{}, 0, nil, err
		}
		if got == 0 {
			lost = append(lost, "record "+strconv.Itoa(i)+" never arrived")
			continue
		}
		lats = append(lats, time.Since(start))
	}
	burst := make([]store.Record, n)
	for i := range burst {
		burst[i] = store.Record{Kind: wire.KindMessage, Subject: "bench.burst", Body: strconv.Itoa(i)}
	}
	start := time.Now()
	if err := send(burst); err != nil {
		return Summary{}, 0, nil, err
	}
	got, err := recv(n)
	if err != nil {
		return Summary{}, 0, nil, err
	}
	took := time.Since(start)
	if got < n {
		lost = append(lost, fmt.Sprintf("%d of a burst of %d records never arrived", n-got, n))
	}
	return Summarize(lats), float64(got) / took.Seconds(), lost, nil
}

// linkRun delivers n messages from the console to a node one at a time,
// then as a burst, each received and acknowledged by the node.
func linkRun(ctx context.Context, nc *nats.Conn, n int) (Summary, float64, []string, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	con, err := natsbus.OpenConsole(ctx, nc, "bench")
	if err != nil {
		return Summary{}, 0, nil, err
	}
	node, err := natsbus.OpenNode(ctx, nc, "bench", "node1", "e1")
	if err != nil {
		return Summary{}, 0, nil, err
	}
	ds, err := node.Deliveries(ctx, "dev")
	if err != nil {
		return Summary{}, 0, nil, err
	}
	recv := func() bool {
		select {
		case d, ok := <-ds:
			if !ok {
				return false
			}
			_ = d.Done()
			return true
		case <-time.After(busTimeout):
			return false
		}
	}
	var lats []time.Duration
	var lost []string
	id := uint64(0)
	for i := range n {
		id++
		start := time.Now()
		if err := con.Deliver(ctx, wire.Delivery{ID: id, Agent: "dev", Text: "one " + strconv.Itoa(i)}); err != nil {
			return Summary{}, 0, nil, err
		}
		if !recv() {
			lost = append(lost, "delivery "+strconv.Itoa(i)+" never reached the node")
			continue
		}
		lats = append(lats, time.Since(start))
	}
	start := time.Now()
	for i := range n {
		id++
		if err := con.Deliver(ctx, wire.Delivery{ID: id, Agent: "dev", Text: "burst " + strconv.Itoa(i)}); err != nil {
			return Summary{}, 0, nil, err
		}
	}
	got := 0
	for got < n && recv() {
		got++
	}
	took := time.Since(start)
	if got < n {
		lost = append(lost, fmt.Sprintf("%d of a burst of %d deliveries never reached the node", n-got, n))
	}
	return Summarize(lats), float64(got) / took.Seconds(), lost, nil
}
