package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/internal/store"
)

// ErrMismatch means the team's stream is not one this store can be
// rebuilt from (another team's, not teamlead's, or broken); nothing was
// taken from it.
var ErrMismatch = errors.New("the stream does not match this team")

// Rebuilt says what Rebuild took from the streams.
type Rebuilt struct {
	// Epoch is the store the records came from (the stream's newest).
	Epoch string
	// Records is how many records were restored, LastSeq the last one's.
	Records int
	LastSeq uint64
	// State reports that the journal came back too (outbox, questions,
	// consultations, tasks…); false when the stream holds no snapshot of
	// that store's state (published by an older teamlead, or cut before
	// its first snapshot): then only the records are there.
	State bool
	// Changes is how many journal entries were applied, LastChange the
	// number of the journal's last entry on the stream (the rebuilt
	// store's journal continues after it).
	Changes    int
	LastChange uint64
	// Agents are the agents the records name.
	Agents []string
}

// Rebuild fills st, a store with no records, from the team's streams: every record
// of the store that published last, with its own sequence and time, and
// its journal from its last complete snapshot, each entry replayed after
// the records committed with or before it. It returns a zero Rebuilt when
// the stream holds nothing, and ErrMismatch (st untouched or partly
// filled: throw it away) when it is not this team's to take.
func Rebuild(ctx context.Context, nc *nats.Conn, team string, st *store.Store) (Rebuilt, error) {
	var out Rebuilt
	js, err := jetstream.New(nc)
	if err != nil {
		return out, err
	}
	n := NamesOf(team)
	s, err := js.Stream(ctx, n.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return out, nil
	}
	if err != nil {
		return out, fmt.Errorf("JetStream stream %s: %w", n.Stream, err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		return out, fmt.Errorf("JetStream stream %s: %w", n.Stream, err)
	}
	if want := []string{n.Prefix + ".>"}; !slices.Equal(info.Config.Subjects, want) {
		return out, fmt.Errorf("%w: stream %s takes %s, not %s: it is not this team's records", ErrMismatch, n.Stream, strings.Join(info.Config.Subjects, " "), want[0])
	}
	if info.State.Msgs == 0 {
		return out, nil
	}
	lastMsg, err := s.GetMsg(ctx, info.State.LastSeq)
	if err != nil {
		return out, fmt.Errorf("JetStream stream %s: reading its last record: %w", n.Stream, err)
	}
	out.Epoch = lastMsg.Header.Get(hdrEpoch)
	last, err := strconv.ParseUint(lastMsg.Header.Get(hdrSeq), 10, 64)
	if out.Epoch == "" || err != nil {
		return out, fmt.Errorf("%w: the last message of stream %s has no %s and %s headers: teamlead did not publish it", ErrMismatch, n.Stream, hdrEpoch, hdrSeq)
	}
	if err := empty(st); err != nil {
		return out, err
	}

	// The journal: its last complete snapshot of this epoch's store that
	// the records reach, and what follows it.
	var changes *reader
	if ss, err := js.Stream(ctx, n.StateStream()); err == nil {
		base, lastChange, err := findBase(ctx, ss, out.Epoch, last)
		if err != nil {
			return out, err
		}
		out.LastChange = lastChange
		if base > 0 {
			if changes, err = newReader(ctx, ss, n.StateSubject(), base); err != nil {
				return out, err
			}
			defer changes.stop()
			out.State = true
		}
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return out, fmt.Errorf("JetStream stream %s: %w", n.StateStream(), err)
	}

	recs, err := newReader(ctx, s, n.Prefix+".>", 0)
	if err != nil {
		return out, err
	}
	defer recs.stop()
	agents := map[string]bool{}
	var pending []store.Record
	var seq uint64 // the last record taken
	// restoreUpTo restores the records up to seq upto.
	restoreUpTo := func(upto uint64) error {
		for seq < upto && seq < last {
			msg, ok, err := recs.next()
			if err != nil {
				return err
			}
			if !ok {
				break
			}
			if msg.Headers().Get(hdrEpoch) != out.Epoch {
				continue
			}
			var r store.Record
			if err := json.Unmarshal(msg.Data(), &r); err != nil {
				return fmt.Errorf("%w: stream %s, message %d: not a record (%v)", ErrMismatch, n.Stream, streamSeq(msg), err)
			}
			if h, _ := strconv.ParseUint(msg.Headers().Get(hdrSeq), 10, 64); h != r.Seq {
				return fmt.Errorf("%w: stream %s, message %d: its %s header says %d, the record %d", ErrMismatch, n.Stream, streamSeq(msg), hdrSeq, h, r.Seq)
			}
			if r.Seq <= seq || r.Seq > last {
				continue // a repeat the duplicate window missed, or one published since we began
			}
			if !strings.HasPrefix(msg.Subject(), n.Prefix+".") || msg.Subject() != n.Subject(r.Subject) {
				return fmt.Errorf("%w: stream %s, record %d: published on %s, its subject %q is %s", ErrMismatch, n.Stream, r.Seq, msg.Subject(), r.Subject, n.Subject(r.Subject))
			}
			seq = r.Seq
			if r.Agent != "" {
				agents[r.Agent] = true
			}
			pending = append(pending, r)
			if len(pending) == mirrorChunk {
				if err := st.Restore(pending, nil); err != nil {
					return err
				}
				out.Records += len(pending)
				pending = pending[:0]
			}
		}
		if len(pending) > 0 {
			if err := st.Restore(pending, nil); err != nil {
				return err
			}
			out.Records += len(pending)
			pending = pending[:0]
		}
		return nil
	}
	if changes != nil {
		var base, done uint64
		for {
			msg, ok, err := changes.next()
			if err != nil {
				return out, err
			}
			if !ok {
				break
			}
			if msg.Headers().Get(hdrEpoch) != out.Epoch {
				continue
			}
			var c store.Change
			if err := json.Unmarshal(msg.Data(), &c); err != nil {
				return out, fmt.Errorf("%w: stream %s, message %d: not a journal entry (%v)", ErrMismatch, n.StateStream(), streamSeq(msg), err)
			}
			if c.After > last {
				break // its records are not on the stream
			}
			if base == 0 {
				base = c.N // the snapshot findBase found
			}
			if c.N <= done || c.Base != 0 && c.Base != base {
				continue // a repeat, or a snapshot cut short
			}
			if err := restoreUpTo(c.After); err != nil {
				return out, err
			}
			if err := st.Restore(nil, &c); err != nil {
				return out, err
			}
			done = c.N
			out.Changes++
		}
	}
	if err := restoreUpTo(last); err != nil {
		return out, err
	}
	out.LastSeq = seq
	for a := range agents {
		out.Agents = append(out.Agents, a)
	}
	slices.Sort(out.Agents)
	return out, nil
}

// empty refuses a store that holds records (its meta is the caller's to
// judge: it may mark the rebuild, or keep local keys).
func empty(st *store.Store) error {
	if st.LastSeq() != 0 {
		return errors.New("the store to rebuild holds records")
	}
	return nil
}

// findBase returns the stream sequence of the last complete snapshot of
// epoch's journal taken at or before record last (0: none), and the
// number of that journal's last entry on the stream.
func findBase(ctx context.Context, s jetstream.Stream, epoch string, last uint64) (uint64, uint64, error) {
	r, err := newHeaderReader(ctx, s)
	if err != nil || r == nil {
		return 0, 0, err
	}
	defer r.stop()
	var found, open, openN, lastChange uint64
	for {
		msg, ok, err := r.next()
		if err != nil {
			return 0, 0, err
		}
		if !ok {
			return found, lastChange, nil
		}
		h := msg.Headers()
		if h.Get(hdrEpoch) != epoch {
			continue
		}
		nn, _ := strconv.ParseUint(h.Get(hdrChange), 10, 64)
		lastChange = max(lastChange, nn)
		after, _ := strconv.ParseUint(h.Get(hdrAfter), 10, 64)
		base, _ := strconv.ParseUint(h.Get(hdrBase), 10, 64)
		if after > last || base == 0 {
			continue
		}
		if base == nn {
			open, openN = streamSeq(msg), nn
		}
		if base == openN && open > 0 && h.Get(hdrLast) == "true" {
			found = open
		}
	}
}

// reader reads a stream's messages in order, from the start or a stream
// sequence, up to the last one there when it began.
type reader struct {
	it   jetstream.MessagesContext
	left bool // messages remain
}

func newReader(ctx context.Context, s jetstream.Stream, filter string, from uint64) (*reader, error) {
	return openReader(ctx, s, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}}, from)
}

