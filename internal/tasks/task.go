package tasks

import (
	"errors"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/usage"
)

// State is where a task is in its lifecycle.
type State string

// The task states of seed 001's lifecycle.
const (
	StateInProgress State = "in-progress" // a developer works on it
	StateInReview   State = "in-review"   // handed off and assigned to a QA agent
	StatePassed     State = "passed"      // QA decided PASS; final
	StateFailed     State = "failed"      // QA decided FAIL; back to the developer
	StateBlocked    State = "blocked"     // QA decided BLOCKED by the environment
)

// Sentinel errors, wrapped with the task and the detail.
var (
	ErrNoTask           = errors.New("no task id")
	ErrUnknownTask      = errors.New("unknown task")
	ErrIllegal          = errors.New("illegal transition")
	ErrNotAssignedQA    = errors.New("not the QA agent assigned to the task")
	ErrNoQA             = errors.New("no QA agent to assign")
	ErrIncompleteReview = errors.New("incomplete review")
)

// Transition is one recorded change of a task's state (or its QA agent).
type Transition struct {
	From State     `json:"from,omitempty"` // "" when the task was created
	To   State     `json:"to"`
	At   time.Time `json:"at"`
	By   string    `json:"by,omitempty"`   // the agent whose envelope caused it
	Note string    `json:"note,omitempty"` // why, e.g. "handoff", "review FAIL"
}

// Task is one task of the team, as the store keeps it.
type Task struct {
	ID         string       `json:"id"`
	State      State        `json:"state"`
	Developer  string       `json:"developer,omitempty"` // the developer who handed it off (or first worked on it)
	QA         string       `json:"qa,omitempty"`        // the QA agent assigned at the last handoff
	Created    time.Time    `json:"created"`
	Updated    time.Time    `json:"updated"`
	History    []Transition `json:"history,omitempty"`
	Reviews    int          `json:"reviews,omitempty"`     // reviews received, complete or not
	LastReview *Review      `json:"last_review,omitempty"` // the latest review received
	// Tokens is what the agents' CLIs used on it (engine's task spend,
	// kept apart from the machine's record): nil when none was counted.
	Tokens *usage.Tokens `json:"tokens,omitempty"`
}

// Spent is what the task cost, short: "12.3k", "12.3k $0.41", or "-".
func (t Task) Spent() string {
	if t.Tokens == nil {
		return "-"
	}
	s := usage.Short(t.Tokens.All())
	if t.Tokens.CostUSD > 0 {
		s += " " + usage.Dollars(t.Tokens.CostUSD)
	}
	return s
}

// clone is a deep copy, so callers never alias the machine's records.
func (t Task) clone() Task {
	t.History = append([]Transition(nil), t.History...)
	if t.LastReview != nil {
		r := t.LastReview.clone()
		t.LastReview = &r
	}
	return t
}

// NoTask reports a task id that names no task ("" or "-").
func NoTask(id string) bool {
	id = strings.TrimSpace(id)
	return id == "" || id == "-"
}
