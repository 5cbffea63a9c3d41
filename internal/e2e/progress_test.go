package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// progressJSON is a seed 003 schema 2.0 progress file at step done of 3.
func progressJSON(done int, status string) string {
	var steps []string
	for i := 1; i <= done; i++ {
		steps = append(steps, fmt.Sprintf(`{"step": %d, "expert": "planner", "action": "design part %d", "artifacts": ["docs/part%d.md"], "duration_ms": 1500}`, i, i, i))
	}
	return fmt.Sprintf(`{
  "version": "2.0",
  "workflow_id": "wf-sse",
  "task": {"summary": "Add the SSE endpoint"},
  "classification": {"primary_expert": "planner", "supporting_experts": ["dev"], "strategy": "sequential"},
  "status": %q,
  "current_step": %d,
  "total_steps": 3,
  "completed_steps": [%s],
  "next_step": {"step": %d, "expert": "dev", "action": "implement the endpoint", "context": {"endpoint": "/events", "design": "docs/part1.md"}}
}`, status, done+1, strings.Join(steps, ", "), done+1)
}

func TestProgressHandoffStallAndResume(t *testing.T) {
	work := t.TempDir()
	tm := newTeamWith(t, "progress:\n  stall: 2s\n",
		agentDef{name: "planner", script: "idle\n", dir: filepath.Join(work, "planner")},
		agentDef{name: "dev", flags: []string{"--raw"}, script: "idle\n", dir: filepath.Join(work, "dev")},
	)
	path := filepath.Join(work, "planner", ".claude", "state", "progress.json")
	write := func(text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		tmp := path + ".tmp"
		if err := os.WriteFile(tmp, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil { // as atomic writers and editors do
			t.Fatal(err)
		}
	}
	c := tm.start()
	write(progressJSON(1, "in_progress"))
	got := tm.waitReceived("dev", "[/ROUTE]\r")
	want := typed("[ROUTE]", "from: team-lead", "to: dev", "type: handoff", "task: wf-sse", "id: m-1", "workflow: wf-sse", "step: 2",
		"action: implement the endpoint", "handed-over-by: planner", "body: endpoint: /events", "design: docs/part1.md", "[/ROUTE]")
	if !strings.Contains(got, want) {
		t.Errorf("dev received %q\nwant %q", got, want)
	}
	// Rewriting the file with the same next step hands nothing over again.
	write(progressJSON(1, "in_progress"))
	// Nothing changes for the stall time: the workflow is flagged stalled.
	waitFor(t, 20*time.Second, "the stall", func() bool {
		out, _ := tm.cli("audit", "--kind", "stalled")
		return strings.Contains(out, "wf-sse")
	})
	if n := strings.Count(tm.received("dev"), "type: handoff"); n != 1 {
		t.Errorf("dev got %d handoffs, want 1", n)
	}
	if out := tm.mustCLI("progress"); !strings.Contains(out, "STALLED") || !strings.Contains(out, "next: 2. dev: implement the endpoint") {
		t.Errorf("teamlead progress:\n%s", out)
	}
	for _, kind := range []string{"workflow", "handoff"} {
		if recs := auditJSON(t, tm, "--kind", kind); len(recs) == 0 {
			t.Errorf("no %s record", kind)
		}
	}
	// Killed and restarted: the unfinished workflow is offered for resumption.
	c.kill()
	c2 := tm.start()
	waitFor(t, 20*time.Second, "the resumption offer", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "w-planner-wf-sse") && strings.Contains(out, "stopped at step 2 of 3")
	})
	// ... and not handed over a second time.
	if n := strings.Count(tm.received("dev"), "type: handoff"); n != 1 {
		t.Errorf("after the restart dev has %d handoffs, want 1", n)
	}
	c2.stop()
}

// An agent writes its progress file as it works; the console shows the
// workflow (tmux), hands step 2 to dev, and shows the stall.
func TestProgressInConsole(t *testing.T) {
	work := t.TempDir()
	step1 := strings.ReplaceAll(progressJSON(1, "in_progress"), "\n", " ")
	step2 := strings.ReplaceAll(progressJSON(2, "in_progress"), "\n", " ")
	tm := newTeamWith(t, "progress:\n  stall: 2s\n",
		agentDef{name: "planner", dir: filepath.Join(work, "planner"), script: "say planning\nsleep 300ms\nwritefile .claude/state/progress.json " + step1 +
			"\nsleep 700ms\nwritefile .claude/state/progress.json " + step2 + "\nidle\n"},
		agentDef{name: "dev", dir: filepath.Join(work, "dev"), flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.startInTmux(150, 40)
	c.keys("5")
	c.waitScreen("step 1 done", "workflow of planner", "wf-sse · in_progress", "step 2/3", "✓ 1. planner: design part 1", "next: 2. dev: implement the endpoint", "endpoint: /events")
	tm.waitReceived("dev", "step: 2\r")
	c.waitScreen("step 2 done", "step 3/3", "✓ 2. planner: design part 2", "next: 3. dev")
	got := tm.waitReceived("dev", "step: 3\r")
	if n := strings.Count(got, "type: handoff"); n != 2 || !strings.Contains(got, "action: implement the endpoint\r") {
		t.Errorf("dev received %d handoffs: %q", n, got)
	}
	c.waitScreen("the stall", "STALLED", "has not moved for 2s")
	c.keys("q", "y")
	c.waitScreen("clean exit", "console-exited-0")
}

// TestProgressInASharedFolder: agents in one folder (as the demo's four
// are) keep a progress file each; a workflow is shown for the agent whose
// file it is, and an agent with none is told where its file goes.
func TestProgressInASharedFolder(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	tm := newTeam(t,
		agentDef{name: "planner", script: "writefile .claude/state/progress-planner.json " + strings.ReplaceAll(progressJSON(1, "in_progress"), "\n", " ") + "\nidle\n", dir: shared},
		agentDef{name: "dev", flags: []string{"--raw"}, script: "idle\n", dir: shared},
		agentDef{name: "qa", script: "idle\n", dir: shared},
	)
	c := tm.start()
	defer c.stop()
	tm.waitReceived("dev", "type: handoff") // the planner's workflow hands step 2 to dev
	out := tm.mustCLI("progress")
	if n := strings.Count(out, "wf-sse"); n != 1 {
		t.Errorf("the workflow is listed %d times, want once (under planner):\n%s", n, out)
	}
	if !strings.Contains(out, "planner · wf-sse") {
		t.Errorf("the workflow is not the planner's:\n%s", out)
	}
	if want := "dev: no workflow yet; dev keeps it in " + filepath.Join(shared, ".claude", "state", "progress-dev.json"); !strings.Contains(out, want) {
		t.Errorf("dev is not told where its file goes (want %q):\n%s", want, out)
	}
	if primer := tm.mustCLI("primer", "dev"); !strings.Contains(primer, "`.claude/state/progress-dev.json`") {
		t.Errorf("dev's primer does not name its own progress file")
	}
}
