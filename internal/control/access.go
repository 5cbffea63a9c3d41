package control

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/trust"
)

// access says who may send a request.
type access int

const (
	// humanOnly: the human's operations (answers, approvals, verdicts,
	// escalations, sends as the human): refused to every process of an
	// agent. Any command not listed below is one.
	humanOnly access = iota
	// anyone: reading the console's state.
	anyone
	// agentDoor: an agent's own doors, which speak for the agent the
	// kernel names and for no other: ask (the human may ask too),
	// permission and hook-state (agents only).
	agentDoor
)

// accessOf lists every command that is not humanOnly.
var accessOf = map[string]access{
	"agents": anyone, "inbox": anyone, "questions": anyone, "consults": anyone, "consult-query": anyone,
	"permissions": anyone, "tasks": anyone, "audit": anyone, "watch": anyone, "whoami": anyone,
	"ask": agentDoor, "permission": agentDoor, "hook-state": agentDoor, "route": agentDoor,
}

// admit checks req against who sent it; a refusal is recorded and shown
// to the human before the error goes back.
func (s *Server) admit(req Request, who trust.Caller) error {
	switch accessOf[req.Cmd] {
	case anyone:
		return nil
	case agentDoor:
		if who.Contained && who.Agent == "" {
			// A process that left its agent behind cannot speak for
			// any agent, nor for the human.
			s.refuse(req, who, "it belongs to an agent the console can no longer tell")
			return fmt.Errorf("refused: %s: this process is an agent's (%s), but which agent can no longer be told; run it from the agent's own session", req.Cmd, who)
		}
		if !who.Contained && req.Cmd == "route" {
			return fmt.Errorf("route: only an agent's teamlead tool sends as that agent (this process is not an agent's: %s); you type into an agent with teamlead send", who.Why)
		}
		if !who.Contained && req.Cmd != "ask" {
			return fmt.Errorf("%s: only an agent's hook does this (this process is not an agent's: %s)", req.Cmd, who.Why)
		}
		return nil
	}
	if who.Human() {
		return nil
	}
	op := describe(req)
	s.refuse(req, who, "only the human may "+op)
	return fmt.Errorf("refused: only the human may %s, and this process is not the human's: %s. "+
		"Agents speak to the team and to the human through [ROUTE] envelopes (or teamlead ask); the human answers in the console or from their own terminal",
		op, who)
}

// refuse records the refusal with the process's details.
func (s *Server) refuse(req Request, who trust.Caller, what string) {
	f := map[string]string{"cmd": req.Cmd, "pid": strconv.Itoa(who.Pid), "why": who.Why, "ancestry": who.ChainString()}
	if len(who.Chain) > 0 {
		f["cmdline"] = who.Chain[0].Cmdline
	}
	if req.ID != "" {
		f["id"] = req.ID
	}
	if req.Agent != "" {
		f["to"] = req.Agent
	}
	if req.Text != "" {
		f["text"] = cut(req.Text, 200)
	}
	s.console.Impersonation(who.Agent, what, who.Why, f)
}

