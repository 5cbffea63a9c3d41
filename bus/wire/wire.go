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
	Kind    string            `json:"kind"`              // message | delivery | delivered | refusal | reformat | human | agent | ...
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
