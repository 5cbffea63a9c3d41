package lead

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/protocol"
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
		if id := strings.TrimSpace(env.Get("consult")); id != "" {
			l.delegateConsult(out, sender, id, env, now)
		} else {
			l.openConsult(out, sender, env, now)
		}
		return true
	case protocol.TypeStatus:
		if id := strings.TrimSpace(env.Get("consult")); id != "" {
			if c, ok := l.consults.Get(id); ok && c.Requester == sender {
				l.addressConsult(out, sender, id, env, now)
				return true
			}
		}
	case protocol.TypeVerdict:
		l.verdict(out, sender, env, now)
		return true
	case protocol.TypeAnswer:
		if id := strings.TrimSpace(env.Get("consult")); id != "" {
			c, err := l.consults.Answer(id, sender, env.Body, now)
			if err != nil {
				l.notice(out, sender, task, "answer not taken: "+err.Error(), now)
				return true
			}
			l.answerQuery(out, sender, c, env, now)
			l.ack(out, sender, task, c.ID, fmt.Sprintf("answer to %s taken and sent to %s", c.ID, c.Requester), now)
			return true
		}
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
	c.Priority = strings.ToLower(strings.TrimSpace(env.Get("priority")))
	l.sendConsult(out, c, now)
	l.ack(out, sender, task, c.ID, fmt.Sprintf("consultation %s opened with %s", c.ID, c.Consulted), now)
	l.checkCycle(out, c, now)
}

// checkCycle reports a circle of agents waiting on each other's verdicts
// that c closed: to everyone in it and to the human, who can break it.
func (l *Lead) checkCycle(out *Output, c *consult.Consultation, now time.Time) {
	circle := l.consults.Cycle(c, now)
	if circle == nil {
		return
	}
	l.recordConsult(out, c, now)
	path := strings.Join(circle, " → ")
	body := fmt.Sprintf("circular consultation: %s each wait for the next one's verdict (closed by %s). A verdict from any of them, or from the human, breaks the circle.", path, c.ID)
	l.toInbox(out, wire.Record{Time: now, Agent: c.Requester, From: protocol.TeamLead, Type: protocol.TypeConsult, Task: c.Task,
		MsgID: c.ID, Body: body, Fields: map[string]string{"consult": c.ID, "cycle": path}})
	seen := map[string]bool{}
	for _, a := range circle {
		if !seen[a] && l.members[a] != nil {
			seen[a] = true
			l.notice(out, a, c.Task, body, now)
		}
	}
}

// addressConsult takes the requester's answer to the concerns raised on id
// and asks the consulted agent for a new verdict.
func (l *Lead) addressConsult(out *Output, sender, id string, env *protocol.Envelope, now time.Time) {
	c, err := l.consults.Address(id, sender, env.Body, now)
	if err != nil {
		l.notice(out, sender, env.Get("task"), "not taken: "+err.Error(), now)
		return
	}
	l.recordConsult(out, c, now)
	fwd := l.consultEnvelope(c, protocol.TypeConsult, env.Body)
	fwd.Set("addressed", "yes")
	l.deliver(out, c.Consulted, DeliverRelay, c.ID, &fwd, now)
	l.ack(out, sender, c.Task, c.ID, fmt.Sprintf("your answer to the concerns on %s went to %s for a new verdict", c.ID, c.Consulted), now)
}

// delegateConsult hands id from the consulted agent to the agent named in to:.
func (l *Lead) delegateConsult(out *Output, sender, id string, env *protocol.Envelope, now time.Time) {
	targets, _ := l.resolve(sender, env.Recipients())
	to := ""
	if len(targets) == 1 {
		to = targets[0]
	}
	c, err := l.consults.Delegate(id, sender, to, env.Body, now)
	if err != nil {
		l.notice(out, sender, env.Get("task"), "not delegated: "+err.Error(), now)
		return
	}
	l.afterDelegation(out, c, sender, env.Body, now)
	l.ack(out, sender, c.Task, c.ID, fmt.Sprintf("%s delegated to %s", c.ID, c.Consulted), now)
}

// afterDelegation records c's new consulted agent, asks it, and tells the requester.
func (l *Lead) afterDelegation(out *Output, c *consult.Consultation, by, why string, now time.Time) {
	l.recordConsult(out, c, now)
	l.askConsulted(out, c, now)
	l.notice(out, c.Requester, c.Task, fmt.Sprintf("%s was delegated by %s to %s (%s): %s", c.ID, by, c.Consulted, c.ConsultedRole, orDash(why)), now)
}

