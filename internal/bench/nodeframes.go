package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/engine"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/term"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui"
	"github.com/teamlead/teamlead/tui/components/screen"
	"github.com/teamlead/teamlead/tui/style"
)

// NodeFrameOptions configure MeasureNodeFrames.
type NodeFrameOptions struct {
	// Exe is the binary re-executed as the nodes and the agents.
	Exe string
	// Dir is an empty directory for the run's files, store and NATS.
	Dir string
	// Agents is the team size, spread over Nodes (agent i on node i mod
	// Nodes).
	Agents, Nodes int
	// Width and Height are the console's size in cells.
	Width, Height int
	// Frames is how many frames are timed with the agents quiet, and as
	// many with them streaming, split over Rounds interleaved rounds.
	Frames, Rounds int
	// AgentKBps is each agent's output while streaming, in KB/s.
	AgentKBps int
	// Every is the time from one frame's start to the next; default 10ms.
	Every time.Duration
	// Seed seeds the generated output.
	Seed int64
	// Settle bounds each wait: for the agents to start, for their output
	// to reach the console at the end; default 60s.
	Settle time.Duration
}

// NodeFrameResult is the dashboard's frame time with every agent on a
// node: its screen, as the console shows it, is what the node streamed.
type NodeFrameResult struct {
	FrameResult
	// Nodes is how many nodes ran the agents.
	Nodes int
	// Start is from starting the nodes to every agent running, as the
	// console sees it, and its first output on the console.
	Start time.Duration
	// Written is the bytes the agents' terminals put out (what they
	// wrote, each \n as \r\n); Taken what the console took from the
	// nodes' events: equal, unless something was lost (Problem says so).
	Written, Taken int64
	// Repeats counts the nodes' events offered again and dropped by the
	// console (bounded by the link's event ids; not a failure).
	Repeats int
	// Notes is trouble the engine reported and survived.
	Notes []string
}

