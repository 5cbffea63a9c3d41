package control

import (
	"fmt"
	"strconv"
	"strings"

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

// shownTo returns r as the caller may read it: what the human wrote to one
// agent (a send, an answer, a decision's note) is shown to the human and
// to that agent, and to no other agent's process, which gets the record
// without its text. The human types secrets into agents; red team 10a
// (finding 5) read one typed into qa from dev through the audit.
func shownTo(who trust.Caller, r store.Record) store.Record {
	if who.Human() || r.From != "human" || who.Agent != "" && (r.Agent == who.Agent || contains(r.To, who.Agent)) {
		return r
	}
	to := r.Agent
	if to == "" {
		to = strings.Join(r.To, ", ")
	}
	if to == "" {
		to = "an agent"
	}
	r.Body, r.Reason = "", ""
	r.Fields = map[string]string{"withheld": "what the human wrote to " + to + " is shown to the human and to " + to + " only"}
	return r
}
