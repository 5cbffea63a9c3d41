// Package control is the running console's Unix socket: CLI subcommands
// (agents, send, audit) talk to the console through it, because one process
// owns the store. The socket is mode 0600 in a 0700 state directory, and a
// connection from another user is refused by its peer credentials.
//
// The wire format is JSON lines: one Request from the client, then Reply
// lines from the server until one with End set.
package control

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/teamlead/teamlead/bus"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/trust"
)

// SocketName is the socket's file name inside the state directory.
const SocketName = "teamlead.sock"

// Sentinel errors.
var (
	// ErrNoConsole means no console is listening on the socket.
	ErrNoConsole = errors.New("no console is running")
	// ErrRunning means another console already serves this state directory.
	ErrRunning = errors.New("a console is already running")
	// ErrRemote is an error reported by the console.
	ErrRemote = errors.New("console")
)

// Request is one command sent to the console.
type Request struct {
	Cmd    string         `json:"cmd"` // agents | send | audit | watch | inbox | answer | ask | questions | consults | consult-query | ...
	Agent  string         `json:"agent,omitempty"`
	ID     string         `json:"id,omitempty"` // answer: the inbox item or question
	Ask    *questions.Ask `json:"ask,omitempty"`
	Status string         `json:"status,omitempty"` // questions: pending | answered | timeout | all
	Text   string         `json:"text,omitempty"`
	// Session is the agent CLI's conversation id, from its hook
	// (permission, hook-state).
	Session string `json:"session,omitempty"`
	// Transcript is the agent CLI's transcript file, from its hook.
	Transcript string `json:"transcript,omitempty"`
	// Cwd is the folder the agent CLI's shell is in, from its hook
	// (permission): the action's relative paths start there.
	Cwd     string      `json:"cwd,omitempty"`
	Query   store.Query `json:"query,omitempty"`
	Pattern string      `json:"pattern,omitempty"` // watch: subject pattern
	// Consult is the filter of a consult-query.
	Consult *readmodel.ConsultFilter `json:"consult,omitempty"`
	// Route is an envelope an agent's tool sends (route): its headers
	// (to, type, task, …) and body; from is the caller, as the kernel says.
	Route *RouteRequest `json:"route,omitempty"`
	// Protect is what another console asks this one's sandboxes to keep
	// read-only, and Hide what to hide (protect).
	Protect []string `json:"protect,omitempty"`
	Hide    []string `json:"hide,omitempty"`
}