// newHeaderReader reads only the headers of a stream (nil when it is empty).
func newHeaderReader(ctx context.Context, s jetstream.Stream) (*reader, error) {
	return openReader(ctx, s, jetstream.OrderedConsumerConfig{HeadersOnly: true}, 0)
}

func openReader(ctx context.Context, s jetstream.Stream, cfg jetstream.OrderedConsumerConfig, from uint64) (*reader, error) {
	info, err := s.Info(ctx)
	if err != nil {
		return nil, fmt.Errorf("JetStream stream %s: %w", s.CachedInfo().Config.Name, err)
	}
	if info.State.Msgs == 0 || from > info.State.LastSeq {
		return &reader{}, nil
	}
	if from > 0 {
		cfg.DeliverPolicy, cfg.OptStartSeq = jetstream.DeliverByStartSequencePolicy, from
	}
	c, err := s.OrderedConsumer(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("reading stream %s: %w", info.Config.Name, err)
	}
	it, err := c.Messages()
	if err != nil {
		return nil, fmt.Errorf("reading stream %s: %w", info.Config.Name, err)
	}
	return &reader{it: it, left: true}, nil
}

// next returns the next message; ok is false once the last was read.
func (r *reader) next() (jetstream.Msg, bool, error) {
	if r == nil || !r.left {
		return nil, false, nil
	}
	msg, err := r.it.Next()
	if err != nil {
		return nil, false, fmt.Errorf("reading the stream: %w", err)
	}
	md, err := msg.Metadata()
	if err != nil {
		return nil, false, fmt.Errorf("reading the stream: %w", err)
	}
	r.left = md.NumPending > 0
	return msg, true, nil
}

