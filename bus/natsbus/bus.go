package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// Bus reads a team's records from its stream: bus.Bus for a machine that
// has no store of the team's (teamlead audit --follow --nats on another
// machine). Publishing belongs to the console's Mirror; Publish wakes it
// when there is one.
type Bus struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	names  Names
	epoch  string
	mirror *Mirror
}

var _ bus.Bus = (*Bus)(nil)

// KindError is the kind of the last record of a subscription that ended
// because following the stream failed; its Body says why.
const KindError = wire.KindBusError

// ErrNoRecords is returned by Open when the team's stream holds nothing
// yet: no console of this team has published on this server.
var ErrNoRecords = errors.New("the team's stream holds no records yet")

// Open finds the team's stream and follows the store that published last
// (epoch, when given, names it instead). mirror, if not nil, is woken by
// Publish.
func Open(ctx context.Context, nc *nats.Conn, team, epoch string, mirror *Mirror) (*Bus, error) {
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	n := NamesOf(team)
	s, err := js.Stream(ctx, n.Stream)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, fmt.Errorf("no stream %s on this NATS server: no console of team %q has published here (%w)", n.Stream, team, ErrNoRecords)
	}
	if err != nil {
		return nil, fmt.Errorf("JetStream stream %s: %w", n.Stream, err)
	}
	b := &Bus{js: js, stream: s, names: n, epoch: epoch, mirror: mirror}
	if b.epoch == "" {
		info, err := s.Info(ctx)
		if err != nil {
			return nil, fmt.Errorf("JetStream stream %s: %w", n.Stream, err)
		}
		if info.State.Msgs == 0 {
			return nil, fmt.Errorf("stream %s: %w", n.Stream, ErrNoRecords)
		}
		last, err := s.GetMsg(ctx, info.State.LastSeq)
		if err != nil {
			return nil, fmt.Errorf("JetStream stream %s: %w", n.Stream, err)
		}
		b.epoch = last.Header.Get(hdrEpoch)
	}
	return b, nil
}

// Publish implements bus.Bus: the records are in the console's store
// already; the Mirror takes them from there.
func (b *Bus) Publish(...store.Record) {
	if b.mirror != nil {
		b.mirror.Wake()
	}
}

// Subscribe implements bus.Bus: the records of the followed store whose
// subject matches pattern and whose Seq is greater than after, stored
// ones first, then live ones, in order. The stream keeps what a slow
// subscriber has not read, so a subscription never lags.
func (b *Bus) Subscribe(pattern string, after uint64) *bus.Subscription {
	out := make(chan store.Record, 64)
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	stop := func() { once.Do(cancel) }
	go func() {
		defer close(out)
		if err := b.follow(ctx, pattern, after, out); err != nil && ctx.Err() == nil {
			out <- store.Record{Kind: KindError, Subject: "bus.error", Body: err.Error()}
		}
	}()
	return bus.NewSubscription(out, stop, func() bool { return false })
}

func (b *Bus) follow(ctx context.Context, pattern string, after uint64, out chan<- store.Record) error {
	start, err := b.firstAfter(ctx, after)
	if err != nil {
		return err
	}
	cfg := jetstream.OrderedConsumerConfig{FilterSubjects: []string{b.names.Filter(pattern)}}
	if start > 0 {
		cfg.DeliverPolicy = jetstream.DeliverByStartSequencePolicy
		cfg.OptStartSeq = start
	}
	c, err := b.stream.OrderedConsumer(ctx, cfg)
	if err != nil {
		return fmt.Errorf("following stream %s: %w", b.names.Stream, err)
	}
	it, err := c.Messages()
	if err != nil {
		return fmt.Errorf("following stream %s: %w", b.names.Stream, err)
	}
	go func() {
		<-ctx.Done()
		it.Stop()
	}()
	last := after
	for {
		msg, err := it.Next()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return nil
			}
			return fmt.Errorf("following stream %s: %w", b.names.Stream, err)
		}
		if msg.Headers().Get(hdrEpoch) != b.epoch {
			continue
		}
		var r store.Record
		if err := json.Unmarshal(msg.Data(), &r); err != nil || r.Seq <= last {
			continue // not a record, or one already given (a retry the duplicate window missed)
		}
		last = r.Seq
		select {
		case out <- r:
		case <-ctx.Done():
			return nil
		}
	}
}

// firstAfter finds the stream sequence of the first record of the
// followed store with Seq > after (0: from the start). The stream holds
// records in the order their store committed them, older stores' before
// the followed one's, so a binary search over direct reads finds it.
func (b *Bus) firstAfter(ctx context.Context, after uint64) (uint64, error) {
	if after == 0 {
		return 0, nil
	}
	info, err := b.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("JetStream stream %s: %w", b.names.Stream, err)
	}
	lo, hi := info.State.FirstSeq, info.State.LastSeq+1 // answer in [lo, hi]
	for lo < hi {
		mid := lo + (hi-lo)/2
		before, err := b.isBefore(ctx, mid, after)
		if err != nil {
			return 0, err
		}
		if before {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// isBefore reports whether the stream's message at seq comes before the
// first wanted record: an older store's, or Seq <= after.
func (b *Bus) isBefore(ctx context.Context, seq, after uint64) (bool, error) {
	msg, err := b.stream.GetMsg(ctx, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return true, nil // deleted: its neighbours decide
	}
	if err != nil {
		return false, fmt.Errorf("JetStream stream %s: %w", b.names.Stream, err)
	}
	if msg.Header.Get(hdrEpoch) != b.epoch {
		return true, nil
	}
	n, err := strconv.ParseUint(msg.Header.Get(hdrSeq), 10, 64)
	return err != nil || n <= after, nil
}

// LastSeq is the store sequence of the followed store's newest record on
// the stream (0: none yet).
func (b *Bus) LastSeq(ctx context.Context) (uint64, error) {
	info, err := b.stream.Info(ctx)
	if err != nil {
		return 0, fmt.Errorf("JetStream stream %s: %w", b.names.Stream, err)
	}
	for seq := info.State.LastSeq; seq >= info.State.FirstSeq && seq > 0; seq-- {
		msg, err := b.stream.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			return 0, fmt.Errorf("JetStream stream %s: %w", b.names.Stream, err)
		}
		if msg.Header.Get(hdrEpoch) == b.epoch {
			return strconv.ParseUint(msg.Header.Get(hdrSeq), 10, 64)
		}
		return 0, nil // a newer store published after the followed one
	}
	return 0, nil
}
