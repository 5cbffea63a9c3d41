package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
)

var local = []string{"guard/", "bus/"}

// engineLike commits what the engine commits, batch after batch: records
// with outbox entries, deliveries settled, questions and consultations
// (with the consultations' index) and counters changing, and a local key.
func engineLike(t *testing.T, st *store.Store, m *Mirror, from, n int) {
	t.Helper()
	base := time.Date(2025, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := from; i < from+n; i++ {
		at := base.Add(time.Duration(i) * time.Second)
		b := store.Batch{Meta: map[string]string{lead.MetaNextMsg: fmt.Sprint(i + 1)}}
		b.Records = append(b.Records, store.Record{Kind: "message", Subject: "route.dev", From: "dev", To: []string{"qa"}, MsgID: fmt.Sprintf("m-%d", i), Body: fmt.Sprint("body ", i), Time: at},
			store.Record{Kind: "delivery", Subject: "deliver.qa", Agent: "qa", MsgID: fmt.Sprintf("m-%d", i), Time: at})
		b.Enqueue = append(b.Enqueue, store.Delivery{Agent: "qa", MsgID: fmt.Sprintf("m-%d", i), Kind: "relay", From: "dev", Text: fmt.Sprint("text ", i)})
		if i%3 == 0 { // a delivery read: its entry goes
			out, err := st.Outbox()
			if err != nil {
				t.Fatal(err)
			}
			if len(out) > 0 {
				b.Dequeue = append(b.Dequeue, out[0].ID)
			}
		}
		q := questions.Question{ID: fmt.Sprintf("q-%d", i%7), Topic: "scope", Text: fmt.Sprint("question ", i), Asker: "dev", Status: questions.Pending, Created: at}
		if i%2 == 0 {
			q.Status, q.Answer = questions.Answered, fmt.Sprint("answer ", i)
		}
		js, _ := json.Marshal(q)
		b.Meta[lead.QuestionKey(q.ID)] = string(js)
		if q.Status == questions.Pending {
			b.Meta[lead.StatusPrefix(questions.Pending)+q.ID] = ""
			b.MetaDel = append(b.MetaDel, lead.StatusPrefix(questions.Answered)+q.ID)
		} else {
			b.Meta[lead.StatusPrefix(questions.Answered)+q.ID] = ""
			b.MetaDel = append(b.MetaDel, lead.StatusPrefix(questions.Pending)+q.ID)
		}
		c := consult.Consultation{ID: fmt.Sprintf("c-%d", i%5), Requester: "dev", Consulted: "architect", Decision: "infrastructure", Status: consult.Status([]string{"pending", "approved"}[i%2]), Created: at}
		cj, _ := json.Marshal(c)
		b.Meta[lead.MetaConsult+c.ID] = string(cj)
		b.Meta["guard/state"] = fmt.Sprint("local ", i) // stays on this machine
		if err := st.Commit(&b); err != nil {
			t.Fatal(err)
		}
		if m != nil {
			m.Wake()
		}
	}
}

// dump is everything a query of the product reads from a store: every
// record, the outbox, every meta key but the local ones, and the
// questions and consultations as the read model lists them.
type dump struct {
	Records       []store.Record
	Outbox        []store.Delivery
	Meta          map[string]string
	Questions     []questions.Question
	Pending       []questions.Question
	Consultations []consult.Consultation
	ByStatus      []consult.Consultation
}

func dumpOf(t *testing.T, st *store.Store) dump {
	t.Helper()
	var d dump
	var err error
	if d.Records, err = st.Query(store.Query{}); err != nil {
		t.Fatal(err)
	}
	if d.Outbox, err = st.Outbox(); err != nil {
		t.Fatal(err)
	}
	d.Meta = map[string]string{}
	if err := st.MetaPrefix("", func(k, v string) error {
		if k != "guard/state" && k[:4] != "bus/" {
			d.Meta[k] = v
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d.Questions, err = readmodel.ListQuestions(st, "all", ""); err != nil {
		t.Fatal(err)
	}
	if d.Pending, err = readmodel.ListQuestions(st, "pending", ""); err != nil {
		t.Fatal(err)
	}
	if err := readmodel.EnsureConsultIndex(st); err != nil {
		t.Fatal(err)
	}
	if d.Consultations, _, err = readmodel.QueryConsultations(st, readmodel.ConsultFilter{Agent: "architect"}); err != nil {
		t.Fatal(err)
	}
	if d.ByStatus, _, err = readmodel.QueryConsultations(st, readmodel.ConsultFilter{Status: "approved", Limit: 2}); err != nil {
		t.Fatal(err)
	}
	return d
}

func sameDump(t *testing.T, got, want dump) {
	t.Helper()
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		gv, wv := reflect.ValueOf(got), reflect.ValueOf(want)
		for i := 0; i < gv.NumField(); i++ {
			a, _ := json.Marshal(gv.Field(i).Interface())
			b, _ := json.Marshal(wv.Field(i).Interface())
			if string(a) != string(b) {
				t.Errorf("%s differs:\n got %.600s\nwant %.600s", gv.Type().Field(i).Name, a, b)
			}
		}
	}
}

// A store filled through the Mirror (part of it before the journal
// started), lost, and rebuilt from the streams is the same store for every
// query; the rebuilt one publishes on after the stream's last record and
// journal entry, each once, and a store rebuilt from that is the same again.
func TestRebuildFromTheStreamsGivesTheSameStore(t *testing.T) {
	dir := t.TempDir()
	srv := serve(t, "127.0.0.1:0", filepath.Join(dir, "nats"))
	defer srv.Close()
	nc := connect(t, srv.URL())
	ctx := context.Background()

	a := openStore(t, filepath.Join(dir, "a"))
	if err := readmodel.EnsureConsultIndex(a); err != nil {
		t.Fatal(err)
	}
	engineLike(t, a, nil, 0, 40) // before any journal: the snapshot takes it
	if err := a.StartJournal(local, 0); err != nil {
		t.Fatal(err)
	}
	m, err := StartMirror(nc, "t", "e1", a)
	if err != nil {
		t.Fatal(err)
	}
	engineLike(t, a, m, 40, 300)
	waitFor(t, func() bool { return m.Published() == a.LastSeq() && m.changes.Load() == a.JournalLast() }, "the records and the journal published")
	m.Close(10 * time.Second)
	want := dumpOf(t, a)
	if len(want.Outbox) == 0 || len(want.Pending) == 0 || len(want.Consultations) == 0 {
		t.Fatalf("the test's store holds too little: %d deliveries, %d pending questions, %d consultations", len(want.Outbox), len(want.Pending), len(want.Consultations))
	}

	b := openStore(t, filepath.Join(dir, "b"))
	res, err := Rebuild(ctx, nc, "t", b)
	if err != nil {
		t.Fatal(err)
	}
	if res.Epoch != "e1" || res.Records != len(want.Records) || res.LastSeq != a.LastSeq() || !res.State || res.LastChange != a.JournalLast() {
		t.Fatalf("rebuilt %+v; the store had %d records up to %d, journal up to %d", res, len(want.Records), a.LastSeq(), a.JournalLast())
	}
	sameDump(t, dumpOf(t, b), want)
	if v, ok, _ := b.Meta("guard/state"); ok {
		t.Fatalf("a local key came back from the stream: %q", v)
	}

	// The rebuilt store goes on under the same epoch.
	if err := b.StartJournal(local, res.LastChange); err != nil {
		t.Fatal(err)
	}
	if err := b.SkipDeliveryIDs(1024); err != nil {
		t.Fatal(err)
	}
	m2, err := StartMirror(nc, "t", "e1", b)
	if err != nil {
		t.Fatal(err)
	}
	engineLike(t, b, m2, 340, 20)
	waitFor(t, func() bool { return m2.Published() == b.LastSeq() && m2.changes.Load() == b.JournalLast() }, "the rebuilt store's new records published")
	m2.Close(10 * time.Second)
	if err := m2.Err(); err != nil {
		t.Fatal(err)
	}
	out, _ := b.Outbox()
	if last := out[len(out)-1]; last.ID <= want.Outbox[len(want.Outbox)-1].ID+1024 {
		t.Fatalf("a new delivery's ID %d is within the margin after the lost store's last %d", last.ID, want.Outbox[len(want.Outbox)-1].ID)
	}
	bus, err := Open(ctx, nc, "t", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := bus.Subscribe(">", 0)
	got := collect(t, sub, int(b.LastSeq()))
	quiet(t, sub)
	sub.Close()
	for i, r := range got {
		if r.Seq != uint64(i+1) {
			t.Fatalf("record %d on the stream has seq %d", i, r.Seq)
		}
	}

	c := openStore(t, filepath.Join(dir, "c"))
	if _, err := Rebuild(ctx, nc, "t", c); err != nil {
		t.Fatal(err)
	}
	sameDump(t, dumpOf(t, c), dumpOf(t, b))

	// A store that is not empty is compared, not rebuilt: the same one
	// agrees; one whose last record differs, or that is behind, does not.
	if err := Check(ctx, nc, "t", "e1", b); err != nil {
		t.Fatalf("the store that published: %v", err)
	}
	if _, err := Rebuild(ctx, nc, "t", b); err == nil {
		t.Fatal("Rebuild filled a store that was not empty")
	}
	d := openStore(t, filepath.Join(dir, "d"))
	engineLike(t, d, nil, 0, int(b.LastSeq()/4)) // two records a batch: half the stream's
	if err := Check(ctx, nc, "t", "e1", d); !errors.Is(err, ErrForked) {
		t.Fatalf("a store behind the stream: %v", err)
	}
	engineLike(t, d, nil, 0, int(b.LastSeq()/2)) // now past it, other records
	if err := Check(ctx, nc, "t", "e1", d); !errors.Is(err, ErrMismatch) {
		t.Fatalf("a store whose records differ: %v", err)
	}
	// And a mirror of a store behind the stream under its epoch does not
	// publish (another console publishes as this store).
	e := openStore(t, filepath.Join(dir, "e"))
	engineLike(t, e, nil, 0, 3)
	m3, err := StartMirror(nc, "t", "e1", e)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return errors.Is(m3.Err(), ErrForked) }, "the mirror to refuse a forked store")
	m3.Close(0)
}

// A stream that is not this team's records is refused, and nothing taken.
func TestRebuildRefusesAStreamOfAnotherKind(t *testing.T) {
	dir := t.TempDir()
	srv := serve(t, "127.0.0.1:0", filepath.Join(dir, "nats"))
	defer srv.Close()
	nc := connect(t, srv.URL())
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: NamesOf("t").Stream, Subjects: []string{"other.>"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "other.x", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, filepath.Join(dir, "s"))
	if _, err := Rebuild(ctx, nc, "t", st); !errors.Is(err, ErrMismatch) {
		t.Fatalf("err = %v", err)
	}
	if st.LastSeq() != 0 {
		t.Fatal("records taken from a stream that was refused")
	}
	// Nothing on the server at all: nothing to do.
	res, err := Rebuild(ctx, nc, "nobody", st)
	if err != nil || res.Records != 0 {
		t.Fatalf("no stream: %+v, %v", res, err)
	}
}
