// Package bench measures teamlead against baselines taken in the same run:
// the stream parser, and the engine's whole ingest path (PTY reader,
// terminal emulator, parser), against a bare PTY carrying the same bytes,
// and the ingest path against tmux showing them; the engine's relay latency
// (with its store, page-cache or fsync durability, and into agents whose
// terminals echo) against a bare relay between the same agents at the
// same rate; the dashboard's frame time with
// 50 busy agents against the same with them idle; a terminal's memory
// with a full scrollback against the text it keeps; and filtered audit and
// consultation queries on a large store against reading one key of it,
// with the compliance export's speed (audit.go); the relay embedded, on
// NATS and across nodes, and the frame time with every agent on a node
// (node.go, nodeframes.go). Every figure is
// reported as a ratio to its baseline, because the machines it runs on are
// shared and noisy.
//
// The agents and the PTY writer are the benchmark binary itself, started
// again in a child role (see Child), so nothing else needs to be built.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"
)

// Options configure a full benchmark run.
type Options struct {
	// Exe is the binary to re-execute as children; default os.Executable.
	Exe string
	// Duration is how long each relay run sends.
	Duration time.Duration
	// Agents is the relay team size.
	Agents int
	// Rate is the messages per second each agent sends.
	Rate int
	// LogMB is the size of the generated log in MiB.
	LogMB int
	// SkipSync skips the engine run with fsync.
	SkipSync bool
	// SkipEcho skips the engine run into echoing agents.
	SkipEcho bool
	// Rounds splits each relay run in this many interleaved rounds; default 1.
	Rounds int
	// Seed seeds the generated log.
	Seed int64
	// FrameAgents is the team size behind the dashboard's frame time; 0
	// skips the frame measurement.
	FrameAgents int
	// Frames is how many frames are timed with the agents idle, and as
	// many busy.
	Frames int
	// AgentKBps is each busy agent's output while frames are timed.
	AgentKBps int
	// MemTerminals is how many terminals the memory figure is measured on;
	// 0 skips it.
	MemTerminals int
	// Routes and Topics size the question-routing measurement; 0 skips it.
	Routes, Topics int
	// Teamlead is the teamlead binary for the `teamlead questions` latency;
	// "" skips it.
	Teamlead string
	// StoredQuestions is how many questions are stored for that latency.
	StoredQuestions int
	// AuditRecords and AuditConsults size the store of the audit query
	// figures (0 records skips them); AuditExport is how many
	// consultations the export figures write.
	AuditRecords, AuditConsults, AuditExport int
	// BusRecords is how many records the bus figures (embedded against
	// NATS JetStream, and the console-to-node link) send; 0 skips them.
	BusRecords int
	// Nodes is how many nodes the relay across nodes spreads its agents
	// over (0 skips the relay embedded, on NATS and across nodes);
	// NodeAgents and NodeRate size it, NodeDuration is how long each of
	// its paced runs sends, NodeBurst how many messages each agent sends
	// at once in its bursts.
	Nodes, NodeAgents, NodeRate int
	NodeDuration                time.Duration
	NodeBurst                   int
	// NodeFrameAgents is the team size behind the dashboard's frame time
	// with every agent on a node (0 skips it), spread over Nodes (2 when
	// Nodes is 0); NodeAgentKBps is each one's output while streaming.
	NodeFrameAgents, NodeAgentKBps int
	// NodeFrames is how many frames of it are timed quiet, and as many
	// streaming.
	NodeFrames int
	// Only runs one part: "" (all), "throughput" (the parser, the ingest
	// path, the bare PTY and tmux), "bus", "nodes" or "audit".
	Only string
}

