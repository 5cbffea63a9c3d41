package natsbus

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// seen collects the messages a connection receives.
type seen struct {
	mu   sync.Mutex
	msgs []string
}

func (s *seen) add(m *nats.Msg) {
	s.mu.Lock()
	s.msgs = append(s.msgs, m.Subject+" "+string(m.Data))
	s.mu.Unlock()
}

func (s *seen) list() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.msgs...)
}

// A node's request names the subject its answer goes to, and the console
// answers with its own user, which may publish the team's records, the
// journal, the bucket of questions and every agent's deliveries: red team
// 14c (finding 3) had it publish there. The console answers only under
// the asking node's own inbox, and tells of the rest.
func TestDoorRepliesOnlyUnderTheNodesInbox(t *testing.T) {
	srv, err := ServeTeam("127.0.0.1:0", filepath.Join(t.TempDir(), "nats"), "console-token-0123456789", "t",
		map[string]NodeAuth{"box1": {Password: "box1-secret", Agents: []string{"far"}}, "box2": {Password: "box2-secret", Agents: []string{"other"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	con, err := OpenConsole(ctx, connect(t, srv.URL()), "t")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var refused []string
	answer := func(node, agent string, req []byte) []byte { return []byte(node + "/" + agent + ": " + string(req)) }
	refuse := func(node, agent, reply string) {
		mu.Lock()
		refused = append(refused, node+"/"+agent+" "+reply)
		mu.Unlock()
	}
	if err := con.Doors(ctx, answer, refuse); err != nil {
		t.Fatal(err)
	}

	// Everything the console's answers could reach but a node's own inbox.
	var landed seen
	watch := connect(t, srv.URL())
	for _, s := range []string{"teamlead.t.>", "$KV.>", NodeInbox("t", "box2") + ".>", "_INBOX.teamlead.t.box1x.>"} {
		if _, err := watch.Subscribe(s, func(m *nats.Msg) {
			if !strings.HasPrefix(m.Subject, "teamlead.t.door.") {
				landed.add(m)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}

	host := strings.TrimPrefix(srv.srv.ClientURL(), "nats://")
	nc, err := nats.Connect("nats://"+NodeUser("box1")+":box1-secret@"+host, nats.CustomInboxPrefix(NodeInbox("t", "box1")))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	elsewhere := []string{
		"teamlead.t.rec.human.send.far", // the team's records, as the human's
		"teamlead.t.state",              // the store's journal
		"$KV.TEAMLEAD_Q_t.q-0001",       // the bucket of questions
		"teamlead.t.deliver.other",      // another agent's deliveries
		"teamlead.t.ctl.other",          // the console's requests to another agent
		NodeInbox("t", "box2") + ".x",   // another node's replies
		"_INBOX.teamlead.t.box1x.x",     // a node whose name starts so
		NodeInbox("t", "box1"),          // the prefix alone
	}
	for _, reply := range elsewhere {
		if err := nc.PublishRequest("teamlead.t.door.box1.far", reply, []byte(`{"cmd":"ask"}`)); err != nil {
			t.Fatal(err)
		}
	}
	n, err := OpenNode(ctx, nc, "t", "box1", "e1")
	if err != nil {
		t.Fatal(err)
	}
	dctx, dcancel := context.WithTimeout(ctx, 10*time.Second)
	got, err := n.Door(dctx, "far", []byte("ask"))
	dcancel()
	if err != nil || string(got) != "box1/far: ask" {
		t.Fatalf("far's request through its node: %q, %v", got, err)
	}
	// The console took the requests in order: the refused ones came first.
	mu.Lock()
	told := append([]string(nil), refused...)
	mu.Unlock()
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}
	if l := landed.list(); len(l) > 0 {
		t.Errorf("the console answered outside the node's inbox: %q", l)
	}
	if len(told) != len(elsewhere) {
		t.Errorf("refusals told: %q, want one for each of %q", told, elsewhere)
	}
}
