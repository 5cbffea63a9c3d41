// Package questions routes agents' questions (seed 004) to answerers and
// sees them answered: every question gets an id, an answerer chosen by
// answerers.yaml, a deadline from its route's SLA, and on expiry walks the
// escalation chain until someone answers or nothing is left (timeout).
// Answering is compare-and-set: the first answer wins and later ones are
// told who answered when.
//
// Machine is a deterministic state machine like the Team Lead: it does no
// I/O and reads no clock. Its Effects (records, deliveries, question states
// to persist, notifications, tool runs) are committed and carried out by
// the engine.
package questions

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
)

// Status is a question's lifecycle state.
type Status string

// The lifecycle: pending → answered, pending → timeout.
const (
	Pending  Status = "pending"
	Answered Status = "answered"
	TimedOut Status = "timeout"
	// Dropped is a question the human gave up without answering (its
	// asker is gone, say): nothing is typed into anyone.
	Dropped Status = "dropped"
)

// Sentinel errors.
var (
	// ErrNotPending is returned for an answer to a question that is not
	// pending (answered, timed out, or unknown to the machine).
	ErrNotPending = errors.New("question is not pending")
	// ErrNotAssigned is returned when an agent answers a question that was
	// never assigned to it.
	ErrNotAssigned = errors.New("question is not assigned to you")
	// ErrInvalid is returned for a question without topic or text.
	ErrInvalid = errors.New("invalid question")
)

// MaxHops bounds an escalation chain, whatever the configuration says.
const MaxHops = 10

// Requester is the human running the console: human/requester.
const Requester = "human/requester"

// Hop is one (re)assignment of a question.
type Hop struct {
	From string    `json:"from,omitempty"`
	To   string    `json:"to"`
	At   time.Time `json:"at"`
	Why  string    `json:"why"`
}

// Question is one question and its whole history.
type Question struct {
	ID         string    `json:"id"`
	Topic      string    `json:"topic"`
	Text       string    `json:"text"`
	Context    string    `json:"context,omitempty"`
	Urgency    string    `json:"urgency"`
	Asker      string    `json:"asker"` // an agent's name, or "human"
	Task       string    `json:"task,omitempty"`
	Status     Status    `json:"status"`
	Answerer   string    `json:"answerer"`              // current answerer, kind/name
	Route      string    `json:"route,omitempty"`       // pattern of the route that assigned it ("" = default)
	EscalateTo string    `json:"escalate_to,omitempty"` // next in the chain
	AssignedAt time.Time `json:"assigned_at"`
	Deadline   time.Time `json:"deadline,omitzero"` // zero: no SLA
	Hops       []Hop     `json:"hops"`
	Created    time.Time `json:"created"`
	Answer     string    `json:"answer,omitempty"`
	AnsweredBy string    `json:"answered_by,omitempty"`
	AnsweredAt time.Time `json:"answered_at,omitzero"`
	Notify     []string  `json:"notify,omitempty"`
}

// Notification is a notify URL to tell about a question.
type Notification struct {
	URL     string // slack://, webhook://, exec://, bell://
	Subject string // notification.<proto>.<dest>
	Title   string
	Body    string
}

// ToolTask asks the engine to run a tool answerer.
type ToolTask struct {
	Question Question
	Tool     string
}

// Effects is what one input produced, for the engine to commit and do.
type Effects struct {
	// Questions are the changed questions, to persist.
	Questions []Question
	// Records go to the audit log and the bus.
	Records []wire.Record
	// Deliveries are typed into agents.
	Deliveries []wire.Delivery
	// Notify are notifications to send.
	Notify []Notification
	// Tools are tool answerers to run.
	Tools []ToolTask
}

// Ask is a new question.
type Ask struct {
	Asker, Topic, Text, Context, Urgency, Task string
}

// Machine holds the pending questions.
type Machine struct {
	routes  *Routes
	agents  map[string]bool
	caps    map[string][]string // capability → agents that have it, in team order
	pending map[string]*Question
	next    uint64
}

