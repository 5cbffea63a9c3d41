package bench

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// The smoke tests run the real measurements small: the test binary is
// re-executed as the agents and the PTY writer (see TestMain).

func TestSmokeThroughput(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	res, err := MeasureThroughput(exe, t.TempDir(), 256<<10, 1, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Found != res.Envelopes || res.Envelopes == 0 {
		t.Errorf("found %d envelopes, the log has %d", res.Found, res.Envelopes)
	}
	if res.PTYBytes < int64(res.LogBytes) || res.PTYMBps <= 0 || res.ParserMBps <= 0 {
		t.Errorf("implausible figures: %+v", res)
	}
	if res.IngestFound != res.Envelopes || res.IngestMBps <= 0 || res.IngestReads == 0 {
		t.Errorf("ingest: found %d of %d envelopes at %.1f MB/s in %d reads", res.IngestFound, res.Envelopes,
			res.IngestMBps, res.IngestReads)
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		if res.TmuxNote != "tmux not installed" || res.TmuxMBps != 0 {
			t.Errorf("no tmux, yet %q and %.1f MB/s", res.TmuxNote, res.TmuxMBps)
		}
	} else if res.TmuxNote != "" || res.TmuxMBps <= 0 || res.TmuxEmpty <= 0 || !strings.HasPrefix(res.TmuxVersion, "tmux ") {
		t.Errorf("tmux: %q, %.1f MB/s, empty log %s, version %q", res.TmuxNote, res.TmuxMBps, res.TmuxEmpty, res.TmuxVersion)
	}
}

func TestSmokeRelay(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		mode RelayMode
		echo bool
	}{{"bare", BareRelay, false}, {"engine", EngineRelay, false}, {"engine-echo", EngineRelay, true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := MeasureRelay(ctx, RelayOptions{Exe: exe, Dir: t.TempDir(), Agents: 3, Rate: 50, Count: 20,
				Mode: c.mode, Echo: c.echo, Settle: 10 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if p := res.Problems(); len(p) > 0 {
				t.Fatalf("problems: %v", p)
			}
			if res.Sent != 60 || res.Delivered != 60 || res.Latency.N != 60 || res.Latency.P50 <= 0 {
				t.Errorf("result %+v", res)
			}
			if c.mode == EngineRelay && (res.Stored != 60 || res.Acks != 60 || res.Notices != 0 || len(res.Stages) != 3) {
				t.Errorf("engine result: stored %d, acked %d, notices %d, stages %v", res.Stored, res.Acks, res.Notices, res.Stages)
			}
			if res.Echo != c.echo {
				t.Errorf("result says echo %v", res.Echo)
			}
		})
	}
}

// The relay on NATS and across two nodes, tiny: the console's NATS server
// and Mirror in this process, each node the test binary in the node role.
func TestSmokeRelayNodes(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		nats  bool
		nodes int
		burst bool
	}{{"nats", true, 0, false}, {"nodes", false, 2, false}, {"nodes-burst", false, 2, true}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			res, err := MeasureRelay(ctx, RelayOptions{Exe: exe, Dir: t.TempDir(), Agents: 2, Rate: 50, Count: 10,
				Mode: EngineRelay, NATS: c.nats, Nodes: c.nodes, Burst: c.burst, Settle: 20 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if p := res.Problems(); len(p) > 0 {
				t.Fatalf("problems: %v (notes %v)", p, res.EngineNotes)
			}
			if res.Sent != 20 || res.Delivered != 20 || res.Stored != 20 || res.Acks != 20 || len(res.Stages) != 3 {
				t.Errorf("result %+v", res)
			}
			if !res.NATS || res.Nodes != c.nodes || res.Records == 0 || res.Published != res.Records || res.Throughput <= 0 {
				t.Errorf("NATS %v, nodes %d, published %d of %d records, %.0f msg/s", res.NATS, res.Nodes, res.Published, res.Records, res.Throughput)
			}
		})
	}
}

// The dashboard over agents on two nodes, tiny: every agent's output
// reaches the console whole, and the frames drawn are whole.
func TestSmokeNodeFrames(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := MeasureNodeFrames(ctx, NodeFrameOptions{Exe: exe, Dir: t.TempDir(), Agents: 4, Nodes: 2, Width: 120, Height: 30,
		Frames: 20, Rounds: 2, AgentKBps: 20, Seed: 1, Settle: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" {
		t.Fatalf("problem: %s (notes %v)", res.Problem, res.Notes)
	}
	if res.Idle.N != 20 || res.Busy.N != 20 || res.Busy.P50 <= 0 || res.ScreenCols == 0 || res.ScreenRows == 0 {
		t.Errorf("frames: %+v", res.FrameResult)
	}
	if res.Written == 0 || res.Taken != res.Written || res.Nodes != 2 || res.Start <= 0 {
		t.Errorf("taken %d of %d bytes written, %d nodes, started in %s", res.Taken, res.Written, res.Nodes, res.Start)
	}
}
