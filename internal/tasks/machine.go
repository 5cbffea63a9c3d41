package tasks

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Machine holds the tasks by id and moves them through their lifecycle.
// It is not safe for concurrent use; the Team Lead core owns it.
type Machine struct {
	byID map[string]*Task
}

// New returns a machine with no tasks.
func New() *Machine { return &Machine{byID: map[string]*Task{}} }

// Restore returns a machine holding the tasks read back from the store.
// Entries without a task id are skipped; of two with the same id, the one
// updated last is kept.
func Restore(tasks []Task) *Machine {
	m := New()
	for _, t := range tasks {
		t.ID = strings.TrimSpace(t.ID)
		if NoTask(t.ID) {
			continue
		}
		if old := m.byID[t.ID]; old != nil && old.Updated.After(t.Updated) {
			continue
		}
		c := t.clone()
		m.byID[t.ID] = &c
	}
	return m
}

// Get returns task id.
func (m *Machine) Get(id string) (Task, bool) {
	t, ok := m.byID[strings.TrimSpace(id)]
	if !ok {
		return Task{}, false
	}
	return t.clone(), true
}

// All lists every task, the most recently updated first (ties by id).
func (m *Machine) All() []Task {
	out := make([]Task, 0, len(m.byID))
	for _, t := range m.byID {
		out = append(out, t.clone())
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// Touch records an envelope from agent (of role) naming task id: the first
// creates the task in progress (a developer's envelope makes it the
// task's developer), later ones only update it.
func (m *Machine) Touch(id, agent, role string, now time.Time) (Task, error) {
	t, err := m.touch(id, agent, role, now)
	if err != nil {
		return Task{}, err
	}
	return t.clone(), nil
}

func (m *Machine) touch(id, agent, role string, now time.Time) (*Task, error) {
	id = strings.TrimSpace(id)
	if NoTask(id) {
		return nil, fmt.Errorf("%w: %q", ErrNoTask, id)
	}
	t := m.byID[id]
	if t == nil {
		t = &Task{ID: id, State: StateInProgress, Created: now,
			History: []Transition{{To: StateInProgress, At: now, By: agent, Note: "created"}}}
		m.byID[id] = t
	}
	if t.Developer == "" && isDeveloper(role) {
		t.Developer = agent
	}
	if now.After(t.Updated) {
		t.Updated = now
	}
	return t, nil
}

// isDeveloper reports a developer role.
func isDeveloper(role string) bool {
	switch strings.ToLower(strings.TrimSpace(role)) {
	case "developer", "dev":
		return true
	}
	return false
}

// HandedOff records that developer's handoff of task id was accepted (its
// consultations passed) and that qa was assigned: in-progress, failed or
// blocked → in-review. A failed or blocked task passes through in-progress
// first, so its history shows the rework. A task not seen yet is created.
func (m *Machine) HandedOff(id, developer, qa string, now time.Time) (Task, error) {
	id = strings.TrimSpace(id)
	if NoTask(id) {
		return Task{}, fmt.Errorf("%w: %q", ErrNoTask, id)
	}
	if qa == "" {
		return Task{}, fmt.Errorf("%w: task %s", ErrNoQA, id)
	}
	if t := m.byID[id]; t != nil && t.State != StateInProgress && t.State != StateFailed && t.State != StateBlocked {
		return t.clone(), fmt.Errorf("%w: task %s is %s; only a task in progress, failed or blocked can be handed off", ErrIllegal, id, t.State)
	}
	t, _ := m.touch(id, developer, "", now)
	if t.State != StateInProgress {
		t.move(StateInProgress, now, developer, "reopened by a new handoff")
	}
	if developer != "" {
		t.Developer = developer
	}
	t.QA = qa
	t.move(StateInReview, now, developer, "handoff; assigned to "+qa)
	return t.clone(), nil
}

// Reassign gives task id, in review, to another QA agent (the assigned one
// exited, or the human chose another); by is who decided it.
func (m *Machine) Reassign(id, qa, by string, now time.Time) (Task, error) {
	t, err := m.known(id)
	if err != nil {
		return Task{}, err
	}
	if qa == "" {
		return t.clone(), fmt.Errorf("%w: task %s", ErrNoQA, t.ID)
	}
	if t.State != StateInReview {
		return t.clone(), fmt.Errorf("%w: task %s is %s; only a task in review can be reassigned", ErrIllegal, t.ID, t.State)
	}
	old := t.QA
	t.QA = qa
	t.move(StateInReview, now, by, "reassigned from "+old+" to "+qa)
	return t.clone(), nil
}

// Review records qa's review of task id. Only the assigned QA agent may
// review a task in review. A complete review moves the task to passed,
// failed or blocked; an incomplete one leaves it in review and returns
// ErrIncompleteReview (with the task updated: Reviews, LastReview) so the
// caller sends the review back with r.Feedback().
func (m *Machine) Review(id, qa string, r Review, now time.Time) (Task, error) {
	t, err := m.known(id)
	if err != nil {
		return Task{}, err
	}
	if t.State != StateInReview {
		return t.clone(), fmt.Errorf("%w: task %s is %s, not in review", ErrIllegal, t.ID, t.State)
	}
	if qa != t.QA {
		return t.clone(), fmt.Errorf("%w: %s reviewed task %s, assigned to %s", ErrNotAssignedQA, qa, t.ID, t.QA)
	}
	rc := r.clone()
	t.Reviews++
	t.LastReview = &rc
	if now.After(t.Updated) {
		t.Updated = now
	}
	to := map[Decision]State{Pass: StatePassed, Fail: StateFailed, Blocked: StateBlocked}[r.Decision]
	if !r.Complete() || to == "" {
		why := strings.Join(r.Missing, "; ")
		if why == "" {
			why = "no decision"
		}
		return t.clone(), fmt.Errorf("%w: task %s: %s", ErrIncompleteReview, t.ID, why)
	}
	t.move(to, now, qa, "review "+string(r.Decision))
	return t.clone(), nil
}

// Reopen moves a failed or blocked task back in progress (the developer
// resumed work on it, or the human sent it back); by is who did it.
func (m *Machine) Reopen(id, by string, now time.Time) (Task, error) {
	t, err := m.known(id)
	if err != nil {
		return Task{}, err
	}
	if t.State != StateFailed && t.State != StateBlocked {
		return t.clone(), fmt.Errorf("%w: task %s is %s; only a failed or blocked task can be reopened", ErrIllegal, t.ID, t.State)
	}
	t.move(StateInProgress, now, by, "reopened")
	return t.clone(), nil
}

// known returns the task, or an error for no id or an unknown one.
func (m *Machine) known(id string) (*Task, error) {
	id = strings.TrimSpace(id)
	if NoTask(id) {
		return nil, fmt.Errorf("%w: %q", ErrNoTask, id)
	}
	t := m.byID[id]
	if t == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTask, id)
	}
	return t, nil
}

// move changes the state and records the transition.
func (t *Task) move(to State, now time.Time, by, note string) {
	t.History = append(t.History, Transition{From: t.State, To: to, At: now, By: by, Note: note})
	t.State = to
	if now.After(t.Updated) {
		t.Updated = now
	}
}