// Config is what a Machine starts from.
type Config struct {
	Routes *Routes
	// Agents are the team's agent names.
	Agents []string
	// Capabilities maps a capability to the agents that have it.
	Capabilities map[string][]string
	// Next is the next question number (ids are never reused).
	Next uint64
	// Pending are the questions still pending (from the store).
	Pending []Question
}

// New returns a machine.
func New(cfg Config) *Machine {
	m := &Machine{routes: cfg.Routes, agents: map[string]bool{}, caps: cfg.Capabilities, pending: map[string]*Question{}, next: max(cfg.Next, 1)}
	if m.routes == nil {
		m.routes = DefaultRoutes()
	}
	for _, a := range cfg.Agents {
		m.agents[a] = true
	}
	for i := range cfg.Pending {
		q := cfg.Pending[i]
		m.pending[q.ID] = &q
	}
	return m
}

// MetaNext is the store meta key holding the next question number.
const MetaNext = "questions/next"

// Next is the next question number, to persist.
func (m *Machine) Next() uint64 { return m.next }

// Ask creates a question and assigns it.
func (m *Machine) Ask(a Ask, now time.Time) (Question, Effects, error) {
	var eff Effects
	a.Topic = strings.ToLower(strings.TrimSpace(a.Topic))
	a.Text = strings.TrimSpace(a.Text)
	if a.Topic == "" || a.Text == "" {
		return Question{}, eff, fmt.Errorf("%w: a question needs a topic and a text", ErrInvalid)
	}
	if a.Urgency == "" {
		a.Urgency = "normal"
	}
	q := &Question{ID: fmt.Sprintf("q-%04x", m.next), Topic: a.Topic, Text: a.Text, Context: a.Context, Urgency: a.Urgency,
		Asker: a.Asker, Task: a.Task, Status: Pending, Created: now}
	m.next++
	m.pending[q.ID] = q
	eff.Records = append(eff.Records, m.record(q, wire.KindQuestion, "question.ask."+q.ID, now, q.Text))
	route := m.routes.Match(q.Topic)
	m.assign(q, route, route.Answerer.String(), "routed by "+patternName(route), now, &eff)
	return *q, eff, nil
}

func patternName(r Route) string {
	if r.Pattern == "" {
		return "the default route"
	}
	return "pattern " + r.Pattern
}

// assign gives q to answerer under route's SLA and escalation, and sends it
// there. An agent answerer that does not exist, or a cycle, escalates on.
func (m *Machine) assign(q *Question, route Route, answerer, why string, now time.Time, eff *Effects) {
	if a, err := ParseAnswerer(answerer); err == nil && a.Kind == KindAgent {
		if picked := m.pickAgent(a.Name, route.Capability, q.Asker); picked != "" {
			answerer = "agent/" + picked
		} else {
			m.hop(q, answerer, "no agent "+a.Name+" in the team", now, eff)
			m.escalate(q, route.EscalateTo, now, eff)
			return
		}
	}
	m.hop(q, answerer, why, now, eff)
	q.Answerer = answerer
	q.Route = route.Pattern
	q.AssignedAt = now
	q.Deadline = time.Time{}
	if route.SLA > 0 {
		q.Deadline = now.Add(route.SLA)
	}
	q.EscalateTo = ""
	if route.EscalateTo != nil {
		q.EscalateTo = route.EscalateTo.String()
	}
	q.Notify = route.Notify
	eff.Questions = append(eff.Questions, *q)
	a, _ := ParseAnswerer(answerer)
	switch a.Kind {
	case KindAgent:
		eff.Records = append(eff.Records, m.record(q, wire.KindQuestionTask, wire.SubjectQuestionAnswerer, now, "asked "+a.Name))
		eff.Deliveries = append(eff.Deliveries, wire.Delivery{Agent: a.Name, Kind: "question", MsgID: q.ID, From: "team-lead",
			Task: q.Task, Type: "question", Text: QuestionText(q, a.Name), Time: now})
	case KindTool:
		eff.Records = append(eff.Records, m.record(q, wire.KindQuestionTask, "tool.task."+a.Name, now, "asked "+answerer))
		eff.Tools = append(eff.Tools, ToolTask{Question: *q, Tool: a.Name})
	default: // human and team answer in the console
		eff.Records = append(eff.Records, m.record(q, wire.KindQuestionQueue, wire.SubjectHumanQuestions, now, q.Text))
	}
	for _, url := range route.Notify {
		eff.Notify = append(eff.Notify, notification(url, q, "question "+q.ID+" for "+answerer))
	}
}

