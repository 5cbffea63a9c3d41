package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/bus"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/internal/store"
)

// Source is where the Mirror reads committed records: the console's store.
type Source interface {
	Query(q store.Query) ([]store.Record, error)
	LastSeq() uint64
}

// mirrorChunk is how many records the Mirror publishes before it waits for
// the server's acknowledgements.
const mirrorChunk = 256

// ackWait bounds the wait for one chunk's acknowledgements.
const ackWait = 10 * time.Second

// Mirror publishes a store's records on the team's stream, in order,
// each once: it keeps the last sequence the stream acknowledged and
// publishes what the store holds past it, when woken and after every
// failure (a server away, restarting or full), until it is closed.
type Mirror struct {
	js        jetstream.JetStream
	names     Names
	epoch     string
	src       Source
	wake      chan struct{}
	idle      chan struct{} // a flush found nothing left
	stop      chan struct{}
	done      chan struct{}
	published atomic.Uint64
	journal   JournalSource // src, when it keeps a journal (state.go)
	changes   atomic.Uint64 // the last journal entry the stream acknowledged
	questions *questionsKV  // the team's bucket of questions (questions.go)
	errMu     sync.Mutex
	err       error
}

// StartMirror starts publishing src's records on the team's stream. It
// returns at once: the stream is made (or checked) and the last record of
// this store it holds found on the first try that reaches the server, and
// tried again every second until then (Err says why it waits).
func StartMirror(nc *nats.Conn, team, epoch string, src Source) (*Mirror, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	m := &Mirror{js: js, names: NamesOf(team), epoch: epoch, src: src,
		wake: make(chan struct{}, 1), idle: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	m.journal, _ = src.(JournalSource)
	go m.run()
	return m, nil
}

// setup makes the stream and finds where publishing resumes.
func (m *Mirror) setup() error {
	if !m.js.Conn().IsConnected() {
		return errNotConnected
	}
	ctx, cancel := context.WithTimeout(context.Background(), ackWait)
	defer cancel()
	s, err := ensureStream(ctx, m.js, m.names)
	if err != nil {
		return err
	}
	last, err := lastOf(ctx, s, m.epoch)
	if err != nil {
		return err
	}
	// Publishing resumes after what the stream has: a stream that has
	// more of this store than the store is another console's doing, and
	// publishing on would mix two stores under one name.
	if have := m.src.LastSeq(); last > have {
		return fmt.Errorf("%w: stream %s holds records of this store up to %d, the store only up to %d; another console publishes as this one (stop it; then move this store away and start again, to rebuild it from the stream)",
			ErrForked, m.names.Stream, last, have)
	}
	var changes uint64
	if m.journal != nil {
		st, err := ensureStateStream(ctx, m.js, m.names)
		if err != nil {
			return err
		}
		if changes, err = lastChangeOf(ctx, st, m.epoch); err != nil {
			return err
		}
		if have := m.journal.JournalLast(); changes > have {
			return fmt.Errorf("%w: stream %s holds journal entries of this store up to %d, the store only up to %d; another console publishes as this one",
				ErrForked, m.names.StateStream(), changes, have)
		}
	}
	if m.questions, err = openQuestions(ctx, m.js, m.names); err != nil {
		return err
	}
	m.published.Store(last)
	m.changes.Store(changes)
	return nil
}

// lastOf returns the store sequence of the stream's last record when it
// came from this epoch's store, else 0 (a store made anew starts over).
func lastOf(ctx context.Context, s jetstream.Stream, epoch string) (uint64, error) {
	return lastNumberOf(ctx, s, epoch, hdrSeq, "record")
}

// lastNumberOf reads header of the stream's last message (what names what
// the stream holds, for errors) when it came from this epoch's store, else 0.
func lastNumberOf(ctx context.Context, s jetstream.Stream, epoch, header, what string) (uint64, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("JetStream stream %s: %w", s.CachedInfo().Config.Name, err)
	}
	if info.State.Msgs == 0 {
		return 0, nil
	}
	msg, err := s.GetMsg(ctx, info.State.LastSeq)
	if err != nil {
		return 0, fmt.Errorf("JetStream stream %s: reading its last %s: %w", info.Config.Name, what, err)
	}
	if msg.Header.Get(hdrEpoch) != epoch {
		return 0, nil
	}
	return strconv.ParseUint(msg.Header.Get(header), 10, 64)
}

// Wake tells the Mirror the store holds new records.
func (m *Mirror) Wake() {
	select {
	case m.wake <- struct{}{}:
	default:
	}
}

