package bench

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Targets the report checks. Missing one prints MISSED but is not a
// failure: machines are shared and noisy.
const (
	// ParserTarget is the least parser throughput, as a multiple of the
	// bare PTY's, for the parser never to be what limits an agent.
	ParserTarget = 10.0
	// P99Target is the highest acceptable p99 relay latency of the engine
	// with page-cache durability.
	P99Target = 5 * time.Millisecond
	// IngestTarget is the least throughput of the engine's ingest path
	// (PTY read, terminal emulator, parser), as a fraction of the bare PTY's.
	IngestTarget = 0.60
	// TmuxTarget is the least throughput of the ingest path as a multiple
	// of tmux's showing the same output.
	TmuxTarget = 2.0
	// FrameTarget is the highest acceptable p99 frame time of the
	// dashboard with every agent busy: one frame at 60 Hz.
	FrameTarget = 16 * time.Millisecond
	// MemoryTarget is the most heap, in bytes, an agent's terminal may hold
	// with a full scrollback of 10,000 lines.
	MemoryTarget = 20e6
	// QuestionsTarget is the longest `teamlead questions` may take with
	// 100,000 questions stored.
	QuestionsTarget = 50 * time.Millisecond
	// AuditTarget is the highest acceptable p99 of a filtered audit or
	// consultation query over a store of 1,000,000 records spanning 90
	// days (seed 002 SC-006 asks for 5 s).
	AuditTarget = 50 * time.Millisecond
	// SC006Target is seed 002 SC-006's bound on any audit query over 90
	// days, the target of the unfiltered consultation statistics.
	SC006Target = 5 * time.Second
)

// Report is everything one benchmark run measured.
type Report struct {
	// GoVersion, OS, Arch and CPUs describe the machine and toolchain.
	GoVersion, OS, Arch string
	CPUs                int
	// Time is when the run started.
	Time time.Time
	// Rounds is how many interleaved rounds each relay run was split in.
	Rounds int
	// Throughput is the parser against the bare PTY (nil if not run).
	Throughput *ThroughputResult
	// Bare is the bare relay baseline; Page and Fsync the engine with
	// store Options.Sync false and true; Echo the engine (page cache)
	// into agents whose terminals echo (nil if not run).
	Bare, Page, Fsync, Echo *RelayResult
	// Frames is the dashboard's frame time (nil if not run).
	Frames *FrameResult
	// Memory is a terminal's heap with a full scrollback (nil if not run).
	Memory *MemoryResult
	// Routing is the question router's speed (nil if not run).
	Routing *RoutingResult
	// Questions is `teamlead questions` latency with many stored (nil if not run).
	Questions *QuestionsLatencyResult
	// Audit is the audit and consultation query latency and export speed
	// with a large store (nil if not run).
	Audit *AuditResult
	// Bus is the bus alone, embedded against NATS JetStream (nil if not run).
	Bus *BusResult
	// NodeRelay is the relay embedded, on NATS and across nodes, side by
	// side (nil if not run).
	NodeRelay *NodeRelay
	// NodeFrames is the dashboard's frame time with every agent on a node
	// (nil if not run).
	NodeFrames *NodeFrameResult
}

// NodeRelay is the same relay run four ways at the same load, side by
// side: the bare PTY relay (the baseline), the engine on its embedded bus,
// the engine with NATS on one machine (its own server and Mirror), and the
// engine with its agents on nodes, every message from an agent of one node
// to an agent of another. Each is paced (the latency), then one burst (the
// throughput).
type NodeRelay struct {
	// Agents, Rate and Nodes size the paced runs; Rounds is how many
	// interleaved rounds they were split in, Burst how many messages each
	// agent sent at once in the burst.
	Agents, Rate, Nodes, Rounds, Burst int
	// Runs are the four kinds, the baseline first.
	Runs []NodeRun
}

// NodeRun is one kind of run of NodeRelay.
type NodeRun struct {
	Name string
	// Paced is the rounds combined; Burst the burst.
	Paced, Burst *RelayResult
}

// namedRuns lists the runs of n, paced then burst, named for the checks.
func (n *NodeRelay) namedRuns() []namedRun {
	var out []namedRun
	for _, r := range n.Runs {
		out = append(out, namedRun{r.Name, r.Paced})
	}
	for _, r := range n.Runs {
		if r.Burst != nil {
			out = append(out, namedRun{r.Name + ", burst", r.Burst})
		}
	}
	return out
}

