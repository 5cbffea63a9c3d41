// Package bench measures teamlead against baselines taken in the same run:
// the stream parser against a bare PTY carrying the same bytes, and the
// engine's relay latency (with its store, page-cache or fsync durability)
// against a bare relay between the same agents at the same rate. Every
// figure is reported as a ratio to its baseline, because the machines it
// runs on are shared and noisy.
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
	// Rounds splits each relay run in this many interleaved rounds; default 1.
	Rounds int
	// Seed seeds the generated log.
	Seed int64
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
	dir, err := os.MkdirTemp("", "tlbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rep := &Report{GoVersion: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Time: time.Now()}

	fmt.Fprintf(progress, "tlbench: parser and bare PTY on a %d MiB log...\n", o.LogMB)
	if rep.Throughput, err = MeasureThroughput(o.Exe, dir, o.LogMB<<20, o.Seed, 5, 3); err != nil {
		return nil, err
	}
	// The relay runs are interleaved in rounds (bare, engine, engine with
	// fsync, then again), so that a change in the machine's load over the
	// run weighs on the baseline as much as on the engine.
	type kind struct {
		name   string
		mode   RelayMode
		sync   bool
		rounds []*RelayResult
	}
	kinds := []*kind{{name: "bare PTY relay", mode: BareRelay}, {name: "engine, store in page cache", mode: EngineRelay}}
	if !o.SkipSync {
		kinds = append(kinds, &kind{name: "engine, store fsynced", mode: EngineRelay, sync: true})
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
				Count: per, Mode: k.mode, Sync: k.sync})
			if err != nil {
				return nil, err
			}
			l := res.Latency
			fmt.Fprintf(progress, "tlbench:   p50 %s  p90 %s  p99 %s  max %s\n", ms(l.P50), ms(l.P90), ms(l.P99), ms(l.Max))
			k.rounds = append(k.rounds, res)
		}
	}
	rep.Bare, rep.Page = Combine(kinds[0].rounds), Combine(kinds[1].rounds)
	if !o.SkipSync {
		rep.Fsync = Combine(kinds[2].rounds)
	}
	rep.Rounds = o.Rounds
	return rep, nil
}
