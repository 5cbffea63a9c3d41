// Package bus is the console's event spine. Every record the engine commits
// to the store is published on a subject (route.<agent>, deliver.<agent>,
// agent.<name>.state, human.inbox, lead.refusal.<agent>, ...); the UI, the
// control socket and the headless printer subscribe. The embedded bus is
// durable because publishing happens only after the store commit: a
// subscriber that falls behind, or restarts, resumes from the last sequence
// it handled by replaying the store.
package bus

import (
	"errors"
	"strings"
	"sync"

	"github.com/teamlead/teamlead/internal/store"
)

// Bus is what subscribers and the engine depend on; a NATS JetStream
// implementation can replace the embedded one behind it.
type Bus interface {
	// Publish fans out committed records (their Seq is set) to subscribers.
	Publish(recs ...store.Record)
	// Subscribe delivers every record whose subject matches pattern and
	// whose Seq is greater than after: first the stored ones, then live ones.
	Subscribe(pattern string, after uint64) *Subscription
}

// Replayer reads committed records back; the store implements it.
type Replayer interface {
	Scan(q store.Query, fn func(store.Record) error) error
}

// subscriberBuffer is how many live records a subscriber may lag behind
// before it is cut loose and must resubscribe from its last sequence.
const subscriberBuffer = 4096

// Subscription is one subscriber's stream.
type Subscription struct {
	// C yields records in sequence order. It is closed when the
	// subscription ends: by Close, or because the subscriber lagged (then
	// Lagged reports true and the subscriber should resubscribe after the
	// last Seq it handled: nothing is lost, it is in the store).
	C      <-chan store.Record
	close  func()
	lagged func() bool
}

// NewSubscription is how a Bus implementation hands out a stream: c is
// closed when it ends, close ends it early, lagged says whether it ended
// because the subscriber fell behind.
func NewSubscription(c <-chan store.Record, close func(), lagged func() bool) *Subscription {
	return &Subscription{C: c, close: close, lagged: lagged}
}

// Lagged reports whether the subscription ended because it fell behind.
func (s *Subscription) Lagged() bool { return s.lagged() }

// Close ends the subscription.
func (s *Subscription) Close() { s.close() }

// embeddedSub is one subscriber of the embedded bus.
type embeddedSub struct {
	c       chan store.Record
	pattern string
	bus     *Embedded
	lagged  bool
	closed  bool
	live    chan store.Record
	stop    chan struct{} // closed by close: the pump gives up at once
}

func (s *embeddedSub) isLagged() bool {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	return s.lagged
}

func (s *embeddedSub) close() {
	s.bus.mu.Lock()
	defer s.bus.mu.Unlock()
	if !s.closed {
		close(s.stop)
	}
	s.bus.remove(s)
}

// Embedded is the in-process bus, made durable by the store it replays from.
type Embedded struct {
	mu     sync.Mutex
	store  Replayer
	subs   map[*embeddedSub]bool
	lastSq uint64
}

// NewEmbedded returns a bus replaying history from st.
func NewEmbedded(st Replayer) *Embedded {
	return &Embedded{store: st, subs: map[*embeddedSub]bool{}}
}

// Publish implements Bus.
func (b *Embedded) Publish(recs ...store.Record) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, r := range recs {
		if r.Seq > b.lastSq {
			b.lastSq = r.Seq
		}
		for s := range b.subs {
			if !Match(s.pattern, r.Subject) {
				continue
			}
			select {
			case s.live <- r:
			default:
				s.lagged = true
				b.remove(s)
			}
		}
	}
}

// remove ends s; b.mu is held.
func (b *Embedded) remove(s *embeddedSub) {
	if s.closed {
		return
	}
	s.closed = true
	delete(b.subs, s)
	close(s.live)
}

// Subscribe implements Bus. Records committed before the call are replayed
// from the store, then live records follow without gap or repeat.
func (b *Embedded) Subscribe(pattern string, after uint64) *Subscription {
	s := &embeddedSub{pattern: pattern, bus: b, c: make(chan store.Record, 64), live: make(chan store.Record, subscriberBuffer), stop: make(chan struct{})}
	b.mu.Lock()
	b.subs[s] = true
	b.mu.Unlock()
	go s.pump(after)
	return NewSubscription(s.c, s.close, s.isLagged)
}

// pump replays stored records after `after`, then forwards live ones,
// skipping any the replay already covered.
func (s *embeddedSub) pump(after uint64) {
	defer close(s.c)
	last := after
	send := func(r store.Record) error {
		select {
		case s.c <- r:
			return nil
		case <-s.stop:
			return errStopped
		}
	}
	if s.bus.store != nil {
		err := s.bus.store.Scan(store.Query{AfterSeq: after}, func(r store.Record) error {
			last = r.Seq
			if Match(s.pattern, r.Subject) {
				return send(r)
			}
			return nil
		})
		if err != nil {
			return
		}
	}
	for r := range s.live {
		if r.Seq > last {
			last = r.Seq
			if send(r) != nil {
				return
			}
		}
	}
}

var errStopped = errors.New("subscription closed")

// Match reports whether subject matches a NATS-style pattern: tokens are
// separated by '.', '*' matches one token and '>' (last) matches one or more.
func Match(pattern, subject string) bool {
	if pattern == ">" || pattern == "" {
		return true
	}
	p := strings.Split(pattern, ".")
	s := strings.Split(subject, ".")
	for i, tok := range p {
		if tok == ">" {
			return len(s) > i
		}
		if i >= len(s) || (tok != "*" && tok != s[i]) {
			return false
		}
	}
	return len(p) == len(s)
}