// Problems lists what is broken (not merely slow): envelopes the parser
// missed, messages lost, duplicated, unstored or unacknowledged.
func (r *Report) Problems() []string {
	var out []string
	if t := r.Throughput; t != nil && t.Found != t.Envelopes {
		out = append(out, fmt.Sprintf("parser: found %d envelopes, the log has %d", t.Found, t.Envelopes))
	}
	if t := r.Throughput; t != nil && t.IngestMBps > 0 && t.IngestFound != t.Envelopes {
		out = append(out, fmt.Sprintf("ingest: the parser found %d envelopes, the log has %d", t.IngestFound, t.Envelopes))
	}
	for _, run := range r.runs() {
		for _, p := range run.res.Problems() {
			out = append(out, run.name+": "+p)
		}
	}
	if f := r.Frames; f != nil && f.Problem != "" {
		out = append(out, "frames: "+f.Problem)
	}
	if f := r.NodeFrames; f != nil && f.Problem != "" {
		out = append(out, "frames over nodes: "+f.Problem)
	}
	if m := r.Memory; m != nil && m.Problem != "" {
		out = append(out, "memory: "+m.Problem)
	}
	if b := r.Bus; b != nil {
		for _, l := range b.Lost {
			out = append(out, "bus: "+l)
		}
	}
	if n := r.NodeRelay; n != nil {
		for _, run := range n.namedRuns() {
			for _, p := range run.res.Problems() {
				out = append(out, "nodes: "+run.name+": "+p)
			}
		}
	}
	return out
}

type namedRun struct {
	name string
	res  *RelayResult
}

// runs lists the relay runs that were made, baseline first.
func (r *Report) runs() []namedRun {
	var out []namedRun
	for _, n := range []namedRun{{"bare PTY relay", r.Bare}, {"engine (page cache)", r.Page}, {"engine (fsync)", r.Fsync}, {"engine (echoing agents)", r.Echo}} {
		if n.res != nil {
			out = append(out, n)
		}
	}
	return out
}

// verdict is "ok" or "MISSED".
func verdict(ok bool) string {
	if ok {
		return "ok"
	}
	return "MISSED"
}

// ms formats d in milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

// msRatio formats d, and d/base as "(4.7x)" when there is a baseline.
func msRatio(d, base time.Duration) string {
	if base <= 0 {
		return ms(d)
	}
	return fmt.Sprintf("%s (%.1fx)", ms(d), float64(d)/float64(base))
}

// Format writes the report as text.
func (r *Report) Format(w io.Writer) {
	fmt.Fprintf(w, "teamlead bench — %s %s/%s, %d CPUs, %s\n", r.GoVersion, r.OS, r.Arch, r.CPUs,
		r.Time.UTC().Format(time.RFC3339))
	if t := r.Throughput; t != nil {
		r.formatThroughput(w, t)
	}
	r.formatRelay(w)
	if f := r.Frames; f != nil {
		formatFrames(w, f)
	}
	if f := r.NodeFrames; f != nil {
		formatNodeFrames(w, f, r.Frames)
	}
	if m := r.Memory; m != nil {
		formatMemory(w, m)
	}
	if q := r.Routing; q != nil {
		fmt.Fprintf(w, "routing   %.2fM decisions/s   map lookup %.1fM/s   ratio %.1f%%  (%d routes, %d topics, %d routed by a pattern, the rest by default)\n",
			q.PerSec/1e6, q.BaselinePerSec/1e6, 100*q.PerSec/q.BaselinePerSec, q.Routes, q.Topics, q.MatchedNonEmpty)
	}
	if q := r.Questions; q != nil {
		fmt.Fprintf(w, "questions teamlead questions p50 %s  max %s   teamlead version p50 %s   ratio %.1fx  (target < %s)  %s\n",
			ms(q.P50), ms(q.Max), ms(q.BaselineP50), float64(q.P50)/float64(q.BaselineP50), ms(QuestionsTarget), verdict(q.P50 < QuestionsTarget))
		fmt.Fprintf(w, "          %d questions stored, %d pending listed (the default view), read from the store as the CLI does with no console running\n",
			q.Stored, q.Listed)
	}
	if b := r.Bus; b != nil {
		formatBus(w, b)
	}
	if n := r.NodeRelay; n != nil {
		formatNodeRelay(w, n)
	}
	if a := r.Audit; a != nil {
		formatAudit(w, a)
	}
	r.formatProblems(w)
}

