package lead

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
)

// DeliverAnswer is the human's (or an answerer's) answer typed into the
// agent that asked.
const DeliverAnswer = "answer"

// ErrNotRunning means the agent a text is for has exited and is not
// restarting: nothing was typed, and what was to be typed stays pending.
var ErrNotRunning = errors.New("agent not running")

// gone reports whether agent has exited (or failed, or was stopped) and
// is not restarting, in words: "has exited", "has failed", "was stopped".
func (l *Lead) gone(agent string) (string, bool) {
	m := l.members[agent]
	if m == nil || m.restarting {
		return "", false
	}
	switch m.state {
	case wire.StateExited:
		return "has exited", true
	case wire.StateFailed:
		return "has failed", true
	case wire.StateStopped:
		return "was stopped", true
	}
	return "", false
}

// notRunning is the error for text that cannot reach agent; id is the
// item or question that stays pending ("" for none).
func notRunning(agent, how, what, id string) error {
	msg := fmt.Sprintf("%s: %s %s and is not restarting, so nothing was typed", what, agent, how)
	if id == "" {
		return fmt.Errorf("%w: %s; send it again once %s runs (start the console again to restart it)", ErrNotRunning, msg, agent)
	}
	return fmt.Errorf("%w: %s; %s stays pending: answer it once %s runs again, or drop it (teamlead drop %s, or D on it in the console)",
		ErrNotRunning, msg, id, agent, id)
}

// Drop closes inbox item or question id without answering it: the human
// gave it up (its asker is gone, say). Nothing is typed into anyone.
func (l *Lead) Drop(id, reason string, now time.Time) (Output, error) {
	var out Output
	id = strings.TrimSpace(id)
	if reason = strings.TrimSpace(reason); reason == "" {
		reason = "dropped by the human"
	}
	if qid, ok := questions.ParseID(id); ok {
		_, eff, err := l.qs.Drop(qid, questions.Requester, reason, now)
		if err != nil {
			return out, fmt.Errorf("%w; only a pending question can be dropped", err)
		}
		l.apply(&out, eff)
		l.dropItem(&out, id, reason, now) // a question may also be on the human's queue
		return out, nil
	}
	if _, ok := l.inbox[id]; !ok {
		return out, fmt.Errorf("%w: %q (pending: %s)", ErrNoItem, id, strings.Join(l.inboxIDs(), ", "))
	}
	l.dropItem(&out, id, reason, now)
	return out, nil
}

// dropItem takes id off the human's queue with a dropped record.
func (l *Lead) dropItem(out *Output, id, reason string, now time.Time) {
	it, ok := l.inbox[id]
	if !ok {
		return
	}
	delete(l.inbox, id)
	out.record(wire.Record{Time: now, Kind: wire.KindDropped, Subject: "human.drop." + it.From, Agent: it.From, From: "human",
		Type: it.Type, Task: it.Task, MsgID: id, Reason: reason})
}

// undeliveredItem puts a text from the human that could not be typed
// (its agent exited meanwhile) in front of the human, so that it is not
// taken as delivered: the item stays until the human answers it (which
// types the answer into the agent once it runs) or drops it.
func (l *Lead) undeliveredItem(out *Output, d wire.Delivery, reason string, now time.Time) {
	what := "your text"
	if d.Kind == DeliverAnswer {
		what = "the answer to " + d.MsgID
	}
	body := fmt.Sprintf("undelivered: %s could not be typed into %s (%s), so %s does not have it. Answer this item to send it again once %s runs, or drop it.\n---\n%s",
		what, d.Agent, reason, d.Agent, d.Agent, d.Text)
	l.toInbox(out, wire.Record{Time: now, Agent: d.Agent, From: d.Agent, Type: "undelivered", Task: d.Task,
		MsgID: "u-" + strconv.FormatUint(d.ID, 10), Body: body, Fields: map[string]string{"delivery": d.Kind, "reply-to": d.MsgID}})
}

// answerEnvelope is the human's answer to inbox item it, from team-lead.
func answerEnvelope(it InboxItem, id, text string) protocol.Envelope {
	task := it.Task
	if task == "" {
		task = "-"
	}
	return protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: it.From},
		{Key: "type", Value: protocol.TypeAnswer}, {Key: "task", Value: task}, {Key: "reply-to", Value: id}}, Body: text}
}
