package bench

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/worktree"
	"github.com/teamlead/teamlead/themes"
	"github.com/teamlead/teamlead/tui"
	"github.com/teamlead/teamlead/tui/components/screen"
	"github.com/teamlead/teamlead/tui/style"
)

// FrameOptions configure MeasureFrames.
type FrameOptions struct {
	// Agents is the team size.
	Agents int
	// Width and Height are the console's size in cells.
	Width, Height int
	// Frames is how many frames are timed with the agents idle, and as many
	// with them busy, split over Rounds interleaved rounds.
	Frames int
	// Rounds alternates idle and busy this many times; default 1.
	Rounds int
	// AgentKBps is each busy agent's output, in KB/s.
	AgentKBps int
	// Every is the time from one frame's start to the next; default 10ms.
	Every time.Duration
	// Seed seeds the generated output.
	Seed int64
}

// FrameResult is the dashboard's frame time with the agents idle and busy.
type FrameResult struct {
	Agents, Width, Height int
	// Frames is the frames timed in each phase; Rounds the alternations.
	Frames, Rounds int
	// AgentKBps is the output rate each busy agent was given; FedMBps is
	// what all of them together actually got, in MB/s, while busy.
	AgentKBps int
	FedMBps   float64
	// ScreenCols and ScreenRows are the selected agent's terminal size, as
	// the dashboard set it (the screen pane's inner size).
	ScreenCols, ScreenRows int
	// Idle and Busy are the frame times, Update(tick) + View(), with the
	// agents' terminals idle and being written.
	Idle, Busy Summary
	// CPU is the CPU time of the thread drawing each frame, idle [0] and
	// busy [1]: the frame time less the time the thread waited (for a CPU
	// taken by other work, for the lock of a terminal being written).
	// Zero where the thread CPU clock is missing.
	CPU [2]Summary
	// Update, View and Render split the frame: the Update of the tick
	// message, the View, and (timed apart, right after the frame) the
	// selected terminal's vt Render at the screen pane's size, which View
	// also does. Index 0 is idle, 1 busy.
	Update, View, Render [2]Summary
	// FrameBytes is the size of the last busy frame.
	FrameBytes int
	// Problem says what is wrong with the frames drawn ("" if nothing).
	Problem string
}

// MeasureFrames builds the dashboard (tui.New at Width x Height) over a
// console of Agents terminal emulators, each fed as the engine feeds them
// (see engineSink), and times its frames, Update of the dashboard's own
// tick message then View, every Every: Frames of them with the agents
// idle, then as many while a goroutine per agent writes chunks of a
// generated coloured log to its terminal at AgentKBps, in Rounds
// alternations. The first agent is selected, so its terminal is the one
// drawn in the screen pane while it is being written. lipgloss renders
// with 24-bit colour, as in a terminal, whatever the benchmark's output is.
func MeasureFrames(ctx context.Context, o FrameOptions) (*FrameResult, error) {
	if o.Agents < 1 || o.Width < 40 || o.Height < 12 || o.Frames < 1 || o.AgentKBps < 1 {
		return nil, errors.New("frames: need agents >= 1, a console of at least 40x12, frames >= 1, a rate >= 1 KB/s")
	}
	o.Rounds = max(o.Rounds, 1)
	if o.Every <= 0 {
		o.Every = 10 * time.Millisecond
	}
	defer trueColour()()

	log, _ := protocol.GenerateLog(4<<20, o.Seed)
	con := newBenchConsole(o.Agents)
	defer con.close()
	for i, s := range con.sinks { // a screen and some scrollback each
		off := i * len(log) / o.Agents
		s.feed(log[off:min(len(log), off+256<<10)])
	}
	th, err := themes.Load("dark")
	if err != nil {
		return nil, err
	}
	var m tea.Model = tui.New(con, style.New(th, false), tui.Options{Keys: tui.DefaultKeyMap()})
	m, _ = m.Update(tea.WindowSizeMsg{Width: o.Width, Height: o.Height})
	tick, m, err := dashboardTick(m, func() { con.publish(300) })
	if err != nil {
		return nil, err
	}
	res := &FrameResult{Agents: o.Agents, Width: o.Width, Height: o.Height, Rounds: o.Rounds, AgentKBps: o.AgentKBps}
	res.ScreenCols, res.ScreenRows = con.sinks[0].term.Size()
	sel := con.sinks[0].term

	fc := &frameClock{ctx: ctx, m: m, tick: tick, sel: sel, every: o.Every, width: o.Width, height: o.Height,
		cols: res.ScreenCols, rows: res.ScreenRows}
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
		f := startFeeders(con.sinks, log, o.AgentKBps)
		start := time.Now()
		fc.run(n, 1)
		fed += f.stop()
		busyTime += time.Since(start)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	fc.summarize(res)
	if busyTime > 0 {
		res.FedMBps = float64(fed) / 1e6 / busyTime.Seconds()
	}
	return res, nil
}

