package bench

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/vt"
)

// engineSink does with one agent's output what the engine's sink does in
// stream mode (internal/engine/sink.go, which is unexported): per chunk it
// notes the time, writes the chunk to the agent's terminal emulator, then
// feeds it to the stream parser, in that order. The parser's events, which
// the engine passes on to its loop, are counted instead. It is an
// agents.Sink, so the agents package's own PTY reader can drive it.
type engineSink struct {
	term       *vt.Terminal
	parser     *protocol.Parser
	agent      atomic.Pointer[agents.Agent] // where the emulator's replies go, once started
	lastOutput atomic.Int64                 // unix nanoseconds of the latest output, as the engine keeps it

	envelopes atomic.Int64 // envelopes the parser found

	mu         sync.Mutex
	total      int64     // bytes received
	chunks     int       // Output calls
	firstBytes int64     // bytes of the first chunk
	first      time.Time // when the first chunk arrived
	last       time.Time // when the last chunk was processed
}

// newEngineSink returns a sink with a cols x rows terminal keeping
// scrollback lines (0: the emulator's default, as the engine's default
// agent has).
func newEngineSink(cols, rows, scrollback int) *engineSink {
	s := &engineSink{parser: protocol.NewParser()}
	s.term = vt.New(cols, rows, vt.Options{Scrollback: scrollback, Reply: replyWriter{s}})
	return s
}

// replyWriter types the emulator's answers into the agent, as the engine's
// agentWriter does.
type replyWriter struct{ s *engineSink }

func (w replyWriter) Write(p []byte) (int, error) {
	if a := w.s.agent.Load(); a != nil {
		return a.Write(p)
	}
	return len(p), nil
}

// feed is the engine sink's Output: time, terminal, parser.
func (s *engineSink) feed(data []byte) {
	s.lastOutput.Store(time.Now().UnixNano())
	_, _ = s.term.Write(data)
	s.parser.Feed(data, s.emit)
}

func (s *engineSink) emit(ev protocol.Event) {
	if ev.Kind == protocol.KindEnvelope {
		s.envelopes.Add(1)
	}
}

// Output implements agents.Sink: feed, timed.
func (s *engineSink) Output(_ string, data []byte) {
	now := time.Now()
	s.feed(data)
	done := time.Now()
	s.mu.Lock()
	if s.total == 0 {
		s.first, s.firstBytes = now, int64(len(data))
	}
	s.total += int64(len(data))
	s.chunks++
	s.last = done
	s.mu.Unlock()
}

// State implements agents.Sink: when the process is gone an open block is
// cut off, as the engine does.
func (s *engineSink) State(ev agents.StateEvent) {
	switch ev.State {
	case wire.StateExited, wire.StateFailed, wire.StateStopped, wire.StateRestarting:
		s.parser.Flush(s.emit) // never concurrent with Output (the agents.Sink contract)
	}
}

// result returns the envelopes found, the bytes and chunks received, and the
// throughput in MB/s from the arrival of the first chunk to the end of the
// processing of the last, not counting the first chunk (as ptyRun does).
func (s *engineSink) result() (envelopes int, total int64, chunks int, mbps float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if el := s.last.Sub(s.first); el > 0 {
		mbps = float64(s.total-s.firstBytes) / 1e6 / el.Seconds()
	}
	return int(s.envelopes.Load()), s.total, s.chunks, mbps
}

// close stops the terminal's reply goroutine.
func (s *engineSink) close() { s.term.Close() }
