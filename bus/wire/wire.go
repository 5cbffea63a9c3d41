// Package wire holds what travels on the bus: audit records, deliveries
// to agents, and the constants they are matched by. It does no I/O and
// imports nothing of the project, so the pure machines (lead, questions,
// consultations, tasks) can depend on it without linking the store, the
// file watchers or the terminal emulator.
package wire

import "time"

// Record is one entry of the append-only audit log.
type Record struct {
	Seq     uint64            `json:"seq"`               // assigned by the store, strictly increasing
	Time    time.Time         `json:"time"`              // set by the caller; the store fills time.Now() if zero
	Kind    Kind              `json:"kind"`              // message | delivery | delivered | refusal | reformat | human | agent | ...
	Subject string            `json:"subject,omitempty"` // bus subject, e.g. route.dev
	Agent   string            `json:"agent,omitempty"`   // the agent this is about
	From    string            `json:"from,omitempty"`    // sender
	To      []string          `json:"to,omitempty"`      // recipients
	Type    string            `json:"type,omitempty"`    // message type
	Task    string            `json:"task,omitempty"`    // task ID
	MsgID   string            `json:"msg_id,omitempty"`  // message ID
	Body    string            `json:"body,omitempty"`    // message text
	Reason  string            `json:"reason,omitempty"`  // why (refusals, reformats...)
	Fields  map[string]string `json:"fields,omitempty"`  // anything else (headers, exit code, pid...)
}

// Delivery is a pending write of text into an agent's PTY (the outbox).
type Delivery struct {
	ID    uint64    `json:"id"`               // assigned by the store if zero
	Agent string    `json:"agent"`            // recipient
	MsgID string    `json:"msg_id,omitempty"` // the message this delivers
	Kind  string    `json:"kind"`             // relay | ack | notice | human
	From  string    `json:"from,omitempty"`   // who the text is from (an agent, team-lead or human)
	Task  string    `json:"task,omitempty"`   // the task it concerns
	Type  string    `json:"type,omitempty"`   // the message type it carries
	Text  string    `json:"text"`             // what to type
	Time  time.Time `json:"time"`             // when enqueued; the store fills time.Now() if zero
}

// How a delivery is typed into its agent (Delivery.Typing).
const (
	TypeMessage = "message" // as a prompt, after the agent's turn
	TypeUrgent  = "urgent"  // at once, even during its turn: the human's words and blockers
	TypeNotice  = "notice"  // joined with the notices next to it
	TypeAck     = "ack"     // a relay acknowledgement, with the next text when the CLI takes it so
)

// Typing says how d is typed into its agent: one rule for the console's
// own agents and a node's.
func (d Delivery) Typing() string {
	switch {
	case d.Kind == "ack":
		return TypeAck
	case d.Kind == "notice":
		return TypeNotice
	case d.Kind == "human" || d.Type == "blocker":
		return TypeUrgent
	}
	return TypeMessage
}

// What a node reports about one of its agents (the kind of its event).
const (
	NodeOutput      = "output"      // NodeOutputEvent: what the agent wrote, in order
	NodeEcho        = "echo"        // NodeOutputEvent: the echo drawn for what was typed (shown, never parsed)
	NodeState       = "state"       // the agent's state changed (an agents.StateEvent)
	NodeDelivered   = "delivered"   // NodeDeliveryEvent: the agent read a delivery
	NodeUndelivered = "undelivered" // NodeDeliveryEvent: it never will, and why
)

// NodeOutputEvent is a chunk of an agent's output.
type NodeOutputEvent struct {
	Data []byte `json:"data"`
}

// NodeDeliveryEvent settles a delivery.
type NodeDeliveryEvent struct {
	ID     uint64 `json:"id"`
	Reason string `json:"reason,omitempty"`
}

// Kind is what a Record reports. Its values are stored and published as
// plain strings: keep them unchanged, stored audit logs are read by them.
type Kind string

