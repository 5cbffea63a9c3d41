package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/store"
)

// RelayMode says what carries the messages between the agents.
type RelayMode int

// Relay modes.
const (
	// BareRelay is the baseline: the benchmark process reads each agent's
	// PTY master and writes every complete envelope straight into the next
	// agent's master, with no engine and no store.
	BareRelay RelayMode = iota + 1
	// EngineRelay runs the real engine, with a real store, which spawns the
	// agents from a team file and relays (and acknowledges) every message.
	EngineRelay
)

// RelayOptions configure one relay measurement.
type RelayOptions struct {
	// Exe is the binary re-executed as the agents (it must call Child).
	Exe string
	// Dir is an empty directory for the run's files and store.
	Dir string
	// Agents is the team size; agent i sends to agent (i+1) mod Agents.
	Agents int
	// Rate is the messages per second each agent sends.
	Rate int
	// Count is the messages each agent sends.
	Count int
	// Mode selects the bare relay or the engine.
	Mode RelayMode
	// Sync is the engine store's Options.Sync (fsync every commit).
	Sync bool
	// Echo runs the agents in cooked terminals with echo on (engine
	// only): every envelope typed into a recipient comes back in its
	// output, and the engine must not read it back as the agent's own.
	Echo bool
	// Settle is how long to wait for the last messages once the sending
	// is over, before giving up on them; default 15s.
	Settle time.Duration
	// NATS runs the console (engine only) with a NATS server with
	// JetStream inside it, the Mirror publishing every record the engine
	// commits, as `teamlead run --nats-listen` does (node.go).
	NATS bool
	// Nodes (engine only; 0, or at least 2, dividing Agents) runs agent i
	// on node i mod Nodes, each node a process of its own running the node
	// runtime (node.go), with NATS between them and the console: every
	// message of the ring goes from an agent of one node to an agent of
	// another. It implies NATS.
	Nodes int
	// Burst has every agent send its Count messages at once, back to back,
	// instead of at Rate: the result's Throughput is then the relay's.
	Burst bool
}

// Stage is the distribution of one part of the engine's relay latency.
type Stage struct {
	Name string
	Summary
}

// RelayResult is one relay measurement and what it verified.
type RelayResult struct {
	Mode RelayMode
	Sync bool
	// Echo says the agents' terminals echoed (RelayOptions.Echo).
	Echo   bool
	Agents int
	Rate   int
	Count  int
	// Sent is how many messages the agents sent.
	Sent int
	// SendRate is the offered load actually achieved, in messages per
	// second over all agents.
	SendRate float64
	// Delivered is how many distinct messages reached their receiver.
	Delivered int
	// Missing counts messages sent and never received; MissingSample
	// names a few of them.
	Missing       int
	MissingSample []string
	// Duplicates counts messages received more than once.
	Duplicates int
	// Stored is the number of message records in the store (engine).
	Stored int
	// Unstored counts delivered messages with no message record (engine).
	Unstored int
	// Acks is how many relay acknowledgements the senders read (engine).
	Acks int
	// Notices is how many other envelopes from team-lead the agents read
	// (refusals, reformat requests): none, for well-formed traffic.
	Notices int
	// Latency is from the sender's write to the receiver's read.
	Latency Summary
	// Stages split the engine's latency (see MeasureRelay).
	Stages []Stage
	// EngineErrors are errors that stopped the engine.
	EngineErrors []string
	// EngineNotes is trouble the engine reported and survived (a store
	// write retried, say): not a failure, but the figures may suffer.
	EngineNotes []string
	// CPU is the CPU time (user + system) this process spent during the
	// run: the relay itself, bare or engine and store, plus the little the
	// benchmark does meanwhile.
	CPU time.Duration
	// AgentCPU is the CPU time the agent processes spent (and the nodes',
	// with Nodes).
	AgentCPU time.Duration
	// NATS, Nodes and Burst are RelayOptions'.
	NATS  bool
	Nodes int
	Burst bool
	// Throughput is the messages delivered a second, from the first
	// message's sending to the last one's arrival.
	Throughput float64
	// Records is how many records the store held at the end, and
	// Published how many of them the Mirror had published on NATS (NATS).
	Records, Published int
	// Repeats counts the nodes' events offered again by the server (their
	// confirmation was late) and dropped by the console (Nodes): not a
	// failure, the link's duplicates, bounded by its event ids.
	Repeats int

	// The raw samples behind Latency and Stages, kept to combine rounds.
	lat    []time.Duration
	stages [][]time.Duration
}

