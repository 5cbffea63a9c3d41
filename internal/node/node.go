// Package node runs the agents of one machine for a console on another
// (`teamlead node`): the agents whose host: names this node. Their
// processes, PTYs and the typing into them are here; what they write goes
// to the console over NATS as events, in order, and the console parses,
// shows and relays it as for its own agents; the deliveries the console
// sends are typed here and confirmed once the agent read them.
package node

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/launch"
	"github.com/teamlead/teamlead/internal/vt"
)

// Options configure a node.
type Options struct {
	// Name is the node's name: the agents whose host: is Name run here.
	Name string
	// Team is the team file, as the console's.
	Team *config.Team
	// TeamName is the team's name on NATS (bus.name).
	TeamName string
	// Conn is the connection to the team's NATS server.
	Conn *nats.Conn
	// Epoch names this run of the node (event ids are unique within it).
	Epoch string
	// Protect are files no agent may change (the team file, the node's state).
	Protect []string
	// State is the node's state folder: its socket, through which its
	// agents reach the console (teamlead ask, hooks, MCP tools), is there.
	State string
	// Warn receives what the node's operator should know.
	Warn func(string)
	// Enter, when set, records the node in the registry (control.Enter)
	// once its socket serves protect, before it waits for the console and
	// starts its agents; it returns more paths they keep read-only. Its
	// error stops the node.
	Enter func() ([]string, error)
}

// maxChunk bounds one output event.
const maxChunk = 64 << 10

// Run runs the node's agents until ctx ends, then stops them.
func Run(ctx context.Context, o Options) error {
	var mine []config.Agent
	for _, a := range o.Team.Agents {
		if a.Host == o.Name {
			mine = append(mine, a)
		}
	}
	if len(mine) == 0 {
		return fmt.Errorf("no agent of the team has host: %s: give the node the name its agents' host: says", o.Name)
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	var n *natsbus.Node
	var linked sync.Mutex // n, once the console made the link
	var names []string
	var running []*local
	var runMu sync.Mutex
	var more []string // protected since the node started (the door's protect)
	var socket string
	if o.State != "" {
		// Serving protect before the node records itself: a console or
		// node that reads the record asks it (control.Enter).
		door, err := control.ListenDoor(o.State, func(sid int) string {
			runMu.Lock()
			defer runMu.Unlock()
			for _, l := range running {
				if info := l.a.Info(); sid > 0 && info.Pid == sid && info.State == wire.StateRunning {
					return l.name
				}
			}
			return ""
		}, func(agent string, req []byte) ([]byte, error) {
			linked.Lock()
			link := n
			linked.Unlock()
			if link == nil {
				return nil, errors.New("the node is not linked to the team's console yet")
			}
			return link.Door(ctx, agent, req)
		}, func(protect, hide []string) error {
			// As a console does (engine.ProtectMore): in every sandbox of
			// the node's agents, running now or started later.
			agents.KeepSecret(hide...)
			runMu.Lock()
			defer runMu.Unlock()
			more = append(more, protect...)
			var errs []error
			for _, l := range running {
				if err := l.a.ProtectMore(protect, hide); err != nil {
					errs = append(errs, fmt.Errorf("%s: %w", l.name, err))
				}
			}
			return errors.Join(errs...)
		})
		if err != nil {
			return err
		}
		defer door.Close()
		socket = door.Path()
	}
	if o.Enter != nil {
		more, err := o.Enter()
		if err != nil {
			return err
		}
		o.Protect = append(append([]string(nil), o.Protect...), more...)
	}
	// The console makes the link: a node started first waits for it.
	for told := false; ; {
		link, err := natsbus.OpenNode(ctx, o.Conn, o.TeamName, o.Name, o.Epoch)
		if err == nil {
			linked.Lock()
			n = link
			linked.Unlock()
			break
		}
		if !told {
			o.Warn(fmt.Sprintf("waiting for the team's console: %v", err))
			told = true
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(2 * time.Second):
		}
	}
	rep := &reporter{n: n}
	// Its agents get the doors they would have on the console's machine:
	// their primer, hooks and teamlead's tools, through the node's socket.
	launcher := &launch.Launcher{Team: o.Team, Socket: socket, Warn: o.Warn, OnError: func(err error) { o.Warn(err.Error()) }}
	if o.State != "" {
		launcher.MCP = filepath.Join(o.State, "mcp")
	}
	for _, a := range mine {
		// Under the lock: a protect asked meanwhile reaches this agent
		// either in its Protect or through ProtectMore.
		runMu.Lock()
		oa := o
		oa.Protect = append(append([]string(nil), o.Protect...), more...)
		l, err := start(ctx, oa, n, rep, a, launcher)
		if err == nil {
			running = append(running, l)
		}
		runMu.Unlock()
		if err != nil {
			for _, r := range running {
				r.a.Stop()
			}
			return fmt.Errorf("%s: %w", a.Name, err)
		}
		names = append(names, a.Name)
	}
	n.Announce(ctx, names)
	<-ctx.Done()
	var wg sync.WaitGroup
	for _, l := range running {
		wg.Add(1)
		go func(l *local) { defer wg.Done(); l.a.Stop(); <-l.a.Done(); l.send() }(l)
	}
	wg.Wait()
	return nil
}

// reporter publishes the node's events one at a time: they keep their order.
type reporter struct {
	mu sync.Mutex
	n  *natsbus.Node
}

// report publishes an event, trying again while the server is away,
// until ctx ends.
func (r *reporter) report(ctx context.Context, agent, kind string, data any) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		pctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err := r.n.Report(pctx, agent, kind, data)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Second):
		}
	}
}

