package bus

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/store"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pattern, subject string
		want             bool
	}{
		{">", "route.dev", true},
		{"route.*", "route.dev", true},
		{"route.*", "route.dev.x", false},
		{"route.>", "route.dev.x", true},
		{"route.>", "route", false},
		{"agent.*.state", "agent.dev.state", true},
		{"agent.*.state", "agent.dev.exit", false},
		{"route.dev", "route.dev", true},
		{"route.dev", "route.qa", false},
		{"question.answer.*", "question.answer.q-7f3a", true},
	}
	for _, c := range cases {
		if got := Match(c.pattern, c.subject); got != c.want {
			t.Errorf("Match(%q, %q) = %v", c.pattern, c.subject, got)
		}
	}
}

func openStore(t *testing.T) *store.Store {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "s"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func publish(t *testing.T, st *store.Store, b *Embedded, subjects ...string) {
	t.Helper()
	batch := store.Batch{}
	for _, s := range subjects {
		batch.Records = append(batch.Records, store.Record{Kind: "x", Subject: s, Body: s})
	}
	if err := st.Commit(&batch); err != nil {
		t.Fatal(err)
	}
	b.Publish(batch.Records...)
}

func next(t *testing.T, s *Subscription) store.Record {
	t.Helper()
	select {
	case r, ok := <-s.C:
		if !ok {
			t.Fatal("subscription closed")
		}
		return r
	case <-time.After(10 * time.Second):
		t.Fatal("no record")
	}
	return store.Record{}
}

// A subscriber gets the stored history after its sequence, then live
// records, each once, in order, filtered by subject.
func TestSubscribeReplaysThenFollows(t *testing.T) {
	st := openStore(t)
	b := NewEmbedded(st)
	publish(t, st, b, "route.a", "agent.a.state", "route.b")
	sub := b.Subscribe("route.*", 1) // after the first record
	defer sub.Close()
	publish(t, st, b, "route.c", "deliver.c", "route.d")
	var got []string
	for range 3 {
		got = append(got, next(t, sub).Subject)
	}
	want := []string{"route.b", "route.c", "route.d"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
}

// A subscriber that stops reading is cut loose rather than blocking the
// publisher, and can resume from the store without losing anything.
func TestLaggingSubscriberResumes(t *testing.T) {
	st := openStore(t)
	b := NewEmbedded(st)
	sub := b.Subscribe(">", 0)
	total := subscriberBuffer + 200
	for i := 0; i < total; i += 100 {
		subjects := make([]string, 100)
		for j := range subjects {
			subjects[j] = "route.x"
		}
		publish(t, st, b, subjects...)
	}
	last := uint64(0)
	n := 0
	for r := range sub.C {
		last = r.Seq
		n++
	}
	if !sub.Lagged() {
		t.Fatal("subscriber was not marked lagged")
	}
	again := b.Subscribe(">", last)
	defer again.Close()
	for n < total {
		r := next(t, again)
		if r.Seq != last+1 {
			t.Fatalf("resumed at seq %d after %d", r.Seq, last)
		}
		last = r.Seq
		n++
	}
}
