// Package soak runs the real teamlead console headless over a team of
// mockagent agents in traffic mode (half of them in cooked terminals that
// echo what is typed, half raw), SIGKILLs the console (restarted on the
// same state) and the agents (restarted by the console, restart: always)
// at random, and checks the invariants of PROTOCOL.md sections 1 and 2
// from outside, continuously and once more after the traffic has drained:
// nothing acknowledged lost, at most one duplicate per recipient per crash,
// no refusal of well-formed traffic, no notice caused by a notice, and the
// console's memory flat after warm-up (see Check). Every random choice
// comes from one seeded PRNG; the seed is in the result and settable.
package soak

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure one soak run.
type Options struct {
	// Teamlead and Mockagent are the binaries to run.
	Teamlead, Mockagent string
	// Dir keeps the run's files: team file, state, the agents' traffic
	// logs (NAME.log) and input records (NAME.in), the console's output
	// (console-N.log) and the RSS samples (rss.tsv).
	Dir string
	// Agents is the team size (at least 2); agents with an odd number run
	// in cooked terminals (echo on), the others raw.
	Agents int
	// Duration is how long the agents send.
	Duration time.Duration
	// Rate is the messages per second each agent starts.
	Rate float64
	// Seed seeds every random choice (the agents' and the kills').
	Seed uint64
	// ConsoleKillEvery and AgentKillEvery are the mean pauses between
	// SIGKILLs of the console and of a random agent (each pause uniform in
	// [0.5, 1.5) of the mean); 0 kills none.
	ConsoleKillEvery, AgentKillEvery time.Duration
	// Drain bounds the wait, once sending stopped, for every acknowledged
	// message to arrive; default 90s.
	Drain time.Duration
	// Overdue is how long after its acknowledgement a message may be
	// missing before the continuous check reports it; default 60s.
	Overdue time.Duration
	// MemWarmup is how long after each console start RSS samples are not
	// judged; MemWindow the span of the early and late samples compared;
	// MemGrowth and MemSlack the allowed growth (late <= early x (1 +
	// MemGrowth) + MemSlack). Defaults 15s, 10s, 0.5, 32 MB.
	MemWarmup, MemWindow time.Duration
	MemGrowth            float64
	MemSlack             int64
	// Progress receives a line per event and a status line every 10s.
	Progress io.Writer
}

func (o *Options) defaults() error {
	if o.Agents < 2 || o.Duration <= 0 || o.Rate <= 0 {
		return errors.New("soak: need at least 2 agents, a duration and a rate")
	}
	if o.Teamlead == "" || o.Mockagent == "" || o.Dir == "" {
		return errors.New("soak: need the teamlead and mockagent binaries and a folder")
	}
	if o.Drain <= 0 {
		o.Drain = 90 * time.Second
	}
	if o.Overdue <= 0 {
		o.Overdue = 60 * time.Second
	}
	if o.MemWarmup <= 0 {
		o.MemWarmup = 15 * time.Second
	}
	if o.MemWindow <= 0 {
		o.MemWindow = 10 * time.Second
	}
	if o.MemGrowth <= 0 {
		o.MemGrowth = 0.5
	}
	if o.MemSlack <= 0 {
		o.MemSlack = 32 << 20
	}
	if o.Progress == nil {
		o.Progress = io.Discard
	}
	return nil
}

// Result is what a run found.
type Result struct {
	Options Options
	// Names lists the agents; Echoing says which run cooked (echo on).
	Names   []string
	Echoing map[string]bool
	// Crashes counts the kills (console, and per agent).
	Crashes Crashes
	// ConsoleStarts counts console processes started.
	ConsoleStarts int
	// Tally sums the logs up.
	Tally Tally
	// Violations are the broken invariants, final check.
	Violations []Violation
	// Seen counts what the continuous check reported while running,
	// per invariant (messages still in flight are not counted).
	Seen map[string]int
	// AuditRefusals and AuditReformats count the store's refusal and
	// reformat records at the end.
	AuditRefusals, AuditReformats int
	// AuditSample describes the first few of those records.
	AuditSample []string
	// Memory is the console's anonymous memory (RssAnon): per console process, the early and
	// late medians after warm-up (zero for a process too short-lived).
	Memory []MemSpan
	// Drained says whether every acknowledged message arrived before the
	// drain deadline.
	Drained bool
	// Took is the run's length, drain included.
	Took time.Duration
}

