package natsbus

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/testwait"
)

// freePort returns a loopback port nobody listens on now.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func serve(t *testing.T, listen, dir string) *Server {
	t.Helper()
	s, err := Serve(listen, dir, "secret")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func connect(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := Connect(Config{URL: url, Name: t.Name()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

func openStore(t *testing.T, dir string) *store.Store {
	t.Helper()
	st, err := store.Open(dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// commit appends n records to st, subjects cycling through route.dev,
// agent.qa.state and a path-like one, and wakes m.
func commit(t *testing.T, st *store.Store, m *Mirror, n int) {
	t.Helper()
	subjects := []string{"route.dev", "agent.qa.state", "progress.dev.wf/1.json", ""}
	b := store.Batch{}
	for i := 0; i < n; i++ {
		b.Records = append(b.Records, store.Record{Kind: "message", Subject: subjects[i%len(subjects)], Body: fmt.Sprint(i)})
	}
	if err := st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	if m != nil {
		m.Wake()
	}
}

// collect reads from sub until it has want records or the deadline passes;
// it fails on a record out of order or given twice.
func collect(t *testing.T, sub *bus.Subscription, want int) []store.Record {
	t.Helper()
	var got []store.Record
	deadline := time.After(30 * time.Second)
	for len(got) < want {
		select {
		case r, ok := <-sub.C:
			if !ok {
				t.Fatalf("subscription ended after %d of %d records", len(got), want)
			}
			if r.Kind == KindError {
				t.Fatalf("bus error: %s", r.Body)
			}
			if len(got) > 0 && r.Seq <= got[len(got)-1].Seq {
				t.Fatalf("record %d after %d: out of order or twice", r.Seq, got[len(got)-1].Seq)
			}
			got = append(got, r)
		case <-deadline:
			t.Fatalf("got %d of %d records in 30s", len(got), want)
		}
	}
	return got
}

// quiet checks that sub yields nothing more for a short while: what a
// subscription must not give (a duplicate) would come right behind.
func quiet(t *testing.T, sub *bus.Subscription) {
	t.Helper()
	select {
	case r, ok := <-sub.C:
		if ok {
			t.Fatalf("unexpected record %d %q", r.Seq, r.Subject)
		}
	case <-time.After(300 * time.Millisecond):
	}
}

func TestMirrorPublishesEveryRecordOnceInOrder(t *testing.T) {
	dir := t.TempDir()
	srv := serve(t, "127.0.0.1:0", filepath.Join(dir, "nats"))
	defer srv.Close()
	nc := connect(t, srv.URL())
	st := openStore(t, filepath.Join(dir, "store"))
	commit(t, st, nil, 100) // before the mirror started
	m, err := StartMirror(nc, "demo team", "e1", st)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(0)
	for i := 0; i < 9; i++ {
		commit(t, st, m, 100)
	}
	waitFor(t, func() bool { return m.Published() == 1000 }, "1000 records published")
	b, err := Open(context.Background(), nc, "demo team", "", m)
	if err != nil {
		t.Fatal(err)
	}
	sub := b.Subscribe(">", 0)
	defer sub.Close()
	got := collect(t, sub, 1000)
	for i, r := range got {
		if r.Seq != uint64(i+1) || r.Body != fmt.Sprint(i%100) {
			t.Fatalf("record %d: seq %d body %q", i, r.Seq, r.Body)
		}
	}
	quiet(t, sub)

	// A pattern and a starting point, as the embedded bus takes them.
	sub2 := b.Subscribe("progress.>", 500)
	defer sub2.Close()
	got = collect(t, sub2, 125)
	for _, r := range got {
		if r.Seq <= 500 || !bus.Match("progress.>", r.Subject) {
			t.Fatalf("record %d %q is not progress.> after 500", r.Seq, r.Subject)
		}
	}
	quiet(t, sub2)
}

// The NATS server is stopped while records keep being committed, and
// started again on its files: every record reaches the stream once.
func TestServerRestartLosesNothing(t *testing.T) {
	dir := t.TempDir()
	listen := freePort(t)
	srv := serve(t, listen, filepath.Join(dir, "nats"))
	nc := connect(t, srv.URL())
	st := openStore(t, filepath.Join(dir, "store"))
	m, err := StartMirror(nc, "t", "e1", st)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(0)
	commit(t, st, m, 300)
	waitFor(t, func() bool { return m.Published() == 300 }, "300 records published")
	srv.Close()
	for i := 0; i < 3; i++ {
		commit(t, st, m, 100)
	}
	srv = serve(t, listen, filepath.Join(dir, "nats"))
	defer srv.Close()
	m.Wake()
	waitFor(t, func() bool { return m.Published() == 600 }, "the 300 committed while NATS was away published")
	b, err := Open(context.Background(), connect(t, srv.URL()), "t", "e1", nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := b.Subscribe(">", 0)
	defer sub.Close()
	collect(t, sub, 600)
	quiet(t, sub)
}

// A console stopped before its mirror caught up publishes the rest when it
// starts again, and a store made anew is told apart from the old one.
func TestConsoleRestartPublishesTheRest(t *testing.T) {
	dir := t.TempDir()
	srv := serve(t, "127.0.0.1:0", filepath.Join(dir, "nats"))
	defer srv.Close()
	nc := connect(t, srv.URL())
	st := openStore(t, filepath.Join(dir, "store"))
	m, err := StartMirror(nc, "t", "e1", st)
	if err != nil {
		t.Fatal(err)
	}
	commit(t, st, m, 50)
	m.Close(10 * time.Second)
	if m.Published() != 50 {
		t.Fatalf("Close left %d of 50 published", m.Published())
	}
	commit(t, st, nil, 70) // while no console publishes
	m, err = StartMirror(nc, "t", "e1", st)
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return m.Published() == 120 }, "the rest published")
	b, err := Open(context.Background(), nc, "t", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := b.Subscribe(">", 0)
	collect(t, sub, 120)
	quiet(t, sub)
	sub.Close()
	m.Close(10 * time.Second)

	// A new store (sequences from 1 again) under a new epoch.
	st2 := openStore(t, filepath.Join(dir, "store2"))
	commit(t, st2, nil, 5)
	m2, err := StartMirror(nc, "t", "e2", st2)
	if err != nil {
		t.Fatal(err)
	}
	defer m2.Close(0)
	waitFor(t, func() bool { return m2.Published() == 5 }, "the new store's 5 records published")
	b2, err := Open(context.Background(), nc, "t", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b2.epoch != "e2" {
		t.Fatalf("following epoch %q, want the newest, e2", b2.epoch)
	}
	sub2 := b2.Subscribe(">", 2)
	got := collect(t, sub2, 3)
	if got[0].Seq != 3 {
		t.Fatalf("first record after 2 of the new store: %d", got[0].Seq)
	}
	quiet(t, sub2)
	sub2.Close()
}

// waitFor polls cond until it holds, failing after 30 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	testwait.Until(t, 30*time.Second, cond, func() string { return "30s passed waiting for " + what })
}

func TestOpenWithoutStreamSaysSo(t *testing.T) {
	srv := serve(t, "127.0.0.1:0", t.TempDir())
	defer srv.Close()
	_, err := Open(context.Background(), connect(t, srv.URL()), "nobody", "", nil)
	if err == nil || !strings.Contains(err.Error(), "no console of team") {
		t.Fatalf("err = %v", err)
	}
}

func TestServerWantsItsToken(t *testing.T) {
	srv := serve(t, "127.0.0.1:0", t.TempDir())
	defer srv.Close()
	bare := "nats://" + srv.Addr().String()
	if nc, err := Connect(Config{URL: bare}); err == nil {
		nc.Close()
		t.Fatal("connected without the token")
	}
	if _, err := Connect(Config{URL: "nats://wrong@" + srv.Addr().String()}); err == nil || strings.Contains(err.Error(), "wrong") {
		t.Fatalf("a wrong token: err = %v (and the token must not be shown)", err)
	}
}

func TestConnectErrors(t *testing.T) {
	if _, err := Connect(Config{}); err == nil || !strings.Contains(err.Error(), "TEAMLEAD_NATS") {
		t.Fatalf("no URL: %v", err)
	}
	if _, err := Connect(Config{URL: "nats://" + freePort(t)}); err == nil || !strings.Contains(err.Error(), "cannot reach NATS") {
		t.Fatalf("nobody listening: %v", err)
	}
	if _, err := Connect(Config{URL: "nats://127.0.0.1:1", TLS: TLS{Cert: "x"}}); err == nil || !strings.Contains(err.Error(), "cert and key") {
		t.Fatalf("cert without key: %v", err)
	}
}

// FuzzSubjects: a bus pattern matches a bus subject exactly when its NATS
// filter matches the subject's NATS form, whatever characters they hold.
func FuzzSubjects(f *testing.F) {
	for _, s := range [][2]string{{"route.*", "route.dev"}, {"progress.>", "progress.dev.wf/1.json"}, {">", ""},
		{"a.*.c", "a..c"}, {"_x", "_x"}, {"route.dev", "route.d v"}, {"*", "*"}, {"a.>", "a"}} {
		f.Add(s[0], s[1])
	}
	n := NamesOf("team")
	f.Fuzz(func(t *testing.T, pattern, subject string) {
		if pattern == "" {
			return // the embedded bus takes "" as everything; Filter too, checked by the seed
		}
		want := bus.Match(pattern, subject)
		filter, subj := n.Filter(pattern), n.Subject(subject)
		if !server.IsValidSubject(subj) || !server.IsValidLiteralSubject(subj) {
			t.Fatalf("subject %q → %q is not a literal NATS subject", subject, subj)
		}
		if !server.IsValidSubject(filter) {
			t.Fatalf("pattern %q → %q is not a NATS filter", pattern, filter)
		}
		if got := server.SubjectsCollide(filter, subj); got != want {
			t.Fatalf("Match(%q, %q) = %v, NATS says %v for %q, %q", pattern, subject, want, got, filter, subj)
		}
	})
}
