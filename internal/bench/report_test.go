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
			PTYMBps: 143.2, PTYBytes: 33719800, Passes: 5, Runs: 3,
			IngestMBps: 100.24, IngestFound: 780, IngestReads: 8232, IngestCPU: 530 * time.Millisecond, PTYCPU: 150 * time.Millisecond, TmuxMBps: 21.5, TmuxEmpty: 48 * time.Millisecond,
			TmuxVersion: "tmux 3.3a"},
		Bare:  relayFixture(BareRelay, false, 100*time.Microsecond, 300*time.Microsecond),
		Page:  relayFixture(EngineRelay, false, 400*time.Microsecond, 1800*time.Microsecond),
		Fsync: relayFixture(EngineRelay, true, 800*time.Microsecond, 6*time.Millisecond),
		Echo: func() *RelayResult {
			r := relayFixture(EngineRelay, false, 500*time.Microsecond, 2*time.Millisecond)
			r.Echo = true
			return r
		}(),
		Frames: &FrameResult{Agents: 50, Width: 160, Height: 45, Frames: 600, Rounds: 3, AgentKBps: 400, FedMBps: 19.6,
			ScreenCols: 118, ScreenRows: 33,
			Idle:       frameSummary(2 * time.Millisecond),
			Busy:       frameSummary(3 * time.Millisecond),
			CPU:        [2]Summary{frameSummary(1500 * time.Microsecond), frameSummary(2 * time.Millisecond)},
			Update:     [2]Summary{frameSummary(30 * time.Microsecond), frameSummary(40 * time.Microsecond)},
			View:       [2]Summary{frameSummary(1900 * time.Microsecond), frameSummary(2900 * time.Microsecond)},
			Render:     [2]Summary{frameSummary(50 * time.Microsecond), frameSummary(60 * time.Microsecond)},
			FrameBytes: 16000},
		Memory: &MemoryResult{Terminals: 20, Cols: 120, Rows: 40, Scrollback: 10000, Lines: 15040, InputBytes: 3531990,
			TextBytes: 1200000, PerTerminal: 2.33e6, PerTerminalBare: 0.16e6},
	}
}

// frameSummary is a distribution of 600 frame times with p50 d.
func frameSummary(d time.Duration) Summary {
	return Summary{N: 600, P50: d, P90: 2 * d, P99: 4 * d, Max: 8 * d}
}

func TestReportFormat(t *testing.T) {
	var b strings.Builder
	reportFixture().Format(&b)
	want := `teamlead bench — go1.26.8 linux/amd64, 2 CPUs, 2026-11-21T13:10:00Z
parser    1850.3 MB/s   bare PTY   143.2 MB/s   ratio 12.9x  (target >= 10x)  ok
          32.0 MiB log, 780 of 780 envelopes found; medians of 5 parser passes and 3 PTY runs (33719800 bytes read per run)
ingest    100.2 MB/s   bare PTY   143.2 MB/s   ratio 70%  (target >= 60%)  ok
          the agents package's PTY reader (8232 reads, 4.0 KiB on average), each read to vt.Terminal.Write then protocol.Parser.Feed as the engine's sink does; 780 of 780 envelopes found; median of 3 runs
          CPU time of this process per run: ingest 0.53 s, bare PTY 0.15 s
tmux      21.5 MB/s   ingest / tmux 4.7x  (target >= 2x)  ok
          tmux 3.3a, a detached 120x40 pane keeping 10000 lines of history: from starting tmux to the log's end on its screen, median of 3 runs; start-up alone (an empty log) 48.00 ms, included
relay     20 agents x 50 msg/s (1000 msg/s in all), 10000 messages per kind of run in 2 interleaved rounds, all stored and acknowledged, all delivered once
  latency                  p50             p90      p99              max
  bare PTY relay           0.10 ms         0.20 ms  0.30 ms          0.90 ms
  engine (page cache)      0.40 ms (4.0x)  0.80 ms  1.80 ms (6.0x)   5.40 ms   target p99 < 5 ms  ok
  engine (fsync)           0.80 ms (8.0x)  1.60 ms  6.00 ms (20.0x)  18.00 ms  (no target)
  engine (echoing agents)  0.50 ms (5.0x)  1.00 ms  2.00 ms (6.7x)   6.00 ms   target p99 < 5 ms  ok
  checks                   sent   delivered  stored  acked  notices  cpu here  per msg  cpu agents
  bare PTY relay           10000  10000      -       -      -        2.0 s     200 µs   4.0 s
  engine (page cache)      10000  10000      10000   10000  0        2.0 s     200 µs   4.0 s
  engine (fsync)           10000  10000      10000   10000  0        2.0 s     200 µs   4.0 s
  engine (echoing agents)  10000  10000      10000   10000  0        2.0 s     200 µs   4.0 s
  stages p50 / p99         agent to loop   lead + commit   typing to read
  engine (page cache)      0.10 / 0.45 ms  0.20 / 0.90 ms  0.10 / 0.45 ms
  engine (fsync)           0.20 / 1.50 ms  0.40 / 3.00 ms  0.20 / 1.50 ms
  engine (echoing agents)  0.12 / 0.50 ms  0.25 / 1.00 ms  0.12 / 0.50 ms
frames    50 agents, console 160x45 (screen pane 118x33), 600 frames with the agents idle and 600 busy (asked 400 KB/s each, fed 19.6 MB/s in all) in 3 interleaved rounds
  frame: Update(tick) + View()  p50             p90      p99              max
  agents idle                   2.00 ms         4.00 ms  8.00 ms          16.00 ms
  agents busy                   3.00 ms (1.5x)  6.00 ms  12.00 ms (1.5x)  24.00 ms  target p99 < 16 ms  ok
  busy: CPU time of the frame   2.00 ms (1.3x)  4.00 ms  8.00 ms (1.3x)   16.00 ms  (ratios to the idle frames' CPU time)
  busy: Update(tick) alone      0.04 ms         0.08 ms  0.16 ms          0.32 ms
  busy: vt Render of the pane   0.06 ms         0.12 ms  0.24 ms          0.48 ms   (timed apart; View does it too)
memory    2.3 MB per agent   text kept 1.2 MB   ratio 1.9x  (target < 20 MB)  ok
          heap in use per terminal, 20 terminals 120x40 keeping 10000 lines of scrollback, each fed 15040 coloured lines of 120 columns (3.5 MB); 0.16 MB per terminal keeping none
`
	if got := b.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
}