// paired says how the ingest ratio was taken when it is the median of
// the rounds' own ratios.
func paired(t *ThroughputResult) string {
	if len(t.IngestRatios) == 0 {
		return ""
	}
	return fmt.Sprintf(" (the ratio: median of %d rounds' ingest/bare PTY, each pair run back to back)", len(t.IngestRatios))
}

func (r *Report) formatThroughput(w io.Writer, t *ThroughputResult) {
	fmt.Fprintf(w, "parser    %.1f MB/s   bare PTY   %.1f MB/s   ratio %.1fx  (target >= %.0fx)  %s\n",
		t.ParserMBps, t.PTYMBps, t.Ratio(), ParserTarget, verdict(t.Ratio() >= ParserTarget))
	fmt.Fprintf(w, "          %.1f MiB log, %d of %d envelopes found; medians of %d parser passes and %d PTY runs (%d bytes read per run)\n",
		float64(t.LogBytes)/(1<<20), t.Found, t.Envelopes, t.Passes, t.Runs, t.PTYBytes)
	if t.IngestMBps == 0 {
		return // not measured
	}
	fmt.Fprintf(w, "ingest    %.1f MB/s   bare PTY   %.1f MB/s   ratio %.0f%%  (target >= %.0f%%)  %s\n",
		t.IngestMBps, t.PTYMBps, 100*t.IngestRatio(), 100*IngestTarget, verdict(t.IngestRatio() >= IngestTarget))
	reads := ""
	if t.IngestReads > 0 {
		reads = fmt.Sprintf(" (%d reads, %.1f KiB on average)", t.IngestReads, float64(t.PTYBytes)/float64(t.IngestReads)/1024)
	}
	fmt.Fprintf(w, "          the agents package's PTY reader%s, each read to vt.Terminal.Write then protocol.Parser.Feed as the engine's sink does; %d of %d envelopes found; median of %d runs%s\n",
		reads, t.IngestFound, t.Envelopes, t.Runs, paired(t))
	if t.IngestCPU > 0 {
		fmt.Fprintf(w, "          CPU time of this process per run: ingest %.2f s, bare PTY %.2f s\n", t.IngestCPU.Seconds(), t.PTYCPU.Seconds())
	}
	if t.TmuxMBps == 0 {
		note := t.TmuxNote
		if note == "" {
			note = "not measured"
		}
		fmt.Fprintf(w, "tmux      %s\n", note)
		return
	}
	fmt.Fprintf(w, "tmux      %.1f MB/s   ingest / tmux %.1fx  (target >= %.0fx)  %s\n",
		t.TmuxMBps, t.TmuxRatio(), TmuxTarget, verdict(t.TmuxRatio() >= TmuxTarget))
	fmt.Fprintf(w, "          %s, a detached 120x40 pane keeping 10000 lines of history: from starting tmux to the log's end on its screen, median of %d runs; start-up alone (an empty log) %s, included\n",
		t.TmuxVersion, t.Runs, ms(t.TmuxEmpty))
}

func (r *Report) formatRelay(w io.Writer) {
	runs := r.runs()
	if len(runs) == 0 {
		return
	}
	first := runs[0].res
	fmt.Fprintf(w, "relay     %d agents x %d msg/s (%d msg/s in all), %d messages per kind of run in %d interleaved rounds, %s\n",
		first.Agents, first.Rate, first.Agents*first.Rate, first.Agents*first.Count, max(r.Rounds, 1), r.verified())
	var base Summary
	if r.Bare != nil {
		base = r.Bare.Latency
	}
	lat := [][]string{{"latency", "p50", "p90", "p99", "max", ""}}
	for _, run := range runs {
		l := run.res.Latency
		b50, b99 := base.P50, base.P99
		note := ""
		switch run.res {
		case r.Bare:
			b50, b99 = 0, 0
		case r.Page, r.Echo:
			note = fmt.Sprintf("target p99 < %.0f ms  %s", float64(P99Target)/float64(time.Millisecond), verdict(l.P99 < P99Target))
		default:
			note = "(no target)"
		}
		lat = append(lat, []string{run.name, msRatio(l.P50, b50), ms(l.P90), msRatio(l.P99, b99), ms(l.Max), note})
	}
	table(w, lat)
	table(w, checksTable(runs, false))
	table(w, stagesTable(runs))
	formatNotes(w, runs)
}

// formatNotes prints the trouble the engine survived in runs.
func formatNotes(w io.Writer, runs []namedRun) {
	for _, run := range runs {
		for _, n := range run.res.EngineNotes {
			fmt.Fprintf(w, "  note: %s: %s\n", run.name, n)
		}
	}
}

