// Package approvals is the queue of permission requests (PROTOCOL.md
// section 6, seed 001 rule 5): each request an agent makes — by a [ROUTE]
// of type permission, through its CLI's permission dialog, or through its
// CLI's hook — is decided by the policy (internal/permit); what the policy
// allows or denies is answered at once, what it asks waits for the human,
// with a deadline after which it is escalated. Like the Team Lead it is a
// deterministic machine: no I/O, no clock; every call carries its time.
package approvals

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/permit"
)

// Source is how a request reached the console.
type Source string

// The three doors, one policy.
const (
	FromRoute  Source = "route"  // a [ROUTE] of type permission
	FromDialog Source = "dialog" // the CLI's permission dialog, read off its screen
	FromHook   Source = "hook"   // the CLI's own hook asking the console
)

// Status of a request.
type Status string

// Request states.
const (
	Pending   Status = "pending"
	Approved  Status = "approved"
	Denied    Status = "denied"
	Withdrawn Status = "withdrawn" // the dialog went away, or the hook gave up, before anyone decided
)

// Sentinel errors.
var (
	ErrNoRequest = errors.New("no such permission request")
	ErrDecided   = errors.New("the permission request was already decided")
)

// Keys are what to press in a CLI's permission dialog.
type Keys struct {
	// Approve approves once; Deny refuses.
	Approve string `json:"approve,omitempty"`
	Deny    string `json:"deny,omitempty"`
	// Settle is how long after the dialog appeared a key may be pressed.
	Settle time.Duration `json:"settle,omitempty"`
}

// Request is one permission request and what became of it.
type Request struct {
	ID     string `json:"id"` // p-<n>
	Agent  string `json:"agent"`
	Source Source `json:"source"`
	// Action is what the agent wants to do, as Tool(argument).
	Action string `json:"action"`
	Task   string `json:"task,omitempty"`
	// Policy is what the policy decided: allow, ask or deny.
	Policy string `json:"policy"`
	// Rule is what decided it (a rule with its file:line, a floor entry, the default).
	Rule string `json:"rule"`
	// Risk is low, medium, high or critical.
	Risk string `json:"risk"`
	// Why is the policy's reason, shown to the human.
	Why string `json:"why"`
	// Floor lists the destructive patterns the action hits.
	Floor  []string `json:"floor,omitempty"`
	Status Status   `json:"status"`
	// DecidedBy is "policy", "human" or "hook" (the hook's caller gave up).
	DecidedBy string `json:"decided_by,omitempty"`
	// Note is the human's message to the agent, or what an approve-always added (AlwaysNote, NoRuleNote).
	Note    string    `json:"note,omitempty"`
	Created time.Time `json:"created"`
	Decided time.Time `json:"decided,omitzero"`
	// Deadline is when a pending request is escalated (zero: never, or done).
	Deadline  time.Time `json:"deadline,omitzero"`
	Escalated bool      `json:"escalated,omitempty"`
	// Keys are the dialog's keys (FromDialog).
	Keys Keys `json:"keys,omitzero"`
	// Cwd is the folder the agent's shell was in, as its CLI's hook said
	// (FromHook; "" when none said): relative paths start there.
	Cwd string `json:"cwd,omitempty"`
}

// The notes an approve-always leaves on its request.
const (
	// AlwaysNote begins the note of an approve-always that added rules:
	// "approved always: Bash(npm install left-pad:*) added to permissions.yaml".
	AlwaysNote = "approved always: "
	// NoRuleNote begins the note of an approve-always that added none (the
	// policy allows the action already): it was approved once.
	NoRuleNote = "approved once, no rule added: "
)

// Done reports whether r was decided or withdrawn.
func (r *Request) Done() bool { return r.Status != Pending }

// Checker decides an action for an agent: the policy with the agent's
// working folder, and the folder the agent's shell is in when its CLI's
// hook says so (cwd; "" for the working folder).
type Checker func(action, agent, cwd string) permit.Decision

// Machine holds the requests.
type Machine struct {
	check    Checker
	escalate time.Duration
	byID     map[string]*Request
	next     int
}

// New returns a machine deciding with check; a pending request is
// escalated after escalate (0: never). Restored requests keep their ids.
func New(check Checker, escalate time.Duration, restored ...Request) *Machine {
	m := &Machine{check: check, escalate: escalate, byID: map[string]*Request{}, next: 1}
	for i := range restored {
		r := restored[i]
		m.byID[r.ID] = &r
		if n, err := strconv.Atoi(strings.TrimPrefix(r.ID, "p-")); err == nil && n >= m.next {
			m.next = n + 1
		}
	}
	return m
}

// SetChecker replaces the policy (after an approve-always changed it).
func (m *Machine) SetChecker(check Checker) { m.check = check }