// stageNames name the parts of the engine's latency, in order.
var stageNames = []string{"agent to loop", "lead + commit", "typing to read"}

// summarize computes Latency and Stages from the raw samples.
func (r *RelayResult) summarize() {
	r.Latency = Summarize(r.lat)
	r.Stages = nil
	for i, s := range r.stages {
		if len(s) > 0 {
			r.Stages = append(r.Stages, Stage{Name: stageNames[i], Summary: Summarize(s)})
		}
	}
}

// Combine merges the rounds of one kind of relay run into one result:
// counts add up, latencies are pooled, and the send rate is averaged.
func Combine(rounds []*RelayResult) *RelayResult {
	if len(rounds) == 0 {
		return nil
	}
	first := rounds[0]
	out := &RelayResult{Mode: first.Mode, Sync: first.Sync, Echo: first.Echo, Agents: first.Agents, Rate: first.Rate,
		NATS: first.NATS, Nodes: first.Nodes, Burst: first.Burst, stages: make([][]time.Duration, len(stageNames))}
	var rate, through float64
	for _, r := range rounds {
		out.Count += r.Count
		out.Sent += r.Sent
		out.Delivered += r.Delivered
		out.Missing += r.Missing
		for _, m := range r.MissingSample {
			if len(out.MissingSample) < 5 {
				out.MissingSample = append(out.MissingSample, m)
			}
		}
		out.Duplicates += r.Duplicates
		out.Stored += r.Stored
		out.Unstored += r.Unstored
		out.Acks += r.Acks
		out.Notices += r.Notices
		out.EngineErrors = append(out.EngineErrors, r.EngineErrors...)
		out.EngineNotes = append(out.EngineNotes, r.EngineNotes...)
		out.CPU += r.CPU
		out.AgentCPU += r.AgentCPU
		out.lat = append(out.lat, r.lat...)
		for i := range r.stages {
			out.stages[i] = append(out.stages[i], r.stages[i]...)
		}
		out.Records += r.Records
		out.Published += r.Published
		out.Repeats += r.Repeats
		rate += r.SendRate
		through += r.Throughput
	}
	out.SendRate = rate / float64(len(rounds))
	out.Throughput = through / float64(len(rounds))
	out.summarize()
	return out
}

// Problems lists what is broken in the run (lost or duplicated messages,
// counts that differ); nil means everything checked out.
func (r *RelayResult) Problems() []string {
	var out []string
	if want := r.Agents * r.Count; r.Sent != want {
		out = append(out, fmt.Sprintf("the agents sent %d of %d messages", r.Sent, want))
	}
	if r.Missing > 0 {
		out = append(out, fmt.Sprintf("%d messages never arrived, e.g. %v", r.Missing, r.MissingSample))
	}
	if r.Duplicates > 0 {
		out = append(out, fmt.Sprintf("%d messages arrived more than once", r.Duplicates))
	}
	if r.Mode == EngineRelay {
		if r.Stored != r.Sent {
			out = append(out, fmt.Sprintf("the store holds %d message records for %d messages sent", r.Stored, r.Sent))
		}
		if r.Unstored > 0 {
			out = append(out, fmt.Sprintf("%d delivered messages have no message record in the store", r.Unstored))
		}
		if r.Acks != r.Sent {
			out = append(out, fmt.Sprintf("the senders got %d acknowledgements for %d messages", r.Acks, r.Sent))
		}
	}
	if r.NATS && r.Published < r.Records {
		out = append(out, fmt.Sprintf("the Mirror published %d of the store's %d records on NATS", r.Published, r.Records))
	}
	if r.Notices > 0 {
		out = append(out, fmt.Sprintf("the agents got %d notices from team-lead other than acknowledgements (refusals or reformat requests of well-formed traffic)", r.Notices))
	}
	out = append(out, r.EngineErrors...)
	return out
}

// agentName names benchmark agent i.
func agentName(i int) string { return fmt.Sprintf("agent-%02d", i) }

