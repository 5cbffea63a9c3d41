package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/teamlead/teamlead/agents"

	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/store"
)

// natsURL is the NATS server a command uses: --nats, else TEAMLEAD_NATS,
// else the team file's bus.nats.
func natsURL(flag string, team *config.Team) string {
	switch {
	case flag != "":
		return flag
	case os.Getenv("TEAMLEAD_NATS") != "":
		return os.Getenv("TEAMLEAD_NATS")
	case team != nil:
		return team.Bus.NATS
	}
	return ""
}

// epochKey is the store's name on the team's stream (natsbus.NewEpoch).
const epochKey = "bus/epoch"

// storeEpoch returns the store's epoch, made on first use.
func storeEpoch(st *store.Store) (string, error) {
	if e, ok, err := st.Meta(epochKey); err != nil || ok {
		return e, err
	}
	e := natsbus.NewEpoch()
	return e, st.Commit(&store.Batch{Meta: map[string]string{epochKey: e}})
}

// serverToken is the token of the console's own NATS server: kept in the
// state folder's secrets (which no agent's sandbox shows), the same across
// restarts so that other machines keep their URL.
func serverToken(dir string) (string, error) {
	path := filepath.Join(dir, "nats-token")
	if b, err := fsutil.ReadRegular(path); err == nil && len(strings.TrimSpace(string(b))) >= 32 {
		return strings.TrimSpace(string(b)), nil
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("NATS token %s: %w", path, err)
	}
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	tok := hex.EncodeToString(b)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	return tok, fsutil.WriteFileAtomic(path, []byte(tok+"\n"), 0o600)
}

// natsConn is the console's NATS: the server inside it (--nats-listen),
// if any, and its connection. It is made before the engine, so that a
// store that is missing can be rebuilt from the stream first (rebuild.go).
type natsConn struct {
	srv   *natsbus.Server
	nc    *nats.Conn
	url   string   // as given, secrets and all
	notes []string // for Activity, once the engine runs
	// eng is the engine once it runs: what the server refuses goes to its
	// Activity (before, to stderr).
	eng atomic.Pointer[engine.Engine]
}

// close stops the connection and the server.
func (c *natsConn) close() {
	c.nc.Close()
	if c.srv != nil {
		c.srv.Close()
	}
}

// openNATS connects to the NATS server the team file, --nats or
// TEAMLEAD_NATS names, or starts one inside the console with
// --nats-listen (or bus.listen); nil when there is none. A server that
// cannot be reached is not fatal: the connection keeps trying.
func openNATS(g *globals, f *runFlags, team *config.Team) (*natsConn, error) {
	url := natsURL(f.nats, team)
	listen := f.natsListen
	if listen == "" {
		listen = team.Bus.Listen
	}
	if err := config.CheckNATSURL(url); err != nil {
		return nil, fmt.Errorf("--nats: %w", err)
	}
	if err := config.CheckListen(listen); err != nil {
		return nil, fmt.Errorf("--nats-listen: %w", err)
	}
	if url == "" && listen == "" {
		return nil, nil
	}
	c := &natsConn{}
	if listen != "" {
		dir := filepath.Join(g.state, agents.NATSDir)
		secrets := filepath.Join(g.state, agents.SecretsDir)
		tok, err := serverToken(secrets)
		if err != nil {
			return nil, err
		}
		nodes, err := nodePasswords(secrets, team)
		if err != nil {
			return nil, err
		}
		if c.srv, err = natsbus.ServeTeam(listen, dir, tok, team.Bus.Name, nodes); err != nil {
			return nil, err
		}
		if url == "" {
			url = c.srv.URL()
		}
		// The token stays out of the records: they are published, and
		// agents may read the audit.
		urlFile := filepath.Join(secrets, "nats-url")
		if err := fsutil.WriteFileAtomic(urlFile, []byte("nats://"+tok+"@HOST:"+portOf(c.srv.Addr().String())+"\n"), 0o600); err != nil {
			c.srv.Close()
			return nil, err
		}
		c.notes = append(c.notes, fmt.Sprintf("NATS server with JetStream listening on %s (its files in %s); other machines connect with the URL in %s, HOST replaced by this machine's address",
			c.srv.Addr(), dir, urlFile))
		for name, n := range nodes {
			nodeFile := filepath.Join(secrets, "nodes", name+".url")
			u := "nats://" + natsbus.NodeUser(name) + ":" + n.Password + "@HOST:" + portOf(c.srv.Addr().String()) + "\n"
			if err := fsutil.WriteFileAtomic(nodeFile, []byte(u), 0o600); err != nil {
				c.srv.Close()
				return nil, err
			}
			c.notes = append(c.notes, fmt.Sprintf("node %s (running %s) connects with the URL in %s: it may only run its own agents", name, strings.Join(n.Agents, ", "), nodeFile))
		}
	}
	refused := onceEach(func(err string) {
		msg := fmt.Sprintf("NATS: %s (teamlead nats-permissions prints what the console's user needs)", err)
		if eng := c.eng.Load(); eng != nil {
			eng.Warn(msg)
		} else {
			fmt.Fprintln(os.Stderr, "teamlead:", msg)
		}
	})
	nc, err := natsbus.Connect(natsbus.Config{URL: url, Creds: team.Bus.Creds, Name: "teamlead console of " + team.Bus.Name, Wait: true, OnError: refused,
		TLS: natsbus.TLS{CA: team.Bus.TLS.CA, Cert: team.Bus.TLS.Cert, Key: team.Bus.TLS.Key}})
	if err != nil {
		if c.srv != nil {
			c.srv.Close()
		}
		return nil, err
	}
	c.nc, c.url = nc, url
	return c, nil
}

