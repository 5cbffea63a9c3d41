package natsbus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// What is not kept travels on plain NATS subjects: the console's requests
// to a node about an agent (keys typed in focus mode, a resize, its turn),
// and the nodes' presence. A request lost with a node is answered by an
// error; a node whose presence stops is shown unreachable. (The agents'
// screens need no subject: the console draws them from their output
// events, with its own emulator.)

// Request is the console's request about an agent of a node.
type Request struct {
	Op   string `json:"op"` // keys, resize, busy, hold, stop, restart
	Keys []byte `json:"keys,omitempty"`
	Cols int    `json:"cols,omitempty"`
	Rows int    `json:"rows,omitempty"`
	On   bool   `json:"on,omitempty"` // busy, hold
}

type reply struct {
	Err string `json:"err,omitempty"`
}

// requestWait bounds the wait for a node's answer.
const requestWait = 3 * time.Second

// ErrUnreachable: no node answered for the agent.
var ErrUnreachable = errors.New("its node is unreachable")

func (l linkNames) controlSubject(agent string) string {
	return "teamlead." + l.team + ".ctl." + token(agent)
}

func (l linkNames) presenceSubject(node string) string {
	return "teamlead." + l.team + ".node." + token(node)
}

// Control asks agent's node to do r and returns its answer.
func (c *Console) Control(ctx context.Context, agent string, r Request) error {
	data, _ := json.Marshal(r)
	ctx, cancel := context.WithTimeout(ctx, requestWait)
	defer cancel()
	msg, err := c.js.Conn().RequestWithContext(ctx, c.l.controlSubject(agent), data)
	if err != nil {
		return fmt.Errorf("%s: %w (%v)", agent, ErrUnreachable, err)
	}
	var rep reply
	if err := json.Unmarshal(msg.Data, &rep); err != nil {
		return fmt.Errorf("%s: its node answered %q", agent, msg.Data)
	}
	if rep.Err != "" {
		return errors.New(rep.Err)
	}
	return nil
}

// Serve answers the console's requests about agent with do until ctx ends.
func (n *Node) Serve(ctx context.Context, agent string, do func(Request) error) error {
	sub, err := n.js.Conn().Subscribe(n.l.controlSubject(agent), func(m *nats.Msg) {
		var r Request
		var rep reply
		if err := json.Unmarshal(m.Data, &r); err != nil {
			rep.Err = "not a request: " + err.Error()
		} else if err := do(r); err != nil {
			rep.Err = err.Error()
		}
		b, _ := json.Marshal(rep)
		_ = m.Respond(b)
	})
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = sub.Unsubscribe()
	}()
	return n.js.Conn().Flush() // the server has the subscription before the node says it runs
}

// Presence is a node's word that it runs, and which agents.
type Presence struct {
	Node   string    `json:"node"`
	Agents []string  `json:"agents"`
	Time   time.Time `json:"time"`
}

// PresenceEvery is how often a node says it runs; a node not heard from
// for three times as long is unreachable.
const PresenceEvery = 2 * time.Second

// Announce says the node runs agents, now and every PresenceEvery until
// ctx ends.
func (n *Node) Announce(ctx context.Context, agents []string) {
	send := func() {
		b, _ := json.Marshal(Presence{Node: n.name, Agents: agents, Time: time.Now()})
		_ = n.js.Conn().Publish(n.l.presenceSubject(n.name), b)
	}
	send()
	go func() {
		t := time.NewTicker(PresenceEvery)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				send()
			}
		}
	}()
}

// Nodes follows the nodes' presence.
type Nodes struct {
	mu   sync.Mutex
	seen map[string]Presence
	at   map[string]time.Time
	sub  *nats.Subscription
	now  func() time.Time
}

// Nodes follows the nodes' presence until Close.
func (c *Console) Nodes() (*Nodes, error) {
	ns := &Nodes{seen: map[string]Presence{}, at: map[string]time.Time{}, now: time.Now}
	sub, err := c.js.Conn().Subscribe("teamlead."+c.l.team+".node.*", func(m *nats.Msg) {
		var p Presence
		if json.Unmarshal(m.Data, &p) != nil {
			return
		}
		ns.mu.Lock()
		ns.seen[p.Node], ns.at[p.Node] = p, ns.now()
		ns.mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	ns.sub = sub
	return ns, c.js.Conn().Flush()
}

// Reachable reports whether node was heard from lately.
func (ns *Nodes) Reachable(node string) bool {
	ns.mu.Lock()
	defer ns.mu.Unlock()
	at, ok := ns.at[node]
	return ok && ns.now().Sub(at) < 3*PresenceEvery
}

// Close stops following.
func (ns *Nodes) Close() { _ = ns.sub.Unsubscribe() }

// An agent on a node reaches its console's socket (teamlead ask, a CLI's
// hook asking permission, the MCP tools) through its node: the node's own
// socket tells which of its agents a process belongs to, and passes the
// request on a subject that names the node and the agent; the console
// answers it as from that agent, if the agent's host: is that node.

func (l linkNames) doorSubject(node, agent string) string {
	return "teamlead." + l.team + ".door." + token(node) + "." + token(agent)
}

// doorWait bounds the wait for the console's answer: a permission request
// waits for the human up to the team's own limit, which is shorter.
const doorWait = 24 * time.Hour

// Door passes agent's request to the console and returns its answer.
func (n *Node) Door(ctx context.Context, agent string, req []byte) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, doorWait)
	defer cancel()
	msg, err := n.js.Conn().RequestWithContext(ctx, n.l.doorSubject(n.name, agent), req)
	if err != nil {
		return nil, fmt.Errorf("the team's console did not answer: %w", err)
	}
	return msg.Data, nil
}

// Doors answers the requests of the nodes' agents with answer until ctx
// ends, each in a goroutine of its own (a permission waits for the human).
// answer gets the node and the agent as their subject tokens name them:
// Token(name) is how a name is written there. A request whose reply
// subject is not under its node's inbox is not answered, nor even read:
// refuse is told of it (the console's user may publish the team's
// records, journal, questions and deliveries, and a node could name any
// of them; red team 14c, finding 3).
func (c *Console) Doors(ctx context.Context, answer func(node, agent string, req []byte) []byte, refuse func(node, agent, reply string)) error {
	prefix := "teamlead." + c.l.team + ".door."
	sub, err := c.js.Conn().Subscribe(prefix+"*.*", func(m *nats.Msg) {
		node, agent, ok := strings.Cut(strings.TrimPrefix(m.Subject, prefix), ".")
		if !ok || m.Reply == "" {
			return
		}
		if !underInbox(m.Reply, nodeInbox(c.l.team, node)) {
			refuse(node, agent, m.Reply)
			return
		}
		go func() { _ = m.Respond(answer(node, agent, m.Data)) }()
	})
	if err != nil {
		return err
	}
	go func() {
		<-ctx.Done()
		_ = sub.Unsubscribe()
	}()
	return c.js.Conn().Flush()
}

// underInbox reports whether reply is a plain subject below inbox: one
// the inbox's owner alone may read, and no wildcard.
func underInbox(reply, inbox string) bool {
	rest, ok := strings.CutPrefix(reply, inbox+".")
	if !ok {
		return false
	}
	for _, tok := range strings.Split(rest, ".") {
		if tok == "" || tok == "*" || tok == ">" || strings.ContainsAny(tok, " \t\r\n") {
			return false
		}
	}
	return true
}

// Token is how name is written as one token of a subject.
func Token(name string) string { return token(name) }
