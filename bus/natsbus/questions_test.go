package natsbus

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// The Mirror keeps each question's latest state in the team's bucket: a
// pending one as it stands, an answered one with the bucket's TTL, so the
// server forgets it after QuestionTTL; other records leave it alone.
func TestQuestionsBucketFollowsTheRecords(t *testing.T) {
	dir := t.TempDir()
	srv := serve(t, "127.0.0.1:0", filepath.Join(dir, "nats"))
	defer srv.Close()
	nc := connect(t, srv.URL())
	st := openStore(t, filepath.Join(dir, "store"))
	m, err := StartMirror(nc, "qteam", "e1", st)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(0)
	q := func(kind wire.Kind, id, status string) store.Record {
		body := "Is mobile in scope?"
		if kind == wire.KindQuestionAnswer {
			body = "No, web only."
		}
		return store.Record{Kind: kind, Subject: "question.ask." + id, Agent: "dev", Type: "question", MsgID: id, Body: body,
			Fields: map[string]string{"status": status, "topic": "requirements.scope", "answerer": "architect"}}
	}
	b := store.Batch{Records: []store.Record{q(wire.KindQuestion, "q-0001", "pending"), q(wire.KindQuestion, "q-0002", "pending"),
		{Kind: wire.KindMessage, Subject: "route.qa", Type: "status", MsgID: "m-1"}, q(wire.KindQuestionAnswer, "q-0001", "answered")}}
	if err := st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	m.Wake()
	waitFor(t, func() bool { return m.Published() == st.LastSeq() }, "the records published")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	// A value that is not a question of its key (red team 14c, finding 3:
	// a door's answer the console published there) is no row.
	kv, err := js.KeyValue(ctx, NamesOf("qteam").QuestionsBucket())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "q-9999", []byte(`{"questions":[{"id":"q-000f","text":"reply-inject"}]}`)); err != nil {
		t.Fatal(err)
	}
	got, err := Questions(ctx, js, "qteam")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "q-0002" || got[0].Status != "pending" || got[1].ID != "q-0001" || got[1].Status != "answered" ||
		got[1].Last != "question-answer" || got[1].Topic != "requirements.scope" || got[1].Asker != "dev" ||
		got[1].Text != "Is mobile in scope?" || got[1].Answer != "No, web only." {
		t.Fatalf("questions: %+v", got)
	}
	s, err := js.Stream(ctx, "KV_"+NamesOf("qteam").QuestionsBucket())
	if err != nil {
		t.Fatal(err)
	}
	answered, err := s.GetLastMsgForSubject(ctx, "$KV."+NamesOf("qteam").QuestionsBucket()+".q-0001")
	if err != nil {
		t.Fatal(err)
	}
	if ttl := answered.Header.Get("Nats-TTL"); ttl == "" {
		t.Errorf("the answered question has no TTL: headers %v", answered.Header)
	}
	pending, err := s.GetLastMsgForSubject(ctx, "$KV."+NamesOf("qteam").QuestionsBucket()+".q-0002")
	if err != nil {
		t.Fatal(err)
	}
	if ttl := pending.Header.Get("Nats-TTL"); ttl != "" {
		t.Errorf("the pending question has a TTL %q", ttl)
	}
	if _, err := Questions(ctx, js, "other"); err == nil {
		t.Error("a team with no bucket: no error")
	}
}