// RouteRequest is an envelope sent through an agent's tool.
type RouteRequest struct {
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// Reply is one line of the console's answer.
type Reply struct {
	Error     string                 `json:"error,omitempty"`
	Agents    []readmodel.AgentInfo  `json:"agents,omitempty"`
	Record    *store.Record          `json:"record,omitempty"`
	Inbox     []lead.InboxItem       `json:"inbox,omitempty"`
	Questions []questions.Question   `json:"questions,omitempty"`
	Consults  []consult.Consultation `json:"consults,omitempty"`
	Tasks     []tasks.Task           `json:"tasks,omitempty"`
	// Permissions are permission requests (permission, permissions).
	Permissions []approvals.Request `json:"permissions,omitempty"`
	// Docs are stored consultations as JSON (consult-query streams them).
	Docs []json.RawMessage `json:"docs,omitempty"`
	// ConsultStats summarises every match of a consult-query (its last line).
	ConsultStats *readmodel.ConsultStats `json:"consult_stats,omitempty"`
	// Done says what an operation changed, in a line for the human: send,
	// answer, escalate, reassign, acknowledge, drop.
	Done string `json:"done,omitempty"`
	// Answers are what the Team Lead says back to a route: the
	// acknowledgement (with the message id), or why it was refused.
	Answers []string `json:"answers,omitempty"`
	// Refused: the route was refused; Answers say why.
	Refused bool `json:"refused,omitempty"`
	// Agent is the agent the caller's process belongs to, as the kernel
	// says (whoami); "" when it is not an agent's, and Done says why.
	Agent string `json:"agent,omitempty"`
	End   bool   `json:"end,omitempty"`
}

// docsPerReply is how many consultations one consult-query reply line carries.
const docsPerReply = 256

// Console is what the server needs from the running engine.
type Console interface {
	Agents() []readmodel.AgentInfo
	Send(agent, text string) error
	Inbox() []lead.InboxItem
	// AnswerAny answers a question (q-…) or an inbox item (m-…) as the human.
	AnswerAny(id, text string) error
	// Route takes an envelope agent sent through its tool.
	Route(agent string, env protocol.Envelope) (answers []string, refused bool, err error)
	// Ask asks a question; Asker is set by the server, never the client.
	Ask(a questions.Ask) (questions.Question, error)
	// AgentOfSession names the agent whose session a process is in.
	AgentOfSession(sid int) string
	// Escalate escalates a question now; Reassign gives it to another answerer.
	Escalate(id string) error
	// Reassign gives a question to answerer (kind/name).
	Reassign(id, answerer string) error
	// Acknowledge accepts the concerns raised on a consultation.
	Acknowledge(id string) error
	// Drop closes an inbox item or a question without answering it.
	Drop(id, reason string) error
	// PlanAlways says what approving permission request id always at
	// scope would write, without writing it.
	PlanAlways(id, scope string) (permit.AlwaysPlan, error)
	// HookPermission decides an agent hook's permission request, waiting
	// for the human up to the configured time.
	HookPermission(agent, action, cwd string) (approvals.Request, error)
	// HookState records what an agent's hook says it is doing.
	HookState(agent, state string)
	// AgentSession records the agent CLI's conversation id, from its hook.
	AgentSession(agent, id string)
	// AgentTranscript takes the agent CLI's transcript path, from its hook.
	AgentTranscript(agent, path string)
	// Impersonation records that a process the human's operations are
	// refused to asked for one (op, in words), and shows it to the human.
	Impersonation(agent, op, why string, fields map[string]string)
	// Merged records that the human merged agent's branch (text: what).
	Merged(agent, text string) error
	// ProtectMore keeps protect read-only and hides hide in every agent's
	// sandbox, from now on: another console's files, before it writes them.
	ProtectMore(protect, hide []string) error
	Store() *store.Store
	Bus() bus.Bus
}

// Server serves one console's socket.
type Server struct {
	ln      net.Listener
	witness *trust.Witness
	console Console
	path    string
	wg      sync.WaitGroup
	mu      sync.Mutex
	conns   map[net.Conn]bool
	closed  bool
	// forward, on a node's socket (ListenDoor), passes an agent's request
	// to the console; console is nil there.
	forward func(agent string, req []byte) ([]byte, error)
	// protect, on a node's socket, answers the human's protect: a console
	// or node of the user starting on the node's machine asks it.
	protect func(protect, hide []string) error
	// ready is closed once the console serves every request (Ready);
	// before, only protect is served, and the rest wait. quit is closed
	// by Close.
	ready, quit chan struct{}
	readyOnce   sync.Once
}

// Listen creates the socket in stateDir and serves console on it.
func Listen(stateDir string, console Console) (*Server, error) {
	s, err := ListenStarting(stateDir, console)
	if err == nil {
		s.Ready()
	}
	return s, err
}

// ListenStarting is Listen for a console whose agents have not started
// yet: until Ready, only the human's protect is served (a console or node
// starting on this machine asks it, once this console is in the registry:
// control.Enter), and every other request waits.
func ListenStarting(stateDir string, console Console) (*Server, error) {
	path := filepath.Join(stateDir, SocketName)
	if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
		c.Close()
		return nil, fmt.Errorf("%w on %s: stop it first, or use another --state", ErrRunning, path)
	}
	_ = os.Remove(path) // stale socket of a console that died
	// The umask is the whole process's: no process may be started while
	// it is narrowed (an agent started then kept it, and made its files
	// 0600), so forks wait (syscall.ForkLock, held by every fork).
	syscall.ForkLock.RLock()
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", path)
	syscall.Umask(old)
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	if err := passCredentials(ln); err != nil {
		ln.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	s := &Server{ln: ln, console: console, path: path, conns: map[net.Conn]bool{}, ready: make(chan struct{}), quit: make(chan struct{})}
	if console != nil {
		s.witness = trust.NewWitness(s.agentOfSession)
	}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// ListenDoor creates the socket of a node (teamlead node) in stateDir:
// its agents' requests — teamlead ask, their CLIs' hooks, the teamlead
// MCP tools — go to the team's console through forward, with the name of
// the agent the kernel says the process belongs to (agentOf names the
// node's agent by its session). Of the human's operations only protect is
// served (protect does it, for a console or node starting later on this
// machine): the human works at the console.
func ListenDoor(stateDir string, agentOf func(sid int) string, forward func(agent string, req []byte) ([]byte, error), protect func(protect, hide []string) error) (*Server, error) {
	s, err := Listen(stateDir, nil)
	if err != nil {
		return nil, err
	}
	s.witness, s.forward, s.protect = trust.NewWitness(agentOf), forward, protect
	return s, nil
}

// Ready serves every request from now on (ListenStarting).
func (s *Server) Ready() { s.readyOnce.Do(func() { close(s.ready) }) }

// isReady reports whether Ready was called.
func (s *Server) isReady() bool {
	select {
	case <-s.ready:
		return true
	default:
		return false
	}
}

// agentOfSession is the console's, once it is ready: its agents are
// started by then, and the engine's list of them is not read while it
// is made.
func (s *Server) agentOfSession(sid int) string {
	if !s.isReady() {
		return ""
	}
	return s.console.AgentOfSession(sid)
}

// Path is the socket's path.
func (s *Server) Path() string { return s.path }

// Close stops serving, ends open connections and removes the socket.
func (s *Server) Close() error {
	s.mu.Lock()
	if !s.closed {
		close(s.quit)
	}
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	os.Remove(s.path)
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.serve(c)
			s.mu.Lock()
			delete(s.conns, c)
			s.mu.Unlock()
			c.Close()
		}()
	}
}