// configs returns each agent's configuration for o: agent i sends to agent
// i+1, and the phases spread the sends evenly over one period.
func (o RelayOptions) configs() []agentConfig {
	period := time.Second / time.Duration(o.Rate)
	if o.Burst {
		period = time.Nanosecond // every send is due at once
	}
	acks := 0
	if o.Mode == EngineRelay {
		acks = o.Count
	}
	out := make([]agentConfig, o.Agents)
	for i := range out {
		out[i] = agentConfig{Name: agentName(i), To: agentName((i + 1) % o.Agents), Dir: o.Dir,
			Count: o.Count, Expect: o.Count, Acks: acks, Period: period, Echo: o.Echo,
			Phase: period * time.Duration(i) / time.Duration(o.Agents)}
		if o.Nodes > 0 {
			out[i].Host = nodeName(i % o.Nodes)
		}
	}
	return out
}

// sending is how long the agents' schedule of sends lasts.
func (o RelayOptions) sending() time.Duration {
	if o.Burst {
		return 0
	}
	return time.Duration(o.Count) * time.Second / time.Duration(o.Rate)
}

// MeasureRelay runs o.Agents agents sending o.Count messages each at
// o.Rate per second through the bare relay or the engine, and returns the
// latency from each sender's write to its receiver's read, with what it
// checked: every message sent arrived once and, for the engine, is in the
// store and was acknowledged to its sender.
//
// For the engine it also splits the latency in three stages, from the
// message record's time (stamped when the engine loop takes the parsed
// envelope) and the moment the record is published on the bus (after the
// store commit and after the deliveries were queued for typing):
// "agent to loop" (PTY, reader, parser, input queue), "lead + commit" and
// "typing to read" (the writer typing it, the receiver reading it).
func MeasureRelay(ctx context.Context, o RelayOptions) (*RelayResult, error) {
	if o.Agents < 2 || o.Rate < 1 || o.Count < 1 {
		return nil, fmt.Errorf("relay: need at least 2 agents, a rate and a count (got %d, %d, %d)", o.Agents, o.Rate, o.Count)
	}
	if o.Settle <= 0 {
		o.Settle = 15 * time.Second
	}
	if o.Echo && o.Mode != EngineRelay {
		// The bare relay would copy every echoed envelope on, for ever.
		return nil, errors.New("relay: echoing agents need the engine (the bare relay cannot tell echo from output)")
	}
	if (o.NATS || o.Nodes > 0) && o.Mode != EngineRelay {
		return nil, errors.New("relay: NATS and nodes need the engine")
	}
	if o.Nodes == 1 || o.Nodes < 0 || o.Nodes > 0 && o.Agents%o.Nodes != 0 {
		return nil, fmt.Errorf("relay: %d nodes for %d agents: want 0, or at least 2 dividing the agents (so that every message crosses nodes)", o.Nodes, o.Agents)
	}
	o.NATS = o.NATS || o.Nodes > 0
	cfgs := o.configs()
	res := &RelayResult{Mode: o.Mode, Sync: o.Sync, Echo: o.Echo, Agents: o.Agents, Rate: o.Rate, Count: o.Count,
		NATS: o.NATS, Nodes: o.Nodes, Burst: o.Burst}
	var stamps map[msgKey]stamp
	var ids map[string]bool
	// The CPU clock stops once the agents are gone, before the checks.
	self0, children0 := cpuTimes()
	stopClock := func() {
		self1, children1 := cpuTimes()
		res.CPU, res.AgentCPU = self1-self0, children1-children0
	}
	var err error
	switch o.Mode {
	case BareRelay:
		err = runBare(ctx, o, cfgs, stopClock)
	case EngineRelay:
		stamps, ids, err = runEngine(ctx, o, cfgs, res, stopClock)
	default:
		return nil, fmt.Errorf("relay: unknown mode %d", o.Mode)
	}
	if err != nil {
		return nil, err
	}
	if err := collect(o, cfgs, res, stamps, ids); err != nil {
		return nil, err
	}
	return res, nil
}

// msgKey identifies one benchmark message.
type msgKey struct {
	from string
	seq  int
}

// String names the message as agent#seq, for reports of missing ones.
func (k msgKey) String() string { return k.from + "#" + strconv.Itoa(k.seq) }

// stamp is when the engine took a message (step) and published it (pub).
type stamp struct{ step, pub int64 }