// Record kinds written to the audit log.
const (
	KindMessage          Kind = "message"           // an accepted envelope
	KindDelivered        Kind = "delivered"         // text typed into an agent
	KindUndelivered      Kind = "undelivered"       // a delivery that could not be typed
	KindRefusal          Kind = "refusal"           // an envelope refused (spoof, coordination-only, unknown recipient ...)
	KindReformat         Kind = "reformat"          // a malformed block, answered with a reformat request
	KindInbox            Kind = "inbox"             // an item put in front of the human
	KindAnswered         Kind = "answered"          // the human's answer to an inbox item
	KindDropped          Kind = "dropped"           // an inbox item or question the human dropped
	KindHuman            Kind = "human"             // text the human typed into an agent
	KindAgent            Kind = "agent"             // agent lifecycle
	KindGap              Kind = "gap"               // a <gap> question block
	KindPrimer           Kind = "primer"            // the protocol primer handed to an agent as a message
	KindFlood            Kind = "flood"             // an agent began sending blocks faster than the relay rate
	KindFloodOver        Kind = "flood-over"        // its held blocks were all taken
	KindImpersonation    Kind = "impersonation"     // a process of an agent refused an operation kept for the human
	KindWarning          Kind = "warning"           // something about the machine or the setup the human should know
	KindPermission       Kind = "permission"        // a permission request and every decision on it
	KindConsult          Kind = "consult"           // a consultation opened or answered
	KindDecisionBlocked  Kind = "decision-blocked"  // a decision held by its consultations
	KindDecisionFinal    Kind = "decision-final"    // a decision that passed its rules
	KindQuery            Kind = "query"             // a query file read and turned into consultations
	KindQueryError       Kind = "query-error"       // a query file that could not be taken, and why
	KindTask             Kind = "task"              // a task created or moved to another state
	KindReviewIncomplete Kind = "review-incomplete" // a QA review sent back for what it lacks
	KindWorkflow         Kind = "workflow"          // a workflow seen, started, completed or failed
	KindStep             Kind = "step"              // a step completed
	KindHandoff          Kind = "handoff"           // a next step handed to the agent named as its expert
	KindStalled          Kind = "stalled"           // an in_progress workflow that has not moved
	KindProgress         Kind = "progress"          // a progress file that cannot be read
	KindSession          Kind = "session"           // an agent's conversation changed, or was resumed
	KindResubmit         Kind = "resubmit"          // a submit key pressed again, and the text was taken
	KindSubmitStuck      Kind = "submit-stuck"      // a submit key pressed again, and the text still waits
	KindWorktree         Kind = "worktree"          // the git worktree an agent works in
	KindUsage            Kind = "usage"             // what an agent's CLI used since the last usage record
	KindBusError         Kind = "bus-error"         // the last record of a bus subscription that could not follow its stream (never stored)

	KindQuestion           Kind = "question"             // a question asked
	KindQuestionTask       Kind = "question-task"        // a question handed to an answering agent or tool
	KindQuestionQueue      Kind = "question-queue"       // a question put in the human's queue
	KindQuestionEscalate   Kind = "question-escalate"    // a question escalated to the next answerer
	KindQuestionTimeout    Kind = "question-timeout"     // a question whose deadline passed
	KindQuestionAnswer     Kind = "question-answer"      // a question answered
	KindQuestionDropped    Kind = "question-dropped"     // a question dropped
	KindQuestionToolFailed Kind = "question-tool-failed" // an answering tool that failed
	KindQuestionExpired    Kind = "question-expired"     // closed questions the store removed
)

// Subjects that name no agent. The others are a prefix and a name, in
// the dotted style of seed 004 (route.<agent>, question.ask.<id>...).
const (
	SubjectHumanInbox       = "human.inbox"                  // items put in front of the human
	SubjectHumanQuestions   = "human.questions"              // questions queued for the human
	SubjectQuestionExpired  = "question.expired"             // closed questions the store removed
	SubjectQuestionAnswerer = "agent.task.question-answerer" // questions handed to an answering agent
)

// AgentState is the lifecycle state of an agent's process.
type AgentState string

// Agent states, as the supervisor reports them and the lead records them.
const (
	// StateStarting means the process is being spawned.
	StateStarting AgentState = "starting"
	// StateRunning means the process is running.
	StateRunning AgentState = "running"
	// StateRestarting means the process exited and will be started again
	// after the backoff delay.
	StateRestarting AgentState = "restarting"
	// StateExited means the process exited (ExitCode tells how).
	StateExited AgentState = "exited"
	// StateFailed means the process could not be started (Err tells why).
	StateFailed AgentState = "failed"
	// StateStopped means Stop ended the agent.
	StateStopped AgentState = "stopped"
	// StateUnreachable is the console's view of an agent on a node that is
	// not heard from: messages for it wait on the server until the node is back.
	StateUnreachable AgentState = "unreachable"
)