// MemSpan is one console process's anonymous memory, in bytes.
type MemSpan struct {
	Start       time.Duration // since the run began
	Lived       time.Duration
	Samples     int
	Early, Late int64 // medians of the first window after warm-up and of the last window
	Peak        int64
}

// Failed says whether any invariant broke.
func (r *Result) Failed() bool { return len(r.Violations) > 0 }

// Run runs the soak and returns what it found; an error means it could
// not run (a console that does not start, say), not a broken invariant.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.defaults(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(o.Dir, 0o755); err != nil {
		return nil, err
	}
	if ents, err := os.ReadDir(o.Dir); err != nil {
		return nil, err
	} else if len(ents) > 0 {
		return nil, fmt.Errorf("soak: %s is not empty (%s, …): give a new or empty folder, since the agents' logs are appended to", o.Dir, ents[0].Name())
	}
	s := &run{o: o, began: time.Now(), rng: rand.New(rand.NewPCG(o.Seed, 0x50a4)),
		res:  &Result{Options: o, Echoing: map[string]bool{}, Crashes: Crashes{Agent: map[string]int{}}, Seen: map[string]int{}},
		seen: map[string]bool{}, ackSeen: map[string]time.Time{}}
	if err := s.writeTeam(); err != nil {
		return nil, err
	}
	if err := s.startConsole(); err != nil {
		return nil, err
	}
	defer s.killConsole()
	sampler := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); s.sampleRSS(sampler) }()
	err := s.chaos(ctx)
	if err == nil {
		err = s.drain(ctx)
	}
	close(sampler)
	wg.Wait()
	if err != nil {
		return s.res, err
	}
	if err := s.stopConsole(); err != nil {
		return s.res, err
	}
	s.final()
	s.res.Took = time.Since(s.began)
	return s.res, nil
}

// run is one soak run's state.
type run struct {
	o     Options
	res   *Result
	began time.Time
	rng   *rand.Rand

	mu      sync.Mutex
	console *exec.Cmd
	done    chan struct{}
	cstart  time.Time
	rss     []rssSample

	seen    map[string]bool      // violations already reported while running
	ackSeen map[string]time.Time // "id to" -> when the check first saw its ack
}

type rssSample struct {
	console int // console process number
	at      time.Duration
	bytes   int64 // RssAnon: the heap and stacks, what a leak grows
	rss     int64 // VmRSS: also the store's files mapped in, which the kernel can drop
}

func (s *run) logf(format string, args ...any) {
	fmt.Fprintf(s.o.Progress, "soak %6.1fs  %s\n", time.Since(s.began).Seconds(), fmt.Sprintf(format, args...))
}

// Paths of the run's files.
func (s *run) path(name string) string { return filepath.Join(s.o.Dir, name) }
func (s *run) stopFile() string        { return s.path("stop") }
func (s *run) state() string           { return s.path("state") }
func (s *run) config() string          { return s.path("team.yaml") }

// roles are the agents' roles, by number.
var roles = []string{"alpha", "beta", "gamma", "delta"}

// writeTeam writes the team file: agent a01..aNN, odd ones cooked.
func (s *run) writeTeam() error {
	_ = os.Remove(s.stopFile())
	n := s.o.Agents
	for i := 1; i <= n; i++ {
		s.res.Names = append(s.res.Names, fmt.Sprintf("a%02d", i))
	}
	script := s.path("agent.mock")
	if err := os.WriteFile(script, []byte("say {name} ready\nidle\n"), 0o644); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# teamlead soak: written by internal/soak\nagents:\n")
	for i, name := range s.res.Names {
		// Peers are the other agents; roles those with another member
		// (role: addresses never include the sender).
		var peers, reach []string
		has := map[string]bool{}
		for j, p := range s.res.Names {
			if p != name {
				peers = append(peers, p)
				has[roles[j%len(roles)]] = true
			}
		}
		for _, r := range roles {
			if has[r] {
				reach = append(reach, r)
			}
		}
		args := []string{s.o.Mockagent, "--name", name, "--record", s.path(name + ".in"),
			"--traffic-log", s.path(name + ".log"), "--traffic-rate", strconv.FormatFloat(s.o.Rate, 'f', -1, 64),
			"--traffic-peers", strings.Join(peers, ","), "--traffic-roles", strings.Join(reach, ","),
			"--traffic-seed", strconv.FormatUint(s.o.Seed*1000+uint64(i+1), 10), "--traffic-stop", s.stopFile()}
		if (i+1)%2 == 0 {
			args = append(args, "--raw")
		} else {
			s.res.Echoing[name] = true
		}
		args = append(args, script)
		q := make([]string, len(args))
		for j, a := range args {
			q[j] = strconv.Quote(a)
		}
		fmt.Fprintf(&b, "  - name: %s\n    role: %s\n    restart: always\n    dir: %s\n    command: [%s]\n",
			name, roles[i%len(roles)], strconv.Quote(s.o.Dir), strings.Join(q, ", "))
	}
	return os.WriteFile(s.config(), []byte(b.String()), 0o644)
}