// MeasureNodeFrames runs the console in this process (engine, store, its
// NATS server and the link, as teamlead run --nats-listen does, node.go)
// with o.Agents agents spread over o.Nodes nodes (node processes running
// internal/node), each agent the benchmark binary in the streamer role on
// a PTY of its node's (each sends one message to the next, relayed across
// the nodes, so that Activity has lines to draw), and times the
// dashboard's frames (tui.New over the
// engine, as teamlead run draws it; see frameClock) with the agents quiet,
// then streaming a generated coloured log with no envelopes at
// o.AgentKBps each, in o.Rounds alternations. The first agent is
// selected: its screen pane draws what its node streams. At the end every
// agent's output must have reached the console whole (Problem says
// otherwise).
func MeasureNodeFrames(ctx context.Context, o NodeFrameOptions) (res *NodeFrameResult, err error) {
	if o.Nodes < 2 || o.Agents < o.Nodes || o.Width < 40 || o.Height < 12 || o.Frames < 1 || o.AgentKBps < 1 {
		return nil, errors.New("node frames: need nodes >= 2, agents >= nodes, a console of at least 40x12, frames >= 1, a rate >= 1 KB/s")
	}
	o.Rounds = max(o.Rounds, 1)
	if o.Every <= 0 {
		o.Every = 10 * time.Millisecond
	}
	if o.Settle <= 0 {
		o.Settle = 60 * time.Second
	}
	defer trueColour()()

	logPath := filepath.Join(o.Dir, "stream.log")
	if err := writeStreamLog(logPath, 1<<20, o.Seed); err != nil {
		return nil, err
	}
	team, names, err := streamTeam(o, logPath)
	if err != nil {
		return nil, fmt.Errorf("node frames: team file: %w", err)
	}
	st, err := store.Open(filepath.Join(o.Dir, "state"), store.Options{})
	if err != nil {
		return nil, err
	}
	defer st.Close()
	res = &NodeFrameResult{FrameResult: FrameResult{Agents: o.Agents, Width: o.Width, Height: o.Height, Rounds: o.Rounds,
		AgentKBps: o.AgentKBps}, Nodes: o.Nodes}
	var noteMu sync.Mutex
	note := func(s string) {
		noteMu.Lock()
		res.Notes = append(res.Notes, s)
		noteMu.Unlock()
	}
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	cn, err := startConsoleNATS(ectx, filepath.Join(o.Dir, "nats"), team, st)
	if err != nil {
		return nil, fmt.Errorf("node frames: NATS: %w", err)
	}
	defer cn.close()
	eng, err := engine.New(engine.Options{Team: team, Store: st, Grace: 3 * time.Second, Remote: cn.remote(),
		OnError: func(err error) { note(err.Error()) }})
	if err != nil {
		return nil, err
	}
	// Every agent sends one message: all are stored before the frames.
	msgs := eng.Bus().Subscribe("route.>", 0)
	defer msgs.Close()
	var relayed atomic.Int64
	go func() {
		for r := range msgs.C {
			if r.Kind == wire.KindMessage {
				relayed.Add(1)
			}
		}
	}()
	// What the run recorded before the console opened shows in Activity,
	// as teamlead run shows it.
	runStart := eng.LastSeq()
	after := st.LastSeq()
	if err := eng.Start(ectx); err != nil {
		return nil, err
	}
	// The nodes' events once the engine runs, as teamlead run takes them
	// (RemoteEvent reads the agents Start makes).
	if err := cn.follow(ectx, eng, after, note); err != nil {
		return nil, fmt.Errorf("node frames: the link with the nodes: %w", err)
	}
	var nodes *nodeProcs
	defer func() {
		nodes.stop()
		cancel()
		<-eng.Done()
	}()
	start := time.Now()
	if nodes, err = startNodes(o.Exe, o.Dir, team.File, cn); err != nil {
		return nil, fmt.Errorf("node frames: %w", err)
	}
	started := func() bool {
		running := map[string]bool{}
		for _, a := range eng.Agents() {
			running[a.Name] = a.State == wire.StateRunning
		}
		for _, n := range names {
			if !running[n] || cn.outputOf(n) == 0 {
				return false
			}
		}
		return relayed.Load() >= int64(len(names))
	}
	if err := waitFor(ctx, o.Settle, started, nodes.alive); err != nil {
		return nil, fmt.Errorf("node frames: the agents did not all start on their nodes and send their message within %s (%d of %d relayed): %w",
			o.Settle, relayed.Load(), len(names), err)
	}
	res.Start = time.Since(start)

	th, err := themes.Load("dark")
	if err != nil {
		return nil, err
	}
	con := &engineConsole{Engine: eng}
	defer con.closeSubs() // the dashboard's: its record pump is not run, and the store waits for them
	var m tea.Model = tui.New(con, style.New(th, false), tui.Options{Keys: tui.DefaultKeyMap(), RunStart: &runStart})
	m, _ = m.Update(tea.WindowSizeMsg{Width: o.Width, Height: o.Height})
	tick, m, err := dashboardTick(m, nil)
	if err != nil {
		return nil, err
	}
	res.ScreenCols, res.ScreenRows = con.cols, con.rows
	sel := con.Screen(names[0])
	if sel == nil {
		return nil, fmt.Errorf("node frames: no screen for %s", names[0])
	}
	fc := &frameClock{ctx: ctx, m: m, tick: tick, sel: sel, every: o.Every, width: o.Width, height: o.Height,
		cols: res.ScreenCols, rows: res.ScreenRows}
	taken := func() (n int64) {
		for _, a := range names {
			n += cn.outputOf(a)
		}
		return n
	}
	runtime.LockOSThread() // for threadCPU
	defer runtime.UnlockOSThread()
	fc.run(10, 0) // warm-up
	fc.reset()
	var fed int64
	var busyTime time.Duration
	for r := range o.Rounds {
		n := o.Frames / o.Rounds
		if r < o.Frames%o.Rounds {
			n++
		}
		fc.run(n, 0)
		if err := os.WriteFile(busyFile(o.Dir), nil, 0o600); err != nil {
			return nil, err
		}
		t0, b0 := time.Now(), taken()
		fc.run(n, 1)
		if err := os.Remove(busyFile(o.Dir)); err != nil {
			return nil, err
		}
		fed += taken() - b0
		busyTime += time.Since(t0)
		// Quiet again: what the nodes still had on the way has arrived.
		last, since, behind := taken(), time.Now(), time.Now()
		if err := waitFor(ctx, o.Settle, func() bool {
			if n := taken(); n != last {
				last, since = n, time.Now()
			}
			return time.Since(since) > 200*time.Millisecond
		}, nodes.alive); err != nil {
			return nil, fmt.Errorf("node frames: the agents' output did not stop reaching the console: %w", err)
		}
		if d := since.Sub(behind); d > time.Second {
			note(fmt.Sprintf("round %d: the console took the agents' output for %.1f s after they stopped: it fell behind them", r+1, d.Seconds()))
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fc.summarize(&res.FrameResult)
	if busyTime > 0 {
		res.FedMBps = float64(fed) / 1e6 / busyTime.Seconds()
	}

	// The end: each agent says how much it wrote, all of which must
	// reach the console.
	if err := os.WriteFile(endFile(o.Dir), nil, 0o600); err != nil {
		return nil, err
	}
	written := map[string]int64{}
	whole := func() bool {
		for _, a := range names {
			if _, ok := written[a]; !ok {
				b, err := os.ReadFile(writtenFile(o.Dir, a))
				if err != nil {
					return false
				}
				n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
				if err != nil {
					return false
				}
				written[a] = n
			}
			if cn.outputOf(a) != written[a] {
				return false
			}
		}
		return true
	}
	werr := waitFor(ctx, o.Settle, whole, nodes.alive)
	for _, a := range names {
		res.Written += written[a]
	}
	res.Taken, res.Repeats = taken(), int(cn.repeats.Load())
	if werr != nil && res.Problem == "" {
		var short []string
		for _, a := range names {
			w, ok := written[a]
			if got := cn.outputOf(a); !ok || got != w {
				short = append(short, fmt.Sprintf("%s %d of %d", a, got, w))
			}
		}
		res.Problem = fmt.Sprintf("the agents' output did not all reach the console within %s (%v), bytes taken of written: %s",
			o.Settle, werr, strings.Join(short[:min(len(short), 5)], ", "))
	}
	return res, nil
}

// waitFor checks cond until it holds, ctx ends, d passes or alive fails.
func waitFor(ctx context.Context, d time.Duration, cond func() bool, alive func() error) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if err := alive(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not within %s", d)
		}
		if err := sleepCtx(ctx, 10*time.Millisecond); err != nil {
			return err
		}
	}
	return nil
}