// caller tells who is on the other end of c, from the kernel (see
// internal/trust): never from anything the client says. writer is the
// process that wrote the request (firstMessage; 0 when not known): an
// agent's connection is made by its sandbox's init, the request written
// by the agent's process.
func (s *Server) caller(c net.Conn, writer int) trust.Caller {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return trust.Caller{Contained: true, Why: "not a unix connection"}
	}
	return s.witness.IdentifyWriter(uc, writer)
}

func (s *Server) serve(c net.Conn) {
	enc := json.NewEncoder(c)
	if err := peerIsOwner(c); err != nil {
		_ = enc.Encode(Reply{Error: "refused: " + err.Error(), End: true})
		return
	}
	first, writer := firstMessage(c)
	var raw json.RawMessage
	if err := json.NewDecoder(bufio.NewReader(io.MultiReader(bytes.NewReader(first), c))).Decode(&raw); err != nil {
		_ = enc.Encode(Reply{Error: "bad request: " + err.Error(), End: true})
		return
	}
	if s.forward != nil {
		s.passOn(c, writer, enc, raw)
		return
	}
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		_ = enc.Encode(Reply{Error: "bad request: " + err.Error(), End: true})
		return
	}
	if !s.isReady() && req.Cmd == "protect" {
		s.protectStarting(req, s.caller(c, writer), enc)
		return
	}
	select {
	case <-s.ready:
	case <-s.quit:
		_ = enc.Encode(Reply{Error: "the console stopped while starting", End: true})
		return
	}
	s.do(req, s.caller(c, writer), enc, c)
}

// protectStarting serves the human's protect while the console starts:
// another console or node of the user that started meanwhile asks it
// (control.Enter). A refusal is not recorded: the console's records
// start with its engine.
func (s *Server) protectStarting(req Request, who trust.Caller, enc *json.Encoder) {
	if !who.Human() {
		_ = enc.Encode(Reply{Error: "refused: only the human may protect a console's files (this process is not the human's: " + who.Why + ")", End: true})
		return
	}
	if err := s.console.ProtectMore(req.Protect, req.Hide); err != nil {
		_ = enc.Encode(Reply{Error: err.Error(), End: true})
		return
	}
	_ = enc.Encode(Reply{Done: fmt.Sprintf("protected %d paths and hid %d in every agent's sandbox", len(req.Protect), len(req.Hide)), End: true})
}

