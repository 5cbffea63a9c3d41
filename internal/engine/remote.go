package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// Agents of another machine (an agent's host: in the team file): a node
// (`teamlead node`) runs their processes and types into them. Their
// output comes here as events and goes through the agent's sink as a
// local agent's does — its emulator for the screen, its parser, its
// dialog watch — and what the engine types into them goes to the node as
// deliveries, confirmed by the node once the agent read them.

// Remote is the console's side of the link with its nodes.
type Remote interface {
	// Deliver sends d to its agent's node (again after a restart: the
	// link keeps one copy per delivery id).
	Deliver(d store.Delivery) error
	// Control asks the agent's node to do c.
	Control(agent string, c RemoteControl) error
	// Reachable reports whether the node was heard from lately.
	Reachable(node string) bool
}

// RemoteControl is a request to a node about one of its agents.
type RemoteControl struct {
	Op   string `json:"op"` // keys, resize, busy, hold
	Keys []byte `json:"keys,omitempty"`
	Cols int    `json:"cols,omitempty"`
	Rows int    `json:"rows,omitempty"`
	On   bool   `json:"on,omitempty"`
}

// remoteAgent is an agent a node runs.
type remoteAgent struct {
	e    *Engine
	name string
	host string

	mu      sync.Mutex
	info    agents.Info
	pending map[uint64]func(error) // deliveries sent, waiting for the node's word
}

func newRemoteAgent(e *Engine, name, host string) *remoteAgent {
	return &remoteAgent{e: e, name: name, host: host, info: agents.Info{Name: name, State: wire.StateStarting},
		pending: map[uint64]func(error){}}
}

// Info is the agent as its node last reported it. Its process id is not
// given: it names a process of another machine, and a local process with
// the same id must never pass for the agent (AgentOfSession).
func (r *remoteAgent) Info() agents.Info {
	r.mu.Lock()
	defer r.mu.Unlock()
	i := r.info
	i.Pid = 0
	return i
}

func (r *remoteAgent) control(c RemoteControl) error {
	if r.e.opts.Remote == nil {
		return fmt.Errorf("%s runs on %s, and this console has no link to its nodes (bus: in the team file)", r.name, r.host)
	}
	return r.e.opts.Remote.Control(r.name, c)
}

func (r *remoteAgent) Write(p []byte) (int, error) {
	if err := r.control(RemoteControl{Op: "keys", Keys: p}); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (r *remoteAgent) Resize(cols, rows uint16) error {
	return r.control(RemoteControl{Op: "resize", Cols: int(cols), Rows: int(rows)})
}

func (r *remoteAgent) Busy(on bool) { _ = r.control(RemoteControl{Op: "busy", On: on}) }
func (r *remoteAgent) Hold(on bool) { _ = r.control(RemoteControl{Op: "hold", On: on}) }

// Stop leaves the agent to its node: a console that stops does not stop
// another machine's agents, and finds them again when it starts.
func (r *remoteAgent) Stop() {}

// remoteRetry is how often a delivery the link refused is sent again.
const remoteRetry = time.Second

// deliver sends d to the node and calls done once it says the agent read
// it (or never will). A delivery the link refuses (NATS away) is sent
// again until it takes it or the engine stops: it stays in the outbox.
func (r *remoteAgent) deliver(d store.Delivery, done func(error)) {
	r.mu.Lock()
	r.pending[d.ID] = done
	r.mu.Unlock()
	go func() {
		for {
			if r.e.opts.Remote == nil {
				r.settle(d.ID, fmt.Errorf("%s runs on %s, and this console has no link to its nodes", r.name, r.host))
				return
			}
			if err := r.e.opts.Remote.Deliver(d); err == nil {
				return
			}
			select {
			case <-time.After(remoteRetry):
			case <-r.e.quit:
				return
			}
		}
	}()
}

// settle calls the done of delivery id, once.
func (r *remoteAgent) settle(id uint64, err error) bool {
	r.mu.Lock()
	done, ok := r.pending[id]
	delete(r.pending, id)
	r.mu.Unlock()
	if ok {
		done(err)
	}
	return ok
}

// ErrNotRemote: a node reported about an agent that is not one of its.
var ErrNotRemote = errors.New("not an agent of a node")

// RemoteEvent takes an event a node reported about agent. Only an agent
// whose host: names a node is taken: a node cannot speak for the
// console's own agents (the link's subject permissions keep each node to
// its own agents too).
func (e *Engine) RemoteEvent(agent, kind string, data []byte) error {
	s := e.sinks[agent]
	if s == nil {
		return fmt.Errorf("%w: %q is not on the team", ErrNotRemote, agent)
	}
	r, ok := s.runner().(*remoteAgent)
	if !ok {
		return fmt.Errorf("%w: %q runs here", ErrNotRemote, agent)
	}
	switch kind {
	case wire.NodeOutput, wire.NodeEcho:
		var o wire.NodeOutputEvent
		if err := json.Unmarshal(data, &o); err != nil {
			return err
		}
		if kind == wire.NodeEcho {
			s.Echo(agent, o.Data) // what was typed: shown, not read as the agent's words
		} else {
			s.Output(agent, o.Data)
		}
	case wire.NodeState:
		var ev agents.StateEvent
		if err := json.Unmarshal(data, &ev); err != nil {
			return err
		}
		ev.Agent = agent
		ev.Pid = 0 // a process of the node's machine: never one of this one's
		r.mu.Lock()
		r.info.State, r.info.Restarts, r.info.ExitCode, r.info.Isolation = ev.State, ev.Restarts, ev.ExitCode, ev.Isolation
		if ev.State == wire.StateRunning {
			r.info.StartedAt = ev.Time
		}
		r.mu.Unlock()
		s.State(ev)
	case wire.NodeDelivered, wire.NodeUndelivered:
		var d wire.NodeDeliveryEvent
		if err := json.Unmarshal(data, &d); err != nil {
			return err
		}
		var err error
		if kind == wire.NodeUndelivered {
			err = fmt.Errorf("%s (on %s): %s", agent, r.host, d.Reason)
		}
		r.settle(d.ID, err)
	default:
		return fmt.Errorf("unknown event %q from %s's node", kind, agent)
	}
	return nil
}