// pickAgent chooses the agent answerer: the named agent if it is in the
// team, else the first agent with the route's capability; never the asker.
func (m *Machine) pickAgent(name, capability, asker string) string {
	if m.agents[name] && name != asker {
		return name
	}
	for _, a := range m.caps[capability] {
		if m.agents[a] && a != asker {
			return a
		}
	}
	return ""
}

func (m *Machine) hop(q *Question, to, why string, now time.Time, eff *Effects) {
	q.Hops = append(q.Hops, Hop{From: q.Answerer, To: to, At: now, Why: why})
	if q.Answerer != "" {
		eff.Records = append(eff.Records, m.record(q, wire.KindQuestionEscalate, "question.escalate."+q.ID, now, q.Answerer+" → "+to+": "+why))
	}
}

// escalate moves q to next (its current route's escalate_to), starting
// that answerer's own SLA; with no next, a cycle, or too many hops, q
// times out and the human is told.
func (m *Machine) escalate(q *Question, next *Answerer, now time.Time, eff *Effects) {
	why := ""
	switch {
	case next == nil:
		why = "no escalate_to left"
	case len(q.Hops) >= MaxHops:
		why = fmt.Sprintf("stopped after %d hops", MaxHops)
	case m.visited(q, next.String()):
		why = "escalation cycle back to " + next.String()
	}
	if why != "" {
		q.Status = TimedOut
		q.Deadline = time.Time{}
		delete(m.pending, q.ID)
		eff.Questions = append(eff.Questions, *q)
		eff.Records = append(eff.Records, m.record(q, wire.KindQuestionTimeout, "question.timeout."+q.ID, now, "timed out: "+why))
		eff.Notify = append(eff.Notify, notification("bell://console", q, "question "+q.ID+" timed out: "+why))
		return
	}
	route, ok := m.routes.ForAnswerer(*next)
	if !ok {
		route = m.routes.Default
		route.EscalateTo = nil
	}
	m.assign(q, route, next.String(), "escalated", now, eff)
}

func (m *Machine) visited(q *Question, answerer string) bool {
	for _, h := range q.Hops {
		if h.To == answerer {
			return true
		}
	}
	return false
}

// Tick escalates every question whose deadline has passed.
func (m *Machine) Tick(now time.Time) Effects {
	var eff Effects
	for _, id := range m.sortedIDs() {
		q := m.pending[id]
		if q.Deadline.IsZero() || now.Before(q.Deadline) {
			continue
		}
		eff.Records = append(eff.Records, m.record(q, wire.KindQuestionTimeout, "question.timeout."+q.ID, now,
			fmt.Sprintf("%s did not answer within %s", q.Answerer, q.Deadline.Sub(q.AssignedAt))))
		var next *Answerer
		if q.EscalateTo != "" {
			if a, err := ParseAnswerer(q.EscalateTo); err == nil {
				next = &a
			}
		}
		m.escalate(q, next, now, &eff)
	}
	return eff
}

// NextDeadline is when Tick next has something to do; false when nothing
// pending has a deadline.
func (m *Machine) NextDeadline() (time.Time, bool) {
	var next time.Time
	for _, q := range m.pending {
		if !q.Deadline.IsZero() && (next.IsZero() || q.Deadline.Before(next)) {
			next = q.Deadline
		}
	}
	return next, !next.IsZero()
}