// drive runs the agents' schedule: it waits for every agent to be ready,
// writes the common start time, and waits for every result file, or until
// the sending time plus o.Settle has passed, or ctx ends.
func drive(ctx context.Context, o RelayOptions, cfgs []agentConfig, alive func() error) error {
	ready := time.Now().Add(30 * time.Second)
	for _, c := range cfgs {
		for {
			if _, err := os.Stat(readyFile(o.Dir, c.Name)); err == nil {
				break
			}
			if time.Now().After(ready) {
				return fmt.Errorf("relay: %s was not ready within 30s", c.Name)
			}
			if err := alive(); err != nil {
				return fmt.Errorf("relay: %s not ready: %w", c.Name, err)
			}
			if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
				return err
			}
		}
	}
	// Far enough ahead for every agent to see the file before it.
	start := time.Now().Add(300 * time.Millisecond)
	tmp := startFile(o.Dir) + ".tmp"
	if err := os.WriteFile(tmp, []byte(strconv.FormatInt(start.UnixNano(), 10)), 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, startFile(o.Dir)); err != nil {
		return err
	}
	deadline := start.Add(o.sending() + o.Settle)
	for _, c := range cfgs {
		for {
			if _, err := os.Stat(resultFile(o.Dir, c.Name)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return nil // stopping the agents makes them write what they have
			}
			if err := sleepCtx(ctx, 20*time.Millisecond); err != nil {
				return err
			}
		}
	}
	return nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// runBare starts the agents on PTYs of its own and relays between them;
// stopClock is called once they are gone.
func runBare(ctx context.Context, o RelayOptions, cfgs []agentConfig, stopClock func()) error {
	n := len(cfgs)
	masters := make([]*os.File, n)
	cmds := make([]*exec.Cmd, n)
	defer func() {
		stopAll(cmds)
		for _, m := range masters {
			if m != nil {
				_ = m.Close()
			}
		}
	}()
	for i, c := range cfgs {
		cmd := exec.Command(o.Exe)
		cmd.Env = append(os.Environ(), c.envList()...)
		cmd.Dir = o.Dir
		m, err := startOnPTY(cmd)
		if err != nil {
			return fmt.Errorf("bare relay: start %s: %w", c.Name, err)
		}
		masters[i], cmds[i] = m, cmd
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = bareRelay(masters[i], masters[(i+1)%n])
		}()
	}
	err := drive(ctx, o, cfgs, func() error { return nil })
	stopAll(cmds)
	for _, m := range masters {
		_ = m.Close()
	}
	wg.Wait()
	stopClock()
	return errors.Join(append([]error{err}, errs...)...)
}

// bareRelay copies every complete envelope read from src into dst in one
// write, typed the way the engine types it: lines joined by CR, then CR.
func bareRelay(src, dst *os.File) error {
	buf := make([]byte, 32<<10) // the engine's read size
	var sc LineScanner
	var env []byte
	var werr error
	in := false
	for {
		n, err := src.Read(buf)
		sc.Feed(buf[:n], func(line []byte) {
			switch {
			case !in && string(line) == "[ROUTE]":
				in = true
				env = append(env[:0], line...)
				env = append(env, '\r')
			case in:
				env = append(env, line...)
				env = append(env, '\r')
				if string(line) == "[/ROUTE]" {
					in = false
					if _, err := dst.Write(env); err != nil && werr == nil {
						werr = err
					}
				}
			}
		})
		if err != nil {
			if werr != nil && !errors.Is(werr, os.ErrClosed) {
				return fmt.Errorf("bare relay: write: %w", werr)
			}
			return nil // EIO or closed: the agents are gone
		}
	}
}

// stopAll ends the agents started by runBare: SIGTERM to each session
// (they write their result files), SIGKILL after 3s.
func stopAll(cmds []*exec.Cmd) {
	var wg sync.WaitGroup
	for _, cmd := range cmds {
		if cmd == nil || cmd.Process == nil || cmd.ProcessState != nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
			done := make(chan struct{})
			go func() { _ = cmd.Wait(); close(done) }()
			select {
			case <-done:
			case <-time.After(3 * time.Second):
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				<-done
			}
		}()
	}
	wg.Wait()
}