// frameClock times the dashboard's frames: Update of its tick message,
// then View, every every, with the CPU time of the thread drawing them,
// and (timed apart, right after each frame) the selected terminal's vt
// Render at the screen pane's size. Samples go to phase 0 (idle) or 1
// (busy). Lock the OS thread for the CPU time.
type frameClock struct {
	ctx           context.Context
	m             tea.Model
	tick          tea.Msg
	sel           screen.Source
	every         time.Duration
	width, height int // the console's
	cols, rows    int // the screen pane's

	frame, cpu, upd, view, render [2][]time.Duration
	last                          string // the latest frame
	problem                       string // what is wrong with a frame drawn
}

// run times n frames of phase busy (0 or 1), and checks the last.
func (c *frameClock) run(n int, busy int) {
	next := time.Now()
	for range n {
		if c.ctx.Err() != nil {
			return
		}
		if d := time.Until(next); d > 0 {
			time.Sleep(d)
		}
		next = later(next.Add(c.every), time.Now())
		c0, cok := threadCPU()
		t0 := time.Now()
		c.m, _ = c.m.Update(c.tick)
		t1 := time.Now()
		c.last = c.m.View()
		t2 := time.Now()
		if c1, ok := threadCPU(); ok && cok {
			c.cpu[busy] = append(c.cpu[busy], c1-c0)
		}
		t3 := time.Now()
		c.sel.Render(0, c.cols, c.rows)
		t4 := time.Now()
		c.frame[busy] = append(c.frame[busy], t2.Sub(t0))
		c.upd[busy], c.view[busy] = append(c.upd[busy], t1.Sub(t0)), append(c.view[busy], t2.Sub(t1))
		c.render[busy] = append(c.render[busy], t4.Sub(t3))
	}
	if c.problem == "" {
		c.problem = checkFrame(c.last, c.width, c.height)
	}
}

// reset drops the samples taken so far (a warm-up's).
func (c *frameClock) reset() {
	c.frame, c.cpu, c.upd, c.view, c.render = [2][]time.Duration{}, [2][]time.Duration{}, [2][]time.Duration{}, [2][]time.Duration{}, [2][]time.Duration{}
}

// summarize puts the samples' distributions into res.
func (c *frameClock) summarize(res *FrameResult) {
	res.FrameBytes = len(c.last)
	res.Frames = len(c.frame[1])
	res.Idle, res.Busy = Summarize(c.frame[0]), Summarize(c.frame[1])
	for i := range 2 {
		res.Update[i], res.View[i], res.Render[i] = Summarize(c.upd[i]), Summarize(c.view[i]), Summarize(c.render[i])
		res.CPU[i] = Summarize(c.cpu[i])
	}
	if res.Problem == "" {
		res.Problem = c.problem
	}
}

// checkFrame says what is wrong with a frame of the dashboard at w x h:
// anything but h lines of at most w cells.
func checkFrame(view string, w, h int) string {
	lines := strings.Split(view, "\n")
	if len(lines) != h {
		return fmt.Sprintf("the dashboard drew %d lines, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := lipgloss.Width(l); lw > w {
			return fmt.Sprintf("line %d of the dashboard is %d cells wide, want at most %d", i+1, lw, w)
		}
	}
	return ""
}

