package control

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/trust"
)

// Client talks to a running console.
type Client struct {
	path string
}

// NewClient returns a client for the console of stateDir. It fails with
// ErrNoConsole when nothing listens there.
func NewClient(stateDir string) (*Client, error) {
	return NewClientAt(filepath.Join(stateDir, SocketName))
}

// NewClientAt returns a client for the console listening on socket path
// (an agent finds it in TEAMLEAD_SOCKET).
func NewClientAt(path string) (*Client, error) {
	c, err := net.DialTimeout("unix", path, 2*time.Second)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ENOENT) {
			return nil, fmt.Errorf("%w on %s", ErrNoConsole, path)
		}
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	defer c.Close()
	if err := trust.VerifyServer(c.(*net.UnixConn)); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Client{path: path}, nil
}

// do sends req and calls fn for every reply line until the end.
func (c *Client) do(req Request, fn func(Reply) error) error {
	conn, err := net.Dial("unix", c.path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoConsole, err)
	}
	defer conn.Close()
	// Each connection: the socket may have been replaced since the last.
	if err := trust.VerifyServer(conn.(*net.UnixConn)); err != nil {
		return fmt.Errorf("%s: %w", c.path, err)
	}
	if err := json.NewEncoder(conn).Encode(req); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReader(conn))
	for {
		var r Reply
		if err := dec.Decode(&r); err != nil {
			return fmt.Errorf("reading the console's reply: %w", err)
		}
		if r.Error != "" {
			return fmt.Errorf("%w: %s", ErrRemote, r.Error)
		}
		if err := fn(r); err != nil {
			return err
		}
		if r.End {
			return nil
		}
	}
}

// Agents lists the console's agents.
func (c *Client) Agents() ([]readmodel.AgentInfo, error) {
	var out []readmodel.AgentInfo
	err := c.do(Request{Cmd: "agents"}, func(r Reply) error {
		out = append(out, r.Agents...)
		return nil
	})
	return out, err
}

// Send types text into agent as the human. Like every operation of the
// human's, it returns what it changed, in a line (empty from an older
// console).
func (c *Client) Send(agent, text string) (string, error) {
	return c.act(Request{Cmd: "send", Agent: agent, Text: text})
}

// Merged records in the console's audit that the human merged agent's
// branch (text says what: the branch, the commit, into what).
func (c *Client) Merged(agent, text string) (string, error) {
	return c.act(Request{Cmd: "merged", Agent: agent, Text: text})
}

// act sends an operation and returns what it changed (Reply.Done).
func (c *Client) act(req Request) (string, error) {
	var done string
	err := c.do(req, func(r Reply) error {
		if r.Done != "" {
			done = r.Done
		}
		return nil
	})
	return done, err
}

// Protect asks the console to keep protect read-only and hide hide in
// every agent's sandbox (Console.ProtectMore).
func (c *Client) Protect(protect, hide []string) (string, error) {
	return c.act(Request{Cmd: "protect", Protect: protect, Hide: hide})
}

// Inbox lists what waits for the human.
func (c *Client) Inbox() ([]lead.InboxItem, error) {
	var out []lead.InboxItem
	err := c.do(Request{Cmd: "inbox"}, func(r Reply) error {
		out = append(out, r.Inbox...)
		return nil
	})
	return out, err
}

// Ask asks a question; the console works out who is asking.
func (c *Client) Ask(a questions.Ask) (questions.Question, error) {
	var q questions.Question
	err := c.do(Request{Cmd: "ask", Ask: &a}, func(r Reply) error {
		if len(r.Questions) > 0 {
			q = r.Questions[0]
		}
		return nil
	})
	return q, err
}

// Questions lists questions by status (pending, answered, timeout, all) or
// the one with id.
func (c *Client) Questions(status, id string) ([]questions.Question, error) {
	var out []questions.Question
	err := c.do(Request{Cmd: "questions", Status: status, ID: id}, func(r Reply) error {
		out = append(out, r.Questions...)
		return nil
	})
	return out, err
}

// Permission asks the console to decide action for the agent this process
// runs in (its CLI's hook); it may wait for the human.
func (c *Client) Permission(action string, info HookInfo) (approvals.Request, error) {
	var out approvals.Request
	err := c.do(Request{Cmd: "permission", Text: action, Session: info.Session, Transcript: info.Transcript, Cwd: info.Cwd}, func(r Reply) error {
		if len(r.Permissions) > 0 {
			out = r.Permissions[0]
		}
		return nil
	})
	return out, err
}

// HookState tells the console what the agent this process runs in is doing.
// HookInfo is what a CLI's hook event says of its conversation: its id,
// its transcript's path and the folder its shell is in ("" when the CLI
// gives none).
type HookInfo struct{ Session, Transcript, Cwd string }

