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

	"github.com/teamlead/teamlead/internal/store"
)

// What the console's store holds besides its records — the outbox of
// deliveries not yet read, the questions, consultations, tasks and
// permission requests as they stand, the message counters — is in its
// journal (store.Change, one entry per commit that changed it, after a
// snapshot). The Mirror publishes the journal on a stream of its own,
// each entry before the records committed with it, so that a console
// whose store was lost rebuilds it whole from the two streams (Rebuild).

// JournalSource is a Source that keeps a journal (the console's store).
type JournalSource interface {
	Source
	Journal(after uint64, limit int) ([]store.Change, error)
	JournalLast() uint64
	TrimJournal(below uint64) error
}

// Headers of a published journal entry, besides Teamlead-Epoch.
const (
	hdrChange = "Teamlead-Change" // its number in the store's journal
	hdrAfter  = "Teamlead-After"  // the last record seq committed with or before it
	hdrBase   = "Teamlead-Base"   // a snapshot's chunk: the number of the snapshot's first
	hdrLast   = "Teamlead-Last"   // "true" on a snapshot's last chunk
)

// StateStream is the stream of the team's journal.
func (n Names) StateStream() string { return n.Stream + "_STATE" }

// StateSubject is the subject of every journal entry: outside the
// records' prefix, so readers of records never see one, and outside what
// a node may publish.
func (n Names) StateSubject() string {
	return n.Prefix[:len(n.Prefix)-len(".rec")] + ".state"
}

// ensureStateStream creates the team's journal stream, or checks the one there.
func ensureStateStream(ctx context.Context, js jetstream.JetStream, n Names) (jetstream.Stream, error) {
	s, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:        n.StateStream(),
		Description: "teamlead: the journal of one team's console store (outbox, questions, consultations, tasks…), to rebuild it",
		Subjects:    []string{n.StateSubject()},
		Storage:     jetstream.FileStorage,
		Duplicates:  duplicateWindow,
		Retention:   jetstream.LimitsPolicy,
	})
	if err != nil {
		return nil, fmt.Errorf("JetStream stream %s: %w", n.StateStream(), err)
	}
	return s, nil
}

// lastChangeOf returns the number of the stream's last journal entry when
// it came from this epoch's store, else 0.
func lastChangeOf(ctx context.Context, s jetstream.Stream, epoch string) (uint64, error) {
	return lastNumberOf(ctx, s, epoch, hdrChange, "entry")
}

func (m *Mirror) changeMessage(c store.Change) *nats.Msg {
	msg := nats.NewMsg(m.names.StateSubject())
	msg.Header.Set(hdrEpoch, m.epoch)
	msg.Header.Set(hdrChange, strconv.FormatUint(c.N, 10))
	msg.Header.Set(hdrAfter, strconv.FormatUint(c.After, 10))
	if c.Base != 0 {
		msg.Header.Set(hdrBase, strconv.FormatUint(c.Base, 10))
	}
	if c.Last {
		msg.Header.Set(hdrLast, "true")
	}
	msg.Data, _ = json.Marshal(c) // a Change always encodes
	return msg
}

// publishChanges publishes the journal's entries committed with or before
// record upto, in order, and forgets locally those acknowledged (the last
// stays, so that numbering resumes after it).
func (m *Mirror) publishChanges(upto uint64) error {
	j := m.journal
	if j == nil {
		return nil
	}
	for {
		chs, err := j.Journal(m.changes.Load(), mirrorChunk)
		if err != nil {
			return fmt.Errorf("reading the store's journal: %w", err)
		}
		n := 0
		for n < len(chs) && chs[n].After <= upto {
			n++
		}
		if n == 0 {
			return nil
		}
		futs := make([]jetstream.PubAckFuture, 0, n)
		var failed error
		for _, c := range chs[:n] {
			f, err := m.js.PublishMsgAsync(m.changeMessage(c), jetstream.WithMsgID(m.epoch+"-c"+strconv.FormatUint(c.N, 10)))
			if err != nil {
				failed = err
				break
			}
			futs = append(futs, f)
		}
		timeout := time.After(ackWait)
		for i, f := range futs {
			select {
			case <-f.Ok():
				m.changes.Store(chs[i].N)
			case err := <-f.Err():
				return fmt.Errorf("publishing journal entry %d: %w", chs[i].N, err)
			case <-timeout:
				return fmt.Errorf("publishing journal entry %d: no acknowledgement from the server in %s", chs[i].N, ackWait)
			}
		}
		if failed != nil {
			return fmt.Errorf("publishing the journal: %w", failed)
		}
		if err := j.TrimJournal(m.changes.Load()); err != nil {
			return fmt.Errorf("trimming the store's journal: %w", err)
		}
		if n < len(chs) || len(chs) < mirrorChunk {
			return nil
		}
	}
}

// ErrForked means the team's stream holds records (or journal entries) of
// this store that the store does not: another console publishes as this
// store (one started on a copy of its state folder, or on a store rebuilt
// from the stream while the first one still runs).
var ErrForked = errors.New("the stream holds more of this store than the store does")
