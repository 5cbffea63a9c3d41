package bench

import (
	"strings"
	"testing"
	"time"
)

func relayFixture(mode RelayMode, sync bool, p50, p99 time.Duration) *RelayResult {
	r := &RelayResult{Mode: mode, Sync: sync, Agents: 20, Rate: 50, Count: 500, Sent: 10000, Delivered: 10000,
		SendRate: 1000, CPU: 2 * time.Second, AgentCPU: 4 * time.Second,
		Latency: Summary{N: 10000, P50: p50, P90: 2 * p50, P99: p99, Max: 3 * p99}}
	if mode == EngineRelay {
		r.Stored, r.Acks = 10000, 10000
		r.Stages = []Stage{{Name: stageNames[0], Summary: Summary{P50: p50 / 4, P99: p99 / 4}},
			{Name: stageNames[1], Summary: Summary{P50: p50 / 2, P99: p99 / 2}},
			{Name: stageNames[2], Summary: Summary{P50: p50 / 4, P99: p99 / 4}}}
	}
	return r
}

func reportFixture() *Report {
	return &Report{GoVersion: "go1.26.8", OS: "linux", Arch: "amd64", CPUs: 2, Rounds: 2,
		Time: time.Date(2026, 11, 21, 13, 10, 0, 0, time.UTC),
		Throughput: &ThroughputResult{LogBytes: 32 << 20, Envelopes: 780, Found: 780, ParserMBps: 1850.3,
			PTYMBps: 143.2, PTYBytes: 33719800, Passes: 5, Runs: 3},
		Bare:  relayFixture(BareRelay, false, 100*time.Microsecond, 300*time.Microsecond),
		Page:  relayFixture(EngineRelay, false, 400*time.Microsecond, 1800*time.Microsecond),
		Fsync: relayFixture(EngineRelay, true, 800*time.Microsecond, 6*time.Millisecond),
	}
}

func TestReportFormat(t *testing.T) {
	var b strings.Builder
	reportFixture().Format(&b)
	want := `teamlead bench — go1.26.8 linux/amd64, 2 CPUs, 2026-11-21T13:10:00Z
parser    1850.3 MB/s   bare PTY   143.2 MB/s   ratio 12.9x  (target >= 10x)  ok
          32.0 MiB log, 780 of 780 envelopes found; medians of 5 parser passes and 3 PTY runs (33719800 bytes read per run)
relay     20 agents x 50 msg/s (1000 msg/s in all), 10000 messages per kind of run in 2 interleaved rounds, all stored and acknowledged, all delivered once
  latency              p50             p90      p99              max
  bare PTY relay       0.10 ms         0.20 ms  0.30 ms          0.90 ms
  engine (page cache)  0.40 ms (4.0x)  0.80 ms  1.80 ms (6.0x)   5.40 ms   target p99 < 5 ms  ok
  engine (fsync)       0.80 ms (8.0x)  1.60 ms  6.00 ms (20.0x)  18.00 ms  (no target)
  checks               sent   delivered  stored  acked  cpu here  per msg  cpu agents
  bare PTY relay       10000  10000      -       -      2.0 s     200 µs   4.0 s
  engine (page cache)  10000  10000      10000   10000  2.0 s     200 µs   4.0 s
  engine (fsync)       10000  10000      10000   10000  2.0 s     200 µs   4.0 s
  stages p50 / p99     agent to loop   lead + commit   typing to read
  engine (page cache)  0.10 / 0.45 ms  0.20 / 0.90 ms  0.10 / 0.45 ms
  engine (fsync)       0.20 / 1.50 ms  0.40 / 3.00 ms  0.20 / 1.50 ms
`
	if got := b.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

func TestReportMissedIsNotBroken(t *testing.T) {
	r := reportFixture()
	r.Throughput.ParserMBps = 500
	r.Page.Latency.P99 = 9 * time.Millisecond
	var b strings.Builder
	r.Format(&b)
	out := b.String()
	if strings.Count(out, "MISSED") != 2 {
		t.Errorf("want the parser and the page-cache p99 MISSED:\n%s", out)
	}
	if p := r.Problems(); len(p) != 0 || strings.Contains(out, "BROKEN") {
		t.Errorf("a missed target counts as broken: %v\n%s", p, out)
	}
}

func TestReportBroken(t *testing.T) {
	r := reportFixture()
	r.Page.Delivered, r.Page.Missing, r.Page.MissingSample = 9998, 2, []string{"agent-03#17", "agent-04#17"}
	r.Fsync.Stored = 9999
	r.Throughput.Found = 779
	p := r.Problems()
	want := []string{
		"parser: found 779 envelopes, the log has 780",
		"engine (page cache): 2 messages never arrived, e.g. [agent-03#17 agent-04#17]",
		"engine (fsync): the store holds 9999 message records for 10000 messages sent",
	}
	if strings.Join(p, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(p, "\n"), strings.Join(want, "\n"))
	}
	var b strings.Builder
	r.Format(&b)
	if !strings.Contains(b.String(), "BROKEN (see below)") || !strings.Contains(b.String(), "\nBROKEN\n") {
		t.Errorf("report does not say BROKEN:\n%s", b.String())
	}
}

func TestCombine(t *testing.T) {
	a := &RelayResult{Mode: EngineRelay, Agents: 3, Rate: 50, Count: 10, Sent: 30, Delivered: 29, Missing: 1,
		MissingSample: []string{"agent-00#9"}, Stored: 30, Acks: 30, SendRate: 150, CPU: time.Second,
		lat: []time.Duration{1, 2, 3}, stages: [][]time.Duration{{1}, {2}, {3}}}
	b := &RelayResult{Mode: EngineRelay, Agents: 3, Rate: 50, Count: 10, Sent: 30, Delivered: 30, Stored: 30,
		Acks: 30, SendRate: 140, CPU: time.Second, lat: []time.Duration{4, 5, 6}, stages: [][]time.Duration{{4}, {5}, {6}}}
	c := Combine([]*RelayResult{a, b})
	if c.Count != 20 || c.Sent != 60 || c.Delivered != 59 || c.Missing != 1 || c.Stored != 60 || c.Acks != 60 ||
		c.SendRate != 145 || c.CPU != 2*time.Second || c.Latency.N != 6 || c.Latency.Max != 6 || len(c.Stages) != 3 ||
		c.Stages[1].Max != 5 {
		t.Errorf("combined %+v", c)
	}
	if len(c.Problems()) != 1 {
		t.Errorf("problems %v, want the missing message", c.Problems())
	}
	if Combine(nil) != nil {
		t.Error("Combine(nil) != nil")
	}
}