// local is one agent of the node.
type local struct {
	name string
	a    *agents.Agent
	term *vt.Terminal
	rep  *reporter
	ctx  context.Context

	mu      sync.Mutex
	pending []byte
	sending sync.Mutex // one sender at a time: the pump, or a state change's flush
	wake    chan struct{}
	done    chan struct{}
	read    readIDs // deliveries the agent read in this run of the node
}

// readIDs are the ids of the deliveries an agent read, the latest
// maxReadIDs of them: one offered again (the server's copy was never
// acknowledged, as the console's server was away when the agent read it,
// and JetStream offers it again every deliverAckWait) is confirmed again,
// not typed again. Typed again each time, one message reached the agent
// four times across a console's restart under load.
type readIDs struct {
	seen  map[uint64]bool
	order []uint64
}

const maxReadIDs = 4096

func (r *readIDs) has(id uint64) bool { return r.seen[id] }

func (r *readIDs) add(id uint64) {
	if r.seen == nil {
		r.seen = map[uint64]bool{}
	}
	if r.seen[id] {
		return
	}
	r.seen[id] = true
	r.order = append(r.order, id)
	if len(r.order) > maxReadIDs {
		delete(r.seen, r.order[0])
		r.order = r.order[1:]
	}
}

// start starts agent a here: its primer, its process, its output pump,
// its deliveries and the console's requests about it.
func start(ctx context.Context, o Options, n *natsbus.Node, rep *reporter, a config.Agent, launcher *launch.Launcher) (*local, error) {
	p := o.Team.Resolved[a.Name]
	launcher.Prepare(a)
	command := launcher.Command(a)
	cols, rows := a.Cols, a.Rows
	if cols <= 0 {
		cols = 120
	}
	if rows <= 0 {
		rows = 40
	}
	l := &local{name: a.Name, rep: rep, ctx: ctx, wake: make(chan struct{}, 1), done: make(chan struct{})}
	ready := make(chan struct{})
	// The program's terminal queries (cursor position, colours) are
	// answered here, by an emulator of the node's own: the console's copy
	// of the screen is far away.
	l.term = vt.New(cols, rows, vt.Options{Scrollback: 100, NoKittyKeyboard: true, Reply: writerFunc(func(b []byte) (int, error) {
		<-ready
		return l.a.Write(b)
	})})
	spec := agents.Spec{
		Name: a.Name, Command: command, Dir: a.Dir, Env: launcher.Env(a),
		Cols: uint16(cols), Rows: uint16(rows), Restart: agents.RestartPolicy(a.Restart),
		Preset: agents.Preset{Name: a.Preset, Submit: p.Submit, Newline: p.Newline, SubmitDelay: p.SubmitDelay,
			LineDelay: p.LineDelay, Paste: agents.PasteMode(p.Paste), ReadyTimeout: p.ReadyTimeout, Parse: a.Parse,
			SubmitRetries: p.SubmitRetries, AcksWithNext: p.Acks == config.AcksWithNext},
		Isolation: agents.Isolation(a.Isolation), Protect: o.Protect,
	}
	go l.pump()
	l.a = agents.Start(spec, l)
	close(ready)
	ds, err := n.Deliveries(ctx, a.Name)
	if err != nil {
		l.a.Stop()
		return nil, err
	}
	go l.deliver(ds)
	err = n.Serve(ctx, a.Name, func(r natsbus.Request) error {
		switch r.Op {
		case "keys":
			_, err := l.a.Write(r.Keys)
			return err
		case "resize":
			if r.Cols < 1 || r.Rows < 1 || r.Cols > 1000 || r.Rows > 1000 {
				return errors.New("resize: a size between 1 and 1000")
			}
			l.term.Resize(r.Cols, r.Rows)
			return l.a.Resize(uint16(r.Cols), uint16(r.Rows))
		case "busy":
			l.a.Busy(r.On)
		case "hold":
			l.a.Hold(r.On)
		default:
			return fmt.Errorf("%q: not a request this node takes", r.Op)
		}
		return nil
	})
	if err != nil {
		l.a.Stop()
		return nil, err
	}
	return l, nil
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Output takes a chunk of the agent's output (agents.Sink).
func (l *local) Output(_ string, data []byte) {
	_, _ = l.term.Write(data)
	l.mu.Lock()
	l.pending = append(l.pending, data...)
	l.mu.Unlock()
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// Echo reports the echo drawn for what was typed (agents.EchoSink), in
// its place among the output: the console shows it and never parses it.
func (l *local) Echo(_ string, data []byte) {
	_, _ = l.term.Write(data)
	l.send()
	_ = l.rep.report(l.ctx, l.name, wire.NodeEcho, wire.NodeOutputEvent{Data: append([]byte(nil), data...)})
}

// State reports a state change (agents.Sink), after the output before it.
// The stop of a node's shutdown is not reported: the agent runs again
// with the node, and messages for it wait until then.
func (l *local) State(ev agents.StateEvent) {
	l.send()
	if l.ctx.Err() != nil {
		return
	}
	if err := l.rep.report(l.ctx, l.name, wire.NodeState, ev); err != nil {
		return
	}
}

// pump sends the output as it comes, a chunk at a time: what piles up
// while one is sent goes in the next.
func (l *local) pump() {
	defer close(l.done)
	for {
		select {
		case <-l.wake:
		case <-l.ctx.Done():
			l.send()
			return
		}
		l.send()
	}
}

// send reports what output waits, in chunks of maxChunk.
func (l *local) send() {
	l.sending.Lock()
	defer l.sending.Unlock()
	for {
		l.mu.Lock()
		chunk := l.pending[:min(len(l.pending), maxChunk)]
		l.mu.Unlock()
		if len(chunk) == 0 {
			return
		}
		if err := l.rep.report(l.ctx, l.name, wire.NodeOutput, wire.NodeOutputEvent{Data: chunk}); err != nil {
			return
		}
		l.mu.Lock()
		l.pending = append([]byte(nil), l.pending[len(chunk):]...)
		l.mu.Unlock()
	}
}

// deliver types each delivery the console sends, one at a time, and
// confirms it once the agent read it: the server keeps it (and offers it
// again to the next run of the node) until then.
func (l *local) deliver(ds <-chan natsbus.Delivery) {
	for d := range ds {
		read := make(chan error, 1)
		if d.ID != 0 && l.read.has(d.ID) {
			read <- nil // read already: confirm it, type nothing
		} else {
			l.a.TypeAs(d.Typing(), d.Text, func(err error) { read <- err })
		}
		tick := time.NewTicker(natsbus.WaitingEvery)
	wait:
		for {
			select {
			case err := <-read:
				ev := wire.NodeDeliveryEvent{ID: d.ID}
				kind := wire.NodeDelivered
				if err != nil {
					kind, ev.Reason = wire.NodeUndelivered, err.Error()
				} else if d.ID != 0 {
					l.read.add(d.ID)
				}
				if l.rep.report(l.ctx, l.name, kind, ev) == nil {
					_ = d.Done()
				}
				break wait
			case <-tick.C:
				_ = d.Waiting() // still waiting for the agent's turn to end
			case <-l.ctx.Done():
				break wait
			}
		}
		tick.Stop()
	}
}