// describe says in words what req asks for.
func describe(req Request) string {
	switch req.Cmd {
	case "send":
		return "send text as the human to " + req.Agent
	case "answer":
		// The first word is the agent's to choose (yes, ok, anything): it
		// is quoted after the operation, never read as one.
		w := strings.Fields(req.Text)
		switch {
		case len(w) > 0 && strings.HasPrefix(req.ID, "c-"):
			return "give the verdict " + strconv.Quote(w[0]) + " on " + req.ID
		case len(w) > 0:
			return "answer " + req.ID + " with " + strconv.Quote(w[0])
		}
		return "answer " + req.ID
	case "escalate", "reassign", "acknowledge":
		return req.Cmd + " " + req.ID
	case "protect":
		return "change what the agents' sandboxes protect"
	case "merged":
		return "record a merge of " + req.Agent + "'s branch as the human's"
	case "always-plan":
		return "see what approving " + req.ID + " always would write"
	}
	return "run " + strconv.Quote(req.Cmd)
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// mayRead is the one rule of what the human wrote for agents (a send, an
// answer, a deny message or approve note, a verdict): the human reads it,
// and of the agents only those it was written for (audience), never
// another agent's process, nor one the console cannot name. The human
// types secrets into agents; red team 10a (finding 5) read one typed into
// qa from dev through the audit, red team 18b (finding 2) b's answer and
// a's deny message from the other agent.
func mayRead(who trust.Caller, audience []string) bool {
	return who.Human() || who.Agent != "" && contains(audience, who.Agent)
}

// withheldNote says whose words were left out, and who reads them.
func withheldNote(audience []string) string {
	to := strings.Join(audience, ", ")
	if to == "" {
		to = "an agent"
	}
	return "what the human wrote to " + to + " is shown to the human and to " + to + " only"
}

// withheldText stands in the place of a text field left out.
func withheldText(audience []string) string { return "[withheld: " + withheldNote(audience) + "]" }

// recordAudience names the agents record r's text was written for, and
// whether it is such a text: the human's sends and answers (From human),
// a question's answer (for its asker, and the agent that answered it), a
// question dropped with the human's reason (for its asker), a permission
// request the human decided (the note is for the requester), and an inbox
// item that carries back a send or an answer its agent could not be given,
// and the text typed into an agent whose submit key was pressed again.
func recordAudience(r store.Record) ([]string, bool) {
	var aud []string
	add := func(names ...string) {
		for _, n := range names {
			if n != "" && n != "human" && !contains(aud, n) {
				aud = append(aud, n)
			}
		}
	}
	switch {
	case r.From == "human":
		add(r.Agent)
		add(r.To...)
	case r.Kind == "question-answer", r.Kind == "question-dropped":
		by := r.Fields["answered_by"] // "" in records written before it was kept
		if by == "" {
			by = r.Fields["answerer"]
		}
		add(r.Agent, agentOf(by))
	case r.Kind == "permission" && r.Fields["decided_by"] == "human",
		r.Type == "undelivered" && (r.Fields["delivery"] == "human" || r.Fields["delivery"] == "answer"),
		// the text still in an agent's input box: the human's words to it
		// as often as not (red team 21b, finding 2)
		r.Kind == "resubmit", r.Kind == "submit-stuck":
		add(r.Agent)
	default:
		return nil, false
	}
	return aud, true
}

// agentOf is the agent's name in answerer (agent/<name>), or "".
func agentOf(answerer string) string {
	if kind, name, ok := strings.Cut(answerer, "/"); ok && kind == "agent" {
		return name
	}
	return ""
}

// shownTo returns r as the caller may read it (mayRead): a record whose
// text was written for other agents comes without it, marked withheld in
// its body (what every view of the audit shows) and its fields.
func shownTo(who trust.Caller, r store.Record) store.Record {
	aud, private := recordAudience(r)
	if !private || mayRead(who, aud) || r.Body == "" && r.Reason == "" {
		return r
	}
	f := map[string]string{}
	for k, v := range r.Fields {
		f[k] = v
	}
	r.Body, r.Reason = withheldText(aud), ""
	f["withheld"] = withheldNote(aud)
	r.Fields = f
	return r
}

// inboxShownTo returns it as the caller may read it: an item is read as
// the record it came from (shownTo).
func inboxShownTo(who trust.Caller, it lead.InboxItem) lead.InboxItem {
	r := shownTo(who, store.Record{Kind: "inbox", Agent: it.From, From: it.From, Type: it.Type, Body: it.Body, Fields: it.Extra})
	it.Body, it.Extra = r.Body, r.Fields
	return it
}

// questionShownTo returns q as the caller may read it: its answer is for
// the asker, and for the agent that answered it.
func questionShownTo(who trust.Caller, q questions.Question) questions.Question {
	aud := []string{q.Asker}
	if a := agentOf(q.AnsweredBy); a != "" {
		aud = append(aud, a)
	}
	if q.Answer != "" && !mayRead(who, aud) {
		q.Answer = withheldText(aud)
	}
	return q
}

// permissionShownTo returns p as the caller may read it: the human's note
// (a deny message, an approve note) is for the requesting agent.
func permissionShownTo(who trust.Caller, p approvals.Request) approvals.Request {
	aud := []string{p.Agent}
	if p.Note != "" && p.DecidedBy == "human" && !mayRead(who, aud) {
		p.Note = withheldText(aud)
	}
	return p
}

// consultShownTo returns c as the caller may read it: the human's verdict
// texts are for the agents party to it.
func consultShownTo(who trust.Caller, c consult.Consultation) consult.Consultation {
	aud := []string{c.Requester, c.Consulted}
	if mayRead(who, aud) {
		return c
	}
	vs := make([]consult.Verdict, len(c.Verdicts))
	for i, v := range c.Verdicts {
		if v.By == consult.Human && v.Body != "" {
			v.Body = withheldText(aud)
		}
		vs[i] = v
	}
	c.Verdicts = vs
	return c
}