// trueColour makes lipgloss render 24-bit colour, as in a terminal,
// without asking the terminal anything, and returns what restores it.
func trueColour() func() {
	prof, dark := lipgloss.ColorProfile(), lipgloss.HasDarkBackground()
	lipgloss.SetColorProfile(termenv.TrueColor)
	lipgloss.SetHasDarkBackground(true)
	return func() { lipgloss.SetColorProfile(prof); lipgloss.SetHasDarkBackground(dark) }
}

// engineConsole adapts the engine to the dashboard as teamlead run does
// (cmd/teamlead consoleOf), and notes the screen pane's size and the
// dashboard's subscriptions.
type engineConsole struct {
	*engine.Engine
	cols, rows int
	subs       []*bus.Subscription
}

// Bus implements tui.Console: the engine's bus, its subscriptions noted.
func (c *engineConsole) Bus() bus.Bus { return subsBus{c} }

type subsBus struct{ c *engineConsole }

func (b subsBus) Publish(recs ...store.Record) { b.c.Engine.Bus().Publish(recs...) }

func (b subsBus) Subscribe(pattern string, after uint64) *bus.Subscription {
	s := b.c.Engine.Bus().Subscribe(pattern, after)
	b.c.subs = append(b.c.subs, s)
	return s
}

// closeSubs closes the dashboard's subscriptions.
func (c *engineConsole) closeSubs() {
	for _, s := range c.subs {
		s.Close()
	}
}