func (r *reader) stop() {
	if r != nil && r.it != nil {
		r.it.Stop()
	}
}

func streamSeq(msg jetstream.Msg) uint64 {
	if md, err := msg.Metadata(); err == nil {
		return md.Sequence.Stream
	}
	return 0
}

// Check compares a store that is not empty, published as epoch, with the
// team's stream: ErrForked when the stream holds records of that store
// past the store's last (a store older than the stream: a backup
// restored, or another console publishing as this one), ErrMismatch when
// the stream's record at the last sequence both hold differs from the
// store's. A stream whose newest records are another store's is not
// compared (that store took over; this one publishes under its own epoch).
func Check(ctx context.Context, nc *nats.Conn, team, epoch string, st *store.Store) error {
	b, err := Open(ctx, nc, team, "", nil)
	if errors.Is(err, ErrNoRecords) {
		return nil
	}
	if err != nil {
		return err
	}
	if b.epoch != epoch {
		return nil
	}
	last, err := b.LastSeq(ctx)
	if err != nil {
		return err
	}
	have := st.LastSeq()
	if last > have {
		return fmt.Errorf("%w: stream %s holds records of this store up to %d, the store only up to %d: it is older than the stream (a backup restored?), or another console publishes as this one", ErrForked, b.names.Stream, last, have)
	}
	if last == 0 {
		return nil
	}
	at, err := b.firstAfter(ctx, last-1)
	if err != nil {
		return err
	}
	msg, err := b.stream.GetMsg(ctx, at)
	if err != nil {
		return fmt.Errorf("JetStream stream %s: %w", b.names.Stream, err)
	}
	var theirs store.Record
	_ = json.Unmarshal(msg.Data, &theirs)
	mine, err := st.Query(store.Query{AfterSeq: last - 1, Limit: 1})
	if err != nil {
		return err
	}
	a, _ := json.Marshal(theirs)
	var m []byte
	if len(mine) > 0 && mine[0].Seq == last {
		m, _ = json.Marshal(mine[0])
	}
	if string(a) != string(m) {
		return fmt.Errorf("%w: record %d of stream %s is not the store's record %d (another console published as this store)", ErrMismatch, last, b.names.Stream, last)
	}
	return nil
}