// Answer records the answer of by (kind/name) to question id and sends it
// to the asker. The first answer wins: a later one gets ErrNotPending. An
// agent may answer only a question assigned to it (now or before); the
// human may answer any.
func (m *Machine) Answer(id, by, text string, now time.Time) (Question, Effects, error) {
	var eff Effects
	q, ok := m.pending[id]
	if !ok {
		return Question{}, eff, fmt.Errorf("%w: %s", ErrNotPending, id)
	}
	if strings.TrimSpace(text) == "" {
		return Question{}, eff, fmt.Errorf("%w: an answer needs text", ErrInvalid)
	}
	if a, err := ParseAnswerer(by); err == nil && a.Kind != KindHuman && a.Kind != KindTeam && !m.visited(q, by) {
		return Question{}, eff, fmt.Errorf("%w: %s is assigned to %s", ErrNotAssigned, id, q.Answerer)
	}
	q.Status = Answered
	q.Answer = strings.TrimSpace(text)
	q.AnsweredBy = by
	q.AnsweredAt = now
	q.Deadline = time.Time{}
	delete(m.pending, id)
	eff.Questions = append(eff.Questions, *q)
	rec := m.record(q, wire.KindQuestionAnswer, "question.answer."+q.ID, now, q.Answer)
	// Who wrote the answer: with the asker, the one agent that may read
	// it besides the human (internal/control).
	rec.Fields["answered_by"] = by
	eff.Records = append(eff.Records, rec)
	if q.Asker != "" && q.Asker != "human" {
		eff.Deliveries = append(eff.Deliveries, wire.Delivery{Agent: q.Asker, Kind: "answer", MsgID: q.ID, From: "team-lead",
			Task: q.Task, Type: "answer", Text: AnswerText(q), Time: now})
	}
	return *q, eff, nil
}

// Drop closes pending question id without an answer, by (the human),
// for reason. Nothing is delivered.
func (m *Machine) Drop(id, by, reason string, now time.Time) (Question, Effects, error) {
	var eff Effects
	q, ok := m.pending[id]
	if !ok {
		return Question{}, eff, fmt.Errorf("%w: %s", ErrNotPending, id)
	}
	q.Status = Dropped
	q.AnsweredBy = by
	q.AnsweredAt = now
	q.Deadline = time.Time{}
	delete(m.pending, id)
	eff.Questions = append(eff.Questions, *q)
	eff.Records = append(eff.Records, m.record(q, wire.KindQuestionDropped, "question.dropped."+q.ID, now, reason))
	return *q, eff, nil
}

// Pending lists the pending questions, most urgent first, then by deadline.
func (m *Machine) Pending() []Question {
	out := make([]Question, 0, len(m.pending))
	for _, id := range m.sortedIDs() {
		out = append(out, *m.pending[id])
	}
	SortForHuman(out)
	return out
}

// Get returns a pending question.
func (m *Machine) Get(id string) (Question, bool) {
	q, ok := m.pending[id]
	if !ok {
		return Question{}, false
	}
	return *q, true
}

