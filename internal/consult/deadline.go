package consult

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Escalation is what Tick did with one consultation whose deadline passed.
type Escalation struct {
	Consultation *Consultation
	// To is the agent now asked, or Human; "" when the chain is exhausted
	// and the consultation waits for its consulted agent or the human.
	To string
	// Why says what happened, for the requester and the audit log.
	Why string
}

// policy returns the timeout and escalation chain for c: its mandatory
// rule's, else the defaults.
func (m *Machine) policy(c *Consultation) (time.Duration, []string) {
	timeout, chain := m.rules.Defaults.Timeout, m.rules.Defaults.EscalateTo
	if c.Mandatory {
		for _, r := range m.rules.Mandatory {
			if r.Requester == c.RequesterRole && r.Consulted == c.ConsultedRole && r.Decision == c.Decision {
				if r.Timeout > 0 {
					timeout = r.Timeout
				}
				if len(r.EscalateTo) > 0 {
					chain = r.EscalateTo
				}
				break
			}
		}
	}
	return timeout, chain
}

// arm sets c's deadline from now.
func (m *Machine) arm(c *Consultation, now time.Time) {
	c.Deadline = time.Time{}
	if t, _ := m.policy(c); t > 0 {
		c.Deadline = now.Add(t)
	}
}

// NextDeadline is when Tick next has work.
func (m *Machine) NextDeadline() (time.Time, bool) {
	var at time.Time
	for _, c := range m.byID {
		if c.Open() && !c.Deadline.IsZero() && (at.IsZero() || c.Deadline.Before(at)) {
			at = c.Deadline
		}
	}
	return at, !at.IsZero()
}

// Tick escalates every open consultation whose deadline passed, walking
// its chain: another agent of a role, a named agent, or the human. The
// decision stays blocked meanwhile; a consultation escalated to the human,
// or with its chain used up, has no deadline left, so nothing re-fires.
func (m *Machine) Tick(now time.Time) []Escalation {
	var due []*Consultation
	for _, c := range m.byID {
		if c.Open() && !c.Deadline.IsZero() && !now.Before(c.Deadline) {
			due = append(due, c)
		}
	}
	sort.Slice(due, func(i, j int) bool { return idLess(due[i].ID, due[j].ID) })
	out := make([]Escalation, 0, len(due))
	for _, c := range due {
		out = append(out, m.escalate(c, fmt.Sprintf("%s did not answer within its deadline", c.Consulted), now))
	}
	return out
}

// EscalateNow escalates id at once (the human's key or teamlead escalate).
func (m *Machine) EscalateNow(id string, now time.Time) (Escalation, error) {
	c := m.byID[id]
	if c == nil {
		return Escalation{}, fmt.Errorf("%w: %s", ErrNoConsultation, id)
	}
	if !c.Open() {
		return Escalation{}, fmt.Errorf("%w: %s is %s", ErrClosed, id, c.Status)
	}
	return m.escalate(c, "the human asked for it", now), nil
}

func (m *Machine) escalate(c *Consultation, why string, now time.Time) Escalation {
	_, chain := m.policy(c)
	c.Status = Escalated
	c.Deadline = time.Time{}
	for c.Escalations < len(chain) {
		step := strings.TrimSpace(chain[c.Escalations])
		c.Escalations++
		to := m.escalationTarget(c, step)
		if to == "" {
			continue // nobody fits this step: try the next
		}
		c.Events = append(c.Events, Event{Kind: EventEscalated, By: "team-lead", To: to, Body: why, At: now})
		if to != Human {
			c.Consulted = to
			m.arm(c, now)
		}
		return Escalation{Consultation: c, To: to, Why: fmt.Sprintf("%s; escalated to %s", why, to)}
	}
	c.Events = append(c.Events, Event{Kind: EventEscalated, By: "team-lead", Body: why + "; no escalation left", At: now})
	return Escalation{Consultation: c, Why: fmt.Sprintf("%s; no escalation left: %s or the human must answer", why, c.Consulted)}
}

// escalationTarget resolves one step of a chain for c ("" when nobody fits).
func (m *Machine) escalationTarget(c *Consultation, step string) string {
	switch {
	case step == Human:
		return Human
	case strings.HasPrefix(step, "role:"):
		role := strings.TrimPrefix(step, "role:")
		for _, a := range m.agentsOf(role, c.Requester) {
			if a != c.Consulted {
				return a
			}
		}
	case strings.HasPrefix(step, "agent:"):
		if a := strings.TrimPrefix(step, "agent:"); a != c.Requester && a != c.Consulted && m.roleOf(a) != "" {
			return a
		}
	}
	return ""
}

// idLess orders c-<n> ids by number.
func idLess(a, b string) bool {
	var x, y int
	fmt.Sscanf(a, "c-%d", &x)
	fmt.Sscanf(b, "c-%d", &y)
	return x < y
}