// askConsulted sends c's request to its (new) consulted agent.
func (l *Lead) askConsulted(out *Output, c *consult.Consultation, now time.Time) {
	env := l.consultEnvelope(c, protocol.TypeConsult, c.Body)
	l.deliver(out, c.Consulted, DeliverRelay, c.ID, &env, now)
}

// consultEnvelope is an envelope about c from its requester to its consulted agent.
func (l *Lead) consultEnvelope(c *consult.Consultation, typ, body string) protocol.Envelope {
	env := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: c.Requester}, {Key: "to", Value: c.Consulted}, {Key: "type", Value: typ},
		{Key: "task", Value: orDash(c.Task)}, {Key: "consult", Value: c.ID}, {Key: "decision", Value: c.Decision}},
		Body: body}
	if c.Mandatory {
		env.Set("mandatory", "yes")
	}
	if c.Supersedes != "" {
		env.Set("supersedes", c.Supersedes)
	}
	if c.Priority != "" {
		env.Set("priority", c.Priority)
	}
	if c.Query != "" {
		env.Set("query", filepath.Base(c.Query))
	}
	return env
}

// sendConsult records c and asks the consulted agent for its verdict.
func (l *Lead) sendConsult(out *Output, c *consult.Consultation, now time.Time) {
	l.recordConsult(out, c, now)
	l.askConsulted(out, c, now)
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
	out.record(wire.Record{Time: now, Kind: wire.KindConsult, Subject: "consult." + c.ID, Agent: c.Requester, From: c.Requester,
		To: []string{c.Consulted}, Type: protocol.TypeConsult, Task: c.Task, MsgID: c.ID, Body: c.Body,
		Fields: map[string]string{"decision": c.Decision, "status": string(c.Status), "consulted": c.Consulted,
			"consulted_role": c.ConsultedRole, "supersedes": c.Supersedes, "mandatory": fmt.Sprint(c.Mandatory)}})
}

func (l *Lead) verdict(out *Output, sender string, env *protocol.Envelope, now time.Time) {
	task, id := env.Get("task"), strings.TrimSpace(env.Get("consult"))
	if id == "" {
		l.notice(out, sender, task, "verdict not taken: the block has no `consult:` header; name the consultation it answers (consult: c-<n>)", now)
		out.record(wire.Record{Time: now, Kind: wire.KindRefusal, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
			Type: protocol.TypeVerdict, Task: task, Body: env.Body, Reason: "verdict without a consult: header"})
		return
	}
	c, err := l.consults.Verdict(id, sender, consult.Status(strings.ToLower(strings.TrimSpace(env.Get("verdict")))), env.Body, now)
	if err != nil {
		l.notice(out, sender, task, "verdict not taken: "+err.Error(), now)
		// The refusal is audited with who tried what, and why.
		out.record(wire.Record{Time: now, Kind: wire.KindRefusal, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
			Type: protocol.TypeVerdict, Task: task, MsgID: id, Body: env.Body,
			Reason: fmt.Sprintf("verdict %q by %s on %s not taken: %v", env.Get("verdict"), sender, id, err)})
		return
	}
	l.tellVerdict(out, c, sender, env.Body, now)
	l.ack(out, sender, task, c.ID, fmt.Sprintf("verdict %s on %s taken", c.Status, c.ID), now)
}

// tellVerdict records c's new verdict by by, sends it to the requester, and
// takes the consultation off the human's queue if it was there.
func (l *Lead) tellVerdict(out *Output, c *consult.Consultation, by, body string, now time.Time) {
	l.recordConsult(out, c, now)
	v := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: by}, {Key: "to", Value: c.Requester}, {Key: "type", Value: protocol.TypeVerdict},
		{Key: "task", Value: orDash(c.Task)}, {Key: "consult", Value: c.ID}, {Key: "verdict", Value: string(c.Status)}}, Body: body}
	if by == consult.Human {
		v.Set("from", protocol.TeamLead)
		v.Set("verdict-by", consult.Human)
	}
	l.deliver(out, c.Requester, DeliverRelay, c.ID, &v, now)
	l.closeItem(out, c.ID, by, string(c.Status), now)
}