// startNATS publishes the team's records on the connection openNATS made
// (nil: no NATS, nothing to do), and links the console with its nodes. It
// returns what stops it, the connection and the server included; a server
// that cannot be reached is not fatal: the records wait in the store,
// Activity says so, and they are published when it is back.
func startNATS(c *natsConn, team *config.Team, st *store.Store, eng *engine.Engine, link *nodeLink) (func(), error) {
	if c == nil {
		return func() {}, nil
	}
	c.eng.Store(eng)
	for _, n := range c.notes {
		eng.Warn(n)
	}
	epoch, err := storeEpoch(st)
	if err != nil {
		c.close()
		return nil, err
	}
	m, err := natsbus.StartMirror(c.nc, team.Bus.Name, epoch, st)
	if err != nil {
		c.close()
		return nil, err
	}
	done := make(chan struct{})
	if len(remoteAgents(team)) > 0 {
		if err := followNodes(eng, link, c.nc, team, done); err != nil {
			close(done)
			m.Close(0)
			c.close()
			return nil, fmt.Errorf("the link with the nodes: %w", err)
		}
	}
	go m.WakeOnCommit(eng.Bus(), st.LastSeq(), done)
	go reportMirror(eng, m, natsbus.Redact(c.url), done)
	return func() {
		close(done)
		m.Close(3 * time.Second)
		c.close()
	}, nil
}

// reportMirror tells Activity when publishing to NATS stops working, and
// when it works again.
func reportMirror(eng *engine.Engine, m *natsbus.Mirror, url string, done <-chan struct{}) {
	tick := time.NewTicker(2 * time.Second)
	defer tick.Stop()
	failing := false
	for {
		select {
		case <-done:
			return
		case <-tick.C:
		}
		switch err := m.Err(); {
		case err != nil && !failing:
			failing = true
			eng.Warn(fmt.Sprintf("NATS at %s: %v; the team's records wait in the store and are published when it is back", url, err))
		case err == nil && failing:
			failing = false
			eng.Warn(fmt.Sprintf("NATS at %s works again: records up to %d published", url, m.Published()))
		}
	}
}

// onceEach calls say once for each error a NATS connection reports (a
// refused permission is reported again at every retry).
func onceEach(say func(string)) func(error) {
	var mu sync.Mutex
	seen := map[string]bool{}
	return func(err error) {
		msg := err.Error()
		mu.Lock()
		first := !seen[msg] && len(seen) < 100 // a bound, should they all differ
		if first {
			seen[msg] = true
		}
		mu.Unlock()
		if first {
			say(msg)
		}
	}
}

func portOf(addr string) string {
	if i := strings.LastIndexByte(addr, ':'); i >= 0 {
		return addr[i+1:]
	}
	return addr
}

// teamNATS connects to the NATS server of --nats (else the team file's
// bus, else TEAMLEAD_NATS) and returns the team's name there (--team, else
// the team file's bus.name).
func teamNATS(g *globals, natsFlag, teamFlag, client string) (*nats.Conn, string, error) {
	name := teamFlag
	var team *config.Team
	if name == "" {
		t, err := config.LoadTeam(g.config)
		if err != nil {
			return nil, "", fmt.Errorf("--nats needs the team's name: give --team NAME, or --config with the team file (%v)", err)
		}
		team, name = t, t.Bus.Name
	}
	url := natsURL(natsFlag, team)
	if err := config.CheckNATSURL(url); err != nil {
		return nil, "", fmt.Errorf("--nats: %w", err)
	}
	cfg := natsbus.Config{URL: url, Name: client}
	if team != nil {
		cfg.Creds, cfg.TLS = team.Bus.Creds, natsbus.TLS{CA: team.Bus.TLS.CA, Cert: team.Bus.TLS.Cert, Key: team.Bus.TLS.Key}
	}
	nc, err := natsbus.Connect(cfg)
	return nc, name, err
}