// startConsole starts `teamlead run --headless` on the run's state and
// waits (up to 60s) for it to say it is running.
func (s *run) startConsole() error {
	s.res.ConsoleStarts++
	logPath := s.path(fmt.Sprintf("console-%d.log", s.res.ConsoleStarts))
	f, err := os.Create(logPath)
	if err != nil {
		return err
	}
	cmd := exec.Command(s.o.Teamlead, "run", "--headless", "--config", s.config(), "--state", s.state(), "--grace", "3s")
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), "TEAMLEAD_STATE=", "TEAMLEAD_CONFIG=")
	if err := cmd.Start(); err != nil {
		f.Close()
		return fmt.Errorf("soak: start the console: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); f.Close(); close(done) }()
	s.mu.Lock()
	s.console, s.done, s.cstart = cmd, done, time.Now()
	s.mu.Unlock()
	deadline := time.Now().Add(60 * time.Second)
	for {
		b, _ := os.ReadFile(logPath)
		if strings.Contains(string(b), "teamlead: running") {
			s.logf("console %d running (pid %d)", s.res.ConsoleStarts, cmd.Process.Pid)
			return nil
		}
		select {
		case <-done:
			return fmt.Errorf("soak: console %d exited at start; its output is in %s:\n%s", s.res.ConsoleStarts, logPath, tail(string(b), 2000))
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("soak: console %d did not say it was running within 60s; its output is in %s", s.res.ConsoleStarts, logPath)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// killConsole SIGKILLs the console, if it runs, and waits for it.
func (s *run) killConsole() {
	s.mu.Lock()
	cmd, done := s.console, s.done
	s.console = nil
	s.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-done
}

// stopConsole ends the console with SIGTERM (it stops its agents), and
// SIGKILL after 30s.
func (s *run) stopConsole() error {
	s.mu.Lock()
	cmd, done := s.console, s.done
	s.console = nil
	s.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
		return nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		return fmt.Errorf("soak: the console did not stop within 30s of SIGTERM; see %s", s.path(fmt.Sprintf("console-%d.log", s.res.ConsoleStarts)))
	}
}

// pause draws a pause uniform in [0.5, 1.5) of mean.
func (s *run) pause(mean time.Duration) time.Duration {
	return time.Duration(float64(mean) * (0.5 + s.rng.Float64()))
}

// chaos runs the sending phase: kills at random times, the continuous
// check every 2 s, a status line every 10 s.
func (s *run) chaos(ctx context.Context) error {
	end := s.began.Add(s.o.Duration)
	var nextConsole, nextAgent time.Time
	if s.o.ConsoleKillEvery > 0 {
		nextConsole = time.Now().Add(s.pause(s.o.ConsoleKillEvery))
	}
	if s.o.AgentKillEvery > 0 {
		nextAgent = time.Now().Add(s.pause(s.o.AgentKillEvery))
	}
	nextCheck, nextStatus := time.Now().Add(2*time.Second), time.Now().Add(10*time.Second)
	for time.Now().Before(end) {
		if err := ctx.Err(); err != nil {
			return err
		}
		now := time.Now()
		if !nextConsole.IsZero() && now.After(nextConsole) {
			s.killConsole()
			s.res.Crashes.Console++
			s.logf("SIGKILL console (kill %d)", s.res.Crashes.Console)
			if err := s.startConsole(); err != nil {
				return err
			}
			nextConsole = time.Now().Add(s.pause(s.o.ConsoleKillEvery))
		}
		if !nextAgent.IsZero() && now.After(nextAgent) {
			s.killAgent()
			nextAgent = time.Now().Add(s.pause(s.o.AgentKillEvery))
		}
		if now.After(nextCheck) {
			s.check(false)
			nextCheck = now.Add(2 * time.Second)
		}
		if now.After(nextStatus) {
			s.status()
			nextStatus = now.Add(10 * time.Second)
		}
		time.Sleep(50 * time.Millisecond) // load shaping only; every wait for a result is by condition
	}
	return nil
}

// killAgent has a random agent SIGKILL itself: the pid its log's last
// start line names, if that process is still that agent.
func (s *run) killAgent() {
	name := s.res.Names[s.rng.IntN(len(s.res.Names))]
	pid := 0
	for _, ev := range s.logs()[name] {
		if ev.Op == "start" {
			pid = ev.Pid
		}
	}
	if pid == 0 {
		s.logf("agent %s: no process to kill yet", name)
		return
	}
	own := pid
	if pid = agentProcess(name, own); pid == 0 {
		s.logf("agent %s: pid %d is not running (restarting?), not killed", name, own)
		return
	}
	// SIGUSR1: the agent SIGKILLs itself once every byte it has read is
	// logged (mockagent's traffic mode), so the kill never falls between
	// its read(2) and its log's write(2), where a message the console
	// rightly counts as read would look lost.
	if err := syscall.Kill(pid, syscall.SIGUSR1); err != nil {
		s.logf("agent %s: kill %d: %v", name, pid, err)
		return
	}
	s.res.Crashes.Agent[name]++
	s.logf("SIGKILL agent %s (pid %d, by SIGUSR1: it kills itself once what it read is logged)", name, pid)
}

// agentProcess is the pid, as this process sees it, of the mockagent
// named name whose own pid is pid (the pid it logs: in a sandbox, its
// pid in the sandbox's PID namespace, the last of its status's NSpid);
// 0 if none runs.
func agentProcess(name string, pid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	want := strconv.Itoa(pid)
	for _, e := range entries {
		host, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), "\x00--name\x00"+name+"\x00") {
			continue
		}
		status, _ := os.ReadFile("/proc/" + e.Name() + "/status")
		for _, line := range strings.Split(string(status), "\n") {
			if f := strings.Fields(line); len(f) > 1 && f[0] == "NSpid:" && f[len(f)-1] == want {
				return host
			}
		}
	}
	return 0
}

// logs reads every agent's log; a log that cannot be read is reported.
func (s *run) logs() map[string][]Event {
	out, errs := ReadLogs(s.o.Dir, s.res.Names)
	for _, err := range errs {
		s.logf("%v", err)
	}
	return out
}

// ReadLogs reads the traffic logs NAME.log in dir of the agents named; a
// log not there yet is skipped, one that cannot be parsed is returned as
// far as it could be, with an error naming it.
func ReadLogs(dir string, names []string) (map[string][]Event, []error) {
	out := map[string][]Event{}
	var errs []error
	for _, n := range names {
		path := filepath.Join(dir, n+".log")
		f, err := os.Open(path)
		if err != nil {
			continue // not started yet
		}
		evs, err := ParseLog(f)
		f.Close()
		if err != nil {
			errs = append(errs, fmt.Errorf("agent %s's log %s: %w", n, path, err))
		}
		out[n] = evs
	}
	return out, errs
}

// check runs the invariants on the logs as they are. While running, an
// acknowledged message counts as lost only once it is Overdue; new
// violations are printed as they are first seen.
func (s *run) check(final bool) (Tally, []Violation) {
	now := time.Now()
	var pending func(id, to string) bool
	if !final {
		pending = func(id, to string) bool {
			k := id + " " + to
			first, ok := s.ackSeen[k]
			if !ok {
				s.ackSeen[k] = now
				return true
			}
			return now.Sub(first) < s.o.Overdue
		}
	}
	t, vs := Check(s.logs(), s.res.Crashes, pending)
	for _, v := range vs {
		k := v.String()
		if v.Invariant == Duplicate { // one report per agent process
			k = v.Invariant + " " + strings.SplitN(v.Detail, " read ", 2)[0]
		}
		if s.seen[k] {
			continue
		}
		s.seen[k] = true
		if !final {
			s.res.Seen[v.Invariant]++
		}
		s.logf("VIOLATION %s", v)
	}
	return t, vs
}

// status prints the running totals.
func (s *run) status() {
	t, vs := Check(s.logs(), s.res.Crashes, func(string, string) bool { return true })
	s.mu.Lock()
	var last rssSample
	if n := len(s.rss); n > 0 {
		last = s.rss[n-1]
	}
	s.mu.Unlock()
	s.logf("sent %d, read %d, acked %d (read %d), extra copies %d, notices %d, violations so far %v, console kills %d, agent kills %d, console memory %.1f MB (RSS %.1f MB)",
		t.Sent, t.Received, t.Acked, t.AckedReceived, t.ExtraCopies, t.Notices, Count(vs), s.res.Crashes.Console, sum(s.res.Crashes.Agent), float64(last.bytes)/1e6, float64(last.rss)/1e6)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// drain stops the sending and waits until every acknowledged message was
// read and the logs have stopped growing for 3 s, or the Drain deadline.
func (s *run) drain(ctx context.Context) error {
	if err := os.WriteFile(s.stopFile(), nil, 0o644); err != nil {
		return err
	}
	s.logf("sending stops; draining (up to %s)", s.o.Drain)
	deadline := time.Now().Add(s.o.Drain)
	var lastSize int64 = -1
	stableSince := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		size := int64(0)
		for _, n := range s.res.Names {
			if fi, err := os.Stat(s.path(n + ".log")); err == nil {
				size += fi.Size()
			}
		}
		if size != lastSize {
			lastSize, stableSince = size, time.Now()
		}
		t, _ := Check(s.logs(), s.res.Crashes, func(string, string) bool { return true })
		if t.Acked == t.AckedReceived && time.Since(stableSince) >= 3*time.Second {
			s.res.Drained = true
			s.logf("drained: every acknowledged message read, logs quiet for 3s")
			return nil
		}
		if time.Now().After(deadline) {
			s.logf("drain deadline: %d of %d acknowledged (message, recipient) pairs read", t.AckedReceived, t.Acked)
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// final runs the last check, the audit query and the memory judgement.
func (s *run) final() {
	t, vs := s.check(true)
	s.res.Tally = t
	for _, kind := range []string{"refusal", "reformat"} {
		recs, err := s.audit(kind)
		if err != nil {
			s.logf("audit --kind %s: %v", kind, err)
			vs = append(vs, Violation{Invariant: Refusal, Detail: fmt.Sprintf("could not read the store's %s records: %v", kind, err)})
			continue
		}
		if kind == "refusal" {
			s.res.AuditRefusals = len(recs)
		} else {
			s.res.AuditReformats = len(recs)
		}
		for _, r := range recs {
			if len(s.res.AuditSample) < 3 {
				s.res.AuditSample = append(s.res.AuditSample, fmt.Sprintf("%s seq %s (%s, task %s): %s", kind, r.seq, r.agent, r.task, clip(r.reason, 200)))
			}
		}
	}
	// The notices the agents read are the violations; the store's records
	// count too when no agent read a notice for them (it was killed first).
	if n := s.res.AuditRefusals + s.res.AuditReformats; n > 0 && t.Notices == 0 {
		vs = append(vs, Violation{Invariant: Refusal, Detail: fmt.Sprintf("the store holds %d refusal and %d reformat records (teamlead audit --kind refusal --state %s), though no agent read a notice",
			s.res.AuditRefusals, s.res.AuditReformats, s.state())})
	}
	vs = append(vs, s.memory()...)
	s.res.Violations = vs
}

// auditRec is the part of `teamlead audit --format json` the soak reads.
type auditRec struct{ seq, agent, task, msgID, reason string }

// audit lists the store's records of one kind through the teamlead CLI
// (the console is stopped, so it reads the store directly).
func (s *run) audit(kind string) ([]auditRec, error) {
	cmd := exec.Command(s.o.Teamlead, "audit", "--kind", kind, "--format", "json", "--limit", "0", "--state", s.state(), "--config", s.config())
	cmd.Env = append(os.Environ(), "TEAMLEAD_STATE=", "TEAMLEAD_CONFIG=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("%v: %s", err, tail(string(out), 500))
	}
	return parseAudit(string(out))
}

// sampleRSS samples the console's RSS every second until stop closes.
func (s *run) sampleRSS(stop chan struct{}) {
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	f, _ := os.Create(s.path("rss.tsv"))
	if f != nil {
		defer f.Close()
		fmt.Fprintln(f, "console\tseconds\tanon_bytes\trss_bytes")
	}
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		cmd, n, started := s.console, s.res.ConsoleStarts, s.cstart
		s.mu.Unlock()
		if cmd == nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
		if err != nil {
			continue
		}
		anon, rss := statusBytes(string(b), "RssAnon:"), statusBytes(string(b), "VmRSS:")
		if anon == 0 || rss == 0 {
			continue
		}
		at := time.Since(started)
		s.mu.Lock()
		s.rss = append(s.rss, rssSample{console: n, at: at, bytes: anon, rss: rss})
		s.mu.Unlock()
		if f != nil {
			fmt.Fprintf(f, "%d\t%.1f\t%d\t%d\n", n, at.Seconds(), anon, rss)
		}
	}
}

// statusBytes reads a field such as VmRSS: from /proc/PID/status, in bytes.
// The memory check judges RssAnon: VmRSS also counts the pages of the
// store's files Badger maps in, which grow in steps as tables are read (a
// 10-minute run failed on a VmRSS jump of 60 MB in 2 s) and which the kernel
// reclaims under pressure (24 of 63 MB in a console sampled mid-run); a
// leak grows the anonymous part.
func statusBytes(status, field string) int64 {
	for _, line := range strings.Split(status, "\n") {
		if v, ok := strings.CutPrefix(line, field); ok {
			f := strings.Fields(v)
			if len(f) >= 1 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

// memory judges the RSS samples: for each console process that lived
// past warm-up and two windows, the median of its last window may exceed
// the median of its first window after warm-up by MemGrowth and MemSlack.
func (s *run) memory() []Violation {
	s.mu.Lock()
	samples := append([]rssSample(nil), s.rss...)
	s.mu.Unlock()
	by := map[int][]rssSample{}
	for _, r := range samples {
		by[r.console] = append(by[r.console], r)
	}
	var vs []Violation
	for c := 1; c <= s.res.ConsoleStarts; c++ {
		rs := by[c]
		span, v := judgeMemory(rs, s.o.MemWarmup, s.o.MemWindow, s.o.MemGrowth, s.o.MemSlack)
		s.res.Memory = append(s.res.Memory, span)
		if v != "" {
			vs = append(vs, Violation{Invariant: Memory, Detail: fmt.Sprintf("console %d (%s): %s", c, s.path(fmt.Sprintf("console-%d.log", c)), v)})
		}
	}
	return vs
}

// judgeMemory summarises one console process's samples and says what is
// wrong with them ("" if nothing, or too few to judge).
func judgeMemory(rs []rssSample, warmup, window time.Duration, growth float64, slack int64) (MemSpan, string) {
	var span MemSpan
	if len(rs) == 0 {
		return span, ""
	}
	span.Samples = len(rs)
	span.Lived = rs[len(rs)-1].at
	var early, late []int64
	for _, r := range rs {
		span.Peak = max(span.Peak, r.bytes)
		if r.at >= warmup && r.at < warmup+window {
			early = append(early, r.bytes)
		}
		if r.at > span.Lived-window && r.at >= warmup+window {
			late = append(late, r.bytes)
		}
	}
	if len(early) == 0 || len(late) == 0 {
		return span, ""
	}
	span.Early, span.Late = median(early), median(late)
	limit := int64(float64(span.Early)*(1+growth)) + slack
	if span.Late > limit {
		return span, fmt.Sprintf("RSS grew from %.1f MB (median %s–%s after start) to %.1f MB (median of the last %s, at %s), over the limit %.1f MB",
			float64(span.Early)/1e6, warmup, warmup+window, float64(span.Late)/1e6, window, span.Lived.Round(time.Second), float64(limit)/1e6)
	}
	return span, ""
}

func median(v []int64) int64 {
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

// parseAudit reads `teamlead audit --format json` (one record a line).
func parseAudit(out string) ([]auditRec, error) {
	var recs []auditRec
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var r struct {
			Seq    uint64 `json:"seq"`
			Agent  string `json:"agent"`
			Task   string `json:"task"`
			MsgID  string `json:"msg_id"`
			Reason string `json:"reason"`
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return recs, fmt.Errorf("audit output line %q: %w", clip(line, 200), err)
		}
		recs = append(recs, auditRec{seq: strconv.FormatUint(r.Seq, 10), agent: r.Agent, task: r.Task, msgID: r.MsgID, reason: r.Reason})
	}
	return recs, nil
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