// Ask records a request and decides it by the policy: allowed and denied
// ones are done at once; asked ones are pending for the human.
func (m *Machine) Ask(agent string, src Source, action, task string, keys Keys, now time.Time) *Request {
	return m.AskIn(agent, src, action, task, "", keys, now)
}

// AskIn is Ask for an action run in the folder cwd (a hook's).
func (m *Machine) AskIn(agent string, src Source, action, task, cwd string, keys Keys, now time.Time) *Request {
	d := m.check(action, agent, cwd)
	r := &Request{ID: fmt.Sprintf("p-%d", m.next), Agent: agent, Source: src, Action: action, Task: task, Cwd: cwd,
		Policy: d.Decide.String(), Rule: d.Rule.String(), Risk: d.Risk.String(), Why: d.Why, Floor: d.Floor,
		Status: Pending, Created: now, Keys: keys}
	m.next++
	m.byID[r.ID] = r
	switch d.Decide {
	case permit.Allow:
		r.Status, r.DecidedBy, r.Decided = Approved, "policy", now
	case permit.Deny:
		r.Status, r.DecidedBy, r.Decided = Denied, "policy", now
	default:
		if m.escalate > 0 {
			r.Deadline = now.Add(m.escalate)
		}
	}
	return r
}

// Decide is the human's decision on a pending request; note is the
// message to the agent (or the rule an approve-always added).
func (m *Machine) Decide(id string, approve bool, by, note string, now time.Time) (*Request, error) {
	r := m.byID[id]
	if r == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoRequest, id)
	}
	if r.Done() {
		return r, fmt.Errorf("%w: %s was %s by %s", ErrDecided, id, r.Status, r.DecidedBy)
	}
	r.Status, r.DecidedBy, r.Note, r.Decided, r.Deadline = Denied, by, note, now, time.Time{}
	if approve {
		r.Status = Approved
	}
	return r, nil
}

// Withdraw closes a pending request nobody decided: the dialog left the
// screen, or the hook's caller stopped waiting.
func (m *Machine) Withdraw(id, why string, now time.Time) (*Request, error) {
	r := m.byID[id]
	if r == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoRequest, id)
	}
	if r.Done() {
		return r, fmt.Errorf("%w: %s was %s by %s", ErrDecided, id, r.Status, r.DecidedBy)
	}
	r.Status, r.Note, r.Decided, r.Deadline = Withdrawn, why, now, time.Time{}
	return r, nil
}

// Reopen puts a decided dialog request back to pending: the key that
// carried the decision was not read by the CLI and was taken back, so
// nothing was answered (red team 18b, finding 1).
func (m *Machine) Reopen(id string, now time.Time) (*Request, error) {
	r := m.byID[id]
	if r == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoRequest, id)
	}
	r.Status, r.DecidedBy, r.Note, r.Decided = Pending, "", "", time.Time{}
	if m.escalate > 0 {
		r.Deadline = now.Add(m.escalate)
	}
	return r, nil
}

// Get returns request id.
func (m *Machine) Get(id string) (*Request, bool) {
	r, ok := m.byID[id]
	return r, ok
}

// PendingFor is the agent's pending request for action from src, if any
// (a dialog redrawn is the same request; a hook's request that fell back to
// the CLI's own dialog is continued by that dialog).
func (m *Machine) PendingFor(agent, action string) *Request {
	for _, r := range m.sorted() {
		if r.Agent == agent && r.Action == action && !r.Done() {
			return r
		}
	}
	return nil
}

// Pending lists the pending requests, oldest first.
func (m *Machine) Pending() []Request {
	var out []Request
	for _, r := range m.sorted() {
		if !r.Done() {
			out = append(out, *r)
		}
	}
	return out
}

// All lists every request, newest first.
func (m *Machine) All() []Request {
	rs := m.sorted()
	out := make([]Request, len(rs))
	for i, r := range rs {
		out[len(rs)-1-i] = *r
	}
	return out
}

// sorted is every request, oldest first.
func (m *Machine) sorted() []*Request {
	out := make([]*Request, 0, len(m.byID))
	for _, r := range m.byID {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return number(out[i].ID) < number(out[j].ID) })
	return out
}

func number(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "p-"))
	return n
}

// Tick escalates the pending requests whose deadline passed, once each.
func (m *Machine) Tick(now time.Time) []*Request {
	var out []*Request
	for _, r := range m.sorted() {
		if !r.Done() && !r.Deadline.IsZero() && !now.Before(r.Deadline) {
			r.Escalated, r.Deadline = true, time.Time{}
			out = append(out, r)
		}
	}
	return out
}

// NextDeadline is when Tick next has work.
func (m *Machine) NextDeadline() (time.Time, bool) {
	var at time.Time
	for _, r := range m.byID {
		if !r.Done() && !r.Deadline.IsZero() && (at.IsZero() || r.Deadline.Before(at)) {
			at = r.Deadline
		}
	}
	return at, !at.IsZero()
}
