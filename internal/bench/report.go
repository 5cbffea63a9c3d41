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
	// store Options.Sync false and true (nil if not run).
	Bare, Page, Fsync *RelayResult
}

// Problems lists what is broken (not merely slow): envelopes the parser
// missed, messages lost, duplicated, unstored or unacknowledged.
func (r *Report) Problems() []string {
	var out []string
	if t := r.Throughput; t != nil && t.Found != t.Envelopes {
		out = append(out, fmt.Sprintf("parser: found %d envelopes, the log has %d", t.Found, t.Envelopes))
	}
	for _, run := range r.runs() {
		for _, p := range run.res.Problems() {
			out = append(out, run.name+": "+p)
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
	for _, n := range []namedRun{{"bare PTY relay", r.Bare}, {"engine (page cache)", r.Page}, {"engine (fsync)", r.Fsync}} {
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
		fmt.Fprintf(w, "parser    %.1f MB/s   bare PTY   %.1f MB/s   ratio %.1fx  (target >= %.0fx)  %s\n",
			t.ParserMBps, t.PTYMBps, t.Ratio(), ParserTarget, verdict(t.Ratio() >= ParserTarget))
		fmt.Fprintf(w, "          %.1f MiB log, %d of %d envelopes found; medians of %d parser passes and %d PTY runs (%d bytes read per run)\n",
			float64(t.LogBytes)/(1<<20), t.Found, t.Envelopes, t.Passes, t.Runs, t.PTYBytes)
	}
	runs := r.runs()
	if len(runs) == 0 {
		r.formatProblems(w)
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
		case r.Page:
			note = fmt.Sprintf("target p99 < %.0f ms  %s", float64(P99Target)/float64(time.Millisecond), verdict(l.P99 < P99Target))
		default:
			note = "(no target)"
		}
		lat = append(lat, []string{run.name, msRatio(l.P50, b50), ms(l.P90), msRatio(l.P99, b99), ms(l.Max), note})
	}
	table(w, lat)
	checks := [][]string{{"checks", "sent", "delivered", "stored", "acked", "cpu here", "per msg", "cpu agents"}}
	for _, run := range runs {
		c := run.res
		stored, acked, perMsg := "-", "-", "-"
		if c.Mode == EngineRelay {
			stored, acked = strconv.Itoa(c.Stored), strconv.Itoa(c.Acks)
		}
		if c.Sent > 0 {
			perMsg = fmt.Sprintf("%.0f µs", float64(c.CPU.Microseconds())/float64(c.Sent))
		}
		checks = append(checks, []string{run.name, strconv.Itoa(c.Sent), strconv.Itoa(c.Delivered), stored, acked,
			fmt.Sprintf("%.1f s", c.CPU.Seconds()), perMsg, fmt.Sprintf("%.1f s", c.AgentCPU.Seconds())})
	}
	table(w, checks)
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
	table(w, stages)
	for _, run := range runs {
		for _, n := range run.res.EngineNotes {
			fmt.Fprintf(w, "  note: %s: %s\n", run.name, n)
		}
	}
	r.formatProblems(w)
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
func (r *Report) verified() string {
	for _, run := range r.runs() {
		if len(run.res.Problems()) > 0 {
			return "BROKEN (see below)"
		}
	}
	if r.Page != nil || r.Fsync != nil {
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