// info is what the hook said of its conversation.
func (c *Client) HookState(state string, info HookInfo) error {
	return c.do(Request{Cmd: "hook-state", Status: state, Session: info.Session, Transcript: info.Transcript}, func(Reply) error { return nil })
}

// Permissions lists every permission request.
func (c *Client) Permissions() ([]approvals.Request, error) {
	var out []approvals.Request
	err := c.do(Request{Cmd: "permissions"}, func(r Reply) error {
		out = append(out, r.Permissions...)
		return nil
	})
	return out, err
}

// Tasks lists every task (seed 001's lifecycle).
func (c *Client) Tasks() ([]tasks.Task, error) {
	var out []tasks.Task
	err := c.do(Request{Cmd: "tasks"}, func(r Reply) error {
		out = append(out, r.Tasks...)
		return nil
	})
	return out, err
}

// Escalate escalates question id now.
func (c *Client) Escalate(id string) (string, error) {
	return c.act(Request{Cmd: "escalate", ID: id})
}

// Consults lists every consultation, newest first.
func (c *Client) Consults() ([]consult.Consultation, error) {
	var out []consult.Consultation
	err := c.do(Request{Cmd: "consults"}, func(r Reply) error {
		out = append(out, r.Consults...)
		return nil
	})
	return out, err
}

// QueryConsults streams the stored JSON of the consultations matching f,
// newest first (at most f.Limit), to fn, and returns statistics over every
// match; the console answers with readmodel.ScanConsultations.
func (c *Client) QueryConsults(f readmodel.ConsultFilter, fn func(doc []byte) error) (readmodel.ConsultStats, error) {
	var stats readmodel.ConsultStats
	err := c.do(Request{Cmd: "consult-query", Consult: &f}, func(r Reply) error {
		for _, d := range r.Docs {
			if err := fn(d); err != nil {
				return err
			}
		}
		if r.ConsultStats != nil {
			stats = *r.ConsultStats
		}
		return nil
	})
	return stats, err
}

// Acknowledge accepts the concerns raised on consultation id.
func (c *Client) Acknowledge(id string) (string, error) {
	return c.act(Request{Cmd: "acknowledge", ID: id})
}

// Reassign gives question id to answerer (kind/name).
func (c *Client) Reassign(id, answerer string) (string, error) {
	return c.act(Request{Cmd: "reassign", ID: id, Text: answerer})
}

// Drop closes an inbox item or a question (q-…) without answering it.
func (c *Client) Drop(id, reason string) (string, error) {
	return c.act(Request{Cmd: "drop", ID: id, Text: reason})
}

// PlanAlways says what approving permission request id always would
// write (text: [scope] [all], as teamlead approve takes them), without
// deciding it or writing anything.
func (c *Client) PlanAlways(id, text string) (string, error) {
	return c.act(Request{Cmd: "always-plan", ID: id, Text: text})
}

// Answer answers an inbox item (m-…) or a question (q-…), gives a verdict
// on a consultation (c-…) or decides a permission request (p-…).
func (c *Client) Answer(id, text string) (string, error) {
	return c.act(Request{Cmd: "answer", ID: id, Text: text})
}

// Audit streams the audit records matching q.
func (c *Client) Audit(q store.Query, fn func(store.Record) error) error {
	return c.do(Request{Cmd: "audit", Query: q}, func(r Reply) error {
		if r.Record != nil {
			return fn(*r.Record)
		}
		return nil
	})
}

// Watch streams records on subjects matching pattern (and q's filters),
// from after q.AfterSeq, until fn returns an error or the console stops.
func (c *Client) Watch(pattern string, q store.Query, fn func(store.Record) error) error {
	return c.do(Request{Cmd: "watch", Pattern: pattern, Query: q}, func(r Reply) error {
		if r.Record != nil {
			return fn(*r.Record)
		}
		return nil
	})
}

// Me names the agent this process belongs to, as the console asks the
// kernel (never from the environment); "" and why not when it is no
// agent's. An older console without whoami answers with an error.
func (c *Client) Me() (agent, why string, err error) {
	err = c.do(Request{Cmd: "whoami"}, func(r Reply) error {
		agent, why = r.Agent, r.Done
		return nil
	})
	return agent, why, err
}

// Route sends an envelope as the agent this process belongs to (the
// console asks the kernel which) and returns what the Team Lead answers:
// the acknowledgement with the message id, or why it was refused.
func (c *Client) Route(headers map[string]string, body string) (answers []string, refused bool, err error) {
	err = c.do(Request{Cmd: "route", Route: &RouteRequest{Headers: headers, Body: body}}, func(r Reply) error {
		answers = append(answers, r.Answers...)
		refused = refused || r.Refused
		return nil
	})
	return answers, refused, err
}