// passOn forwards a request on a node's socket for the node's agent whose
// process sent it; a process that is not one of the node's agents' is
// refused.
func (s *Server) passOn(c net.Conn, writer int, enc *json.Encoder, raw []byte) {
	who := s.caller(c, writer)
	var req Request
	if who.Human() && s.protect != nil && json.Unmarshal(raw, &req) == nil && req.Cmd == "protect" {
		// A console or node of the user starting on this machine: its
		// state, files and secrets are kept from the node's agents too,
		// as every console's are (red team 9a, finding 5).
		if err := s.protect(req.Protect, req.Hide); err != nil {
			_ = enc.Encode(Reply{Error: err.Error(), End: true})
			return
		}
		_ = enc.Encode(Reply{Done: fmt.Sprintf("protected %d paths and hid %d in every agent's sandbox of the node", len(req.Protect), len(req.Hide)), End: true})
		return
	}
	if !who.Contained || who.Agent == "" {
		_ = enc.Encode(Reply{Error: "refused: this is a node's socket, which serves the node's agents only (this process is not one of theirs: " +
			who.Why + "); the human works at the team's console, or with teamlead commands on its machine", End: true})
		return
	}
	out, err := s.forward(who.Agent, raw)
	if err != nil {
		_ = enc.Encode(Reply{Error: err.Error(), End: true})
		return
	}
	_, _ = c.Write(out)
}

// Door answers a request from agent's process on node: the node's own
// socket identified the process (the kernel there is the witness), and
// the console checked that agent runs on node. Such a process is an
// agent's: it is refused the human's operations, and its doors speak for
// that agent only. It returns the reply lines, as the socket writes them.
func (s *Server) Door(node, agent string, raw []byte) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	var req Request
	if err := json.Unmarshal(raw, &req); err != nil {
		_ = enc.Encode(Reply{Error: "bad request: " + err.Error(), End: true})
		return buf.Bytes()
	}
	if req.Cmd == "watch" {
		_ = enc.Encode(Reply{Error: "watch: not served to an agent on a node; read the audit instead", End: true})
		return buf.Bytes()
	}
	who := trust.Caller{Agent: agent, Contained: true, Why: "it is agent " + agent + "'s process on node " + node}
	s.do(req, who, enc, nil)
	return buf.Bytes()
}