// questionsNATS reads the team's questions from its bucket on NATS.
func questionsNATS(ctx context.Context, g *globals, natsFlag, teamFlag, status, id string) ([]questions.Question, error) {
	nc, name, err := teamNATS(g, natsFlag, teamFlag, "teamlead questions")
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	states, err := natsbus.Questions(ctx, js, name)
	if err != nil {
		return nil, err
	}
	var out []questions.Question
	for _, s := range states {
		if id != "" && s.ID != id || id == "" && status != "all" && s.Status != status {
			continue
		}
		q := questions.Question{ID: s.ID, Topic: s.Topic, Text: s.Text, Urgency: s.Urgency, Asker: s.Asker, Task: s.Task,
			Status: questions.Status(s.Status), Answerer: s.Answerer, Created: s.Created, AssignedAt: s.Created, Answer: s.Answer}
		if s.Status == string(questions.Answered) {
			q.AnsweredAt = s.Updated
		}
		q.Deadline, _ = time.Parse(time.RFC3339Nano, s.Deadline)
		out = append(out, q)
	}
	return out, nil
}

// auditNATS prints the team's records from its stream on NATS: the ones
// there now, and with --follow the ones that come after.
func auditNATS(ctx context.Context, g *globals, f *auditFlags, q store.Query, write func(store.Record) error, flush func() error) error {
	if q.Reverse {
		return errors.New("--newest reads the store; with --nats records come oldest first")
	}
	nc, name, err := teamNATS(g, f.nats, f.team, "teamlead audit")
	if err != nil {
		return err
	}
	defer nc.Close()
	if ctx == nil {
		ctx = context.Background()
	}
	b, err := natsbus.Open(ctx, nc, name, "", nil)
	if err != nil {
		return err
	}
	last, err := b.LastSeq(ctx)
	if err != nil {
		return err
	}
	if !f.follow && last == 0 {
		return nil
	}
	sub := b.Subscribe(">", 0)
	defer sub.Close()
	n := 0
	for {
		var r store.Record
		var ok bool
		select {
		case r, ok = <-sub.C:
		case <-ctx.Done():
			return nil
		}
		if !ok {
			return nil
		}
		if r.Kind == natsbus.KindError {
			return errors.New(r.Body)
		}
		if q.Match(&r) && (q.Limit == 0 || n < q.Limit) {
			n++
			if err := write(r); err != nil {
				return err
			}
			if f.follow {
				if err := flush(); err != nil {
					return err
				}
			}
		}
		if !f.follow && (r.Seq >= last || q.Limit > 0 && n >= q.Limit) {
			return nil
		}
	}
}

// nodePasswords gives each node of the team (its agents' host:) a
// password of its own, kept in the state folder's secrets like the
// console's token, the same across restarts.
func nodePasswords(secrets string, team *config.Team) (map[string]natsbus.NodeAuth, error) {
	nodes := map[string]natsbus.NodeAuth{}
	for agent, host := range remoteAgents(team) {
		n := nodes[host]
		n.Agents = append(n.Agents, agent)
		nodes[host] = n
	}
	for host, n := range nodes {
		pass, err := serverToken(filepath.Join(secrets, "nodes", host))
		if err != nil {
			return nil, err
		}
		sort.Strings(n.Agents)
		n.Password = pass
		nodes[host] = n
	}
	return nodes, nil
}

// remoteAgents lists the agents of the team that run on a node, with it.
func remoteAgents(team *config.Team) map[string]string {
	out := map[string]string{}
	for _, a := range team.Agents {
		if a.Host != "" {
			out[a.Name] = a.Host
		}
	}
	return out
}

// nodeLink is the engine's link with its nodes (engine.Remote): it waits
// for the connection startNATS makes, and refuses (the engine tries
// again) until then.
type nodeLink struct {
	mu    sync.Mutex
	con   *natsbus.Console
	nodes *natsbus.Nodes
	// door answers a node's agent's request to the control socket
	// (control.Server.Door), once the socket is open.
	door func(node, agent string, req []byte) []byte
}

// setDoor gives the link the control socket's door for nodes' agents.
func (l *nodeLink) setDoor(door func(node, agent string, req []byte) []byte) {
	l.mu.Lock()
	l.door = door
	l.mu.Unlock()
}

