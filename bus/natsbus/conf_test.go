package natsbus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/testwait"
)

// ownServer starts a nats-server configured, as a server of the user's
// would be, from what WriteConf prints for team t (box1 runs far, box2
// other), the passwords in the server's environment; it returns its
// address (host:port).
func ownServer(t *testing.T) string {
	t.Helper()
	var conf bytes.Buffer
	if err := WriteConf(&conf, "t", TeamUsers("t", map[string][]string{"box1": {"far"}, "box2": {"other"}})); err != nil {
		t.Fatal(err)
	}
	// As the README has it: the block in a file of its own, included,
	// the passwords in the server's environment.
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "teamlead-users.conf"), conf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "nats-server.conf")
	main := "host: 127.0.0.1\nport: -1\njetstream {store_dir: " + confString(filepath.Join(dir, "js")) + "}\n" +
		"include teamlead-users.conf\n"
	if err := os.WriteFile(file, []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONSOLE_PASSWORD", "console-secret")
	t.Setenv("NODE_BOX1_PASSWORD", "box1-secret")
	t.Setenv("NODE_BOX2_PASSWORD", "box2-secret")
	opts, err := server.ProcessConfigFile(file)
	if err != nil {
		t.Fatalf("the server's own loader refuses the printed block: %v\n%s", err, conf.String())
	}
	opts.NoLog, opts.NoSigs = true, true
	srv, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	return strings.TrimPrefix(srv.ClientURL(), "nats://")
}

// On a NATS server of yours, configured from what teamlead
// nats-permissions prints, the console does all its work with its own
// user — streams, records, the bucket of questions, the link, readers of
// the records and questions — and a node with its own user may do what
// running its agents takes and nothing more, as on the console's own
// server (checkNodeLimits).
func TestPrintedPermissionsOnYourOwnServer(t *testing.T) {
	host := ownServer(t)
	ctx := context.Background()
	if _, err := nats.Connect("nats://" + NodeUser("box1") + ":wrong@" + host); err == nil {
		t.Fatal("a wrong password connected")
	}
	var refusals violations
	nc, err := nats.Connect("nats://"+ConsoleUser+":console-secret@"+host, nats.ErrorHandler(refusals.handler))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()

	// The records and the questions, published and read back.
	st := openStore(t, t.TempDir())
	m, err := StartMirror(nc, "t", "e1", st)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close(0)
	b := store.Batch{Records: []store.Record{
		{Kind: wire.KindQuestion, Subject: "question.ask.q-0001", Agent: "dev", Type: "question", MsgID: "q-0001", Body: "Is mobile in scope?",
			Fields: map[string]string{"status": "pending", "answerer": "architect"}},
		{Kind: wire.KindMessage, Subject: "route.qa", Type: "status", MsgID: "m-1", Body: "done"},
	}}
	if err := st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	m.Wake()
	testwait.Until(t, 30*time.Second, func() bool { return m.Published() == st.LastSeq() }, func() string {
		return fmt.Sprintf("the records not published with the console's user: %v; refused: %v", m.Err(), refusals.list())
	})
	if err := m.Err(); err != nil {
		t.Fatal(err)
	}
	bs, err := Open(ctx, nc, "t", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sub := bs.Subscribe(">", 0)
	if got := collect(t, sub, 2); got[1].Body != "done" {
		t.Fatalf("records read back: %+v", got)
	}
	sub.Close()
	js, _ := jetstream.New(nc)
	if qs, err := Questions(ctx, js, "t"); err != nil || len(qs) != 1 || qs[0].ID != "q-0001" {
		t.Fatalf("questions read back: %+v, %v", qs, err)
	}

	// The link, with a node of its own user.
	con, err := OpenConsole(ctx, nc, "t")
	if err != nil {
		t.Fatal(err)
	}
	checkNodeLimits(t, con, "nats://"+NodeUser("box1")+":box1-secret@"+host)
	if v := refusals.list(); len(v) > 0 {
		t.Fatalf("the server refused the console: %v", v)
	}

	// The console's user is the team's only: not another team's stream.
	c, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if _, err := js.CreateOrUpdateStream(c, jetstream.StreamConfig{Name: "TEAMLEAD_other", Subjects: []string{"teamlead.other.rec.>"}}); err == nil {
		t.Error("the console made another team's stream")
	}
}

// The JSON lines carry, per user, the lists the configuration block has,
// as a user JWT's permissions; the nsc commands the same lists.
func TestPermissionsAsJSONAndNSC(t *testing.T) {
	users := TeamUsers("t", map[string][]string{"box1": {"far", "near"}})
	var out bytes.Buffer
	if err := WriteJSON(&out, users); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d lines:\n%s", len(lines), out.String())
	}
	var node struct {
		User        string   `json:"user"`
		PasswordVar string   `json:"password_var"`
		Node        string   `json:"node"`
		Agents      []string `json:"agents"`
		Permissions struct {
			Pub  struct{ Allow []string }
			Sub  struct{ Allow []string }
			Resp *struct{ Max int }
		}
	}
	if err := json.Unmarshal([]byte(lines[1]), &node); err != nil {
		t.Fatal(err)
	}
	want := NodePermissions("t", "box1", []string{"far", "near"})
	if node.User != "node-box1" || node.PasswordVar != "NODE_BOX1_PASSWORD" || node.Node != "box1" || strings.Join(node.Agents, ",") != "far,near" ||
		strings.Join(node.Permissions.Pub.Allow, " ") != strings.Join(want.Publish, " ") ||
		strings.Join(node.Permissions.Sub.Allow, " ") != strings.Join(want.Subscribe, " ") ||
		node.Permissions.Resp == nil || node.Permissions.Resp.Max != 1 {
		t.Fatalf("node line: %s", lines[1])
	}
	if !strings.Contains(lines[0], `"user":"console"`) {
		t.Fatalf("console line: %s", lines[0])
	}
	out.Reset()
	if err := WriteNSC(&out, "TEAM", users[1:]); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); !strings.HasPrefix(s, "nsc add user --name 'node-box1' --account 'TEAM'") ||
		!strings.Contains(s, "--allow-pub '"+strings.Join(want.Publish, ",")+"'") ||
		!strings.Contains(s, "--allow-sub '"+strings.Join(want.Subscribe, ",")+"'") || !strings.Contains(s, "--allow-pub-response=1") {
		t.Fatalf("nsc:\n%s", s)
	}
}