func TestReportMissedIsNotBroken(t *testing.T) {
	r := reportFixture()
	r.Throughput.ParserMBps = 500
	r.Page.Latency.P99 = 9 * time.Millisecond
	r.Throughput.IngestMBps = 80 // 56% of the bare PTY
	r.Throughput.TmuxMBps = 50   // 1.6x
	r.Frames.Busy.P99 = 16 * time.Millisecond
	r.Memory.PerTerminal = 20e6
	var b strings.Builder
	r.Format(&b)
	out := b.String()
	if strings.Count(out, "MISSED") != 6 {
		t.Errorf("want the parser, the page-cache p99, ingest, tmux, frames and memory MISSED:\n%s", out)
	}
	if p := r.Problems(); len(p) != 0 || strings.Contains(out, "BROKEN") {
		t.Errorf("a missed target counts as broken: %v\n%s", p, out)
	}
}

func TestReportBroken(t *testing.T) {
	r := reportFixture()
	r.Page.Delivered, r.Page.Missing, r.Page.MissingSample = 9998, 2, []string{"agent-03#17", "agent-04#17"}
	r.Fsync.Stored = 9999
	r.Echo.Notices = 7
	r.Throughput.Found = 779
	r.Throughput.IngestFound = 778
	r.Frames.Problem = "the dashboard drew 44 lines, want 45"
	r.Memory.Problem = "terminal 3 holds 9999 lines of scrollback, want 10000"
	p := r.Problems()
	want := []string{
		"parser: found 779 envelopes, the log has 780",
		"ingest: the parser found 778 envelopes, the log has 780",
		"engine (page cache): 2 messages never arrived, e.g. [agent-03#17 agent-04#17]",
		"engine (fsync): the store holds 9999 message records for 10000 messages sent",
		"engine (echoing agents): the agents got 7 notices from team-lead other than acknowledgements (refusals or reformat requests of well-formed traffic)",
		"frames: the dashboard drew 44 lines, want 45",
		"memory: terminal 3 holds 9999 lines of scrollback, want 10000",
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

// Without tmux the report says so in place of the figure; without the
// ingest, frame and memory runs it has none of their lines.
func TestReportPartial(t *testing.T) {
	r := reportFixture()
	r.Throughput.TmuxMBps, r.Throughput.TmuxNote = 0, "tmux not installed"
	var b strings.Builder
	r.Format(&b)
	if out := b.String(); !strings.Contains(out, "\ntmux      tmux not installed\n") || strings.Contains(out, "ingest / tmux") {
		t.Errorf("no tmux:\n%s", out)
	}
	r.Throughput.IngestMBps, r.Throughput.IngestFound = 0, 0
	r.Frames, r.Memory, r.Bare, r.Page, r.Fsync, r.Echo = nil, nil, nil, nil, nil, nil
	b.Reset()
	r.Format(&b)
	if out := b.String(); strings.Count(out, "\n") != 3 || len(r.Problems()) != 0 {
		t.Errorf("parser only:\n%s\nproblems %v", out, r.Problems())
	}
}

func TestThroughputRatios(t *testing.T) {
	tr := &ThroughputResult{PTYMBps: 100, IngestMBps: 60, TmuxMBps: 20}
	if tr.IngestRatio() != 0.6 || tr.TmuxRatio() != 3 {
		t.Errorf("ratios %v %v", tr.IngestRatio(), tr.TmuxRatio())
	}
	// Paired rounds: the median of their ratios, not the ratio of medians.
	if r := (&ThroughputResult{PTYMBps: 100, IngestMBps: 60, IngestRatios: []float64{0.5, 0.7, 0.65}}).IngestRatio(); r != 0.65 {
		t.Errorf("paired ratio %v, want 0.65", r)
	}
	if (&ThroughputResult{IngestMBps: 1}).IngestRatio() != 0 || (&ThroughputResult{IngestMBps: 1}).TmuxRatio() != 0 {
		t.Error("a ratio without a baseline")
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

func auditFixture() *AuditResult {
	q := func(name string, p50, p99 time.Duration, returned, matched int, target time.Duration) QueryFigure {
		return QueryFigure{Name: name, Latency: Summary{N: 30, P50: p50, P90: p99, P99: p99, Max: p99}, Returned: returned, Matched: matched, Target: target}
	}
	return &AuditResult{Records: 1000000, Consultations: 200000, Days: 90, StoreBytes: 345e6, Build: 43800 * time.Millisecond,
		Baseline: Summary{N: 30, P50: 100 * time.Microsecond, P99: 200 * time.Microsecond},
		Queries: []QueryFigure{
			q("audit --agent dev2 --since 7d --newest --limit 100", 2*time.Millisecond, 4*time.Millisecond, 100, -1, AuditTarget),
			q("consults --decision infrastructure --status approved", 24*time.Millisecond, 60*time.Millisecond, 100, 25611, AuditTarget),
			q("consults, no filter (statistics over all; SC-006 target)", 150*time.Millisecond, 210*time.Millisecond, 100, 200000, SC006Target),
		},
		Exports: []ExportFigure{{Format: "md", Consultations: 100000, Bytes: 94.8e6, Took: 3610 * time.Millisecond},
			{Format: "csv", Consultations: 100000, Bytes: 73.4e6, Took: 3440 * time.Millisecond}},
	}
}

func TestReportAudit(t *testing.T) {
	r := &Report{GoVersion: "go1.26.8", OS: "linux", Arch: "amd64", CPUs: 2, Time: time.Date(2026, 11, 21, 13, 10, 0, 0, time.UTC), Audit: auditFixture()}
	var b strings.Builder
	r.Format(&b)
	want := `teamlead bench — go1.26.8 linux/amd64, 2 CPUs, 2026-11-21T13:10:00Z
audit     1000000 records and 200000 consultations over 90 days (store built in 43.8 s, 345 MB); baseline: one meta key read p50 0.10 ms, p99 0.20 ms
  query (in process, store read-only)                       p50                  p99                  returned  matched  target p99
  audit --agent dev2 --since 7d --newest --limit 100        2.00 ms (20.0x)      4.00 ms (20.0x)      100       -        < 50 ms  ok
  consults --decision infrastructure --status approved      24.00 ms (240.0x)    60.00 ms (300.0x)    100       25611    < 50 ms  MISSED
  consults, no filter (statistics over all; SC-006 target)  150.00 ms (1500.0x)  210.00 ms (1050.0x)  100       200000   < 5 s  ok
export    md   100000 consultations  94.8 MB in 3.61 s  26.3 MB/s  (36.1 µs per consultation, no target)
          csv  100000 consultations  73.4 MB in 3.44 s  21.3 MB/s  (34.4 µs per consultation, no target)
`
	if got := b.String(); got != want {
		t.Errorf("report:\n%s\nwant:\n%s", got, want)
	}
	if len(r.Problems()) != 0 {
		t.Errorf("a missed target counts as broken: %v", r.Problems())
	}
}