// dashboardTick gets the dashboard's own tick message (a tui.tickMsg,
// unexported) by running the commands of its Init. Then it publishes
// activity (publish, as benchConsole.publish does; nil when the console
// has records of its own) and hands the first batch of records
// the dashboard's record pump returns (a tui.recordsMsg) to the model, so
// the activity pane has lines to draw. Any other message Init's commands return goes to
// Update too.
func dashboardTick(m tea.Model, publish func()) (tea.Msg, tea.Model, error) {
	var cmds []tea.Cmd
	switch msg := m.Init()().(type) {
	case tea.BatchMsg:
		cmds = msg
	default:
		return nil, m, fmt.Errorf("frames: the dashboard's Init returned %T, not a batch of its record pump and tick", msg)
	}
	ch := make(chan tea.Msg, len(cmds))
	for _, c := range cmds {
		if c != nil {
			go func() { ch <- c() }()
		}
	}
	seen := map[string]bool{}
	await := func(typ string) (tea.Msg, error) {
		deadline := time.After(5 * time.Second)
		for {
			select {
			case msg := <-ch:
				if fmt.Sprintf("%T", msg) == typ {
					return msg, nil
				}
				seen[fmt.Sprintf("%T", msg)] = true
				m, _ = m.Update(msg)
			case <-deadline:
				return nil, fmt.Errorf("frames: no %s from the dashboard's Init within 5s", typ)
			}
		}
	}
	tick, err := await("tui.tickMsg")
	if err != nil {
		return nil, m, err
	}
	if publish != nil {
		publish()
	} else if seen["tui.recordsMsg"] {
		return tick, m, nil // the console's own records came first
	}
	recs, err := await("tui.recordsMsg")
	if err != nil {
		return nil, m, err
	}
	m, _ = m.Update(recs)
	return tick, m, nil
}

// benchConsole is the tui.Console of the frame measurement: Agents
// terminals fed by engineSinks, an embedded bus, a few inbox items, and
// nothing behind the actions.
type benchConsole struct {
	sinks []*engineSink
	names []string
	index map[string]int
	start time.Time
	b     *bus.Embedded
	seq   uint64
}

var benchRoles = []string{"developer", "reviewer", "qa", "architect", "docs"}

func newBenchConsole(n int) *benchConsole {
	c := &benchConsole{index: map[string]int{}, start: time.Now(), b: bus.NewEmbedded(nil)}
	for i := range n {
		name := fmt.Sprintf("agent-%02d", i)
		c.names = append(c.names, name)
		c.index[name] = i
		c.sinks = append(c.sinks, newEngineSink(120, 40, 0))
	}
	return c
}

func (c *benchConsole) close() {
	for _, s := range c.sinks {
		s.close()
	}
}

// publish puts n message records between the agents on the bus.
func (c *benchConsole) publish(n int) {
	for i := range n {
		c.seq++
		from, to := c.names[i%len(c.names)], c.names[(i+1)%len(c.names)]
		c.b.Publish(store.Record{Seq: c.seq, Time: c.start, Kind: wire.KindMessage, Subject: "route." + to,
			From: from, To: []string{to}, Type: "status", Task: fmt.Sprintf("T-%d", i%40), MsgID: fmt.Sprintf("m-%d", c.seq),
			Body: "finished the migration of the session cache; tests pass, review when you can"})
	}
}

// Agents implements tui.Console, as the engine does: every agent
// running, with the time of its latest output.
func (c *benchConsole) Agents() []readmodel.AgentInfo {
	out := make([]readmodel.AgentInfo, 0, len(c.sinks))
	for i, s := range c.sinks {
		var last time.Time
		if ns := s.lastOutput.Load(); ns > 0 {
			last = time.Unix(0, ns)
		}
		out = append(out, readmodel.AgentInfo{Name: c.names[i], Role: benchRoles[i%len(benchRoles)], State: wire.StateRunning,
			Pid: 1000 + i, Since: c.start, LastOutput: last})
	}
	return out
}

// Screen implements tui.Console.
func (c *benchConsole) Screen(agent string) screen.Source {
	if i, ok := c.index[agent]; ok {
		return c.sinks[i].term
	}
	return nil
}

// Send implements tui.Console (nothing is typed).
func (c *benchConsole) Send(agent, text string) error { return nil }

// Keys implements tui.Console (nothing is typed).
func (c *benchConsole) Keys(agent string, b []byte) error { return nil }