// closeItem takes id off the human's queue, if it is there.
func (l *Lead) closeItem(out *Output, id, by, what string, now time.Time) {
	it, ok := l.inbox[id]
	if !ok {
		return
	}
	delete(l.inbox, id)
	out.record(wire.Record{Time: now, Kind: wire.KindAnswered, Subject: "human.answer." + it.From, Agent: it.From, From: by,
		Type: it.Type, Task: it.Task, MsgID: id, Body: what})
}

// HumanAnswer is the human's answer to a query-born consultation id.
func (l *Lead) HumanAnswer(id, text string, now time.Time) (Output, error) {
	var out Output
	if l.consults == nil {
		return out, consult.ErrNoConsultation
	}
	c, err := l.consults.Answer(id, consult.Human, text, now)
	if err != nil {
		return out, err
	}
	env := protocol.Envelope{Body: text}
	l.answerQuery(&out, consult.Human, c, &env, now)
	return out, nil
}

// IsQuery reports whether consultation id came from a query file.
func (l *Lead) IsQuery(id string) bool {
	if l.consults == nil {
		return false
	}
	c, ok := l.consults.Get(id)
	return ok && c.Query != ""
}

// HumanVerdict is the human's verdict on consultation id (approved,
// concerns-raised or rejected), counted as the consulted agent's would be.
func (l *Lead) HumanVerdict(id string, v consult.Status, body string, now time.Time) (Output, error) {
	var out Output
	if l.consults == nil {
		return out, consult.ErrNoConsultation
	}
	c, err := l.consults.Verdict(id, consult.Human, v, body, now)
	if err != nil {
		return out, err
	}
	l.tellVerdict(&out, c, consult.Human, body, now)
	if c.Status != consult.Pending && l.members[c.Consulted] != nil {
		l.notice(&out, c.Consulted, c.Task, fmt.Sprintf("the human gave the verdict %s on %s; you need not answer it", c.Status, c.ID), now)
	}
	return out, nil
}

// EscalateConsult escalates consultation id now (the human's request).
func (l *Lead) EscalateConsult(id string, now time.Time) (Output, error) {
	var out Output
	if l.consults == nil {
		return out, consult.ErrNoConsultation
	}
	e, err := l.consults.EscalateNow(id, now)
	if err != nil {
		return out, err
	}
	l.escalated(&out, e, now)
	return out, nil
}

// ReassignConsult gives consultation id to another agent of its role.
func (l *Lead) ReassignConsult(id, to string, now time.Time) (Output, error) {
	var out Output
	if l.consults == nil {
		return out, consult.ErrNoConsultation
	}
	c, err := l.consults.Delegate(id, consult.Human, to, "reassigned by the human", now)
	if err != nil {
		return out, err
	}
	l.afterDelegation(&out, c, consult.Human, "reassigned by the human", now)
	return out, nil
}

// tickConsults escalates the consultations whose deadline passed.
func (l *Lead) tickConsults(out *Output, now time.Time) {
	if l.consults == nil {
		return
	}
	for _, e := range l.consults.Tick(now) {
		l.escalated(out, e, now)
	}
}

// escalated carries out one escalation: the next agent is asked or the
// human's queue gets the consultation; the requester is told either way;
// the decision stays blocked.
func (l *Lead) escalated(out *Output, e consult.Escalation, now time.Time) {
	c := e.Consultation
	l.recordConsult(out, c, now)
	switch e.To {
	case "":
	case consult.Human:
		l.toInbox(out, wire.Record{Time: now, Agent: c.Requester, From: c.Requester, Type: protocol.TypeConsult, Task: c.Task, MsgID: c.ID,
			Body: fmt.Sprintf("%s asks %s (%s) to approve the %s decision: %s — %s. Give the verdict: approve, concerns or reject, then your reasons.",
				c.Requester, c.Consulted, c.ConsultedRole, c.Decision, c.Body, e.Why),
			Fields: map[string]string{"consult": c.ID, "decision": c.Decision, "consulted": c.Consulted}})
	default:
		l.askConsulted(out, c, now)
	}
	l.notice(out, c.Requester, c.Task, fmt.Sprintf("%s escalated: %s. The %s decision stays blocked until it is approved.", c.ID, e.Why, orDash(c.Decision)), now)
}