// checksTable is what the relay runs checked, and their CPU time; with
// nats, also the records published on NATS and the nodes' events offered
// again.
func checksTable(runs []namedRun, nats bool) [][]string {
	head := []string{"checks", "sent", "delivered", "stored", "acked", "notices"}
	if nats {
		head = append(head, "on NATS", "repeats")
	}
	checks := [][]string{append(head, "cpu here", "per msg", "cpu agents")}
	for _, run := range runs {
		c := run.res
		stored, acked, notices, perMsg := "-", "-", "-", "-"
		if c.Mode == EngineRelay {
			stored, acked, notices = strconv.Itoa(c.Stored), strconv.Itoa(c.Acks), strconv.Itoa(c.Notices)
		}
		if c.Sent > 0 {
			perMsg = fmt.Sprintf("%.0f µs", float64(c.CPU.Microseconds())/float64(c.Sent))
		}
		row := []string{run.name, strconv.Itoa(c.Sent), strconv.Itoa(c.Delivered), stored, acked, notices}
		if nats {
			published, repeats := "-", "-"
			if c.NATS {
				published = fmt.Sprintf("%d/%d", c.Published, c.Records)
			}
			if c.Nodes > 0 {
				repeats = strconv.Itoa(c.Repeats)
			}
			row = append(row, published, repeats)
		}
		checks = append(checks, append(row, fmt.Sprintf("%.1f s", c.CPU.Seconds()), perMsg, fmt.Sprintf("%.1f s", c.AgentCPU.Seconds())))
	}
	return checks
}

// stagesTable splits the engine runs' latency in its stages.
func stagesTable(runs []namedRun) [][]string {
	var stages [][]string
	for _, run := range runs {
		if len(run.res.Stages) == 0 {
			continue
		}
		if stages == nil {
			head := []string{"stages p50 / p99"}
			for _, s := range run.res.Stages {
				head = append(head, s.Name)
			}
			stages = append(stages, head)
		}
		row := []string{run.name}
		for _, s := range run.res.Stages {
			row = append(row, fmt.Sprintf("%.2f / %.2f ms", float64(s.P50)/float64(time.Millisecond), float64(s.P99)/float64(time.Millisecond)))
		}
		stages = append(stages, row)
	}
	return stages
}

// formatNodeRelay prints the relay embedded, on NATS and across nodes,
// each against the bare PTY relay (and the embedded bus).
func formatNodeRelay(w io.Writer, n *NodeRelay) {
	if len(n.Runs) == 0 || n.Runs[0].Paced == nil {
		return
	}
	first := n.Runs[0].Paced
	fmt.Fprintf(w, "nodes     the relay on one machine and across %d nodes: %d agents x %d msg/s (%d msg/s in all), %d messages per kind of run in %d interleaved rounds, then a burst of %d messages from every agent at once (%d in all), %s\n",
		n.Nodes, n.Agents, n.Rate, n.Agents*n.Rate, n.Agents*first.Count, max(n.Rounds, 1), n.Burst, n.Agents*n.Burst, verifiedRuns(n.namedRuns()))
	base, emb := n.Runs[0], n.Runs[0]
	if len(n.Runs) > 1 {
		emb = n.Runs[1]
	}
	rows := [][]string{{"latency, paced", "p50", "p90", "p99", "max", "p50 / embedded", "burst", "burst ratio"}}
	for i, r := range n.Runs {
		l, b := r.Paced.Latency, base.Paced.Latency
		if i == 0 {
			b = Summary{}
		}
		vsEmb := "-"
		if i > 1 {
			vsEmb = fmt.Sprintf("%.1fx", float64(l.P50)/float64(max(emb.Paced.Latency.P50, 1)))
		}
		burst, ratio := "-", "-"
		if r.Burst != nil {
			burst = fmt.Sprintf("%.0f msg/s", r.Burst.Throughput)
			if base.Burst != nil && base.Burst.Throughput > 0 {
				ratio = fmt.Sprintf("%.2fx", r.Burst.Throughput/base.Burst.Throughput)
			}
		}
		rows = append(rows, []string{r.Name, msRatio(l.P50, b.P50), ms(l.P90), msRatio(l.P99, b.P99), ms(l.Max), vsEmb, burst, ratio})
	}
	table(w, rows)
	runs := n.namedRuns()
	table(w, checksTable(runs, true))
	var paced []namedRun
	for _, r := range n.Runs {
		paced = append(paced, namedRun{r.Name, r.Paced})
	}
	table(w, stagesTable(paced))
	formatNotes(w, runs)
}

