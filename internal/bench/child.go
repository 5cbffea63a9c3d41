package bench

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// The benchmark's child processes are the benchmark binary itself (or the
// test binary) started again with EnvChild set: no other program is needed
// and the agents run exactly the code under measurement.
const (
	// EnvChild names the child role: "pty-writer", "agent", "node" or
	// "streamer".
	EnvChild = "TLBENCH_CHILD"

	childPTYWriter = "pty-writer"
	childAgent     = "agent"

	// childTerm is every child's TERM. This binary links Bubble Tea (the
	// frame time is the dashboard's), whose package init asks the terminal
	// for its background colour when stdout is one (an OSC 11 query and a
	// DSR, by termenv via lipgloss.HasDarkBackground) and waits up to 5s
	// for an answer that a bare PTY never gives. termenv does not ask a
	// "dumb" terminal; the children print nothing that depends on TERM.
	childTerm = "dumb"

	envLog    = "TLBENCH_LOG"
	envName   = "TLBENCH_NAME"
	envTo     = "TLBENCH_TO"
	envDir    = "TLBENCH_DIR"
	envCount  = "TLBENCH_COUNT"
	envExpect = "TLBENCH_EXPECT"
	envAcks   = "TLBENCH_ACKS"
	envPeriod = "TLBENCH_PERIOD"
	envPhase  = "TLBENCH_PHASE"
	envEcho   = "TLBENCH_ECHO"
)

// Child runs the child role this process was started for, if any, and
// returns its exit status; ok is false when the process is no child (the
// caller then goes on with its own work). Call it first thing in main, or
// in TestMain.
func Child() (code int, ok bool) {
	switch os.Getenv(EnvChild) {
	case "":
		return 0, false
	case childPTYWriter:
		return runPTYWriter(os.Getenv(envLog)), true
	case childAgent:
		c, err := agentConfigFromEnv()
		if err != nil {
			fmt.Fprintln(os.Stderr, "tlbench agent:", err)
			return 2, true
		}
		return runAgent(c), true
	case childStreamer:
		return runStreamer(), true
	case childNode:
		return runNode(os.Getenv(envNode), os.Getenv(envNATS), os.Getenv(envTeamFile), os.Getenv(envDir)), true
	default:
		fmt.Fprintf(os.Stderr, "tlbench: unknown %s=%q\n", EnvChild, os.Getenv(EnvChild))
		return 2, true
	}
}

// agentConfig is what one benchmark agent is told through its environment.
type agentConfig struct {
	Name string
	To   string // the agent it sends to
	Dir  string // where the ready, start and result files live
	// Count is how many messages it sends.
	Count int
	// Expect is how many benchmark messages it waits to receive.
	Expect int
	// Acks is how many relay acknowledgements it waits for (0 for the
	// bare relay, which sends none).
	Acks int
	// Period is the time between two of its sends (1/rate).
	Period time.Duration
	// Phase offsets its sends from the common start, so that the agents
	// together send at an even pace instead of in bursts.
	Phase time.Duration
	// Echo leaves its terminal cooked with echo on, as a shell, a script
	// or Aider has it, instead of raw as the agent CLIs set theirs: what
	// the console types comes back in its output.
	Echo bool
	// Host is the node that runs it ("": the console's machine); the
	// team file says it, not the agent's environment.
	Host string
}

func (c agentConfig) env() map[string]string {
	return map[string]string{
		"TERM": childTerm, EnvChild: childAgent, envName: c.Name, envTo: c.To, envDir: c.Dir,
		envCount: strconv.Itoa(c.Count), envExpect: strconv.Itoa(c.Expect), envAcks: strconv.Itoa(c.Acks),
		envPeriod: strconv.FormatInt(int64(c.Period), 10), envPhase: strconv.FormatInt(int64(c.Phase), 10),
		envEcho: strconv.FormatBool(c.Echo),
	}
}

// envList is c.env() in os/exec's form.
func (c agentConfig) envList() []string {
	var out []string
	for k, v := range c.env() {
		out = append(out, k+"="+v)
	}
	return out
}

func agentConfigFromEnv() (agentConfig, error) {
	c := agentConfig{Name: os.Getenv(envName), To: os.Getenv(envTo), Dir: os.Getenv(envDir)}
	if c.Name == "" || c.To == "" || c.Dir == "" {
		return c, errors.New("missing " + envName + ", " + envTo + " or " + envDir)
	}
	var err error
	num := func(key string) int64 {
		v, perr := strconv.ParseInt(os.Getenv(key), 10, 64)
		if (perr != nil || v < 0) && err == nil {
			err = fmt.Errorf("%s=%q: want a number >= 0", key, os.Getenv(key))
		}
		return v
	}
	c.Count, c.Expect, c.Acks = int(num(envCount)), int(num(envExpect)), int(num(envAcks))
	c.Period, c.Phase = time.Duration(num(envPeriod)), time.Duration(num(envPhase))
	if v := os.Getenv(envEcho); v != "" {
		var perr error
		if c.Echo, perr = strconv.ParseBool(v); perr != nil && err == nil {
			err = fmt.Errorf("%s=%q: want true or false", envEcho, v)
		}
	}
	if err == nil && c.Period <= 0 {
		err = fmt.Errorf("%s must be > 0", envPeriod)
	}
	return c, err
}

// Files shared by the parent and the agents of one relay run.
func readyFile(dir, name string) string  { return filepath.Join(dir, name+".ready") }
func resultFile(dir, name string) string { return filepath.Join(dir, name+".result") }
func startFile(dir string) string        { return filepath.Join(dir, "start") }

// runPTYWriter is the PTY throughput child: it writes the log file to its
// terminal in 32 KiB writes and exits.
func runPTYWriter(path string) int {
	log, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench pty-writer:", err)
		return 2
	}
	for i := 0; i < len(log); i += ptyChunk {
		if _, err := os.Stdout.Write(log[i:min(len(log), i+ptyChunk)]); err != nil {
			fmt.Fprintln(os.Stderr, "tlbench pty-writer:", err)
			return 1
		}
	}
	return 0
}
