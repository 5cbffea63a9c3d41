package bench

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestCheckFrame(t *testing.T) {
	ok := strings.Repeat("\x1b[31mabc\x1b[m\n", 2) + "abcd"
	if p := checkFrame(ok, 4, 3); p != "" {
		t.Errorf("a good frame: %s", p)
	}
	if p := checkFrame(ok, 4, 4); !strings.Contains(p, "3 lines, want 4") {
		t.Errorf("short frame: %q", p)
	}
	if p := checkFrame(ok, 3, 3); !strings.Contains(p, "line 3") {
		t.Errorf("wide frame: %q", p)
	}
}

func TestLater(t *testing.T) {
	a := time.Unix(10, 0)
	b := a.Add(time.Nanosecond)
	if later(a, b) != b || later(b, a) != b || later(a, a) != a {
		t.Error("later")
	}
}

func TestBenchConsole(t *testing.T) {
	c := newBenchConsole(3)
	defer c.close()
	a := c.Agents()
	if len(a) != 3 || a[2].Name != "agent-02" || a[0].State != "running" || !a[0].LastOutput.IsZero() {
		t.Fatalf("agents %+v", a)
	}
	c.sinks[1].feed([]byte("hello\r\n"))
	if c.Agents()[1].LastOutput.IsZero() {
		t.Error("output does not make an agent busy")
	}
	if c.Screen("agent-01") == nil || c.Screen("nobody") != nil {
		t.Error("Screen: want agent-01's terminal and a nil interface for an unknown agent")
	}
	c.ResizeAgents(50, 12)
	if cols, rows := c.sinks[2].term.Size(); cols != 50 || rows != 12 {
		t.Errorf("resized to %dx%d", cols, rows)
	}
	if len(c.Inbox()) != 3 {
		t.Error("inbox")
	}
}

func TestSmokeFrames(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := MeasureFrames(ctx, FrameOptions{Agents: 3, Width: 100, Height: 30, Frames: 8, Rounds: 2,
		AgentKBps: 200, Every: 2 * time.Millisecond, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Problem != "" {
		t.Fatal(res.Problem)
	}
	if res.Idle.N != 8 || res.Busy.N != 8 || res.Update[1].N != 8 || res.Render[1].N != 8 || res.Frames != 8 {
		t.Errorf("frames timed: idle %d, busy %d", res.Idle.N, res.Busy.N)
	}
	if res.Busy.P50 <= 0 || res.View[1].P50 <= 0 || res.FrameBytes == 0 {
		t.Errorf("implausible: %+v", res)
	}
	// The dashboard sizes the agents' terminals to its screen pane.
	if res.ScreenCols >= 100 || res.ScreenCols < 40 || res.ScreenRows >= 30 {
		t.Errorf("screen pane %dx%d", res.ScreenCols, res.ScreenRows)
	}
	if _, err := MeasureFrames(ctx, FrameOptions{Agents: 0, Width: 100, Height: 30, Frames: 8, AgentKBps: 1}); err == nil {
		t.Error("no agents accepted")
	}
}
