// Package lead is the Team Lead: a deterministic state machine that turns
// what agents say into deliveries, acknowledgements, refusals and items for
// the human. It does no I/O and reads no clock: every input carries its
// time, and every output is data (records for the audit log, deliveries for
// the outbox) that the engine commits before anything is typed.
package lead

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/tasks"
)

// Delivery kinds in the outbox.
const (
	DeliverRelay  = "relay"  // a message relayed from another agent
	DeliverAck    = "ack"    // a relay acknowledgement to the sender
	DeliverNotice = "notice" // a refusal, reformat request or other notice from team-lead
	DeliverHuman  = "human"  // text the human typed
	DeliverPrimer = "primer" // the protocol primer, typed as an agent's first message
)

// MetaNextMsg is the store meta key holding the next message number.
const MetaNextMsg = "lead/next-msg"

// Member is an agent the lead relays to.
type Member struct {
	Name string
	Role string
}

// Config is what the lead needs to know about the team.
type Config struct {
	Members []Member
	// Delegate is the role that receives coding and test requests sent to the Team Lead.
	Delegate string
	// NextMsg is the next message number (from the store, so ids continue after a restart).
	NextMsg uint64
	// Inbox holds the items still pending for the human (see RestoreInbox).
	Inbox []InboxItem
	// Questions routes questions (gaps, questions to team-lead, teamlead ask).
	Questions *questions.Machine
	// Consults enforces mandatory consultations; nil disables them.
	Consults *consult.Machine
	// Tasks follows the task lifecycle and QA reviews; nil disables it.
	Tasks *tasks.Machine
	// Approvals decides permission requests; nil disables them.
	Approvals *approvals.Machine
	// PermissionNotify are the notification URLs of an escalated permission request.
	PermissionNotify []string
}

// Output is everything one input produced. The engine commits Records,
// Deliveries and Meta in one transaction, then types the deliveries.
type Output struct {
	Records    []wire.Record
	Deliveries []wire.Delivery
	Meta       map[string]string
	MetaDel    []string
	// Notify and Tools are for the engine to carry out after the commit.
	Notify []questions.Notification
	Tools  []questions.ToolTask
	// Files are changes to query files (responses, statuses, indexes).
	Files []FileOp
	// Keys are keys to press in agents' permission dialogs.
	Keys []KeyPress
	// Resolved are permission requests decided, for the hooks waiting on them.
	Resolved []approvals.Request
}

func (o *Output) record(r wire.Record) { o.Records = append(o.Records, r) }

// Empty reports whether the input produced nothing.
func (o *Output) Empty() bool {
	return len(o.Records) == 0 && len(o.Deliveries) == 0 && len(o.Meta) == 0
}

type member struct {
	Member
	state wire.AgentState
	// restarting is set while an exited or failed agent is about to be
	// started again (its state event said final: false).
	restarting bool
}

// Lead is the Team Lead state machine. It is not safe for concurrent use:
// the engine feeds it from one goroutine.
type Lead struct {
	members  map[string]*member
	order    []string
	delegate string
	nextMsg  uint64
	echo     map[string]*echoRing
	inbox    map[string]InboxItem
	qs       *questions.Machine
	// workflows are the progress files seen, by path; started is set once
	// the files found at start-up were read.
	workflows map[string]*workflowSeen
	started   bool
	consults  *consult.Machine
	tasks     *tasks.Machine
	approvals *approvals.Machine
	// permissionNotify are where escalated permission requests are announced.
	permissionNotify []string
}

// New returns a lead for the given team. Every member starts as "starting".
func New(cfg Config) *Lead {
	l := &Lead{members: map[string]*member{}, delegate: cfg.Delegate, nextMsg: cfg.NextMsg, echo: map[string]*echoRing{}, inbox: map[string]InboxItem{}, qs: cfg.Questions, workflows: map[string]*workflowSeen{}, consults: cfg.Consults, tasks: cfg.Tasks,
		approvals: cfg.Approvals, permissionNotify: cfg.PermissionNotify}
	if l.qs == nil {
		var names []string
		for _, m := range cfg.Members {
			names = append(names, m.Name)
		}
		l.qs = questions.New(questions.Config{Agents: names})
	}
	for _, it := range cfg.Inbox {
		l.inbox[it.ID] = it
	}
	if l.nextMsg == 0 {
		l.nextMsg = 1
	}
	if l.delegate == "" {
		l.delegate = "developer"
	}
	for _, m := range cfg.Members {
		l.members[m.Name] = &member{Member: m, state: wire.StateStarting}
		l.order = append(l.order, m.Name)
		l.echo[m.Name] = &echoRing{}
	}
	return l
}