// answerDoor answers a request a node passed from one of its agents
// (named as subject tokens): only for an agent whose host: is that node.
func (l *nodeLink) answerDoor(team *config.Team, nodeTok, agentTok string, req []byte) []byte {
	fail := func(msg string) []byte {
		b, _ := json.Marshal(control.Reply{Error: msg, End: true})
		return append(b, '\n')
	}
	for _, a := range team.Agents {
		if a.Host == "" || natsbus.Token(a.Name) != agentTok {
			continue
		}
		if natsbus.Token(a.Host) != nodeTok {
			return fail("refused: agent " + a.Name + " runs on node " + a.Host + ", not on the node that asked")
		}
		l.mu.Lock()
		door := l.door
		l.mu.Unlock()
		if door == nil {
			return fail("the console is still starting: try again in a moment")
		}
		return door(a.Host, a.Name, req)
	}
	return fail("refused: no agent of the team runs on that node by that name")
}

// refuseDoorReply records a node's request that named a reply subject
// outside the node's own inbox (the team's records, another agent's
// deliveries…): not answered, and shown to the human as a refusal.
func refuseDoorReply(eng *engine.Engine, team *config.Team, nodeTok, agentTok, reply string) {
	agent := ""
	for _, a := range team.Agents {
		if a.Host != "" && natsbus.Token(a.Name) == agentTok && natsbus.Token(a.Host) == nodeTok {
			agent = a.Name
		}
	}
	inbox := natsbus.InboxOfToken(team.Bus.Name, nodeTok)
	eng.Impersonation(agent, "answer a request through node "+nodeTok+" on "+reply,
		"its reply subject is outside the node's inbox ("+inbox+".>): the console answers there only",
		map[string]string{"node": nodeTok, "reply": reply})
}

func (l *nodeLink) Reachable(node string) bool {
	l.mu.Lock()
	ns := l.nodes
	l.mu.Unlock()
	return ns != nil && ns.Reachable(node)
}

var errNoLink = errors.New("not connected to NATS yet")

func (l *nodeLink) console() *natsbus.Console {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.con
}

func (l *nodeLink) Deliver(d store.Delivery) error {
	c := l.console()
	if c == nil {
		return errNoLink
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Deliver(ctx, d)
}

func (l *nodeLink) Control(agent string, r engine.RemoteControl) error {
	c := l.console()
	if c == nil {
		return errNoLink
	}
	return c.Control(context.Background(), agent, natsbus.Request{Op: r.Op, Keys: r.Keys, Cols: r.Cols, Rows: r.Rows, On: r.On})
}

// followNodes opens the link with the nodes on nc and gives the engine
// every event they report, each once, until done: an event about an agent
// that is not the reporting node's is refused and shown.
func followNodes(eng *engine.Engine, link *nodeLink, nc *nats.Conn, team *config.Team, done <-chan struct{}) error {
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-done; cancel() }()
	con, err := natsbus.OpenConsole(ctx, nc, team.Bus.Name)
	if err != nil {
		cancel()
		return err
	}
	evs, err := con.Events(ctx)
	if err != nil {
		cancel()
		return err
	}
	nodes, err := con.Nodes()
	if err != nil {
		cancel()
		return err
	}
	go func() { <-done; nodes.Close() }()
	answer := func(node, agent string, req []byte) []byte { return link.answerDoor(team, node, agent, req) }
	refuse := func(node, agent, reply string) { refuseDoorReply(eng, team, node, agent, reply) }
	if err := con.Doors(ctx, answer, refuse); err != nil {
		cancel()
		return err
	}
	link.mu.Lock()
	link.con, link.nodes = con, nodes
	link.mu.Unlock()
	hosts := remoteAgents(team)
	go func() {
		type run struct {
			epoch string
			seq   uint64
		}
		last := map[string]run{} // per node: the newest event taken
		for ev := range evs {
			switch {
			case hosts[ev.Agent] != ev.Node:
				eng.Warn(fmt.Sprintf("node %q reported about %q, whose host: is %q: refused", ev.Node, ev.Agent, hosts[ev.Agent]))
			case last[ev.Node].epoch == ev.Epoch && ev.Seq <= last[ev.Node].seq:
				// offered again (its confirmation was late): taken already
			default:
				if err := eng.RemoteEvent(ev.Agent, ev.Kind, ev.Data); err != nil {
					eng.Warn(fmt.Sprintf("node %s, agent %s: %v", ev.Node, ev.Agent, err))
				}
				last[ev.Node] = run{ev.Epoch, ev.Seq}
			}
			_ = ev.Done()
		}
	}()
	return nil
}
