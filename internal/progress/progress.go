// Package progress reads and watches the workflow progress files that agents
// following seed 003 keep in .claude/state/progress.json.
//
// Two shapes are accepted, both with a 2.x version: schema 2.0 as in the seed
// (finished steps in "completed_steps") and the later shape where the steps
// are listed in "steps" with a status each. Parse normalises either into a
// Workflow; Watcher reports each file's latest State, robust to writers that
// replace the file by rename and to half-written files; Stalled and
// HandoffDue are the pure decisions the lead makes from those states.
package progress

import (
	"errors"
	"path/filepath"
	"time"
)

// DefaultPath is where an agent keeps its progress file, relative to its
// working directory.
const DefaultPath = ".claude/state/progress.json"

// SharedPath is an agent's progress file, relative to its working
// directory, when other agents work in the same directory: one file each,
// so that no workflow is taken for another agent's.
func SharedPath(agent string) string { return ".claude/state/progress-" + agent + ".json" }

// Paths returns each agent's progress file, absolute or as dirs give them:
// DefaultPath in a directory of its own, SharedPath in a shared one.
// dirs maps agent names to their working directories.
func Paths(dirs map[string]string) map[string]string {
	count := map[string]int{}
	for _, d := range dirs {
		count[filepath.Clean(d)]++
	}
	out := make(map[string]string, len(dirs))
	for agent, d := range dirs {
		rel := DefaultPath
		if count[filepath.Clean(d)] > 1 {
			rel = SharedPath(agent)
		}
		out[agent] = filepath.Join(d, rel)
	}
	return out
}

// Errors returned by Parse (wrapped, with details); test with errors.Is.
var (
	// ErrNotJSON: the bytes are not JSON at all, often a file caught half-written.
	ErrNotJSON = errors.New("progress file is not JSON")
	// ErrUnknownVersion: the file's version is not one this package reads.
	ErrUnknownVersion = errors.New("unknown progress file version")
	// ErrSchema: the file is JSON but a field has the wrong type.
	ErrSchema = errors.New("progress file does not match the schema")
)

// Workflow is a progress file, normalised from either shape.
type Workflow struct {
	// Version is the file's "version" as written (2.0, 2.1, ...).
	Version string
	// WorkflowID is "workflow_id".
	WorkflowID string
	// Task is the task as the file has it: task.summary, else
	// task.original_request, else the task itself when it is a string.
	Task string
	// Primary is classification.primary_expert.
	Primary string
	// Supporting is classification.supporting_experts.
	Supporting []string
	// Strategy is classification.strategy: sequential | parallel | single.
	Strategy string
	// Status is initialized | in_progress | completed | failed (lower case,
	// "in-progress" and "in progress" read as in_progress).
	Status string
	// CurrentStep is "current_step".
	CurrentStep int
	// TotalSteps is "total_steps", else classification.estimated_steps,
	// else the number of steps[] in the later shape.
	TotalSteps int
	// Steps are 2.0's completed_steps (status "completed" unless the entry
	// says otherwise) or the later shape's steps[] with their own status.
	Steps []Step
	// Next is next_step, nil if none. In the later shape without a
	// next_step it is the first pending step.
	Next *NextStep
	// Artifacts are the files created and modified (documentation consulted
	// is left out), or the list itself when "artifacts" is an array.
	Artifacts []string
	// Errors are the file's "errors" as text, one line each.
	Errors []string
	// UpdatedAt is "updated_at" when it is a readable time (else zero).
	UpdatedAt time.Time
}

// Step is one step of a workflow.
type Step struct {
	// Number is "step" (or "number"), else the position in the list from 1.
	Number int
	// Expert is the expert (agent) doing the step.
	Expert string
	// Action is what the step does.
	Action string
	// Status is pending | in_progress | completed | failed.
	Status string
	// Duration is "duration_ms", else CompletedAt-StartedAt when both are known.
	Duration time.Duration
	// Artifacts are the files the step produced.
	Artifacts []string
	// StartedAt is "started_at" (zero when absent or unreadable).
	StartedAt time.Time
	// CompletedAt is "completed_at", else 2.0's "timestamp".
	CompletedAt time.Time
}

// NextStep is the step handed to the next expert (seed 003 section 7).
type NextStep struct {
	// Number is the step number, 0 if the file does not give one.
	Number int
	// Expert is the expert the step is handed to.
	Expert string
	// Action is what that expert is asked to do.
	Action string
	// Context is the context handed over as text: a string as is, an object
	// as "key: value" lines in the file's order.
	Context string
}

// Parse reads a progress file's bytes. Errors wrap ErrNotJSON (with the JSON
// error and a hint that a half-written file is read again when it changes),
// ErrUnknownVersion (naming the version and the ones supported) or ErrSchema
// (naming the field that is wrong).
func Parse(data []byte) (*Workflow, error) {
	root, err := parseRoot(data)
	if err != nil {
		return nil, err
	}
	version, err := checkVersion(root)
	if err != nil {
		return nil, err
	}
	w := readWorkflow(root)
	if root.r.err != nil {
		return nil, root.r.err
	}
	w.Version = version
	return w, nil
}

// State is what is known of one progress file (progresswatch reports it).
type State struct {
	// Agent is the agent whose directory it is ("" for extra paths).
	Agent string
	// Path is the progress file's absolute path.
	Path string
	// Workflow is the parsed file, nil when missing or unreadable.
	Workflow *Workflow
	// Err is the problem, shown on the agent; nil when missing or fine.
	Err error
	// ModTime is when the file last changed (zero when missing).
	ModTime time.Time
	// Missing is true when there is no file at Path.
	Missing bool
}