func formatFrames(w io.Writer, f *FrameResult) {
	fmt.Fprintf(w, "frames    %d agents, console %dx%d (screen pane %dx%d), %d frames with the agents idle and %d busy (asked %d KB/s each, fed %.1f MB/s in all) in %d interleaved rounds\n",
		f.Agents, f.Width, f.Height, f.ScreenCols, f.ScreenRows, f.Idle.N, f.Busy.N, f.AgentKBps, f.FedMBps, max(f.Rounds, 1))
	row := func(name string, s, base Summary, note string) []string {
		return []string{name, msRatio(s.P50, base.P50), ms(s.P90), msRatio(s.P99, base.P99), ms(s.Max), note}
	}
	rows := [][]string{{"frame: Update(tick) + View()", "p50", "p90", "p99", "max", ""},
		row("agents idle", f.Idle, Summary{}, ""),
		row("agents busy", f.Busy, f.Idle, fmt.Sprintf("target p99 < %.0f ms  %s", float64(FrameTarget)/float64(time.Millisecond), verdict(f.Busy.P99 < FrameTarget)))}
	if f.CPU[1].N > 0 {
		rows = append(rows, row("busy: CPU time of the frame", f.CPU[1], f.CPU[0], "(ratios to the idle frames' CPU time)"))
	}
	rows = append(rows, row("busy: Update(tick) alone", f.Update[1], Summary{}, ""),
		row("busy: vt Render of the pane", f.Render[1], Summary{}, "(timed apart; View does it too)"))
	table(w, rows)
}

// formatNodeFrames prints the frames over nodes as ratios to the local
// frames (local, idle and busy), or to its own quiet frames without them.
func formatNodeFrames(w io.Writer, f *NodeFrameResult, local *FrameResult) {
	whole := "every agent's output reached the console whole"
	if f.Problem != "" {
		whole = "BROKEN (see below)"
	}
	fmt.Fprintf(w, "frames    over %d nodes: %d agents (%d on each), every screen streamed from its node over NATS, started in %.1f s; console %dx%d (screen pane %dx%d), %d frames quiet and %d streaming (asked %d KB/s each, the console took %.1f MB/s in all) in %d interleaved rounds; %s (%.1f MB), %d events offered again\n",
		f.Nodes, f.Agents, f.Agents/max(f.Nodes, 1), f.Start.Seconds(), f.Width, f.Height, f.ScreenCols, f.ScreenRows, f.Idle.N, f.Busy.N,
		f.AgentKBps, f.FedMBps, max(f.Rounds, 1), whole, float64(f.Taken)/1e6, f.Repeats)
	row := func(name string, s, base Summary, note string) []string {
		return []string{name, msRatio(s.P50, base.P50), ms(s.P90), msRatio(s.P99, base.P99), ms(s.Max), note}
	}
	head := "frame over nodes (ratios to the local frames above)"
	quietBase, busyBase, cpuBase := Summary{}, f.Idle, f.CPU[0]
	if local != nil {
		quietBase, busyBase, cpuBase = local.Idle, local.Busy, local.CPU[1]
	} else {
		head = "frame over nodes (ratios to the quiet frames)"
	}
	target := fmt.Sprintf("target p99 < %.0f ms  %s", float64(FrameTarget)/float64(time.Millisecond), verdict(f.Busy.P99 < FrameTarget))
	rows := [][]string{{head, "p50", "p90", "p99", "max", ""},
		row("agents quiet", f.Idle, quietBase, ""),
		row("agents streaming", f.Busy, busyBase, target)}
	if f.CPU[1].N > 0 {
		rows = append(rows, row("streaming: CPU time of the frame", f.CPU[1], cpuBase, ""))
	}
	rows = append(rows, row("streaming: vt Render of the pane", f.Render[1], Summary{}, "(timed apart; View does it too)"))
	table(w, rows)
	for _, n := range f.Notes {
		fmt.Fprintf(w, "  note: frames over nodes: %s\n", n)
	}
}

func formatMemory(w io.Writer, m *MemoryResult) {
	fmt.Fprintf(w, "memory    %.1f MB per agent   text kept %.1f MB   ratio %.1fx  (target < %.0f MB)  %s\n",
		m.PerTerminal/1e6, float64(m.TextBytes)/1e6, m.TextRatio(), MemoryTarget/1e6, verdict(m.PerTerminal < MemoryTarget))
	fmt.Fprintf(w, "          heap in use per terminal, %d terminals %dx%d keeping %d lines of scrollback, each fed %d coloured lines of %d columns (%.1f MB); %.2f MB per terminal keeping none\n",
		m.Terminals, m.Cols, m.Rows, m.Scrollback, m.Lines, m.Cols, float64(m.InputBytes)/1e6, m.PerTerminalBare/1e6)
}

