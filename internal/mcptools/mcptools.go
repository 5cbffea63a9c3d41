// Package mcptools is teamlead's MCP server (PROTOCOL.md section 7): the
// tools an agent's CLI calls to speak the protocol without printing
// envelopes. Each tool is one message kind; its result is what the Team
// Lead answers (the acknowledgement with the message id, the question's
// id, or why it was refused), so no reply is typed into the agent as a
// prompt of its own. The sender is the agent whose process started the
// server, as the console asks the kernel: the server has no way to say
// otherwise.
package mcptools

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
)

// Team is the console, as the server reaches it (control.Client).
type Team interface {
	Route(headers map[string]string, body string) (answers []string, refused bool, err error)
	Ask(a questions.Ask) (questions.Question, error)
	Questions(status, id string) ([]questions.Question, error)
	Agents() ([]readmodel.AgentInfo, error)
	Audit(q store.Query, fn func(store.Record) error) error
	// Me names the agent the server's process belongs to, as the kernel
	// says; "" and why not when it is no agent's.
	Me() (agent, why string, err error)
}

// Name is the server's name: the tools show as mcp__teamlead__<tool>.
const Name = "teamlead"

// New returns the server. Which agent it serves is the console's to say,
// per call (Team.Route, Team.Me): nothing in its environment names it.
func New(team Team, version string) *server.MCPServer {
	s := server.NewMCPServer(Name, version, server.WithToolCapabilities(false),
		server.WithInstructions("The team's message bus. Send every message to a teammate, the Team Lead or the human with these tools "+
			"instead of printing [ROUTE] envelopes: each call returns the Team Lead's acknowledgement (the message id) or why it was refused."))
	t := tools{team: team}
	str := func(name, desc string, required bool) mcp.ToolOption {
		opts := []mcp.PropertyOption{mcp.Description(desc)}
		if required {
			opts = append(opts, mcp.Required())
		}
		return mcp.WithString(name, opts...)
	}
	to := str("to", "who: an agent's name, team-lead, human, role:<role>, or several separated by commas", true)
	task := str("task", "the task id it concerns (T-12), or - for none", true)
	body := str("body", "the message itself", true)

	s.AddTool(mcp.NewTool("send_message", mcp.WithDescription("Send a message to teammates, the Team Lead or the human (a status, question, blocker, answer...). Returns its id."),
		to, str("type", "status, question, blocker, answer, handoff, review, decision, consult or verdict (default status)", false), task, body,
		str("priority", "blocker, high, medium or low", false)), t.send)
	s.AddTool(mcp.NewTool("ask_question", mcp.WithDescription("Ask a question the team's routing gives to whoever answers its topic (an agent, a team, a person or a tool). Returns the question's id; the answer arrives as a message from team-lead (type answer), or use wait_seconds to wait for it here."),
		str("topic", "what it is about, e.g. architecture/database or security", true), str("question", "the question", true),
		str("context", "what the answerer needs to know", false), str("urgency", "blocking, high, normal or low (default normal)", false),
		str("task", "the task id it concerns", false),
		mcp.WithNumber("wait_seconds", mcp.Description("wait up to this long (at most 600) for the answer and return it"))), t.ask)
	s.AddTool(mcp.NewTool("request_consultation", mcp.WithDescription("Ask a role or agent to approve a decision before it is final (a mandatory consultation, seed 002). Returns the consultation's id (c-<n>); verdicts arrive as messages."),
		to, str("decision", "the decision type, e.g. infrastructure, design-impact, code-complete", true), task, body,
		str("supersedes", "the id of a rejected consultation this one replaces", false)), t.consult)
	s.AddTool(mcp.NewTool("give_verdict", mcp.WithDescription("Give your verdict on a consultation you were asked for."),
		str("consult", "the consultation's id, c-<n>", true), str("verdict", "approved, concerns or rejected", true), task, body), t.verdict)
	s.AddTool(mcp.NewTool("announce_decision", mcp.WithDescription("Make a decision final. The Team Lead holds it back while a mandatory consultation for it has no approval."),
		str("decision", "the decision type", true), task, body), t.decision)
	s.AddTool(mcp.NewTool("hand_off", mcp.WithDescription("Hand finished work to QA through the Team Lead; it is checked against the mandatory consultations first. In a git worktree the branch and commit are added for you."),
		task, body, str("to", "team-lead (default), or a QA agent's name", false)), t.handoff)
	s.AddTool(mcp.NewTool("file_review", mcp.WithDescription("Send your QA review of a handed-off task: commands run, steps, evidence, regression or env_blocker for each failed command, and the decision."),
		to, task, str("decision", "PASS, FAIL or BLOCKED", true), body), t.review)
	s.AddTool(mcp.NewTool("read_inbox", mcp.WithDescription("The latest messages sent to you (they were typed into your terminal too)."),
		mcp.WithNumber("limit", mcp.Description("how many, newest first (default 10, at most 50)"))), t.inbox)
	s.AddTool(mcp.NewTool("list_team", mcp.WithDescription("The team: each agent's name, role and state.")), t.team_)
	return s
}

type tools struct {
	team Team
}