// teamFile is the part of a team file the benchmark writes.
type teamFile struct {
	Agents []teamAgent `yaml:"agents"`
	Bus    *teamBus    `yaml:"bus,omitempty"`
}

type teamBus struct {
	Name string `yaml:"name"`
}

type teamAgent struct {
	Name    string            `yaml:"name"`
	Role    string            `yaml:"role"`
	Command []string          `yaml:"command"`
	Dir     string            `yaml:"dir"`
	Env     map[string]string `yaml:"env"`
	Preset  string            `yaml:"preset"`
	Restart string            `yaml:"restart"`
	Host    string            `yaml:"host,omitempty"`
	// Isolation is the agent's (default: the team's, a sandbox).
	Isolation string `yaml:"isolation,omitempty"`
}

// loadTeam writes the benchmark's team file and loads it the way the
// console does: plain preset (typed line by line, no delays), no restarts.
func loadTeam(o RelayOptions, cfgs []agentConfig) (*config.Team, error) {
	var tf teamFile
	for _, c := range cfgs {
		tf.Agents = append(tf.Agents, teamAgent{Name: c.Name, Role: "bench", Command: []string{o.Exe},
			Dir: o.Dir, Env: c.env(), Preset: "plain", Restart: "never", Host: c.Host})
	}
	if o.NATS {
		tf.Bus = &teamBus{Name: benchTeam}
	}
	data, err := yaml.Marshal(&tf)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(o.Dir, "team.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, err
	}
	team, err := config.LoadTeam(path)
	if err != nil {
		return nil, err
	}
	// No flood control: the figures measure the engine, not the relay rate.
	team.Lead.RelayRate = -1
	// Zero delays whatever presets.yaml says, so that the figures are the
	// engine's own and not a configured pause.
	for name, p := range team.Resolved {
		p.SubmitDelay, p.LineDelay = 0, 0
		team.Resolved[name] = p
	}
	// No consultation rules: the agents share one role that no rule names,
	// and the built-in rules' roles would only be reported as missing.
	team.Consultations.Parsed = consult.Rules{}
	return team, nil
}

// runEngine runs the agents under the real engine and store; stopClock is
// called once the engine stopped. It returns the engine's stamps of each
// message and the ids of the stored messages. With o.NATS the console has
// its NATS server and Mirror, and with o.Nodes its nodes (node.go).
func runEngine(ctx context.Context, o RelayOptions, cfgs []agentConfig, res *RelayResult, stopClock func()) (map[msgKey]stamp, map[string]bool, error) {
	team, err := loadTeam(o, cfgs)
	if err != nil {
		return nil, nil, fmt.Errorf("engine relay: team file: %w", err)
	}
	st, err := store.Open(filepath.Join(o.Dir, "state"), store.Options{Sync: o.Sync})
	if err != nil {
		return nil, nil, fmt.Errorf("engine relay: %w", err)
	}
	defer st.Close()
	var errMu sync.Mutex
	note := func(s string) {
		errMu.Lock()
		res.EngineNotes = append(res.EngineNotes, s)
		errMu.Unlock()
	}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	var cn *consoleNATS
	if o.NATS {
		if cn, err = startConsoleNATS(ectx, filepath.Join(o.Dir, "nats"), team, st); err != nil {
			return nil, nil, fmt.Errorf("engine relay: NATS: %w", err)
		}
		defer cn.close()
	}
	eng, err := engine.New(engine.Options{Team: team, Store: st, Grace: 3 * time.Second, Remote: cn.remote(),
		OnError: func(err error) { note(err.Error()) }})
	if err != nil {
		return nil, nil, err
	}
	// Message records are published once committed: their time (set when
	// the loop took the envelope) and the publication time split the hop.
	sub := eng.Bus().Subscribe("route.>", 0)
	stamps := map[msgKey]stamp{}
	subDone := make(chan struct{})
	go func() {
		defer close(subDone)
		for r := range sub.C {
			pub := time.Now().UnixNano()
			if b, ok := ParseBody(r.Body); ok && r.Kind == wire.KindMessage {
				stamps[msgKey{b.From, b.Seq}] = stamp{step: r.Time.UnixNano(), pub: pub}
			}
		}
	}()
	after := st.LastSeq()
	if err := eng.Start(ectx); err != nil {
		sub.Close()
		<-subDone
		return nil, nil, err
	}
	// The nodes' events once the engine runs, as teamlead run takes them
	// (RemoteEvent reads the agents Start makes).
	if cn != nil {
		if err := cn.follow(ectx, eng, after, note); err != nil {
			cancel()
			<-eng.Done()
			sub.Close()
			<-subDone
			return nil, nil, fmt.Errorf("engine relay: the link with the nodes: %w", err)
		}
	}
	var nodes *nodeProcs
	if o.Nodes > 0 {
		if nodes, err = startNodes(o.Exe, o.Dir, team.File, cn); err != nil {
			cancel()
			<-eng.Done()
			sub.Close()
			<-subDone
			return nil, nil, fmt.Errorf("engine relay: %w", err)
		}
	}
	derr := drive(ctx, o, cfgs, nodes.alive)
	nodes.stop() // the nodes' agents write their results as they stop
	cancel()
	<-eng.Done()
	stopClock()
	sub.Close()
	<-subDone
	if derr != nil {
		return nil, nil, derr
	}
	if err := eng.Err(); err != nil {
		res.EngineErrors = append(res.EngineErrors, "engine stopped: "+err.Error())
	}
	if cn != nil {
		res.Records, res.Published = int(st.LastSeq()), int(cn.published(st, 10*time.Second))
		res.Repeats = int(cn.repeats.Load())
	}
	msgs, err := st.Query(store.Query{Kind: wire.KindMessage})
	if err != nil {
		return nil, nil, fmt.Errorf("engine relay: query the store: %w", err)
	}
	ids := make(map[string]bool, len(msgs))
	for _, m := range msgs {
		ids[m.MsgID] = true
	}
	res.Stored = len(msgs)
	return stamps, ids, nil
}

