package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/teamlead/teamlead/internal/protocol"
)

// ptyChunk is the size of one write by the PTY writer and of one Feed to
// the parser: a large PTY read.
const ptyChunk = 32 << 10

// ThroughputResult compares the parser, the engine's ingest path and tmux
// with a bare PTY on the same log.
type ThroughputResult struct {
	// LogBytes is the size of the generated log.
	LogBytes int
	// Envelopes is how many valid envelopes GenerateLog put in it.
	Envelopes int
	// Found is how many the parser found (in every pass; the first pass
	// that disagrees is the one reported).
	Found int
	// ParserMBps is the parser's median throughput over Passes passes.
	ParserMBps float64
	// PTYMBps is the bare PTY's median throughput over Runs runs.
	PTYMBps float64
	// PTYBytes is what one run read from the master: more than LogBytes,
	// as the terminal turns "\n" into "\r\n".
	PTYBytes int64
	// Passes and Runs are the repetitions behind the medians.
	Passes, Runs int

	// IngestMBps is the median throughput, over Runs runs, of the engine's
	// ingest path: the agents package's PTY reader handing each read to
	// vt.Terminal.Write then protocol.Parser.Feed, as the engine's sink does.
	IngestMBps float64
	// IngestRatios are each run's ingest throughput over the bare PTY's in
	// the same round: the two runs of a round share the machine's load of
	// the moment, so their ratio swings less than the medians' ratio.
	IngestRatios []float64
	// IngestFound is how many envelopes the ingest path's parser found (the
	// first run that disagrees with Envelopes is the one reported).
	IngestFound int
	// IngestReads is how many reads one ingest run took (PTYBytes over it
	// is the mean read).
	IngestReads int
	// IngestCPU and PTYCPU are the medians of the CPU time (user + system)
	// this process spent in an ingest run and a bare PTY run: the reading
	// side's work (spawning the child included, the child's own CPU not).
	IngestCPU, PTYCPU time.Duration
	// TmuxMBps is the median throughput of tmux showing the same log in a
	// detached pane, over Runs runs: PTYBytes over the time from starting
	// tmux to the log's end on the pane's screen. 0 when tmux was not
	// measured (TmuxNote says why).
	TmuxMBps float64
	// TmuxEmpty is the median time of the same tmux run with an empty log:
	// the start-up and polling that TmuxMBps includes (not subtracted).
	TmuxEmpty time.Duration
	// TmuxVersion is `tmux -V`.
	TmuxVersion string
	// TmuxNote says why there is no tmux figure ("tmux not installed", an
	// error); "" when there is one.
	TmuxNote string
}

// Ratio is the parser's throughput over the bare PTY's.
func (t *ThroughputResult) Ratio() float64 {
	if t.PTYMBps == 0 {
		return 0
	}
	return t.ParserMBps / t.PTYMBps
}

// IngestRatio is the ingest path's throughput over the bare PTY's: the
// median of the rounds' ratios when there are some.
func (t *ThroughputResult) IngestRatio() float64 {
	if len(t.IngestRatios) > 0 {
		return median(t.IngestRatios)
	}
	if t.PTYMBps == 0 {
		return 0
	}
	return t.IngestMBps / t.PTYMBps
}

// TmuxRatio is the ingest path's throughput over tmux's (0 without tmux).
func (t *ThroughputResult) TmuxRatio() float64 {
	if t.TmuxMBps == 0 {
		return 0
	}
	return t.IngestMBps / t.TmuxMBps
}