// State returns the lead's view of an agent's state ("" if unknown).
func (l *Lead) State(agent string) wire.AgentState {
	if m := l.members[agent]; m != nil {
		return m.state
	}
	return ""
}

// Block handles one parsed block from agent's output.
func (l *Lead) Block(agent string, ev protocol.Event, now time.Time) Output {
	var out Output
	if l.members[agent] == nil {
		return out
	}
	switch ev.Kind {
	case protocol.KindEnvelope:
		if l.echo[agent].consume(protocol.Fingerprint(&ev.Envelope)) {
			return out // the PTY echoed what the console typed: not the agent's message
		}
		l.envelope(&out, agent, ev, now)
	case protocol.KindMalformed:
		if ev.Block == "route" && l.echo[agent].consume(protocol.Fingerprint(&ev.Envelope)) {
			return out
		}
		if consoleWords(&ev.Envelope) {
			// The console's own words read back (an echo its memory did not
			// match, or the agent quoting a notice): recorded, never answered,
			// so no notice can cause a notice.
			out.record(wire.Record{Time: now, Kind: wire.KindReformat, Subject: "lead.refusal." + agent, Agent: agent, From: agent,
				Task: ev.Envelope.Get("task"), Reason: ev.Reason + " (text signed by the console: not answered)", Body: ev.Raw})
			return out
		}
		l.reformat(&out, agent, ev.Block, ev.Envelope.Get("task"), ev.Reason, ev.Raw, now)
	case protocol.KindGap:
		if l.echo[agent].consume(protocol.GapFingerprint(&ev.Gap)) {
			return out // a gap the console typed (a primer's example), echoed
		}
		l.gap(&out, agent, ev, now)
	}
	return out
}

func (l *Lead) envelope(out *Output, sender string, ev protocol.Event, now time.Time) {
	env := ev.Envelope.Clone()
	env.Body = ev.Envelope.Body
	task := strings.TrimSpace(env.Get("task"))
	if problems := protocol.Problems(&env, ev.HasBody); len(problems) > 0 {
		if consoleWords(&env) {
			out.record(wire.Record{Time: now, Kind: wire.KindReformat, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
				Task: task, Reason: strings.Join(problems, "; ") + " (text signed by the console: not answered)", Body: ev.Raw})
			return
		}
		l.reformat(out, sender, "route", task, strings.Join(problems, "; "), ev.Raw, now)
		return
	}
	if from := strings.TrimSpace(env.Get("from")); from != "" && !strings.EqualFold(from, sender) {
		reason := fmt.Sprintf("spoofed sender: the block says from: %s but came from %s", from, sender)
		out.record(wire.Record{Time: now, Kind: wire.KindRefusal, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
			Type: env.Get("type"), Task: task, Body: env.Body, Reason: reason, Fields: extraFields(&env)})
		if !consoleWords(&env) {
			l.notice(out, sender, task, "refused: "+reason+". The console stamps your name on every message; leave from: out or write from: "+sender+".", now)
		}
		return
	}
	env.Set("from", sender)
	env.Set("type", strings.ToLower(strings.TrimSpace(env.Get("type"))))
	if env.Get("type") == protocol.TypeAnswer && l.answer(out, sender, &env, now) {
		return // an answer to a routed question goes to its asker, not to to:
	}
	l.touchTask(out, sender, task, now)
	if l.consultation(out, sender, &env, now) {
		return // a consultation, a verdict, or a decision its consultations hold
	}
	switch {
	case env.Get("type") == protocol.TypeHandoff && l.members[sender].Role == "developer" && l.assignQA(out, sender, &env, now):
		return // a handoff that passed its consultations, given to QA
	case env.Get("type") == protocol.TypeReview && l.review(out, sender, &env, now):
		return // a QA review, checked against the contract
	case env.Get("type") == protocol.TypePermission:
		l.permissionRoute(out, sender, &env, now)
		return // decided by the policy, or waiting for the human
	}
	env.Del("id")
	id := l.newID(out)
	env.Set("id", id)

	recipients, unknown := l.resolve(sender, env.Recipients())
	var relayed []string
	toLead := false
	for _, r := range recipients {
		if r == protocol.TeamLead {
			toLead = true
			continue
		}
		relayed = append(relayed, r)
	}
	out.record(wire.Record{Time: now, Kind: wire.KindMessage, Subject: "route." + sender, Agent: sender, From: sender,
		To: recipients, Type: env.Get("type"), Task: task, MsgID: id, Body: env.Body, Fields: extraFields(&env)})

	var delivered []string
	for _, r := range relayed {
		if _, gone := l.gone(r); gone {
			st := l.members[r].state
			l.notice(out, sender, task, fmt.Sprintf("not delivered: %s has exited (%s) and is not restarting; message %s was not delivered to it.", r, st, id), now)
			out.record(wire.Record{Time: now, Kind: wire.KindUndelivered, Subject: "deliver." + r, Agent: r, From: sender, To: []string{r},
				Type: env.Get("type"), Task: task, MsgID: id, Reason: r + " is " + string(st)})
			continue
		}
		l.deliver(out, r, DeliverRelay, id, &env, now)
		delivered = append(delivered, r)
	}
	for _, u := range unknown {
		l.notice(out, sender, task, fmt.Sprintf("not delivered: unknown recipient %q in message %s. Known agents: %s; or use team-lead or role:<role>.", u, id, strings.Join(l.order, ", ")), now)
		out.record(wire.Record{Time: now, Kind: wire.KindRefusal, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
			Type: env.Get("type"), Task: task, MsgID: id, Reason: "unknown recipient " + u})
	}
	if toLead {
		l.forLead(out, sender, id, &env, now)
	}
	if len(delivered) > 0 {
		l.ack(out, sender, task, id, "relayed "+id+" to "+strings.Join(delivered, ", "), now)
	}
}

