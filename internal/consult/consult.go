// Package consult enforces mandatory consultations (seed 002, PROTOCOL.md
// section 5): before a decision of a given type is final, the agents whose
// role a rule names must have approved it. Machine is a deterministic
// state machine like the Team Lead: consultations are created explicitly
// (type: consult) or automatically when a decision triggers a rule, they
// get verdicts only from the consulted agent (or the human acknowledging
// concerns), and a decision passes only when every mandatory consultation
// for it is approved or its concerns resolved.
package consult

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// Status of a consultation.
type Status string

// Consultation states; verdicts move a pending one to approved,
// concerns-raised or rejected, and concerns move on to resolved when the
// consulted agent approves after all or the human acknowledges them.
const (
	Pending        Status = "pending"
	Approved       Status = "approved"
	ConcernsRaised Status = "concerns-raised"
	Rejected       Status = "rejected"
	Resolved       Status = "resolved" // concerns acknowledged by the human
	Superseded     Status = "superseded"
	// Escalated is a consultation whose deadline passed; it still holds its
	// decision until someone with the right gives a verdict.
	Escalated Status = "escalated"
	// Answered is a query (seed 000) that got its answer; queries inform,
	// they do not approve decisions.
	Answered Status = "answered"
)

// Human is the name verdicts and acknowledgements of the person at the
// console are recorded under.
const Human = "human"

// Sentinel errors.
var (
	ErrNoConsultation = errors.New("no such consultation")
	ErrNotConsulted   = errors.New("only the consulted agent may give this verdict")
	ErrNotAllowed     = errors.New("the consultation matrix does not allow this consultation")
	ErrBadVerdict     = errors.New("verdict must be approved, concerns-raised or rejected")
	ErrNotRequester   = errors.New("only the requesting agent may address the concerns")
	ErrBadDelegate    = errors.New("a consultation can be delegated only to another agent of the consulted role")
	ErrClosed         = errors.New("the consultation is closed")
)

// Rule makes a consultation mandatory: an agent of role Requester must
// have role Consulted approve before a decision of type Decision is final.
type Rule struct {
	// Requester is the role that must consult.
	Requester string `yaml:"requester"`
	// Consulted is the role that must approve.
	Consulted string `yaml:"consulted"`
	// Decision is the decision type the rule guards.
	Decision string `yaml:"decision"`
	// Timeout is how long the consulted agent has before the consultation
	// escalates (0: the rules' default).
	Timeout time.Duration `yaml:"timeout"`
	// EscalateTo lists, in order, who is asked when the timeout passes:
	// "role:<role>" (another agent of that role), "agent:<name>", or "human".
	EscalateTo []string `yaml:"escalate_to"`
}

// Rules are the mandatory rules and the matrix of optional consultations.
type Rules struct {
	// Defaults apply to every rule and to optional consultations.
	Defaults Defaults `yaml:"defaults"`
	// Mandatory rules, checked on every decision.
	Mandatory []Rule `yaml:"mandatory"`
	// Matrix lists, by requester role, the roles it may consult ("*" for
	// anyone). A role missing from the matrix may consult no one optionally.
	Matrix map[string][]string `yaml:"matrix"`
}

// Defaults are the timeout and escalation of a rule that gives none.
type Defaults struct {
	// Timeout before a consultation escalates; 0 means never.
	Timeout time.Duration `yaml:"timeout"`
	// EscalateTo is the escalation chain (see Rule.EscalateTo).
	EscalateTo []string `yaml:"escalate_to"`
}

// DefaultRules are PROTOCOL.md section 5's defaults and seed 000's matrix
// (configs/consultations.yaml holds the same, for people to edit).
func DefaultRules() Rules {
	return Rules{
		Defaults: Defaults{Timeout: 4 * time.Hour, EscalateTo: []string{"human"}},
		Mandatory: []Rule{
			{Requester: "architect", Consulted: "security", Decision: "infrastructure"},
			{Requester: "architect", Consulted: "designer", Decision: "design-impact"},
			{Requester: "developer", Consulted: "review", Decision: "code-complete"},
			{Requester: "developer", Consulted: "testing", Decision: "code-complete"},
		},
		Matrix: map[string][]string{
			"pm": {"architect", "designer"}, "architect": {"pm", "designer"}, "designer": {"pm", "architect"},
			"developer": {"architect", "designer"}, "qa": {"developer", "pm"}, "writer": {"*"},
		},
	}
}

// Verdict is one response to a consultation.
type Verdict struct {
	By      string    `json:"by"`
	Verdict Status    `json:"verdict"`
	Body    string    `json:"body,omitempty"`
	At      time.Time `json:"at"`
}