// MeasureThroughput generates a log of logBytes with seed and measures, in
// runs interleaved rounds (so that a change in the machine's load weighs
// on all of them alike), how fast a child (exe, re-executed as the PTY
// writer) can push it through a bare PTY, through the engine's ingest path
// (see ingestRun) and through tmux (see tmuxRun), medians of runs; then how
// fast the parser alone reads it, median of passes. dir holds the log file
// for the children.
func MeasureThroughput(exe, dir string, logBytes int, seed int64, passes, runs int) (*ThroughputResult, error) {
	log, envelopes := protocol.GenerateLog(logBytes, seed)
	res := &ThroughputResult{LogBytes: len(log), Envelopes: envelopes, Passes: passes, Runs: runs}
	path := filepath.Join(dir, "agent.log")
	if err := os.WriteFile(path, log, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	empty := filepath.Join(dir, "empty.log")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(empty)
	// Generous deadlines: 1 MB/s would be broken, not slow.
	deadline := 30*time.Second + time.Duration(len(log))*time.Microsecond
	tmux, version, terr := tmuxVersion()
	if terr != nil {
		res.TmuxNote = terr.Error()
	}
	res.TmuxVersion = version
	var pty, ingest, tm []float64
	var tmEmpty, ptyCPU, ingestCPU []time.Duration
	for i := range runs {
		c0, _ := cpuTimes()
		n, mbps, err := ptyRun(exe, path)
		c1, _ := cpuTimes()
		ptyCPU = append(ptyCPU, c1-c0)
		if err != nil {
			return nil, err
		}
		if n < int64(len(log)) {
			return nil, fmt.Errorf("bare PTY: read %d bytes, the log has %d", n, len(log))
		}
		res.PTYBytes = n
		pty = append(pty, mbps)

		found, n, reads, mbps, err := ingestRun(exe, path, deadline)
		c2, _ := cpuTimes()
		ingestCPU = append(ingestCPU, c2-c1)
		if err != nil {
			return nil, err
		}
		if n < int64(len(log)) {
			return nil, fmt.Errorf("ingest: read %d bytes, the log has %d", n, len(log))
		}
		if i == 0 || found != envelopes {
			res.IngestFound = found
		}
		ingest = append(ingest, mbps)
		res.IngestRatios = append(res.IngestRatios, mbps/pty[len(pty)-1])
		res.IngestReads = reads

		if res.TmuxNote == "" {
			el, err := tmuxRun(tmux, dir, path, deadline)
			if err == nil {
				tm = append(tm, float64(res.PTYBytes)/1e6/el.Seconds())
				el, err = tmuxRun(tmux, dir, empty, deadline)
				tmEmpty = append(tmEmpty, el)
			}
			if err != nil {
				res.TmuxNote, tm = err.Error(), nil
			}
		}
	}
	res.PTYMBps, res.IngestMBps = median(pty), median(ingest)
	res.PTYCPU, res.IngestCPU = Summarize(ptyCPU).P50, Summarize(ingestCPU).P50
	if res.TmuxNote == "" {
		res.TmuxMBps, res.TmuxEmpty = median(tm), Summarize(tmEmpty).P50
	}
	var parser []float64
	for i := range passes {
		found, el := parseRun(log)
		if i == 0 || found != envelopes {
			res.Found = found
		}
		parser = append(parser, float64(len(log))/1e6/el.Seconds())
	}
	res.ParserMBps = median(parser)
	return res, nil
}

// ptyRun runs the PTY writer child and reads its terminal until EIO. The
// clock starts at the first read, so the child's start-up is not counted,
// and neither are the bytes of that read.
func ptyRun(exe, logPath string) (total int64, mbps float64, err error) {
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "TERM="+childTerm, EnvChild+"="+childPTYWriter, envLog+"="+logPath)
	master, err := startOnPTY(cmd)
	if err != nil {
		return 0, 0, fmt.Errorf("bare PTY: start the writer: %w", err)
	}
	defer master.Close()
	buf := make([]byte, 64<<10)
	var start time.Time
	var first int64
	for {
		n, rerr := master.Read(buf)
		if n > 0 && total == 0 {
			start, first = time.Now(), int64(n)
		}
		total += int64(n)
		if rerr != nil {
			break // EIO: every copy of the slave side is closed
		}
	}
	el := time.Since(start)
	if werr := cmd.Wait(); werr != nil {
		return total, 0, fmt.Errorf("bare PTY: the writer failed: %w", werr)
	}
	return total, float64(total-first) / 1e6 / el.Seconds(), nil
}

// parseRun feeds log to a fresh parser in ptyChunk pieces and returns the
// envelopes found and the time taken.
func parseRun(log []byte) (found int, el time.Duration) {
	p := protocol.NewParser()
	emit := func(e protocol.Event) {
		if e.Kind == protocol.KindEnvelope {
			found++
		}
	}
	start := time.Now()
	for i := 0; i < len(log); i += ptyChunk {
		p.Feed(log[i:min(len(log), i+ptyChunk)], emit)
	}
	p.Flush(emit)
	return found, time.Since(start)
}
