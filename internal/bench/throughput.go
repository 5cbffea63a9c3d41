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

// ThroughputResult compares the parser with a bare PTY on the same log.
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
}

// Ratio is the parser's throughput over the bare PTY's.
func (t *ThroughputResult) Ratio() float64 {
	if t.PTYMBps == 0 {
		return 0
	}
	return t.ParserMBps / t.PTYMBps
}

// MeasureThroughput generates a log of logBytes with seed, measures how
// fast a child (exe, re-executed as the PTY writer) can push it through a
// PTY, median of runs, and how fast the parser reads it, median of passes.
// dir holds the log file for the child.
func MeasureThroughput(exe, dir string, logBytes int, seed int64, passes, runs int) (*ThroughputResult, error) {
	log, envelopes := protocol.GenerateLog(logBytes, seed)
	res := &ThroughputResult{LogBytes: len(log), Envelopes: envelopes, Passes: passes, Runs: runs}
	path := filepath.Join(dir, "agent.log")
	if err := os.WriteFile(path, log, 0o600); err != nil {
		return nil, err
	}
	defer os.Remove(path)
	var pty []float64
	for range runs {
		n, mbps, err := ptyRun(exe, path)
		if err != nil {
			return nil, err
		}
		if n < int64(len(log)) {
			return nil, fmt.Errorf("bare PTY: read %d bytes, the log has %d", n, len(log))
		}
		res.PTYBytes = n
		pty = append(pty, mbps)
	}
	res.PTYMBps = median(pty)
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
	cmd.Env = append(os.Environ(), EnvChild+"="+childPTYWriter, envLog+"="+logPath)
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