// resolve expands the to: list into agent names (and team-lead), in order,
// without duplicates and without the sender for role addresses.
func (l *Lead) resolve(sender string, addrs []string) (names, unknown []string) {
	seen := map[string]bool{}
	add := func(n string) {
		if !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	for _, a := range addrs {
		a = strings.ToLower(strings.TrimSpace(a))
		switch {
		case a == protocol.TeamLead:
			add(a)
		case strings.HasPrefix(a, "role:"):
			role := strings.TrimSpace(strings.TrimPrefix(a, "role:"))
			found := false
			for _, n := range l.order {
				if l.members[n].Role == role && n != sender {
					add(n)
					found = true
				}
			}
			if !found {
				unknown = append(unknown, a)
			}
		case l.members[a] != nil:
			add(a)
		default:
			unknown = append(unknown, a)
		}
	}
	return names, unknown
}

// forLead handles a message addressed to the Team Lead itself.
func (l *Lead) forLead(out *Output, sender, id string, env *protocol.Envelope, now time.Time) {
	task := env.Get("task")
	if CodingRequest(env.Body) {
		l.refuseCoding(out, sender, id, env, now)
		return
	}
	switch env.Get("type") {
	case protocol.TypeQuestion:
		topic := strings.TrimSpace(env.Get("topic"))
		if topic == "" {
			topic = "general"
		}
		q, err := l.ask(out, questions.Ask{Asker: sender, Topic: topic, Text: env.Body, Urgency: urgencyOf(env.Get("priority")), Task: task}, now)
		if err != nil {
			l.notice(out, sender, task, "not asked: "+err.Error(), now)
			return
		}
		l.ack(out, sender, task, id, fmt.Sprintf("received %s as question %s, routed to %s", id, q.ID, q.Answerer), now)
	case protocol.TypeBlocker:
		l.toInbox(out, wire.Record{Time: now, Agent: sender, From: sender,
			Type: env.Get("type"), Task: task, MsgID: id, Body: env.Body, Fields: extraFields(env)})
		l.ack(out, sender, task, id, "received "+id+"; it is in the human's queue", now)
	default:
		l.ack(out, sender, task, id, "received "+id, now)
	}
}

// refuseCoding applies seed 001 rule 4: the Team Lead only coordinates, so a
// request to write code or run tests is refused and forwarded to the
// delegate role.
func (l *Lead) refuseCoding(out *Output, sender, id string, env *protocol.Envelope, now time.Time) {
	task := env.Get("task")
	target := ""
	for _, n := range l.order {
		m := l.members[n]
		if m.Role == l.delegate && n != sender && m.state != wire.StateExited && m.state != wire.StateFailed && m.state != wire.StateStopped {
			target = n
			break
		}
	}
	reason := "coordination-only role"
	out.record(wire.Record{Time: now, Kind: wire.KindRefusal, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
		Type: env.Get("type"), Task: task, MsgID: id, Body: env.Body, Reason: reason, Fields: map[string]string{"delegate": target}})
	if target == "" {
		l.notice(out, sender, task, fmt.Sprintf("refused: %s. The Team Lead does not write code or run tests, and no running agent has role %s to delegate %s (task %s) to.", reason, l.delegate, id, task), now)
		return
	}
	fwd := env.Clone()
	fwd.Set("to", target)
	fwd.Set("delegated-by", protocol.TeamLead)
	l.deliver(out, target, DeliverRelay, id, &fwd, now)
	n := notice(sender, task, fmt.Sprintf("refused: %s. The Team Lead does not write code or run tests; delegated %s to %s (role %s) for task %s.", reason, id, target, l.delegate, task))
	n.Set("refusal", reason)
	n.Set("delegate", target)
	n.Set("delegated-task", task)
	l.deliver(out, sender, DeliverNotice, "", &n, now)
}

func (l *Lead) gap(out *Output, sender string, ev protocol.Event, now time.Time) {
	g := ev.Gap
	out.record(wire.Record{Time: now, Kind: wire.KindGap, Subject: "gap." + sender, Agent: sender, From: sender,
		Type: protocol.TypeQuestion, Body: g.Question, Fields: map[string]string{"topic": g.Topic, "context": g.Context, "urgency": g.Urgency}})
	q, err := l.ask(out, questions.Ask{Asker: sender, Topic: g.Topic, Text: g.Question, Context: g.Context, Urgency: g.Urgency}, now)
	if err != nil {
		l.notice(out, sender, "-", "reformat: your <gap> block was not accepted: "+err.Error(), now)
		return
	}
	n := protocol.Envelope{Headers: []protocol.Header{{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: sender},
		{Key: "type", Value: protocol.TypeStatus}, {Key: "task", Value: "-"}, {Key: "question", Value: q.ID}},
		Body: fmt.Sprintf("question %s (%s) routed to %s", q.ID, q.Topic, q.Answerer)}
	// An acknowledgement of the block, as a relay's is: a CLI that takes
	// them with the next text (acks: with-next) spends no turn on it.
	l.deliver(out, sender, DeliverAck, q.ID, &n, now)
}

func (l *Lead) reformat(out *Output, sender, block, task, reason, raw string, now time.Time) {
	out.record(wire.Record{Time: now, Kind: wire.KindReformat, Subject: "lead.refusal." + sender, Agent: sender, From: sender,
		Task: task, Reason: reason, Body: raw})
	if block == "gap" {
		l.notice(out, sender, task, "reformat: your <gap> block was not accepted: "+reason+
			". Resend it as <gap> with <topic>, <question> and optionally <context> and <urgency>, then </gap>.", now)
		return
	}
	l.notice(out, sender, task, "reformat: your [ROUTE] block was not accepted: "+reason+
		". Resend it as [ROUTE], then to:, type:, task: and body: lines (body last), then [/ROUTE].", now)
}

// consoleWords reports whether env is signed by the console (from:
// team-lead): an agent's output carrying it is the console's own text read
// back (echo, or the agent quoting it), and refusing it with a notice would
// be answered by that notice's echo in turn. Such blocks are recorded as
// refused but never answered.
func consoleWords(env *protocol.Envelope) bool {
	return strings.EqualFold(strings.TrimSpace(env.Get("from")), protocol.TeamLead)
}

// notice sends a type: blocker from team-lead to agent.
func (l *Lead) notice(out *Output, agent, task, body string, now time.Time) {
	n := notice(agent, task, body)
	l.deliver(out, agent, DeliverNotice, "", &n, now)
}

func notice(agent, task, body string) protocol.Envelope {
	if task == "" {
		task = "-"
	}
	return protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: agent},
		{Key: "type", Value: protocol.TypeBlocker}, {Key: "task", Value: task}}, Body: body}
}