// nextConsultDeadline is when a consultation next escalates.
func (l *Lead) nextConsultDeadline() (time.Time, bool) {
	if l.consults == nil {
		return time.Time{}, false
	}
	return l.consults.NextDeadline()
}

// Consultations lists every consultation, newest first.
func (l *Lead) Consultations() []consult.Consultation {
	if l.consults == nil {
		return nil
	}
	return l.consults.All()
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
			l.checkCycle(out, c, now)
			holds = append(holds, fmt.Sprintf("%s (%s, %s): pending, just asked", c.ID, c.Consulted, c.ConsultedRole))
		case c.Status != consult.Approved && c.Status != consult.Resolved:
			holds = append(holds, fmt.Sprintf("%s (%s, %s): %s", c.ID, c.Consulted, c.ConsultedRole, c.Status))
		}
	}
	rec := wire.Record{Time: now, Subject: "decision." + sender, Agent: sender, From: sender, Type: protocol.TypeDecision,
		Task: task, Body: context, Fields: map[string]string{"decision": decision}}
	if !ok {
		rec.Kind, rec.Reason = wire.KindDecisionBlocked, strings.Join(holds, "; ")
		out.record(rec)
		l.notice(out, sender, task, fmt.Sprintf("decision %s on %s is blocked by its mandatory consultations: %s.", decision, orDash(task), strings.Join(holds, "; ")), now)
		return false
	}
	rec.Kind = wire.KindDecisionFinal
	var ids []string
	for _, ch := range checks {
		ids = append(ids, ch.Consultation.ID)
	}
	rec.Fields["consults"] = strings.Join(ids, ",")
	out.record(rec)
	l.tellFinal(out, sender, decision, task, checks, now)
	return true
}

// tellFinal tells the deciding agent that its decision passed: that it is
// final, which consultations satisfied it, and every condition and
// recommendation their verdicts carried (seed 002, user stories 2 and 3),
// so that it may go on and knows on what terms.
func (l *Lead) tellFinal(out *Output, sender, decision, task string, checks []consult.Check, now time.Time) {
	var by, ids, terms []string
	for _, ch := range checks {
		c := ch.Consultation
		ids = append(ids, c.ID)
		by = append(by, fmt.Sprintf("%s (%s, %s: %s)", c.ID, c.Consulted, c.ConsultedRole, c.Status))
		for i := len(c.Verdicts) - 1; i >= 0; i-- {
			if v := c.Verdicts[i]; strings.TrimSpace(v.Body) != "" {
				terms = append(terms, fmt.Sprintf("- %s, %s by %s: %s", c.ID, v.Verdict, v.By, strings.TrimSpace(v.Body)))
				break
			}
		}
		for _, e := range c.Events {
			if e.Kind == consult.EventAddressed && strings.TrimSpace(e.Body) != "" {
				terms = append(terms, fmt.Sprintf("- %s, concerns addressed by %s: %s", c.ID, e.By, strings.TrimSpace(e.Body)))
			}
		}
	}
	body := fmt.Sprintf("decision %s on %s is final: its mandatory consultations are satisfied by %s. You may go on.", decision, orDash(task), strings.Join(by, "; "))
	if len(terms) > 0 {
		body += "\nConditions and recommendations attached to them (keep to them):\n" + strings.Join(terms, "\n")
	} else {
		body += " No conditions or recommendations were attached."
	}
	n := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: sender},
		{Key: "type", Value: protocol.TypeStatus}, {Key: "task", Value: orDash(task)},
		{Key: "decision", Value: decision}, {Key: "decision-status", Value: "final"}, {Key: "consults", Value: strings.Join(ids, ", ")}}, Body: body}
	l.deliver(out, sender, DeliverNotice, "", &n, now)
}

// Acknowledge is the human accepting the concerns raised on consultation id.
func (l *Lead) Acknowledge(id string, now time.Time) (Output, error) {
	var out Output
	c, err := l.consults.Acknowledge(id, now)
	if err != nil {
		return out, err
	}
	l.recordConsult(&out, c, now)
	l.closeItem(&out, c.ID, consult.Human, "concerns acknowledged", now)
	l.notice(&out, c.Requester, c.Task, fmt.Sprintf("the concerns on %s were acknowledged by the human; it no longer holds %s", c.ID, c.Decision), now)
	return out, nil
}
