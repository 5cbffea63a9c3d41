package lead

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/store"
)

// Record kinds of consultations (seed 002).
const (
	KindConsult         = "consult"          // a consultation opened or answered
	KindDecisionBlocked = "decision-blocked" // a decision held by its consultations
	KindDecisionFinal   = "decision-final"   // a decision that passed its rules
)

// consultation handles type consult, verdict and decision envelopes, and a
// developer's handoff (the decision code-complete). It reports whether the
// envelope is done with (true) or should be relayed as usual (false).
func (l *Lead) consultation(out *Output, sender string, env *protocol.Envelope, now time.Time) bool {
	if l.consults == nil {
		return false
	}
	task := env.Get("task")
	switch env.Get("type") {
	case protocol.TypeConsult:
		l.openConsult(out, sender, env, now)
		return true
	case protocol.TypeVerdict:
		l.verdict(out, sender, env, now)
		return true
	case protocol.TypeDecision:
		return !l.decide(out, sender, strings.TrimSpace(env.Get("decision")), task, env.Body, now)
	case protocol.TypeHandoff:
		if l.members[sender] != nil && l.members[sender].Role == "developer" {
			return !l.decide(out, sender, "code-complete", task, env.Body, now)
		}
	}
	return false
}

func (l *Lead) openConsult(out *Output, sender string, env *protocol.Envelope, now time.Time) {
	task := env.Get("task")
	targets, unknown := l.resolve(sender, env.Recipients())
	if len(unknown) > 0 || len(targets) != 1 || targets[0] == protocol.TeamLead {
		l.notice(out, sender, task, "not consulted: address one agent (or role:<role>) in to:", now)
		return
	}
	c, err := l.consults.Consult(sender, targets[0], env.Get("decision"), task, env.Body, env.Get("supersedes"), false, now)
	if err != nil {
		l.notice(out, sender, task, "not consulted: "+err.Error(), now)
		return
	}
	l.sendConsult(out, c, now)
	l.ack(out, sender, task, c.ID, fmt.Sprintf("consultation %s opened with %s", c.ID, c.Consulted), now)
}

// sendConsult records c and asks the consulted agent for its verdict.
func (l *Lead) sendConsult(out *Output, c *consult.Consultation, now time.Time) {
	l.recordConsult(out, c, now)
	env := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: c.Requester}, {Key: "to", Value: c.Consulted}, {Key: "type", Value: protocol.TypeConsult},
		{Key: "task", Value: orDash(c.Task)}, {Key: "consult", Value: c.ID}, {Key: "decision", Value: c.Decision}},
		Body: c.Body}
	if c.Mandatory {
		env.Set("mandatory", "yes")
	}
	if c.Supersedes != "" {
		env.Set("supersedes", c.Supersedes)
	}
	l.deliver(out, c.Consulted, DeliverRelay, c.ID, &env, now)
}

// MetaConsult is the store meta key prefix of consultations.
const MetaConsult = "c/"

func (l *Lead) recordConsult(out *Output, c *consult.Consultation, now time.Time) {
	if out.Meta == nil {
		out.Meta = map[string]string{}
	}
	b, _ := json.Marshal(c)
	out.Meta[MetaConsult+c.ID] = string(b)
	if c.Supersedes != "" {
		if old, ok := l.consults.Get(c.Supersedes); ok {
			ob, _ := json.Marshal(old)
			out.Meta[MetaConsult+old.ID] = string(ob)
		}
	}
	out.record(store.Record{Time: now, Kind: KindConsult, Subject: "consult." + c.ID, Agent: c.Requester, From: c.Requester,
		To: []string{c.Consulted}, Type: protocol.TypeConsult, Task: c.Task, MsgID: c.ID, Body: c.Body,
		Fields: map[string]string{"decision": c.Decision, "status": string(c.Status), "consulted": c.Consulted,
			"consulted_role": c.ConsultedRole, "supersedes": c.Supersedes, "mandatory": fmt.Sprint(c.Mandatory)}})
}

func (l *Lead) verdict(out *Output, sender string, env *protocol.Envelope, now time.Time) {
	task, id := env.Get("task"), strings.TrimSpace(env.Get("consult"))
	c, err := l.consults.Verdict(id, sender, consult.Status(strings.ToLower(strings.TrimSpace(env.Get("verdict")))), env.Body, now)
	if err != nil {
		l.notice(out, sender, task, "verdict not taken: "+err.Error(), now)
		return
	}
	l.recordConsult(out, c, now)
	v := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: sender}, {Key: "to", Value: c.Requester}, {Key: "type", Value: protocol.TypeVerdict},
		{Key: "task", Value: orDash(c.Task)}, {Key: "consult", Value: c.ID}, {Key: "verdict", Value: string(c.Status)}}, Body: env.Body}
	l.deliver(out, c.Requester, DeliverRelay, c.ID, &v, now)
	l.ack(out, sender, task, c.ID, fmt.Sprintf("verdict %s on %s taken", c.Status, c.ID), now)
}

// decide checks a decision against the mandatory rules, opening the
// consultations it needs; it reports whether the decision is final.
func (l *Lead) decide(out *Output, sender, decision, task, context string, now time.Time) bool {
	checks, ok := l.consults.Decide(sender, decision, task, context, now)
	if len(checks) == 0 {
		return true // no rule applies
	}
	var holds []string
	for _, ch := range checks {
		c := ch.Consultation
		switch {
		case c == nil:
			holds = append(holds, fmt.Sprintf("no agent has role %s to consult", ch.Rule.Consulted))
		case ch.Created:
			l.sendConsult(out, c, now)
			holds = append(holds, fmt.Sprintf("%s (%s, %s): pending, just asked", c.ID, c.Consulted, c.ConsultedRole))
		case c.Status != consult.Approved && c.Status != consult.Resolved:
			holds = append(holds, fmt.Sprintf("%s (%s, %s): %s", c.ID, c.Consulted, c.ConsultedRole, c.Status))
		}
	}
	rec := store.Record{Time: now, Subject: "decision." + sender, Agent: sender, From: sender, Type: protocol.TypeDecision,
		Task: task, Body: context, Fields: map[string]string{"decision": decision}}
	if !ok {
		rec.Kind, rec.Reason = KindDecisionBlocked, strings.Join(holds, "; ")
		out.record(rec)
		l.notice(out, sender, task, fmt.Sprintf("decision %s on %s is blocked by its mandatory consultations: %s.", decision, orDash(task), strings.Join(holds, "; ")), now)
		return false
	}
	rec.Kind = KindDecisionFinal
	out.record(rec)
	return true
}

// Acknowledge is the human accepting the concerns raised on consultation id.
func (l *Lead) Acknowledge(id string, now time.Time) (Output, error) {
	var out Output
	c, err := l.consults.Acknowledge(id, now)
	if err != nil {
		return out, err
	}
	l.recordConsult(&out, c, now)
	l.notice(&out, c.Requester, c.Task, fmt.Sprintf("the concerns on %s were acknowledged by the human; it no longer holds %s", c.ID, c.Decision), now)
	return out, nil
}