// Consultation is one request for another role's review of a decision.
type Consultation struct {
	ID            string    `json:"id"` // c-<n>
	Requester     string    `json:"requester"`
	RequesterRole string    `json:"requester_role"`
	Consulted     string    `json:"consulted"`
	ConsultedRole string    `json:"consulted_role"`
	Decision      string    `json:"decision"`
	Task          string    `json:"task"`
	Body          string    `json:"body"`
	Mandatory     bool      `json:"mandatory"`
	Status        Status    `json:"status"`
	Supersedes    string    `json:"supersedes,omitempty"`
	Created       time.Time `json:"created"`
	Verdicts      []Verdict `json:"verdicts,omitempty"`
	// Events are what happened besides verdicts: concerns addressed,
	// delegations, escalations, cycles found.
	Events []Event `json:"events,omitempty"`
	// Deadline is when the consultation escalates (zero: never, or closed).
	Deadline time.Time `json:"deadline,omitzero"`
	// Escalations counts the deadlines passed; the next escalation takes
	// EscalateTo[Escalations].
	Escalations int `json:"escalations,omitempty"`
	// ResolvedAt is when the consultation reached its final verdict.
	ResolvedAt time.Time `json:"resolved_at,omitzero"`
	// Priority is seed 000's blocker, high, medium or low ("" when not given).
	Priority string `json:"priority,omitempty"`
	// Query is the query file (seed 000) the consultation came from, and
	// QueryID the id written in it.
	Query   string `json:"query,omitempty"`
	QueryID string `json:"query_id,omitempty"`
}

// Event kinds.
const (
	EventAddressed = "addressed" // the requester's answer to concerns
	EventDelegated = "delegated" // handed to another agent of the role
	EventEscalated = "escalated" // the deadline passed
	EventCycle     = "cycle"     // opening it closed a circle of waiting agents
)

// Event is one step in a consultation's record besides a verdict.
type Event struct {
	Kind string    `json:"kind"`
	By   string    `json:"by"`
	To   string    `json:"to,omitempty"`
	Body string    `json:"body,omitempty"`
	At   time.Time `json:"at"`
}

// Open reports whether c still waits for a verdict (and so holds its decision).
func (c *Consultation) Open() bool {
	return c.Status == Pending || c.Status == Escalated
}

// Satisfied reports whether c lets its decision pass.
func (c *Consultation) Satisfied() bool {
	return c.Status == Approved || c.Status == Resolved
}

// Member is an agent and its role.
type Member struct{ Name, Role string }

// Machine holds the consultations.
type Machine struct {
	rules   Rules
	members []Member
	byID    map[string]*Consultation
	next    int
}

// New returns a machine for the team, holding the consultations restored
// from the store (ids continue after the highest).
func New(rules Rules, members []Member, restored ...Consultation) *Machine {
	m := &Machine{rules: rules, members: members, byID: map[string]*Consultation{}, next: 1}
	for i := range restored {
		c := restored[i]
		m.byID[c.ID] = &c
		var n int
		if _, err := fmt.Sscanf(c.ID, "c-%d", &n); err == nil && n >= m.next {
			m.next = n + 1
		}
	}
	return m
}

// Problems lists rules that cannot be satisfied in this team (a role with
// no agent), to report at start. Decisions they govern stay blocked.
func (m *Machine) Problems() []string {
	var out []string
	for _, r := range m.rules.Mandatory {
		if m.agentOf(r.Consulted, "") == "" {
			out = append(out, fmt.Sprintf("rule %s→%s before %s: no agent has role %s; such decisions stay blocked", r.Requester, r.Consulted, r.Decision, r.Consulted))
		}
	}
	return append(out, ruleCycles(m.rules.Mandatory)...)
}

func (m *Machine) roleOf(agent string) string {
	for _, mb := range m.members {
		if mb.Name == agent {
			return mb.Role
		}
	}
	return ""
}

// agentOf picks the first agent with role, other than not.
func (m *Machine) agentOf(role, not string) string {
	for _, mb := range m.members {
		if mb.Role == role && mb.Name != not {
			return mb.Name
		}
	}
	return ""
}