// ack sends the relay acknowledgement of PROTOCOL.md section 2 for message id.
func (l *Lead) ack(out *Output, agent, task, id, body string, now time.Time) {
	a := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: agent},
		{Key: "type", Value: protocol.TypeStatus}, {Key: "task", Value: task}}, Body: body}
	l.deliver(out, agent, DeliverAck, id, &a, now)
}

// deliver queues env for agent and remembers its fingerprint, so the echo
// of the typed text is not read back as the agent's own message.
func (l *Lead) deliver(out *Output, agent, kind, id string, env *protocol.Envelope, now time.Time) {
	// Text of other agents it carries must not close it or open another.
	protocol.Defuse(env)
	l.echo[agent].add(protocol.Fingerprint(env))
	out.Deliveries = append(out.Deliveries, wire.Delivery{Agent: agent, MsgID: id, Kind: kind, From: env.Get("from"),
		Task: env.Get("task"), Type: env.Get("type"), Text: protocol.Format(env), Time: now})
}

func (l *Lead) newID(out *Output) string {
	id := "m-" + strconv.FormatUint(l.nextMsg, 10)
	l.nextMsg++
	if out.Meta == nil {
		out.Meta = map[string]string{}
	}
	out.Meta[MetaNextMsg] = strconv.FormatUint(l.nextMsg, 10)
	return id
}

