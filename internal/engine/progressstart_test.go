package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/store"
)

// A progress file an agent writes from its first moment is this run's:
// its next step is handed over, even when the console's start goes on
// after the agent wrote it (other agents still starting). It was read
// only once every agent had started and taken for the last run's, offered
// for resumption and never handed over (a CI failure of
// TestProgressInASharedFolder, under load).
func TestProgressWrittenAsTheConsoleStartsIsHandedOver(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, ".claude", "state", "progress-planner.json")
	wf := `{"version": "2.0", "workflow_id": "wf-early", "task": {"summary": "early"}, "status": "in_progress", "current_step": 2, "total_steps": 3,` +
		` "completed_steps": [{"step": 1, "expert": "planner", "action": "plan", "duration_ms": 10}],` +
		` "next_step": {"step": 2, "expert": "dev", "action": "build it"}}`
	planner := "mkdir -p .claude/state\nprintf '%s' '" + wf + "' > " + file + ".tmp && mv " + file + ".tmp " + file + "\nexec sleep 600\n"
	// The console's start is held until the planner has written its file.
	afterAgentsStart = func() {
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			if b, err := os.ReadFile(file); err == nil && strings.Contains(string(b), "wf-early") {
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		t.Error("the planner did not write its progress file")
	}
	defer func() { afterAgentsStart = nil }()
	r := startEngineIn(t, dir, "", testAgent{name: "planner", script: planner}, testAgent{name: "dev", script: "exec sleep 600\n"})
	r.waitRecords(wire.KindHandoff, "the handoff of step 2 to dev", func(recs []store.Record) bool {
		for _, rec := range recs {
			if rec.Agent == "dev" && rec.Task == "wf-early" {
				return true
			}
		}
		return false
	})
	for _, rec := range r.records(wire.KindWorkflow) {
		if strings.Contains(rec.Body, "found unfinished") {
			t.Errorf("this run's workflow taken for the last run's: %s", rec.Body)
		}
	}
}