// route sends an envelope and makes the Team Lead's answer the result.
func (t tools) route(headers map[string]string, body string) (*mcp.CallToolResult, error) {
	for k, v := range headers {
		if strings.TrimSpace(v) == "" {
			delete(headers, k)
		}
	}
	answers, refused, err := t.team.Route(headers, body)
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	text := strings.Join(answers, "\n")
	if text == "" {
		text = "sent"
	}
	if refused {
		return mcp.NewToolResultError(text), nil
	}
	return mcp.NewToolResultText(text), nil
}

func (t tools) send(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	typ := r.GetString("type", "status")
	return t.route(map[string]string{"to": r.GetString("to", ""), "type": typ, "task": r.GetString("task", ""),
		"priority": r.GetString("priority", "")}, r.GetString("body", ""))
}

func (t tools) consult(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return t.route(map[string]string{"to": r.GetString("to", ""), "type": "consult", "decision": r.GetString("decision", ""),
		"task": r.GetString("task", ""), "supersedes": r.GetString("supersedes", "")}, r.GetString("body", ""))
}

func (t tools) verdict(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return t.route(map[string]string{"to": "team-lead", "type": "verdict", "consult": r.GetString("consult", ""),
		"verdict": r.GetString("verdict", ""), "task": r.GetString("task", "")}, r.GetString("body", ""))
}

func (t tools) decision(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return t.route(map[string]string{"to": "team-lead", "type": "decision", "decision": r.GetString("decision", ""),
		"task": r.GetString("task", "")}, r.GetString("body", ""))
}

func (t tools) handoff(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return t.route(map[string]string{"to": r.GetString("to", "team-lead"), "type": "handoff", "task": r.GetString("task", "")},
		r.GetString("body", ""))
}

func (t tools) review(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	body := strings.TrimRight(r.GetString("body", ""), "\n")
	if d := r.GetString("decision", ""); d != "" && !strings.Contains(strings.ToLower(body), "decision:") {
		body += "\ndecision: " + d
	}
	return t.route(map[string]string{"to": r.GetString("to", ""), "type": "review", "task": r.GetString("task", "")}, body)
}

// maxWait bounds ask_question's wait for the answer.
const maxWait = 600 * time.Second

func (t tools) ask(ctx context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	q, err := t.team.Ask(questions.Ask{Topic: r.GetString("topic", ""), Text: r.GetString("question", ""),
		Context: r.GetString("context", ""), Urgency: r.GetString("urgency", ""), Task: r.GetString("task", "")})
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	wait := min(time.Duration(r.GetFloat("wait_seconds", 0)*float64(time.Second)), maxWait)
	if wait <= 0 {
		return mcp.NewToolResultText(fmt.Sprintf("asked %s (topic %s, to %s); the answer will arrive as a message from team-lead with question: %s", q.ID, q.Topic, q.Answerer, q.ID)), nil
	}
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		qs, err := t.team.Questions("", q.ID)
		if err == nil && len(qs) == 1 && qs[0].Answer != "" {
			return mcp.NewToolResultText(fmt.Sprintf("%s answered by %s: %s", q.ID, qs[0].AnsweredBy, qs[0].Answer)), nil
		}
		select {
		case <-ctx.Done():
			return mcp.NewToolResultError("cancelled while waiting for the answer to " + q.ID), nil
		case <-deadline.C:
			return mcp.NewToolResultText(fmt.Sprintf("asked %s; no answer within %s: it will arrive as a message from team-lead with question: %s", q.ID, wait, q.ID)), nil
		case <-tick.C:
		}
	}
}

func (t tools) inbox(_ context.Context, r mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	limit := min(max(r.GetInt("limit", 10), 1), 50)
	// Whose inbox is the kernel's to say, as for sending: TEAMLEAD_AGENT
	// is the agent's to change.
	me, why, err := t.team.Me()
	if err != nil {
		return mcp.NewToolResultError("read_inbox: the console cannot say which agent this is: " + err.Error()), nil
	}
	if me == "" {
		return mcp.NewToolResultError("read_inbox: only an agent's tool reads its inbox (" + why + "); the human reads it with teamlead audit --agent NAME"), nil
	}
	var lines []string
	err = t.team.Audit(store.Query{Agent: me, Kind: wire.KindMessage, Reverse: true, Limit: 200}, func(rec store.Record) error {
		if len(lines) >= limit || !sentTo(rec, me) {
			return nil
		}
		lines = append(lines, fmt.Sprintf("%s %s from %s [%s %s]: %s", rec.MsgID, rec.Time.Format("15:04:05"), rec.From, rec.Type, rec.Task, rec.Body))
		return nil
	})
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	if len(lines) == 0 {
		return mcp.NewToolResultText("no messages to you yet"), nil
	}
	return mcp.NewToolResultText(strings.Join(lines, "\n")), nil
}

func sentTo(r store.Record, me string) bool {
	for _, to := range r.To {
		if to == me {
			return true
		}
	}
	return false
}

func (t tools) team_(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	agents, err := t.team.Agents()
	if err != nil {
		return mcp.NewToolResultError(err.Error()), nil
	}
	var b strings.Builder
	for _, a := range agents {
		fmt.Fprintf(&b, "%s (%s): %s\n", a.Name, a.Role, a.State)
	}
	return mcp.NewToolResultText(b.String()), nil
}
