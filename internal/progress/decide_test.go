package progress

import (
	"testing"
	"time"
)

func TestStalled(t *testing.T) {
	now := ts("2026-01-05T12:00:00Z")
	running := &Workflow{Status: "in_progress", UpdatedAt: now.Add(-time.Minute)}
	done := &Workflow{Status: "completed"}
	tests := []struct {
		name  string
		state State
		after time.Duration
		want  bool
	}{
		{"quiet too long", State{Workflow: running, ModTime: now.Add(-11 * time.Minute)}, 10 * time.Minute, true},
		{"changed recently", State{Workflow: running, ModTime: now.Add(-9 * time.Minute)}, 10 * time.Minute, false},
		{"exactly the limit", State{Workflow: running, ModTime: now.Add(-10 * time.Minute)}, 10 * time.Minute, false},
		{"file time counts, not updated_at", State{Workflow: &Workflow{Status: "in_progress", UpdatedAt: now}, ModTime: now.Add(-time.Hour)}, 10 * time.Minute, true},
		{"updated_at when no file time", State{Workflow: &Workflow{Status: "in_progress", UpdatedAt: now.Add(-time.Hour)}}, 10 * time.Minute, true},
		{"no time at all", State{Workflow: &Workflow{Status: "in_progress"}}, 10 * time.Minute, false},
		{"completed", State{Workflow: done, ModTime: now.Add(-time.Hour)}, 10 * time.Minute, false},
		{"initialized", State{Workflow: &Workflow{Status: "initialized"}, ModTime: now.Add(-time.Hour)}, 10 * time.Minute, false},
		{"unreadable", State{Err: ErrNotJSON, ModTime: now.Add(-time.Hour)}, 10 * time.Minute, false},
		{"missing", State{Missing: true}, 10 * time.Minute, false},
		{"check turned off", State{Workflow: running, ModTime: now.Add(-time.Hour)}, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Stalled(tt.state, now, tt.after); got != tt.want {
				t.Errorf("Stalled = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestHandoffDue(t *testing.T) {
	agents := map[string]bool{"vitest-expert": true, "n8n-expert": true}
	isAgent := func(name string) bool { return agents[name] }
	wf := func(status string, next *NextStep) *Workflow { return &Workflow{Status: status, Next: next} }
	toVitest := &NextStep{Number: 2, Expert: "vitest-expert", Action: "create_test", Context: "notes: line 245"}
	tests := []struct {
		name      string
		prev, cur *Workflow
		writer    string
		isAgent   func(string) bool
		want      bool
	}{
		{"first time", nil, wf("in_progress", toVitest), "n8n-expert", isAgent, true},
		{"new next step", wf("in_progress", nil), wf("in_progress", toVitest), "n8n-expert", isAgent, true},
		{"same next step rewritten", wf("in_progress", toVitest), wf("in_progress", toVitest), "n8n-expert", isAgent, false},
		{"same step, other context", wf("in_progress", toVitest), wf("in_progress", &NextStep{Number: 2, Expert: "vitest-expert", Context: "more"}), "n8n-expert", isAgent, false},
		{"same step, other expert", wf("in_progress", toVitest), wf("in_progress", &NextStep{Number: 2, Expert: "n8n-expert"}), "vitest-expert", isAgent, true},
		{"next step number", wf("in_progress", toVitest), wf("in_progress", &NextStep{Number: 3, Expert: "vitest-expert"}), "n8n-expert", isAgent, true},
		{"to the writer itself", nil, wf("in_progress", toVitest), "vitest-expert", isAgent, false},
		{"to the writer, other case", nil, wf("in_progress", toVitest), " Vitest-Expert", isAgent, false},
		{"not a supervised agent", nil, wf("in_progress", &NextStep{Number: 2, Expert: "docs-expert"}), "n8n-expert", isAgent, false},
		{"no next step", nil, wf("in_progress", nil), "n8n-expert", isAgent, false},
		{"no expert named", nil, wf("in_progress", &NextStep{Number: 2, Action: "x"}), "n8n-expert", isAgent, false},
		{"workflow completed", nil, wf("completed", toVitest), "n8n-expert", isAgent, false},
		{"workflow failed", nil, wf("failed", toVitest), "n8n-expert", isAgent, false},
		{"no current file", wf("in_progress", toVitest), nil, "n8n-expert", isAgent, false},
		{"no agent list", nil, wf("in_progress", toVitest), "n8n-expert", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, due := HandoffDue(tt.prev, tt.cur, tt.writer, tt.isAgent)
			if due != tt.want {
				t.Fatalf("due = %v, want %v", due, tt.want)
			}
			if due && next != *tt.cur.Next {
				t.Errorf("next = %+v, want %+v", next, *tt.cur.Next)
			}
			if !due && next != (NextStep{}) {
				t.Errorf("not due but next = %+v", next)
			}
		})
	}
}