// collect reads the agents' result files into res.
func collect(o RelayOptions, cfgs []agentConfig, res *RelayResult, stamps map[msgKey]stamp, ids map[string]bool) error {
	seen := map[msgKey]bool{}
	res.stages = make([][]time.Duration, len(stageNames))
	var firstSent, lastSent, lastArrived int64
	for _, c := range cfgs {
		f, err := os.Open(resultFile(o.Dir, c.Name))
		if err != nil {
			return fmt.Errorf("relay: %s left no result: %w", c.Name, err)
		}
		ar, err := ReadAgentResult(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("relay: %s: %w", c.Name, err)
		}
		res.Sent += ar.Sent
		res.Acks += ar.Acks
		res.Notices += ar.Notices
		for _, a := range ar.Arrivals {
			k := msgKey{a.From, a.Seq}
			if seen[k] {
				res.Duplicates++
				continue
			}
			seen[k] = true
			res.lat = append(res.lat, time.Duration(a.Latency()))
			if firstSent == 0 || a.Sent < firstSent {
				firstSent = a.Sent
			}
			lastSent = max(lastSent, a.Sent)
			lastArrived = max(lastArrived, a.Arrived)
			if o.Mode != EngineRelay {
				continue
			}
			if !ids[a.ID] {
				res.Unstored++
			}
			if s, ok := stamps[k]; ok {
				res.stages[0] = append(res.stages[0], time.Duration(s.step-a.Sent))
				res.stages[1] = append(res.stages[1], time.Duration(s.pub-s.step))
				res.stages[2] = append(res.stages[2], time.Duration(a.Arrived-s.pub))
			}
		}
	}
	res.Delivered = len(seen)
	for _, c := range cfgs {
		for seq := range o.Count {
			if k := (msgKey{c.Name, seq}); !seen[k] {
				res.Missing++
				if len(res.MissingSample) < 5 {
					res.MissingSample = append(res.MissingSample, k.String())
				}
			}
		}
	}
	if n := len(res.lat); n > 1 && lastSent > firstSent {
		res.SendRate = float64(n-1) / time.Duration(lastSent-firstSent).Seconds()
	}
	if n := len(res.lat); n > 0 && lastArrived > firstSent {
		res.Throughput = float64(n) / time.Duration(lastArrived-firstSent).Seconds()
	}
	res.summarize()
	return nil
}

// cpuTimes returns the CPU time (user + system) used so far by this
// process and by its children that have been waited for.
func cpuTimes() (self, children time.Duration) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru) == nil {
		children = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	return self, children
}
