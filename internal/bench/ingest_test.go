package bench

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/protocol"
)

func TestShellQuote(t *testing.T) {
	for _, s := range []string{"plain", "/tmp/with space/x", "it's", `a"b$c\d`, "'", ""} {
		out, err := exec.Command("sh", "-c", "printf %s "+shellQuote(s)).Output()
		if err != nil || string(out) != s {
			t.Errorf("sh got %q (%v), want %q", out, err, s)
		}
	}
}

func TestZombie(t *testing.T) {
	if zombie(os.Getpid()) {
		t.Error("this process is no zombie")
	}
	if zombie(-1) {
		t.Error("no such process")
	}
}

// engineSink finds every envelope of the log, in PTY-sized pieces, and
// its terminal keeps the screen.
func TestEngineSink(t *testing.T) {
	log, envelopes := protocol.GenerateLog(512<<10, 3)
	s := newEngineSink(120, 40, 0)
	defer s.close()
	for i := 0; i < len(log); i += 4000 {
		s.Output("a", log[i:min(len(log), i+4000)])
	}
	s.State(agents.StateEvent{Agent: "a", State: wire.StateExited})
	found, total, chunks, mbps := s.result()
	if found != envelopes || total != int64(len(log)) || chunks != (len(log)+3999)/4000 || mbps <= 0 {
		t.Errorf("found %d of %d envelopes, %d bytes of %d, %d chunks, %.1f MB/s", found, envelopes, total, len(log), chunks, mbps)
	}
	if s.lastOutput.Load() == 0 || strings.TrimSpace(s.term.Render(0, 120, 40)) == "" {
		t.Error("no output time or an empty screen")
	}
}