// Screen implements tui.Console.
func (c *engineConsole) Screen(agent string) screen.Source {
	if s := c.Engine.Screen(agent); s != nil {
		return s
	}
	return nil
}

// Answer implements tui.Console.
func (c *engineConsole) Answer(id, text string) error { return c.Engine.AnswerAny(id, text) }

// ListQuestions implements tui.Console.
func (c *engineConsole) ListQuestions(status string) ([]questions.Question, error) {
	return readmodel.ListQuestions(c.Engine.Store(), status, "")
}

// ResizeAgents implements tui.Console, noting the size.
func (c *engineConsole) ResizeAgents(cols, rows int) {
	c.cols, c.rows = cols, rows
	c.Engine.ResizeAgents(cols, rows)
}

var _ tui.Console = (*engineConsole)(nil)

// writeStreamLog writes about size bytes of generated agent output with
// no envelope in it to path: every line that mentions ROUTE, coloured or
// not, is left out, so that the console relays nothing and only draws.
func writeStreamLog(path string, size int, seed int64) error {
	log, _ := protocol.GenerateLog(size, seed)
	var out []byte
	for line := range bytes.Lines(log) {
		if !strings.Contains(protocol.StripANSI(string(line)), "ROUTE") {
			out = append(out, line...)
		}
	}
	found := 0
	p := protocol.NewParser()
	emit := func(ev protocol.Event) {
		if ev.Kind == protocol.KindEnvelope {
			found++
		}
	}
	p.Feed(out, emit)
	p.Flush(emit)
	if found > 0 {
		return fmt.Errorf("node frames: the stream log still holds %d envelopes", found)
	}
	return os.WriteFile(path, out, 0o600)
}

// streamTeam writes and loads the team file of the node frames: agent i
// streams from node i mod o.Nodes.
func streamTeam(o NodeFrameOptions, logPath string) (*config.Team, []string, error) {
	tf := teamFile{Bus: &teamBus{Name: benchTeam}}
	var names []string
	period := streamPeriod
	for i := range o.Agents {
		name := fmt.Sprintf("agent-%03d", i)
		names = append(names, name)
		env := map[string]string{"TERM": childTerm, EnvChild: childStreamer, envName: name, envDir: o.Dir, envLog: logPath,
			envKBps: strconv.Itoa(o.AgentKBps), envPhase: strconv.FormatInt(int64(period*time.Duration(i)/time.Duration(o.Agents)), 10),
			envOffset: strconv.Itoa(i), envTo: fmt.Sprintf("agent-%03d", (i+1)%o.Agents)}
		tf.Agents = append(tf.Agents, teamAgent{Name: name, Role: benchRoles[i%len(benchRoles)], Command: []string{o.Exe},
			Dir: o.Dir, Env: env, Preset: "plain", Restart: "never", Host: nodeName(i % o.Nodes),
			// The figure is the console's frame time. Each sandbox takes
			// one of the user's inotify instances (fs.inotify.max_user_instances,
			// 128 by default), and the nodes of this run share one machine:
			// 122 of 200 sandboxed agents started.
			Isolation: "none"})
	}
	data, err := yaml.Marshal(&tf)
	if err != nil {
		return nil, nil, err
	}
	path := filepath.Join(o.Dir, "team.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return nil, nil, err
	}
	team, err := config.LoadTeam(path)
	if err != nil {
		return nil, nil, err
	}
	// No consultation rules: no agent sends anything.
	team.Consultations.Parsed = consult.Rules{}
	return team, names, nil
}

// streamPeriod is how often a streaming agent writes (and a quiet one
// looks whether to): a spinner's pace, and slow enough that 200 of them
// polling cost the machine little.
const streamPeriod = 100 * time.Millisecond