// Run measures everything and returns the report; progress goes to
// progress (may be nil). An error means the benchmark could not run; lost
// messages and the like are in Report.Problems.
func Run(ctx context.Context, o Options, progress io.Writer) (*Report, error) {
	if progress == nil {
		progress = io.Discard
	}
	if o.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, fmt.Errorf("finding the benchmark binary to re-run: %w", err)
		}
		o.Exe = exe
	}
	if o.Rounds < 1 {
		o.Rounds = 1
	}
	count := int(o.Duration.Seconds() * float64(o.Rate))
	if o.Agents < 2 || o.Rate < 1 || count < o.Rounds || o.LogMB < 1 {
		return nil, errors.New("need -agents >= 2, -rate >= 1, a -duration of at least one message per round, -log-mb >= 1")
	}
	if o.Only != "" && o.Only != "throughput" && o.Only != "audit" && o.Only != "bus" && o.Only != "nodes" {
		return nil, fmt.Errorf("-only %q: want throughput, bus, nodes or audit", o.Only)
	}
	if o.Nodes > 0 && (o.Nodes < 2 || o.NodeAgents < o.Nodes || o.NodeAgents%o.Nodes != 0 || o.NodeRate < 1 || o.NodeBurst < 1 ||
		int(o.NodeDuration.Seconds()*float64(o.NodeRate)) < o.Rounds) {
		return nil, errors.New("need -nodes >= 2 dividing -node-agents, -node-rate >= 1, -node-burst >= 1 and a -node-duration of at least one message per round (or -nodes 0)")
	}
	if o.NodeFrameAgents > 0 && (o.NodeFrameAgents < 2 || o.NodeAgentKBps < 1 || o.NodeFrames < 3) {
		return nil, errors.New("need -node-frame-agents >= 2, -node-agent-kbps >= 1 and -node-frames >= 3 (or -node-frame-agents 0)")
	}
	if o.FrameAgents > 0 && (o.Frames < 3 || o.AgentKBps < 1) {
		return nil, errors.New("need -frames >= 3 and -agent-kbps >= 1 (or -frame-agents 0)")
	}
	dir, err := os.MkdirTemp("", "tlbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rep := &Report{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Time: time.Now()}
	if o.Only == "audit" {
		return rep, measureAudit(rep, o, dir, progress)
	}
	if o.Only == "bus" {
		return rep, measureBus(ctx, rep, o, dir, progress)
	}
	if o.Only == "nodes" {
		return rep, measureNodes(ctx, rep, o, dir, progress)
	}

	fmt.Fprintf(progress, "tlbench: parser, bare PTY, ingest and tmux on a %d MiB log...\n", o.LogMB)
	if rep.Throughput, err = MeasureThroughput(o.Exe, dir, o.LogMB<<20, o.Seed, 5, 7); err != nil {
		return nil, err
	}
	if o.Only == "throughput" {
		return rep, nil
	}
	// The relay runs are interleaved in rounds (bare, engine, engine with
	// fsync, then again), so that a change in the machine's load over the
	// run weighs on the baseline as much as on the engine.
	type kind struct {
		name   string
		mode   RelayMode
		sync   bool
		echo   bool
		rounds []*RelayResult
	}
	kinds := []*kind{{name: "bare PTY relay", mode: BareRelay}, {name: "engine, store in page cache", mode: EngineRelay}}
	if !o.SkipSync {
		kinds = append(kinds, &kind{name: "engine, store fsynced", mode: EngineRelay, sync: true})
	}
	if !o.SkipEcho {
		kinds = append(kinds, &kind{name: "engine, echoing agents", mode: EngineRelay, echo: true})
	}
	for round := range o.Rounds {
		per := count / o.Rounds
		if round < count%o.Rounds {
			per++
		}
		for _, k := range kinds {
			fmt.Fprintf(progress, "tlbench: round %d/%d: %s, %d agents x %d msg/s, %d messages each...\n",
				round+1, o.Rounds, k.name, o.Agents, o.Rate, per)
			sub, err := os.MkdirTemp(dir, "relay-")
			if err != nil {
				return nil, err
			}
			res, err := MeasureRelay(ctx, RelayOptions{Exe: o.Exe, Dir: sub, Agents: o.Agents, Rate: o.Rate,
				Count: per, Mode: k.mode, Sync: k.sync, Echo: k.echo})
			if err != nil {
				return nil, err
			}
			l := res.Latency
			fmt.Fprintf(progress, "tlbench:   p50 %s  p90 %s  p99 %s  max %s\n", ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max))
			k.rounds = append(k.rounds, res)
		}
	}
	rep.Bare, rep.Page = Combine(kinds[0].rounds), Combine(kinds[1].rounds)
	for _, k := range kinds[2:] {
		if k.echo {
			rep.Echo = Combine(k.rounds)
		} else {
			rep.Fsync = Combine(k.rounds)
		}
	}
	rep.Rounds = o.Rounds

	if o.FrameAgents > 0 {
		fmt.Fprintf(progress, "tlbench: dashboard frames, %d agents idle then busy at %d KB/s each, %d frames each...\n",
			o.FrameAgents, o.AgentKBps, o.Frames)
		rep.Frames, err = MeasureFrames(ctx, FrameOptions{Agents: o.FrameAgents, Width: 160, Height: 45, Frames: o.Frames,
			Rounds: 3, AgentKBps: o.AgentKBps, Seed: o.Seed})
		if err != nil {
			return nil, err
		}
	}
	if o.MemTerminals > 0 {
		fmt.Fprintf(progress, "tlbench: memory of %d terminals with full scrollback...\n", o.MemTerminals)
		if rep.Memory, err = MeasureMemory(o.MemTerminals, 120, 40, 10000, o.Seed); err != nil {
			return nil, err
		}
	}
	if o.Routes > 0 && o.Topics > 0 {
		fmt.Fprintf(progress, "tlbench: routing %d topics against %d routes...\n", o.Topics, o.Routes)
		r, err := MeasureRouting(o.Routes, o.Topics, time.Second)
		if err != nil {
			return nil, err
		}
		rep.Routing = &r
	}
	if o.Teamlead != "" && o.StoredQuestions > 0 {
		fmt.Fprintf(progress, "tlbench: teamlead questions with %d stored questions...\n", o.StoredQuestions)
		q, err := MeasureQuestionsLatency(o.Teamlead, o.StoredQuestions, o.StoredQuestions/100, 7)
		if err != nil {
			return nil, err
		}
		rep.Questions = &q
	}
	if err := measureBus(ctx, rep, o, dir, progress); err != nil {
		return nil, err
	}
	if err := measureNodes(ctx, rep, o, dir, progress); err != nil {
		return nil, err
	}
	return rep, measureAudit(rep, o, dir, progress)
}

