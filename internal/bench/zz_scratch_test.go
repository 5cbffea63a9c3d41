package bench

import (
	"context"
	"github.com/teamlead/teamlead/internal/protocol"
	"os"
	"strconv"
	"testing"
	"time"
)

func TestScratchThroughput(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	exe, _ := os.Executable()
	res, err := MeasureThroughput(exe, t.TempDir(), 32<<20, 1, 3, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
}

func TestScratchTmux(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	dir := t.TempDir()
	log, _ := protocol.GenerateLog(32<<20, 1)
	path := dir + "/log"
	os.WriteFile(path, log, 0o600)
	tm, _, _ := tmuxVersion()
	for range 6 {
		el, err := tmuxRun(tm, dir, path, time.Minute)
		t.Logf("%s %.1f MB/s %v", el, 33.7/el.Seconds(), err)
	}
	os.WriteFile(dir+"/empty", nil, 0o600)
	for range 3 {
		el, err := tmuxRun(tm, dir, dir+"/empty", time.Minute)
		t.Logf("empty %s %v", el, err)
	}
}

func TestScratchFrames(t *testing.T) {
	if os.Getenv("SCRATCH") == "" {
		t.Skip()
	}
	kb, _ := strconv.Atoi(os.Getenv("KB"))
	res, err := MeasureFrames(context.Background(), FrameOptions{Agents: 50, Width: 160, Height: 45, Frames: 600, Rounds: 3, AgentKBps: kb, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
}