// Consult opens a consultation of consulted by requester about decision
// on task. An optional one (mandatory false) must be allowed by the matrix.
func (m *Machine) Consult(requester, consulted, decision, task, body, supersedes string, mandatory bool, now time.Time) (*Consultation, error) {
	rRole, cRole := m.roleOf(requester), m.roleOf(consulted)
	var old *Consultation
	if supersedes != "" {
		if old = m.byID[supersedes]; old == nil || old.Requester != requester {
			return nil, fmt.Errorf("%w: %s of %s to supersede", ErrNoConsultation, supersedes, requester)
		}
		mandatory = mandatory || old.Mandatory // a resubmission keeps what it replaces
	}
	mandatory = mandatory || m.required(rRole, cRole, decision)
	if !mandatory && !m.allowed(rRole, cRole) {
		return nil, fmt.Errorf("%w: %s (%s) may consult %s", ErrNotAllowed, requester, rRole, strings.Join(m.rules.Matrix[rRole], ", "))
	}
	if old != nil {
		old.Status = Superseded
	}
	c := &Consultation{ID: fmt.Sprintf("c-%d", m.next), Requester: requester, RequesterRole: rRole, Consulted: consulted,
		ConsultedRole: cRole, Decision: decision, Task: task, Body: body, Mandatory: mandatory, Status: Pending,
		Supersedes: supersedes, Created: now}
	m.next++
	m.byID[c.ID] = c
	m.arm(c, now)
	return c, nil
}

// required reports whether a mandatory rule asks role from to consult role
// to on decision: such a consultation is always allowed, and counts.
func (m *Machine) required(from, to, decision string) bool {
	for _, r := range m.rules.Mandatory {
		if r.Requester == from && r.Consulted == to && r.Decision == decision {
			return true
		}
	}
	return false
}

func (m *Machine) allowed(from, to string) bool {
	for _, r := range m.rules.Matrix[from] {
		if r == "*" || r == to {
			return true
		}
	}
	return false
}

// askedOf is consultation id, if by may speak for its consulted side: the
// consulted agent or the human.
func (m *Machine) askedOf(id, by string) (*Consultation, error) {
	c := m.byID[id]
	if c == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoConsultation, id)
	}
	if by != c.Consulted && by != Human {
		return nil, fmt.Errorf("%w: %s was asked of %s, not %s", ErrNotConsulted, id, c.Consulted, by)
	}
	return c, nil
}

// Verdict records by's verdict on consultation id; only the consulted
// agent may give it.
func (m *Machine) Verdict(id, by string, v Status, body string, now time.Time) (*Consultation, error) {
	c, err := m.askedOf(id, by)
	if err != nil {
		return nil, err
	}
	if v != Approved && v != ConcernsRaised && v != Rejected {
		return nil, fmt.Errorf("%w, not %q", ErrBadVerdict, v)
	}
	if c.Status == Superseded {
		return nil, fmt.Errorf("%w: %s was superseded; give the verdict on the newer consultation", ErrClosed, id)
	}
	c.Status = v
	c.Verdicts = append(c.Verdicts, Verdict{By: by, Verdict: v, Body: body, At: now})
	c.Deadline = time.Time{} // the requester acts next
	if v != ConcernsRaised {
		c.ResolvedAt = now
	}
	return c, nil
}

// Answer records the answer to a query-born consultation (seed 000); by is
// the consulted agent or the human.
func (m *Machine) Answer(id, by, body string, now time.Time) (*Consultation, error) {
	c, err := m.askedOf(id, by)
	if err != nil {
		return nil, err
	}
	if !c.Open() {
		return nil, fmt.Errorf("%w: %s is %s", ErrClosed, id, c.Status)
	}
	c.Status = Answered
	c.Verdicts = append(c.Verdicts, Verdict{By: by, Verdict: Answered, Body: body, At: now})
	c.Deadline = time.Time{}
	c.ResolvedAt = now
	return c, nil
}

// Acknowledge is the human accepting the concerns raised on id (also after
// the requester addressed them, while the consulted agent has not yet
// answered again).
func (m *Machine) Acknowledge(id string, now time.Time) (*Consultation, error) {
	c := m.byID[id]
	if c == nil || !(c.Status == ConcernsRaised || c.Open() && c.lastVerdict() == ConcernsRaised) {
		return nil, fmt.Errorf("%w with concerns raised: %s", ErrNoConsultation, id)
	}
	c.Status = Resolved
	c.Verdicts = append(c.Verdicts, Verdict{By: Human, Verdict: Resolved, Body: "concerns acknowledged", At: now})
	c.Deadline = time.Time{}
	c.ResolvedAt = now
	return c, nil
}

func (c *Consultation) lastVerdict() Status {
	if len(c.Verdicts) == 0 {
		return ""
	}
	return c.Verdicts[len(c.Verdicts)-1].Verdict
}