// do carries out req for who, writing the replies to enc; c is the
// caller's connection, for watch (nil: none).
func (s *Server) do(req Request, who trust.Caller, enc *json.Encoder, c net.Conn) {
	fail := func(err error) { _ = enc.Encode(Reply{Error: err.Error(), End: true}) }
	if err := s.admit(req, who); err != nil {
		fail(err)
		return
	}
	switch req.Cmd {
	case "agents":
		_ = enc.Encode(Reply{Agents: s.console.Agents(), End: true})
	case "send":
		if err := s.console.Send(req.Agent, req.Text); err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Done: fmt.Sprintf("sent to %s: %s", req.Agent, clip(req.Text, 60)), End: true})
	case "inbox":
		items := s.console.Inbox()
		for i := range items {
			items[i] = inboxShownTo(who, items[i])
		}
		_ = enc.Encode(Reply{Inbox: items, End: true})
	case "ask":
		if req.Ask == nil {
			fail(fmt.Errorf("ask: no question"))
			return
		}
		a := *req.Ask
		a.Asker = "human"
		if who.Contained {
			a.Asker = who.Agent
		}
		q, err := s.console.Ask(a)
		if err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Questions: []questions.Question{q}, End: true})
	case "route":
		if req.Route == nil {
			fail(fmt.Errorf("route: no envelope"))
			return
		}
		answers, refused, err := s.console.Route(who.Agent, routeEnvelope(req.Route))
		if err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Answers: answers, Refused: refused, End: true})
	case "whoami":
		if who.Contained && who.Agent != "" {
			_ = enc.Encode(Reply{Agent: who.Agent, End: true})
			return
		}
		_ = enc.Encode(Reply{Done: "this process is not an agent's: " + who.String(), End: true})
	case "consults":
		cs, err := readmodel.StoredConsultations(s.console.Store())
		if err != nil {
			fail(err)
			return
		}
		for i := range cs {
			cs[i] = consultShownTo(who, cs[i])
		}
		_ = enc.Encode(Reply{Consults: cs, End: true})
	case "consult-query":
		s.consultQuery(enc, req, who)
	case "permission":
		if strings.TrimSpace(req.Text) == "" {
			// Nothing to decide: an empty request reached the human's
			// inbox as "no text" (red team 17b, finding 3).
			fail(errors.New("a permission request names what it asks for, e.g. Bash(go test ./...)"))
			return
		}
		s.console.AgentSession(who.Agent, req.Session)
		s.console.AgentTranscript(who.Agent, req.Transcript)
		r, err := s.console.HookPermission(who.Agent, req.Text, req.Cwd)
		if err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Permissions: []approvals.Request{r}, End: true})
	case "hook-state":
		s.console.AgentSession(who.Agent, req.Session)
		s.console.AgentTranscript(who.Agent, req.Transcript)
		s.console.HookState(who.Agent, req.Status)
		_ = enc.Encode(Reply{End: true})
	case "permissions":
		rs, err := readmodel.StoredPermissions(s.console.Store())
		if err != nil {
			fail(err)
			return
		}
		for i := range rs {
			rs[i] = permissionShownTo(who, rs[i])
		}
		_ = enc.Encode(Reply{Permissions: rs, End: true})
	case "tasks":
		ts, err := readmodel.StoredTasks(s.console.Store())
		if err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Tasks: ts, End: true})
	case "questions":
		qs, err := readmodel.ListQuestions(s.console.Store(), req.Status, req.ID)
		if err != nil {
			fail(err)
			return
		}
		for i := range qs {
			qs[i] = questionShownTo(who, qs[i])
		}
		_ = enc.Encode(Reply{Questions: qs, End: true})
	case "escalate", "reassign", "acknowledge", "drop":
		it := s.item(req.ID)
		var err error
		var done string
		switch req.Cmd {
		case "escalate":
			if err = s.console.Escalate(req.ID); err == nil {
				done = s.escalated(req.ID, it)
			}
		case "drop":
			if err = s.console.Drop(req.ID, req.Text); err == nil {
				done = dropped(it, req.Text)
			}
		case "reassign":
			err, done = s.console.Reassign(req.ID, req.Text), "reassigned "+it.subject+" to "+req.Text
		default:
			err, done = s.console.Acknowledge(req.ID), "acknowledged the concerns on "+it.subject
		}
		if err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Done: done, End: true})
	case "answer":
		it := s.item(req.ID)
		if err := s.console.AnswerAny(req.ID, req.Text); err != nil {
			fail(s.withPending(err))
			return
		}
		_ = enc.Encode(Reply{Done: s.answered(req.ID, it, req.Text), End: true})
	case "always-plan":
		scope, forAll := "prefix", false
		for _, f := range strings.Fields(req.Text) {
			if f == "all" {
				forAll = true
			} else {
				scope = f
			}
		}
		plan, err := s.console.PlanAlways(req.ID, scope)
		if err != nil {
			fail(s.withPending(err))
			return
		}
		_ = enc.Encode(Reply{Done: planned(s.item(req.ID), forAll, plan), End: true})
	case "audit":
		err := s.console.Store().Scan(req.Query, func(r store.Record) error {
			r = shownTo(who, r)
			return enc.Encode(Reply{Record: &r})
		})
		if err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{End: true})
	case "merged":
		if err := s.console.Merged(req.Agent, req.Text); err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Done: "recorded: " + clip(req.Text, 80), End: true})
	case "protect":
		if err := s.console.ProtectMore(req.Protect, req.Hide); err != nil {
			fail(err)
			return
		}
		_ = enc.Encode(Reply{Done: fmt.Sprintf("protected %d paths and hid %d in every agent's sandbox", len(req.Protect), len(req.Hide)), End: true})
	case "watch":
		if c == nil {
			fail(errors.New("watch: no connection to stream to"))
			return
		}
		s.watch(c, enc, req, who)
	default:
		fail(fmt.Errorf("unknown command %q", req.Cmd))
	}
}