// measureNodes adds the figures of agents on nodes to rep, unless o skips
// them: the dashboard's frames over nodes, and the relay embedded, on NATS
// and across nodes (the paced runs interleaved in o.Rounds rounds, then a
// burst of each kind).
func measureNodes(ctx context.Context, rep *Report, o Options, dir string, progress io.Writer) error {
	if o.NodeFrameAgents > 0 {
		nodes := max(o.Nodes, 2)
		fmt.Fprintf(progress, "tlbench: dashboard frames, %d agents on %d nodes, quiet then streaming at %d KB/s each, %d frames each...\n",
			o.NodeFrameAgents, nodes, o.NodeAgentKBps, o.NodeFrames)
		sub, err := os.MkdirTemp(dir, "node-frames-")
		if err != nil {
			return err
		}
		if rep.NodeFrames, err = MeasureNodeFrames(ctx, NodeFrameOptions{Exe: o.Exe, Dir: sub, Agents: o.NodeFrameAgents, Nodes: nodes,
			Width: 160, Height: 45, Frames: o.NodeFrames, Rounds: 3, AgentKBps: o.NodeAgentKBps, Seed: o.Seed}); err != nil {
			return err
		}
	}
	if o.Nodes <= 0 {
		return nil
	}
	n := &NodeRelay{Agents: o.NodeAgents, Rate: o.NodeRate, Nodes: o.Nodes, Rounds: o.Rounds, Burst: o.NodeBurst}
	kinds := []RelayOptions{{Mode: BareRelay}, {Mode: EngineRelay}, {Mode: EngineRelay, NATS: true}, {Mode: EngineRelay, Nodes: o.Nodes}}
	names := []string{"bare PTY relay", "engine, embedded bus", "engine + NATS, one machine", fmt.Sprintf("engine + NATS, %d nodes", o.Nodes)}
	rounds := make([][]*RelayResult, len(kinds))
	run := func(k RelayOptions, what string) (*RelayResult, error) {
		sub, err := os.MkdirTemp(dir, "nodes-")
		if err != nil {
			return nil, err
		}
		k.Exe, k.Dir, k.Agents, k.Rate = o.Exe, sub, o.NodeAgents, o.NodeRate
		fmt.Fprintf(progress, "tlbench: %s, %d agents, %d messages each...\n", what, k.Agents, k.Count)
		res, err := MeasureRelay(ctx, k)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		l := res.Latency
		fmt.Fprintf(progress, "tlbench:   p50 %s  p99 %s  max %s  %.0f msg/s\n", ms(l.P50), ms(l.P99), ms(l.Max), res.Throughput)
		return res, nil
	}
	count := int(o.NodeDuration.Seconds() * float64(o.NodeRate))
	for round := range o.Rounds {
		per := count / o.Rounds
		if round < count%o.Rounds {
			per++
		}
		for i, k := range kinds {
			k.Count = per
			res, err := run(k, fmt.Sprintf("round %d/%d: %s at %d msg/s", round+1, o.Rounds, names[i], o.NodeRate))
			if err != nil {
				return err
			}
			rounds[i] = append(rounds[i], res)
		}
	}
	for i, k := range kinds {
		k.Count, k.Burst = o.NodeBurst, true
		res, err := run(k, names[i]+", a burst")
		if err != nil {
			return err
		}
		n.Runs = append(n.Runs, NodeRun{Name: names[i], Paced: Combine(rounds[i]), Burst: res})
	}
	rep.NodeRelay = n
	return nil
}

// measureBus adds the bus figures to rep, unless o skips them.
func measureBus(ctx context.Context, rep *Report, o Options, dir string, progress io.Writer) error {
	if o.BusRecords <= 0 {
		return nil
	}
	fmt.Fprintf(progress, "tlbench: the bus, embedded and on NATS JetStream (in-process server), %d records one at a time and as a burst...\n", o.BusRecords)
	b, err := MeasureBus(ctx, dir, o.BusRecords)
	if err != nil {
		return fmt.Errorf("bus figures: %w", err)
	}
	rep.Bus = b
	return nil
}

// measureAudit adds the audit figures to rep, unless o skips them. The
// store is built under dir, which Run removes.
func measureAudit(rep *Report, o Options, dir string, progress io.Writer) error {
	if o.AuditRecords <= 0 {
		return nil
	}
	fmt.Fprintf(progress, "tlbench: audit queries: building a store of %d records and %d consultations over 90 days...\n",
		o.AuditRecords, o.AuditConsults)
	a, err := MeasureAudit(AuditOptions{Dir: dir, Records: o.AuditRecords, Consultations: o.AuditConsults, Days: 90,
		Runs: 30, Export: o.AuditExport, Seed: o.Seed}, progress)
	if err != nil {
		return fmt.Errorf("audit figures: %w", err)
	}
	rep.Audit = a
	return nil
}