// WakeOnCommit wakes the mirror whenever b commits records after after,
// until done closes: the console and the benchmark's console run it once
// their engine exists.
func (m *Mirror) WakeOnCommit(b bus.Bus, after uint64, done <-chan struct{}) {
	for {
		sub := b.Subscribe(">", after)
	read:
		for {
			select {
			case r, ok := <-sub.C:
				if !ok {
					break read
				}
				after = r.Seq
				m.Wake()
			case <-done:
				sub.Close()
				return
			}
		}
		if !sub.Lagged() {
			return
		}
	}
}

// Published is the last store sequence the stream acknowledged.
func (m *Mirror) Published() uint64 { return m.published.Load() }

// Err is the latest failure to publish, nil once publishing works again.
func (m *Mirror) Err() error {
	m.errMu.Lock()
	defer m.errMu.Unlock()
	return m.err
}

// Close publishes what is left for up to wait, then stops.
func (m *Mirror) Close(wait time.Duration) {
	deadline := time.After(wait)
	for m.published.Load() < m.src.LastSeq() || m.journal != nil && m.changes.Load() < m.journal.JournalLast() {
		m.Wake()
		select {
		case <-m.idle:
			continue
		case <-deadline:
		}
		break
	}
	close(m.stop)
	<-m.done
}

// errNotConnected: the connection is down, and reconnecting.
var errNotConnected = errors.New("cannot reach the server (trying again)")

// retryEvery is how soon a failed publish is tried again.
const retryEvery = time.Second

func (m *Mirror) run() {
	defer close(m.done)
	ready := false
	for {
		var err error
		if !ready {
			err = m.setup()
			ready = err == nil
		}
		if ready {
			err = m.flush()
		}
		m.errMu.Lock()
		m.err = err
		m.errMu.Unlock()
		var retry <-chan time.Time
		if err != nil {
			retry = time.After(retryEvery)
		} else {
			select {
			case m.idle <- struct{}{}:
			default:
			}
		}
		select {
		case <-m.stop:
			return
		case <-m.wake:
		case <-retry:
		}
	}
}

// flush publishes every record past the acknowledged one, a chunk at a
// time, and advances only over acknowledged records: a failure leaves the
// rest for the next try, and the server's duplicate check drops a record
// published twice.
func (m *Mirror) flush() error {
	if !m.js.Conn().IsConnected() {
		return errNotConnected
	}
	for {
		select {
		case <-m.stop:
			return nil
		default:
		}
		recs, err := m.src.Query(store.Query{AfterSeq: m.published.Load(), Limit: mirrorChunk})
		if err != nil {
			return fmt.Errorf("reading the store: %w", err)
		}
		// The journal's entries first: a record published is one whose
		// batch's changes are there already (a rebuild takes them).
		upto := m.published.Load()
		if len(recs) > 0 {
			upto = recs[len(recs)-1].Seq
		}
		if err := m.publishChanges(upto); err != nil {
			return err
		}
		if len(recs) == 0 {
			return nil
		}
		// The bucket of questions first: a record published is one whose
		// question's state is already there.
		ctx, cancel := context.WithTimeout(context.Background(), ackWait)
		for _, r := range recs {
			if err := m.questions.apply(ctx, r); err != nil {
				cancel()
				return fmt.Errorf("the bucket of questions: %w", err)
			}
		}
		cancel()
		futs := make([]jetstream.PubAckFuture, 0, len(recs))
		for _, r := range recs {
			f, err := m.js.PublishMsgAsync(m.message(r), jetstream.WithMsgID(msgID(m.epoch, r.Seq)))
			if err != nil {
				return m.settle(recs, futs, err)
			}
			futs = append(futs, f)
		}
		if err := m.settle(recs, futs, nil); err != nil {
			return err
		}
		if len(recs) < mirrorChunk {
			return nil
		}
	}
}

// settle waits for the acknowledgements of futs in order (futs[i] is
// recs[i]) and advances Published over each; failed is the error that
// stopped publishing early, if any.
func (m *Mirror) settle(recs []store.Record, futs []jetstream.PubAckFuture, failed error) error {
	timeout := time.After(ackWait)
	for i, f := range futs {
		select {
		case <-f.Ok():
			m.published.Store(recs[i].Seq)
		case err := <-f.Err():
			return fmt.Errorf("publishing record %d: %w", recs[i].Seq, err)
		case <-timeout:
			return fmt.Errorf("publishing record %d: no acknowledgement from the server in %s", recs[i].Seq, ackWait)
		}
	}
	if failed != nil {
		return fmt.Errorf("publishing: %w", failed)
	}
	return nil
}

func (m *Mirror) message(r store.Record) *nats.Msg {
	msg := nats.NewMsg(m.names.Subject(r.Subject))
	msg.Header.Set(hdrEpoch, m.epoch)
	msg.Header.Set(hdrSeq, strconv.FormatUint(r.Seq, 10))
	msg.Data, _ = json.Marshal(r) // a Record always encodes
	return msg
}