// consultQuery streams the consultations matching req.Consult, newest
// first, in lines of docsPerReply, then their statistics; a human's
// verdict text comes only to the agents party to it (consultShownTo).
func (s *Server) consultQuery(enc *json.Encoder, req Request, who trust.Caller) {
	var f readmodel.ConsultFilter
	if req.Consult != nil {
		f = *req.Consult
	}
	var docs []json.RawMessage
	stats, err := readmodel.ScanConsultations(s.console.Store(), f, func(doc []byte) error {
		if !who.Human() {
			var c consult.Consultation
			if err := json.Unmarshal(doc, &c); err != nil {
				return fmt.Errorf("a stored consultation is unreadable: %w", err)
			}
			if shown := consultShownTo(who, c); !sameVerdicts(shown.Verdicts, c.Verdicts) {
				b, err := json.Marshal(shown)
				if err != nil {
					return err
				}
				doc = b
			}
		}
		if docs = append(docs, doc); len(docs) == docsPerReply {
			err := enc.Encode(Reply{Docs: docs})
			docs = nil
			return err
		}
		return nil
	})
	if err != nil {
		_ = enc.Encode(Reply{Error: err.Error(), End: true})
		return
	}
	_ = enc.Encode(Reply{Docs: docs, ConsultStats: &stats, End: true})
}

// watch streams records matching the request until the client hangs up.
func (s *Server) watch(c net.Conn, enc *json.Encoder, req Request, who trust.Caller) {
	gone := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, c); close(gone) }()
	after := req.Query.AfterSeq
	for {
		sub := s.console.Bus().Subscribe(req.Pattern, after)
		stop := make(chan struct{})
		go func() {
			select {
			case <-gone:
				sub.Close()
			case <-stop:
			}
		}()
		for r := range sub.C {
			if !matches(req.Query, r) {
				after = r.Seq
				continue
			}
			r = shownTo(who, r)
			if err := enc.Encode(Reply{Record: &r}); err != nil {
				sub.Close()
				break
			}
			after = r.Seq
		}
		close(stop)
		if !sub.Lagged() {
			return
		}
		// Fell behind: resume from the store where we were.
	}
}

// matches applies the non-subject filters of q to a live record.
func matches(q store.Query, r store.Record) bool {
	if q.Type != "" && r.Type != q.Type || q.Task != "" && r.Task != q.Task || q.Kind != "" && r.Kind != q.Kind {
		return false
	}
	if q.Agent != "" && r.Agent != q.Agent && r.From != q.Agent && !contains(r.To, q.Agent) {
		return false
	}
	return true
}

// sameVerdicts reports whether a and b have the same verdict texts.
func sameVerdicts(a, b []consult.Verdict) bool {
	for i := range a {
		if a[i].Body != b[i].Body {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// routeEnvelope is the envelope of a route request, headers in a fixed
// order (from is the caller's: the server sets it).
func routeEnvelope(r *RouteRequest) protocol.Envelope {
	keys := make([]string, 0, len(r.Headers))
	for k := range r.Headers {
		if !strings.EqualFold(k, "from") && !strings.EqualFold(k, "body") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var env protocol.Envelope
	for _, k := range keys {
		env.Set(k, r.Headers[k])
	}
	env.Body = r.Body
	return env
}

// peerIsOwner reports whether the connecting process runs as our user
// (peerUID: each system's way of asking the kernel).
func peerIsOwner(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return errors.New("not a unix connection")
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	uid, credErr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, credErr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if credErr != nil {
		return credErr
	}
	if uid != os.Getuid() {
		return fmt.Errorf("uid %d is not the console's owner", uid)
	}
	return nil
}