// Typing tells the lead that text is being typed into agent outside its own
// deliveries (the human's text, or an outbox entry redelivered after a
// restart), so that envelopes in it are recognised as echo.
func (l *Lead) Typing(agent, text string) {
	ring := l.echo[agent]
	if ring == nil {
		return
	}
	for _, ev := range protocol.Parse(text) {
		switch ev.Kind {
		case protocol.KindEnvelope:
			ring.add(protocol.Fingerprint(&ev.Envelope))
		case protocol.KindGap:
			ring.add(protocol.GapFingerprint(&ev.Gap))
		}
	}
}

// Primer queues the protocol primer as agent's first message (preset
// primer: message) and records that it was handed over.
func (l *Lead) Primer(agent, text string, now time.Time) Output {
	var out Output
	if l.members[agent] == nil {
		return out
	}
	l.Typing(agent, text)
	out.record(wire.Record{Time: now, Kind: wire.KindPrimer, Subject: "agent." + agent + ".primer", Agent: agent, From: protocol.TeamLead,
		To: []string{agent}, Body: fmt.Sprintf("protocol primer typed (%d bytes)", len(text))})
	out.Deliveries = append(out.Deliveries, wire.Delivery{Agent: agent, Kind: DeliverPrimer, From: protocol.TeamLead, Text: text, Time: now})
	return out
}

// HumanSend records text the human types into agent and queues it.
func (l *Lead) HumanSend(agent, text string, now time.Time) (Output, error) {
	var out Output
	if l.members[agent] == nil {
		return out, fmt.Errorf("%w: %q (known agents: %s)", ErrUnknownAgent, agent, strings.Join(l.order, ", "))
	}
	if how, gone := l.gone(agent); gone {
		return out, notRunning(agent, how, "not sent", "")
	}
	l.Typing(agent, text)
	out.record(wire.Record{Time: now, Kind: wire.KindHuman, Subject: "human.send." + agent, Agent: agent, From: "human", To: []string{agent}, Body: text})
	out.Deliveries = append(out.Deliveries, wire.Delivery{Agent: agent, Kind: DeliverHuman, From: "human", Text: text, Time: now})
	return out, nil
}

// Delivered records that d was typed into its agent and removes it from the
// outbox (the engine adds d.ID to the batch's dequeue list).
func (l *Lead) Delivered(d wire.Delivery, now time.Time) Output {
	var out Output
	out.record(wire.Record{Time: now, Kind: wire.KindDelivered, Subject: "deliver." + d.Agent, Agent: d.Agent, From: d.From, To: []string{d.Agent},
		Type: d.Type, Task: d.Task, MsgID: d.MsgID, Fields: map[string]string{"delivery": d.Kind, "outbox": strconv.FormatUint(d.ID, 10)}})
	return out
}

