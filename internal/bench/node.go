package bench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/node"
	"github.com/teamlead/teamlead/internal/store"
)

// The figures on NATS and across nodes run the console in this process,
// as `teamlead run --nats-listen` runs it: a NATS server with JetStream
// inside it (ServeTeam, with a password per node), the store's Mirror
// publishing every record the engine commits, and for agents with a
// host: the link with their nodes. Each node is this binary again in the
// node role (see runNode), running internal/node as `teamlead node` does,
// in a process of its own; its agents are the benchmark's, on PTYs of the
// node's.

const (
	childNode = "node"

	envNode     = "TLBENCH_NODE"
	envNATS     = "TLBENCH_NATS"
	envTeamFile = "TLBENCH_TEAM"
)

// benchTeam is the team's name on NATS in the benchmark.
const benchTeam = "tlbench"

// nodeName names node i of the benchmark.
func nodeName(i int) string { return fmt.Sprintf("node%d", i+1) }

// runNode is a node of the benchmark: what `teamlead node --name NAME`
// runs (node.Run over the team file, on the team's NATS server), until
// SIGTERM. The command's own part, hiding its secrets from agents and
// telling other consoles of them, is left out: the benchmark's agents read
// nothing.
func runNode(name, url, teamFile, state string) int {
	team, err := config.LoadTeam(teamFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench node:", err)
		return 2
	}
	nc, err := natsbus.Connect(natsbus.Config{URL: url, Name: "tlbench node " + name, Wait: true, Inbox: natsbus.NodeInbox(team.Bus.Name, name)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench node:", err)
		return 2
	}
	defer nc.Close()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_ = agents.BecomeSubreaper()
	err = node.Run(ctx, node.Options{Name: name, Team: team, TeamName: team.Bus.Name, Conn: nc, Epoch: natsbus.NewEpoch(),
		State: state, Warn: func(s string) { fmt.Fprintln(os.Stderr, "tlbench node:", s) }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench node:", err)
		return 1
	}
	return 0
}

// consoleNATS is the console's NATS: its server, its connection, the
// Mirror of its store and, when agents run on nodes, the link with them.
type consoleNATS struct {
	srv  *natsbus.Server
	nc   *nats.Conn
	m    *natsbus.Mirror
	link *nodeLink // nil without nodes
	// urls are the nodes' URLs, each with its user and password.
	urls map[string]string
	// repeats counts the nodes' events offered again and dropped (their
	// confirmation was late): the link's duplicates, bounded by its ids.
	repeats atomic.Int64
	// output counts the bytes of each agent's output the console took
	// from its node.
	outMu  sync.Mutex
	output map[string]int64
}

// startConsoleNATS starts the console's NATS server in dir, with a
// password for each node of team (its agents' host:), connects to it and
// starts the Mirror of st; with nodes, it opens the link (the nodes'
// streams) so that they find it when they start.
func startConsoleNATS(ctx context.Context, dir string, team *config.Team, st *store.Store) (*consoleNATS, error) {
	nodes := map[string]natsbus.NodeAuth{}
	for _, a := range team.Agents {
		if a.Host != "" {
			n := nodes[a.Host]
			n.Agents = append(n.Agents, a.Name)
			nodes[a.Host] = n
		}
	}
	for name, n := range nodes {
		sort.Strings(n.Agents)
		n.Password = randomToken()
		nodes[name] = n
	}
	srv, err := natsbus.ServeTeam("127.0.0.1:0", dir, randomToken(), team.Bus.Name, nodes)
	if err != nil {
		return nil, err
	}
	c := &consoleNATS{srv: srv, urls: map[string]string{}, output: map[string]int64{}}
	for name, n := range nodes {
		c.urls[name] = "nats://" + natsbus.NodeUser(name) + ":" + n.Password + "@" + srv.Addr().String()
	}
	if c.nc, err = natsbus.Connect(natsbus.Config{URL: srv.URL(), Name: "tlbench console"}); err != nil {
		srv.Close()
		return nil, err
	}
	if c.m, err = natsbus.StartMirror(c.nc, team.Bus.Name, natsbus.NewEpoch(), st); err != nil {
		c.nc.Close()
		srv.Close()
		return nil, err
	}
	if len(nodes) > 0 {
		con, err := natsbus.OpenConsole(ctx, c.nc, team.Bus.Name)
		if err != nil {
			c.close()
			return nil, err
		}
		ns, err := con.Nodes()
		if err != nil {
			c.close()
			return nil, err
		}
		c.link = &nodeLink{con: con, nodes: ns}
	}
	return c, nil
}

func randomToken() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// remote is the engine's link with the nodes, nil without nodes.
func (c *consoleNATS) remote() engine.Remote {
	if c == nil || c.link == nil {
		return nil
	}
	return c.link
}

// follow does what `teamlead run` does once its engine exists, until ctx
// ends: it wakes the Mirror whenever the engine commits, and gives the
// engine every event the nodes report, each once (note is told what the
// engine refused).
func (c *consoleNATS) follow(ctx context.Context, eng *engine.Engine, after uint64, note func(string)) error {
	go c.m.WakeOnCommit(eng.Bus(), after, ctx.Done())
	if c.link == nil {
		return nil
	}
	evs, err := c.link.con.Events(ctx)
	if err != nil {
		return err
	}
	go func() {
		type run struct {
			epoch string
			seq   uint64
		}
		last := map[string]run{} // per node: the newest event taken
		for ev := range evs {
			if last[ev.Node].epoch == ev.Epoch && ev.Seq <= last[ev.Node].seq {
				c.repeats.Add(1)
			} else {
				if ev.Kind == wire.NodeOutput {
					var o wire.NodeOutputEvent
					if json.Unmarshal(ev.Data, &o) == nil {
						c.outMu.Lock()
						c.output[ev.Agent] += int64(len(o.Data))
						c.outMu.Unlock()
					}
				}
				if err := eng.RemoteEvent(ev.Agent, ev.Kind, ev.Data); err != nil {
					note(fmt.Sprintf("node %s, agent %s: %v", ev.Node, ev.Agent, err))
				}
				last[ev.Node] = run{ev.Epoch, ev.Seq}
			}
			_ = ev.Done()
		}
	}()
	return nil
}

// outputOf is how many bytes of agent's output the console took.
func (c *consoleNATS) outputOf(agent string) int64 {
	c.outMu.Lock()
	defer c.outMu.Unlock()
	return c.output[agent]
}

// published waits up to d for the Mirror to have published every record
// of st, and returns how many it published.
func (c *consoleNATS) published(st *store.Store, d time.Duration) uint64 {
	for deadline := time.Now().Add(d); c.m.Published() < st.LastSeq() && time.Now().Before(deadline); {
		c.m.Wake() // the engine, which woke it on every commit, stopped
		time.Sleep(10 * time.Millisecond)
	}
	return c.m.Published()
}

func (c *consoleNATS) close() {
	if c.link != nil {
		c.link.nodes.Close()
	}
	c.m.Close(time.Second)
	c.nc.Close()
	c.srv.Close()
}

// nodeLink is the console's end of the link with its nodes
// (engine.Remote), as `teamlead run` has it, without the doors through
// which nodes' agents ask the console (the benchmark's agents ask nothing).
type nodeLink struct {
	con   *natsbus.Console
	nodes *natsbus.Nodes
}

func (l *nodeLink) Deliver(d store.Delivery) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return l.con.Deliver(ctx, d)
}

func (l *nodeLink) Control(agent string, r engine.RemoteControl) error {
	return l.con.Control(context.Background(), agent, natsbus.Request{Op: r.Op, Keys: r.Keys, Cols: r.Cols, Rows: r.Rows, On: r.On})
}

func (l *nodeLink) Reachable(node string) bool { return l.nodes.Reachable(node) }

// nodeProcs are the benchmark's running nodes.
type nodeProcs struct {
	cmds []*exec.Cmd
	logs []string
	done []chan struct{} // closed once each has exited
}

// startNodes starts a node process for each of c's nodes on teamFile,
// each with a state folder and a log under dir.
func startNodes(exe, dir, teamFile string, c *consoleNATS) (*nodeProcs, error) {
	var names []string
	for name := range c.urls {
		names = append(names, name)
	}
	sort.Strings(names)
	p := &nodeProcs{}
	for _, name := range names {
		state := filepath.Join(dir, name)
		if err := os.MkdirAll(state, 0o700); err != nil {
			p.stop()
			return nil, err
		}
		logPath := filepath.Join(dir, name+".log")
		log, err := os.Create(logPath)
		if err != nil {
			p.stop()
			return nil, err
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), "TERM="+childTerm, EnvChild+"="+childNode, envNode+"="+name, envNATS+"="+c.urls[name],
			envTeamFile+"="+teamFile, envDir+"="+state)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = cmd.Start()
		_ = log.Close() // the child has its own copy
		if err != nil {
			p.stop()
			return nil, fmt.Errorf("start %s: %w", name, err)
		}
		p.cmds, p.logs = append(p.cmds, cmd), append(p.logs, logPath)
		done := make(chan struct{})
		p.done = append(p.done, done)
		go func() { _ = cmd.Wait(); close(done) }()
	}
	return p, nil
}

// alive fails once a node has exited, with what the nodes logged.
func (p *nodeProcs) alive() error {
	if p == nil {
		return nil
	}
	for i, done := range p.done {
		select {
		case <-done:
			return fmt.Errorf("%s exited: %w", filepath.Base(p.logs[i]), p.trouble())
		default:
		}
	}
	return nil
}

// stop stops the nodes (SIGTERM: each stops its agents, which write their
// result files), SIGKILL to a node's group after 15s.
func (p *nodeProcs) stop() {
	if p == nil {
		return
	}
	var wg sync.WaitGroup
	for i, cmd := range p.cmds {
		done := p.done[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
		}()
	}
	wg.Wait()
}

// trouble is what the nodes wrote to their logs, for an error message.
func (p *nodeProcs) trouble() error {
	var errs []error
	for _, l := range p.logs {
		if b, err := os.ReadFile(l); err == nil && len(b) > 0 {
			errs = append(errs, fmt.Errorf("%s: %s", filepath.Base(l), clip(string(b), 2000)))
		}
	}
	return errors.Join(errs...)
}

// clip keeps the last n bytes of s.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