func (m *Machine) sortedIDs() []string {
	ids := make([]string, 0, len(m.pending))
	for id := range m.pending {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// urgencyRank orders urgencies, most urgent first.
var urgencyRank = map[string]int{"blocking": 0, "high": 1, "normal": 2, "low": 3}

// SortForHuman orders questions as the console lists them: pending first,
// then by urgency, then by deadline (none last), then by age.
func SortForHuman(qs []Question) {
	rank := func(u string) int {
		if r, ok := urgencyRank[u]; ok {
			return r
		}
		return 2
	}
	sort.SliceStable(qs, func(i, j int) bool {
		a, b := qs[i], qs[j]
		if (a.Status == Pending) != (b.Status == Pending) {
			return a.Status == Pending
		}
		if rank(a.Urgency) != rank(b.Urgency) {
			return rank(a.Urgency) < rank(b.Urgency)
		}
		if a.Deadline.IsZero() != b.Deadline.IsZero() {
			return !a.Deadline.IsZero()
		}
		if !a.Deadline.Equal(b.Deadline) {
			return a.Deadline.Before(b.Deadline)
		}
		return a.Created.Before(b.Created)
	})
}

func (m *Machine) record(q *Question, kind wire.Kind, subject string, now time.Time, body string) wire.Record {
	f := map[string]string{"topic": q.Topic, "answerer": q.Answerer, "urgency": q.Urgency, "status": string(q.Status)}
	if !q.Deadline.IsZero() {
		f["deadline"] = q.Deadline.UTC().Format(time.RFC3339Nano)
	}
	return wire.Record{Time: now, Kind: kind, Subject: subject, Agent: q.Asker, From: q.Asker, Type: "question",
		Task: q.Task, MsgID: q.ID, Body: body, Fields: f}
}

// QuestionText is the envelope an agent answerer receives (PROTOCOL.md
// section 4).
func QuestionText(q *Question, agent string) string {
	lines := []string{"[ROUTE]", "from: team-lead", "to: " + agent, "type: question", "question: " + q.ID, "topic: " + q.Topic}
	if q.Task != "" {
		lines = append(lines, "task: "+q.Task)
	} else {
		lines = append(lines, "task: -")
	}
	lines = append(lines, "body: "+q.Text)
	if q.Context != "" {
		lines = append(lines, "context: "+q.Context)
	}
	return strings.Join(append(lines, "[/ROUTE]"), "\n")
}

// AnswerText is the envelope the asking agent receives.
func AnswerText(q *Question) string {
	task := q.Task
	if task == "" {
		task = "-"
	}
	return strings.Join([]string{"[ROUTE]", "from: team-lead", "to: " + q.Asker, "type: answer", "question: " + q.ID,
		"topic: " + q.Topic, "task: " + task, "answered-by: " + q.AnsweredBy, "body: " + q.Answer, "[/ROUTE]"}, "\n")
}

func notification(url string, q *Question, title string) Notification {
	return NewNotification(url, title, fmt.Sprintf("%s (%s, from %s): %s", q.ID, q.Topic, q.Asker, q.Text))
}

// NewNotification is a notification to url (slack://, webhook://, exec://,
// bell://) on seed 004's subject notification.<proto>.<dest>.
func NewNotification(url, title, body string) Notification {
	proto, dest, _ := strings.Cut(url, "://")
	return Notification{URL: url, Subject: "notification." + proto + "." + dest, Title: title, Body: body}
}

// ParseID accepts q-<hex> and returns it normalised.
func ParseID(s string) (string, bool) {
	hex, ok := strings.CutPrefix(strings.ToLower(strings.TrimSpace(s)), "q-")
	if !ok || hex == "" {
		return "", false
	}
	if _, err := strconv.ParseUint(hex, 16, 64); err != nil {
		return "", false
	}
	return "q-" + hex, true
}

// EscalateNow escalates question id at once, as if its deadline had
// passed (the human's "escalate now").
func (m *Machine) EscalateNow(id string, now time.Time) (Effects, error) {
	var eff Effects
	q, ok := m.pending[id]
	if !ok {
		return eff, fmt.Errorf("%w: %s", ErrNotPending, id)
	}
	var next *Answerer
	if q.EscalateTo != "" {
		if a, err := ParseAnswerer(q.EscalateTo); err == nil {
			next = &a
		}
	}
	eff.Records = append(eff.Records, m.record(q, wire.KindQuestionEscalate, "question.escalate."+q.ID, now, "escalated by the human"))
	m.escalate(q, next, now, &eff)
	return eff, nil
}

// Reassign gives question id to answerer (kind/name), with that answerer's
// own route's SLA and escalation, or the default's.
func (m *Machine) Reassign(id, answerer string, now time.Time) (Effects, error) {
	var eff Effects
	q, ok := m.pending[id]
	if !ok {
		return eff, fmt.Errorf("%w: %s", ErrNotPending, id)
	}
	a, err := ParseAnswerer(answerer)
	if err != nil {
		return eff, err
	}
	route, ok := m.routes.ForAnswerer(a)
	if !ok {
		route = m.routes.Default
	}
	m.assign(q, route, a.String(), "reassigned by the human", now, &eff)
	return eff, nil
}

// Escalated says where q went once escalated: to its next answerer, or,
// with no one left to go to, nowhere (it timed out). One wording for the
// CLI and the console.
func (q Question) Escalated() string {
	if q.Status == TimedOut {
		return "it had no one left to go to (escalate_to), so it timed out"
	}
	return "it now waits for " + q.Answerer
}