// Undeliverable records that d could not be typed (its agent is gone) and,
// for a relayed message, tells the original sender.
func (l *Lead) Undeliverable(d wire.Delivery, reason string, now time.Time) Output {
	var out Output
	out.record(wire.Record{Time: now, Kind: wire.KindUndelivered, Subject: "deliver." + d.Agent, Agent: d.Agent, From: d.From, To: []string{d.Agent},
		Type: d.Type, Task: d.Task, MsgID: d.MsgID, Reason: reason, Fields: map[string]string{"delivery": d.Kind}})
	switch {
	case d.Kind == DeliverRelay && l.members[d.From] != nil:
		l.notice(&out, d.From, d.Task, fmt.Sprintf("not delivered: %s to %s failed: %s.", d.MsgID, d.Agent, reason), now)
	case d.Kind == DeliverHuman || d.Kind == DeliverAnswer:
		l.undeliveredItem(&out, d, reason, now) // the human is told, and it stays pending
	}
	return out
}

// AgentState records a lifecycle change of an agent.
func (l *Lead) AgentState(agent string, state wire.AgentState, fields map[string]string, now time.Time) Output {
	var out Output
	m := l.members[agent]
	if m == nil {
		return out
	}
	m.state = state
	m.restarting = fields["final"] == "false"
	switch state {
	case wire.StateStarting, wire.StateRestarting, wire.StateExited, wire.StateFailed, wire.StateStopped:
		// The dialogs of a process that ended went with it: a key for one
		// would answer whatever the next process shows (red team 21b,
		// finding 1: a deny's Esc reached the restarted agent).
		l.withdrawDialogs(&out, agent, "", "the agent's process that showed its dialog "+string(state)+" before anyone here decided", now)
	}
	// The echo memory is kept across a restart: envelopes queued but not
	// yet typed are typed into the new process, which echoes them.
	out.record(wire.Record{Time: now, Kind: wire.KindAgent, Subject: "agent." + agent + ".state", Agent: agent, Reason: string(state), Fields: fields})
	return out
}

// extraFields keeps the headers other than the standard ones, so that the
// audit log shows unknown headers too.
func extraFields(env *protocol.Envelope) map[string]string {
	var f map[string]string
	for _, h := range env.Headers {
		switch h.Key {
		case "from", "to", "type", "task", "id":
			continue
		}
		if f == nil {
			f = map[string]string{}
		}
		f[h.Key] = h.Value
	}
	return f
}

// Members lists the team in configuration order.
func (l *Lead) Members() []Member {
	out := make([]Member, 0, len(l.order))
	for _, n := range l.order {
		out = append(out, l.members[n].Member)
	}
	return out
}

// ToolBlock is an envelope an agent sent through its teamlead tool (PROTOCOL
// section 7) rather than printed: it is handled as a printed one, from the
// agent the kernel named, except that what the Team Lead would type back
// into the sender — the acknowledgement, a refusal, a reformat request — is
// returned as the call's answer instead: a tool call has its answer built
// in, and typing it too would cost the agent a model turn.
//
// refused reports that the envelope was refused (or sent back to be
// reformatted): the answers then say why.
func (l *Lead) ToolBlock(agent string, env protocol.Envelope, now time.Time) (out Output, answers []string, refused bool) {
	if l.members[agent] == nil {
		return out, []string{"no agent " + agent + " in this team"}, true
	}
	env.Set("from", agent)
	l.envelope(&out, agent, protocol.Event{Kind: protocol.KindEnvelope, Envelope: env, HasBody: true, Block: "route", Raw: protocol.Format(&env)}, now)
	for _, r := range out.Records {
		if r.Kind == wire.KindRefusal || r.Kind == wire.KindReformat {
			refused = true
		}
	}
	kept := out.Deliveries[:0]
	for _, d := range out.Deliveries {
		if d.Agent == agent && (d.Kind == DeliverAck || d.Kind == DeliverNotice) {
			answers = append(answers, bodyOf(d.Text))
			continue
		}
		kept = append(kept, d)
	}
	out.Deliveries = kept
	return out, answers, refused
}

// bodyOf is the body of the one envelope text holds.
func bodyOf(text string) string {
	body := text
	p := protocol.NewParser()
	p.Feed([]byte(text+"\n"), func(ev protocol.Event) {
		if ev.Kind == protocol.KindEnvelope {
			body = ev.Envelope.Body
		}
	})
	p.Flush(func(protocol.Event) {})
	return body
}