func formatAudit(w io.Writer, a *AuditResult) {
	fmt.Fprintf(w, "audit     %d records and %d consultations over %d days (store built in %.1f s, %.0f MB); baseline: one meta key read p50 %s, p99 %s\n",
		a.Records, a.Consultations, a.Days, a.Build.Seconds(), float64(a.StoreBytes)/1e6, ms(a.Baseline.P50), ms(a.Baseline.P99))
	rows := [][]string{{"query (in process, store read-only)", "p50", "p99", "returned", "matched", "target p99"}}
	for _, q := range a.Queries {
		matched := "-"
		if q.Matched >= 0 {
			matched = strconv.Itoa(q.Matched)
		}
		rows = append(rows, []string{q.Name, msRatio(q.Latency.P50, a.Baseline.P50), msRatio(q.Latency.P99, a.Baseline.P99),
			strconv.Itoa(q.Returned), matched, fmt.Sprintf("< %s  %s", roundTarget(q.Target), verdict(q.Latency.P99 < q.Target))})
	}
	table(w, rows)
	for i, e := range a.Exports {
		head := "          "
		if i == 0 {
			head = "export    "
		}
		fmt.Fprintf(w, "%s%-4s %d consultations  %.1f MB in %.2f s  %.1f MB/s  (%.1f µs per consultation, no target)\n", head, e.Format,
			e.Consultations, float64(e.Bytes)/1e6, e.Took.Seconds(), e.BytesPerSec()/1e6, float64(e.Took.Microseconds())/float64(max(e.Consultations, 1)))
	}
}

// roundTarget renders a target: "50 ms", "5 s".
func roundTarget(d time.Duration) string {
	if d >= time.Second {
		return fmt.Sprintf("%.0f s", d.Seconds())
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

// table writes rows indented by two spaces, in columns two spaces apart,
// without trailing blanks.
func table(w io.Writer, rows [][]string) {
	var width []int
	for _, row := range rows {
		for i, cell := range row {
			if i == len(width) {
				width = append(width, 0)
			}
			width[i] = max(width[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var b strings.Builder
		b.WriteString("  ")
		for i, cell := range row {
			b.WriteString(cell)
			if i < len(row)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-utf8.RuneCountInString(cell)+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// verified says in words what the relay checks found.
func (r *Report) verified() string { return verifiedRuns(r.runs()) }

// verifiedRuns says in words what the checks of runs found.
func verifiedRuns(runs []namedRun) string {
	engine, nats := false, false
	for _, run := range runs {
		if len(run.res.Problems()) > 0 {
			return "BROKEN (see below)"
		}
		engine = engine || run.res.Mode == EngineRelay
		nats = nats || run.res.NATS
	}
	switch {
	case nats:
		return "all stored and acknowledged, all delivered once, every record published on NATS"
	case engine:
		return "all stored and acknowledged, all delivered once"
	}
	return "all delivered once"
}

func (r *Report) formatProblems(w io.Writer) {
	if p := r.Problems(); len(p) > 0 {
		fmt.Fprintln(w, "BROKEN")
		for _, s := range p {
			fmt.Fprintln(w, "  "+s)
		}
	}
}

// formatBus prints the bus figures against the embedded bus.
func formatBus(w io.Writer, b *BusResult) {
	fmt.Fprintf(w, "bus       %d records committed to the store and read by a subscriber, one at a time, then as one burst\n", b.Records)
	rows := [][]string{{"", "p50", "p99", "p50 ratio", "burst", "burst ratio"}}
	row := func(name string, s Summary, rate float64) {
		rows = append(rows, []string{name, ms(s.P50), ms(s.P99), fmt.Sprintf("%.1fx", float64(s.P50)/float64(max(b.Embedded.P50, 1))),
			fmt.Sprintf("%.0f/s", rate), fmt.Sprintf("%.2fx", rate/max(b.EmbeddedRate, 1))})
	}
	row("embedded (baseline)", b.Embedded, b.EmbeddedRate)
	row("NATS JetStream", b.NATS, b.NATSRate)
	row("link console→node", b.Link, b.LinkRate)
	table(w, rows)
}
