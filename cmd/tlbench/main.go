// Command tlbench is `make bench`: it measures the stream parser and the
// engine's ingest path against a bare PTY (and tmux), the engine's relay
// latency (into raw agents and into agents whose terminals echo) against a
// bare relay, the dashboard's frame time with busy agents
// against idle ones, a terminal's memory against the text it keeps, and
// audit and consultation queries on a store of 1,000,000 records and
// 200,000 consultations over 90 days against a one-key read of the same
// store (plus the compliance export's speed), the relay embedded, on NATS
// and across two nodes side by side against a bare relay, and the frame
// time with 200 agents streaming from two nodes against the local frames,
// in one run, and prints every
// figure as a ratio to its baseline. It exits nonzero only when something
// is broken (messages lost, counts that differ), not when a target is
// missed on a noisy machine. -only audit runs the audit figures alone,
// -only throughput the parser, ingest and tmux figures, -only nodes the
// figures over nodes.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/bench"
)

func main() {
	// The benchmark re-runs this binary as its agents and PTY writer.
	if code, ok := bench.Child(); ok {
		os.Exit(code)
	}
	var o bench.Options
	flag.DurationVar(&o.Duration, "duration", 10*time.Second, "how long each relay run sends")
	flag.IntVar(&o.Agents, "agents", 20, "agents in the relay runs")
	flag.IntVar(&o.Rate, "rate", 50, "messages per second each agent sends")
	flag.IntVar(&o.LogMB, "log-mb", 32, "size of the generated agent log for the parser, MiB")
	flag.BoolVar(&o.SkipSync, "skip-sync", false, "skip the engine run with an fsynced store")
	flag.BoolVar(&o.SkipEcho, "skip-echo", false, "skip the engine run into agents whose terminals echo (cooked, like shells and Aider)")
	flag.IntVar(&o.Rounds, "rounds", 2, "interleaved rounds each relay run is split in (bare, engine, engine+fsync, engine into echoing agents, again)")
	flag.Int64Var(&o.Seed, "seed", 1, "seed of the generated log")
	flag.IntVar(&o.FrameAgents, "frame-agents", 50, "agents behind the dashboard's frame time (0 skips it)")
	flag.IntVar(&o.Frames, "frames", 600, "frames timed with the agents idle, and as many busy")
	flag.IntVar(&o.AgentKBps, "agent-kbps", 400, "each busy agent's output while the frames are timed, KB/s")
	flag.IntVar(&o.MemTerminals, "mem-terminals", 20, "terminals the memory per agent is measured on (0 skips it)")
	flag.IntVar(&o.Routes, "routes", 200, "routes in answerers.yaml for the routing figure (0 skips it)")
	flag.IntVar(&o.Topics, "topics", 10000, "topics routed for the routing figure")
	flag.StringVar(&o.Teamlead, "teamlead", "bin/teamlead", "the teamlead binary for the `teamlead questions` latency (\"\" skips it)")
	flag.IntVar(&o.StoredQuestions, "stored-questions", 100000, "questions stored for the `teamlead questions` latency")
	flag.IntVar(&o.AuditRecords, "audit-records", 1000000, "audit records in the store of the audit query figures (0 skips them)")
	flag.IntVar(&o.AuditConsults, "audit-consults", 200000, "consultations in that store")
	flag.IntVar(&o.AuditExport, "audit-export", 100000, "consultations written by the export figures")
	flag.IntVar(&o.BusRecords, "bus-records", 2000, "records of the bus figures, embedded against NATS JetStream (0 skips them)")
	flag.IntVar(&o.Nodes, "nodes", 2, "nodes of the relay across nodes, against the same relay embedded and on NATS on one machine (0 skips it)")
	flag.IntVar(&o.NodeAgents, "node-agents", 10, "agents in the relay across nodes (a multiple of -nodes)")
	flag.IntVar(&o.NodeRate, "node-rate", 20, "messages per second each agent sends in the relay across nodes")
	flag.DurationVar(&o.NodeDuration, "node-duration", 4*time.Second, "how long each paced run of the relay across nodes sends")
	flag.IntVar(&o.NodeBurst, "node-burst", 50, "messages each agent sends at once in the bursts of the relay across nodes")
	flag.IntVar(&o.NodeFrameAgents, "node-frame-agents", 200, "agents behind the dashboard's frame time with every agent on a node, spread over -nodes (0 skips it)")
	flag.IntVar(&o.NodeAgentKBps, "node-agent-kbps", 2, "each agent's output while the frames over nodes are timed, KB/s")
	flag.IntVar(&o.NodeFrames, "node-frames", 300, "frames over nodes timed with the agents quiet, and as many streaming")
	flag.StringVar(&o.Only, "only", "", "run only this part: throughput, bus, nodes or audit")
	flag.Parse()
	if _, err := os.Stat(o.Teamlead); o.Teamlead != "" && o.Only == "" && err != nil {
		fmt.Fprintf(os.Stderr, "tlbench: %s: %v; build it first (make bench does), or pass -teamlead \"\"\n", o.Teamlead, err)
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := bench.Run(ctx, o, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench:", err)
		os.Exit(2)
	}
	rep.Format(os.Stdout)
	if len(rep.Problems()) > 0 {
		os.Exit(1)
	}
}
