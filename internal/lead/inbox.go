package lead

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/protocol"
)

// ErrNoItem is returned when an answer names no pending inbox item.
var ErrNoItem = fmt.Errorf("no such pending item")

// InboxItem is something waiting for the human: a question or blocker sent
// to team-lead, or a <gap> question.
type InboxItem struct {
	ID    string            `json:"id"` // the message id (m-<n>)
	From  string            `json:"from"`
	Type  string            `json:"type"`
	Task  string            `json:"task,omitempty"`
	Body  string            `json:"body"`
	Since time.Time         `json:"since"`
	Extra map[string]string `json:"extra,omitempty"` // topic, context, urgency of a gap
}

// RestoreInbox rebuilds the pending items from the audit log: every inbox
// record without an answered record for the same id.
func RestoreInbox(recs []wire.Record) []InboxItem {
	pending := map[string]InboxItem{}
	for _, r := range recs {
		switch r.Kind {
		case wire.KindInbox:
			pending[r.MsgID] = itemFrom(r)
		case wire.KindAnswered, wire.KindDropped:
			delete(pending, r.MsgID)
		}
	}
	out := make([]InboxItem, 0, len(pending))
	for _, it := range pending {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Since.Before(out[j].Since) })
	return out
}

func itemFrom(r wire.Record) InboxItem {
	return InboxItem{ID: r.MsgID, From: r.From, Type: r.Type, Task: r.Task, Body: r.Body, Since: r.Time, Extra: r.Fields}
}

// toInbox records an item for the human and keeps it pending.
func (l *Lead) toInbox(out *Output, r wire.Record) {
	r.Kind = wire.KindInbox
	r.Subject = wire.SubjectHumanInbox
	out.record(r)
	l.inbox[r.MsgID] = itemFrom(r)
}

// Inbox lists the pending items, oldest first.
func (l *Lead) Inbox() []InboxItem {
	out := make([]InboxItem, 0, len(l.inbox))
	for _, it := range l.inbox {
		out = append(out, it)
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Since.Before(out[j].Since) || out[i].Since.Equal(out[j].Since) && out[i].ID < out[j].ID
	})
	return out
}

// Answer sends the human's answer to the agent that asked item id, as an
// envelope from team-lead, and closes the item. When that agent has
// exited and is not restarting nothing is recorded or typed: the item
// stays pending (ErrNotRunning says so).
func (l *Lead) Answer(id, text string, now time.Time) (Output, error) {
	var out Output
	it, ok := l.inbox[id]
	if !ok {
		return out, fmt.Errorf("%w: %q (pending: %s)", ErrNoItem, id, strings.Join(l.inboxIDs(), ", "))
	}
	if strings.TrimSpace(text) == "" {
		return out, fmt.Errorf("an answer needs text")
	}
	if l.members[it.From] == nil {
		return out, fmt.Errorf("%w: %s asked %s but is not in the team; drop it (teamlead drop %s, or D on it in the console)", ErrNotRunning, it.From, id, id)
	}
	if how, gone := l.gone(it.From); gone {
		return out, notRunning(it.From, how, "not answered", id)
	}
	delete(l.inbox, id)
	env := answerEnvelope(it, id, text)
	out.record(wire.Record{Time: now, Kind: wire.KindAnswered, Subject: "human.answer." + it.From, Agent: it.From, From: "human",
		To: []string{it.From}, Type: protocol.TypeAnswer, Task: it.Task, MsgID: id, Body: text})
	l.deliver(&out, it.From, DeliverAnswer, id, &env, now)
	return out, nil
}

func (l *Lead) inboxIDs() []string {
	var ids []string
	for _, it := range l.Inbox() {
		ids = append(ids, it.ID)
	}
	if len(ids) == 0 {
		return []string{"none"}
	}
	return ids
}