const (
	childStreamer = "streamer"

	envKBps   = "TLBENCH_KBPS"
	envOffset = "TLBENCH_OFFSET"
)

// Files of the node frames: while busyFile exists the streamers write;
// once endFile exists each writes writtenFile and stops.
func busyFile(dir string) string          { return filepath.Join(dir, "busy") }
func endFile(dir string) string           { return filepath.Join(dir, "end") }
func writtenFile(dir, name string) string { return filepath.Join(dir, name+".written") }
func exists(path string) bool             { _, err := os.Stat(path); return err == nil }

// runStreamer is an agent of the node frames: in a raw terminal, as the
// agent CLIs set theirs, it says it is ready, then every streamPeriod
// (offset by its phase) while the busy file exists writes the next
// kbps x streamPeriod bytes of the log, from a place of its own; once the
// end file exists it writes how many bytes it wrote in all to its written
// file and waits for SIGTERM. What is typed into it is read and dropped.
func runStreamer() int {
	name, dir, logPath := os.Getenv(envName), os.Getenv(envDir), os.Getenv(envLog)
	kbps, err1 := strconv.Atoi(os.Getenv(envKBps))
	phase, err2 := strconv.ParseInt(os.Getenv(envPhase), 10, 64)
	offset, err3 := strconv.Atoi(os.Getenv(envOffset))
	if name == "" || dir == "" || logPath == "" || kbps < 1 || err1 != nil || err2 != nil || err3 != nil {
		fmt.Fprintln(os.Stderr, "tlbench streamer: missing or bad", envName, envDir, envLog, envKBps, envPhase, envOffset)
		return 2
	}
	log, err := os.ReadFile(logPath)
	if err != nil || len(log) == 0 {
		fmt.Fprintln(os.Stderr, "tlbench streamer:", err)
		return 2
	}
	restore, err := term.MakeRaw(0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tlbench streamer: raw mode:", err)
		return 2
	}
	defer restore()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	go func() { _, _ = io.Copy(io.Discard, os.Stdin) }()
	// The terminal keeps its output processing (as libuv's raw mode and
	// term.MakeRaw do): every \n goes out as \r\n, a byte more.
	var written int64
	write := func(b []byte) error {
		n, err := os.Stdout.Write(b)
		written += int64(n + bytes.Count(b[:n], []byte("\n")))
		return err
	}
	if write([]byte("tlbench streamer "+name+" ready\n")) != nil {
		return 1
	}
	// One message to the next agent, for the dashboard's Activity.
	if to := os.Getenv(envTo); to != "" {
		if write(AppendEnvelope(nil, to, Body{From: name, Sent: time.Now().UnixNano()})) != nil {
			return 1
		}
	}
	if err := os.WriteFile(readyFile(dir, name), nil, 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "tlbench streamer:", err)
		return 2
	}
	chunk := min(len(log), max(1, int(int64(kbps)*1000*int64(streamPeriod)/int64(time.Second))))
	off := offset * 7919 % len(log)
	t := time.NewTimer(time.Duration(phase))
	defer t.Stop()
	for {
		select {
		case <-sigs:
			return 0
		case <-t.C:
		}
		t.Reset(streamPeriod) // behind: no catching up in a burst
		if exists(endFile(dir)) {
			tmp := writtenFile(dir, name) + ".tmp"
			if err := os.WriteFile(tmp, []byte(strconv.FormatInt(written, 10)), 0o600); err != nil {
				fmt.Fprintln(os.Stderr, "tlbench streamer:", err)
				return 1
			}
			if err := os.Rename(tmp, writtenFile(dir, name)); err != nil {
				return 1
			}
			<-sigs
			return 0
		}
		if !exists(busyFile(dir)) {
			continue
		}
		if off+chunk > len(log) {
			off = 0
		}
		err := write(log[off : off+chunk])
		off += chunk
		if err != nil {
			fmt.Fprintln(os.Stderr, "tlbench streamer: write:", err)
			return 1
		}
	}
}