// Address records the requester's answer to the concerns raised on id; the
// consultation waits for the consulted agent's new verdict again.
func (m *Machine) Address(id, by, body string, now time.Time) (*Consultation, error) {
	c := m.byID[id]
	if c == nil {
		return nil, fmt.Errorf("%w: %s", ErrNoConsultation, id)
	}
	if by != c.Requester {
		return nil, fmt.Errorf("%w: %s was requested by %s, not %s", ErrNotRequester, id, c.Requester, by)
	}
	if c.Status != ConcernsRaised {
		return nil, fmt.Errorf("%w: %s is %s, not concerns-raised", ErrClosed, id, c.Status)
	}
	c.Status = Pending
	c.Events = append(c.Events, Event{Kind: EventAddressed, By: by, To: c.Consulted, Body: body, At: now})
	m.arm(c, now)
	return c, nil
}

// Delegate hands consultation id from its consulted agent to another agent
// of the same role; by is the consulted agent or the human.
func (m *Machine) Delegate(id, by, to, body string, now time.Time) (*Consultation, error) {
	c, err := m.askedOf(id, by)
	if err != nil {
		return nil, err
	}
	if !c.Open() {
		return nil, fmt.Errorf("%w: %s is %s", ErrClosed, id, c.Status)
	}
	if to == c.Requester || to == c.Consulted || m.roleOf(to) != c.ConsultedRole {
		return nil, fmt.Errorf("%w (%s): %s is not one (agents of the role: %s)", ErrBadDelegate, c.ConsultedRole, to,
			strings.Join(m.agentsOf(c.ConsultedRole, c.Requester), ", "))
	}
	c.Events = append(c.Events, Event{Kind: EventDelegated, By: by, To: to, Body: body, At: now})
	c.Consulted = to
	c.Status = Pending
	m.arm(c, now)
	return c, nil
}

// agentsOf lists the agents with role, other than not.
func (m *Machine) agentsOf(role, not string) []string {
	var out []string
	for _, mb := range m.members {
		if mb.Role == role && mb.Name != not {
			out = append(out, mb.Name)
		}
	}
	return out
}

// Check is what Decide found for one mandatory rule.
type Check struct {
	Rule         Rule
	Consultation *Consultation // nil when no agent has the consulted role
	Created      bool          // opened by this decision
}

// Decide checks requester's decision on task against the mandatory rules.
// For each rule that applies and has no live consultation yet, one is
// opened (Created). The decision is final (ok) only when every applicable
// consultation is approved or resolved.
func (m *Machine) Decide(requester, decision, task, context string, now time.Time) (checks []Check, ok bool) {
	role := m.roleOf(requester)
	ok = true
	for _, r := range m.rules.Mandatory {
		if r.Requester != role || r.Decision != decision {
			continue
		}
		ch := Check{Rule: r, Consultation: m.live(requester, r, task)}
		if ch.Consultation == nil {
			if consulted := m.agentOf(r.Consulted, requester); consulted != "" {
				ch.Consultation, _ = m.Consult(requester, consulted, decision, task, context, "", true, now)
				ch.Created = true
			}
		}
		if ch.Consultation == nil || !ch.Consultation.Satisfied() {
			ok = false
		}
		checks = append(checks, ch)
	}
	return checks, ok
}

// live is the newest consultation for rule r by requester on task that
// was not superseded.
func (m *Machine) live(requester string, r Rule, task string) *Consultation {
	var best *Consultation
	for _, c := range m.byID {
		if c.Requester == requester && c.ConsultedRole == r.Consulted && c.Decision == r.Decision && c.Task == task && c.Status != Superseded {
			if best == nil || c.Created.After(best.Created) || c.Created.Equal(best.Created) && c.ID > best.ID {
				best = c
			}
		}
	}
	return best
}

// Get returns consultation id.
func (m *Machine) Get(id string) (*Consultation, bool) {
	c, ok := m.byID[id]
	return c, ok
}

// All lists every consultation, newest first.
func (m *Machine) All() []Consultation {
	out := make([]Consultation, 0, len(m.byID))
	for _, c := range m.byID {
		out = append(out, *c)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.After(out[j].Created) || out[i].Created.Equal(out[j].Created) && out[i].ID > out[j].ID
	})
	return out
}

// ForQuery lists the consultations opened for the query file at path,
// oldest first.
func (m *Machine) ForQuery(path string) []Consultation {
	var out []Consultation
	for _, c := range m.byID {
		if c.Query == path {
			out = append(out, *c)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Created.Before(out[j].Created) || out[i].Created.Equal(out[j].Created) && idLess(out[i].ID, out[j].ID)
	})
	return out
}

// Lineage lists id and the consultations it superseded, newest first.
func (m *Machine) Lineage(id string) []Consultation {
	var out []Consultation
	for c := m.byID[id]; c != nil; c = m.byID[c.Supersedes] {
		out = append(out, *c)
		if c.Supersedes == "" {
			break
		}
	}
	return out
}