// Inbox implements tui.Console: three items waiting for the human.
func (c *benchConsole) Inbox() []lead.InboxItem {
	var out []lead.InboxItem
	for i, typ := range []string{"question", "blocker", "question"} {
		out = append(out, lead.InboxItem{ID: fmt.Sprintf("m-%d", 900+i), From: c.names[(3*i)%len(c.names)], Type: typ,
			Task: fmt.Sprintf("T-%d", i), Body: "which database should the staging environment use?", Since: c.start})
	}
	return out
}

// Answer implements tui.Console (nothing is answered).
func (c *benchConsole) Answer(id, text string) error { return nil }

// Questions implements tui.Console: none pending.
func (c *benchConsole) Questions() []questions.Question { return nil }

// ListQuestions is empty: the benchmark asks nothing.
func (c *benchConsole) ListQuestions(string) ([]questions.Question, error) { return nil, nil }

// Escalate implements tui.Console (nothing is escalated).
func (c *benchConsole) Escalate(id string) error { return nil }

// Progress is empty: no workflows in the benchmark.
func (c *benchConsole) Progress() []progress.State { return nil }

// Ask is a no-op: nobody asks during the benchmark.
func (c *benchConsole) Ask(questions.Ask) (questions.Question, error) {
	return questions.Question{}, nil
}

// Reassign implements tui.Console (nothing is reassigned).
func (c *benchConsole) Reassign(id, answerer string) error { return nil }
func (c *benchConsole) Drop(id, reason string) error       { return nil }

// Consultations implements tui.Console: none in the benchmark.
func (c *benchConsole) Consultations() []consult.Consultation { return nil }

// Acknowledge implements tui.Console (nothing is acknowledged).
func (c *benchConsole) Acknowledge(id string) error { return nil }

// Tasks implements tui.Console: none in the benchmark.
func (c *benchConsole) Tasks() []tasks.Task { return nil }
func (c *benchConsole) Diff(string) (worktree.Tree, worktree.Changes, error) {
	return worktree.Tree{}, worktree.Changes{}, errors.New("no worktrees in the benchmark")
}
func (c *benchConsole) Merge(string, worktree.Preview) (worktree.Tree, worktree.Merged, error) {
	return worktree.Tree{}, worktree.Merged{}, errors.New("no worktrees in the benchmark")
}

// Bus implements tui.Console.
func (c *benchConsole) Bus() bus.Bus { return c.b }

// LastSeq implements tui.Console.
func (c *benchConsole) LastSeq() uint64 { return 0 }

// ResizeAgents implements tui.Console: every terminal gets the screen
// pane's size, as the engine does.
func (c *benchConsole) ResizeAgents(cols, rows int) {
	for _, s := range c.sinks {
		s.term.Resize(cols, rows)
	}
}

// feeders write to the agents' terminals while the frames are timed.
type feeders struct {
	done chan struct{}
	wg   sync.WaitGroup
	fed  atomic.Int64
}

// feedPeriod is how often a busy agent writes: rate x period bytes at a time.
const feedPeriod = 20 * time.Millisecond

// startFeeders starts a goroutine per sink writing log to it, from a place
// of its own, at kbps KB/s, in one write every feedPeriod, the agents' writes
// spread evenly over the period.
func startFeeders(sinks []*engineSink, log []byte, kbps int) *feeders {
	f := &feeders{done: make(chan struct{})}
	chunk := min(len(log), max(1, int(int64(kbps)*1000*int64(feedPeriod)/int64(time.Second))))
	start := time.Now()
	for i, s := range sinks {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			off := i * len(log) / len(sinks)
			next := start.Add(feedPeriod * time.Duration(i) / time.Duration(len(sinks)))
			t := time.NewTimer(time.Until(next))
			defer t.Stop()
			for {
				select {
				case <-f.done:
					return
				case <-t.C:
				}
				if off+chunk > len(log) {
					off = 0
				}
				s.feed(log[off : off+chunk])
				off += chunk
				f.fed.Add(int64(chunk))
				next = later(next.Add(feedPeriod), time.Now()) // behind: no catching up in a burst
				t.Reset(time.Until(next))
			}
		}()
	}
	return f
}

// stop stops the feeders and returns the bytes they wrote.
func (f *feeders) stop() int64 {
	close(f.done)
	f.wg.Wait()
	return f.fed.Load()
}

var _ tui.Console = (*benchConsole)(nil)

// later returns the later of a and b.
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}
