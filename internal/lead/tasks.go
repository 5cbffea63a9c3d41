package lead

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/tasks"
)

// MetaTask is the store meta key prefix of tasks.
const MetaTask = "t/"

// touchTask creates the task an envelope names, the first time one does.
func (l *Lead) touchTask(out *Output, sender, task string, now time.Time) {
	if l.tasks == nil || tasks.NoTask(task) {
		return
	}
	if _, known := l.tasks.Get(task); known {
		return
	}
	t, err := l.tasks.Touch(task, sender, l.members[sender].Role, now)
	if err == nil {
		l.recordTask(out, t, sender, "created by "+sender+"'s message", now)
	}
}

// recordTask writes task t to the store and the audit log.
func (l *Lead) recordTask(out *Output, t tasks.Task, by, why string, now time.Time) {
	if out.Meta == nil {
		out.Meta = map[string]string{}
	}
	b, _ := json.Marshal(t)
	out.Meta[MetaTask+t.ID] = string(b)
	out.record(wire.Record{Time: now, Kind: wire.KindTask, Subject: "task." + t.ID, Agent: by, From: by, Task: t.ID, Body: why,
		Fields: map[string]string{"state": string(t.State), "developer": t.Developer, "qa": t.QA}})
}

// assignQA gives a developer's handoff, which passed its consultations, to
// a QA agent (seed 001 lifecycle step 5) and reports whether it did; a
// handoff with no task is relayed as any message.
func (l *Lead) assignQA(out *Output, sender string, env *protocol.Envelope, now time.Time) bool {
	task := strings.TrimSpace(env.Get("task"))
	if l.tasks == nil || tasks.NoTask(task) {
		return false
	}
	qa := l.pickQA(sender, env)
	if qa == "" {
		id := l.newID(out)
		l.toInbox(out, wire.Record{Time: now, Agent: sender, From: sender, Type: protocol.TypeHandoff, Task: task, MsgID: id, Body: env.Body})
		l.notice(out, sender, task, fmt.Sprintf("no running agent has role %s to review %s; your handoff %s is in the human's queue", tasks.QARole, task, id), now)
		return true
	}
	t, err := l.tasks.HandedOff(task, sender, qa, now)
	if err != nil {
		l.notice(out, sender, task, "handoff not taken: "+err.Error(), now)
		return true
	}
	id := l.newID(out)
	fwd := env.Clone()
	fwd.Body = env.Body
	fwd.Del("id")
	fwd.Set("to", qa)
	fwd.Set("id", id)
	fwd.Set("assigned-by", protocol.TeamLead)
	fwd.Set("reply-with", "type: review, with commands, steps, evidence, regression or env_blocker for each failed command, and decision: PASS, FAIL or BLOCKED")
	out.record(wire.Record{Time: now, Kind: wire.KindMessage, Subject: "route." + sender, Agent: sender, From: sender, To: []string{qa},
		Type: protocol.TypeHandoff, Task: task, MsgID: id, Body: env.Body, Fields: extraFields(&fwd)})
	l.deliver(out, qa, DeliverRelay, id, &fwd, now)
	l.recordTask(out, t, sender, "handed off by "+sender+"; assigned to "+qa+" for review", now)
	l.ack(out, sender, task, id, fmt.Sprintf("handoff %s of %s assigned to %s for review", id, task, qa), now)
	return true
}

// pickQA is the QA agent a handoff goes to: the one it names, if that is a
// running QA agent, else the least loaded running one.
func (l *Lead) pickQA(sender string, env *protocol.Envelope) string {
	var qas []tasks.Member
	for _, n := range l.order {
		m := l.members[n]
		if m.Role == tasks.QARole && n != sender && l.running(n) {
			qas = append(qas, tasks.Member{Name: n, Role: m.Role})
		}
	}
	names, _ := l.resolve(sender, env.Recipients())
	for _, n := range names {
		for _, q := range qas {
			if q.Name == n {
				return n
			}
		}
	}
	return tasks.PickQA(qas, l.tasks.Load())
}

func (l *Lead) running(agent string) bool {
	switch l.members[agent].state {
	case wire.StateExited, wire.StateFailed, wire.StateStopped:
		return false
	}
	return true
}

// review checks a QA review against seed 001's contract. A review of a
// task in review by its QA agent is taken: an incomplete one goes back
// listing what it lacks; a complete one moves the task and reaches the
// developer. It reports whether the envelope was handled.
func (l *Lead) review(out *Output, sender string, env *protocol.Envelope, now time.Time) bool {
	task := strings.TrimSpace(env.Get("task"))
	if l.tasks == nil || tasks.NoTask(task) {
		return false
	}
	headers := map[string]string{}
	for _, h := range env.Headers {
		headers[h.Key] = h.Value
	}
	r := tasks.ValidateReview(headers, env.Body)
	t, err := l.tasks.Review(task, sender, r, now)
	switch {
	case errors.Is(err, tasks.ErrNotAssignedQA):
		l.notice(out, sender, task, "review not taken: "+err.Error(), now)
		return true
	case errors.Is(err, tasks.ErrIncompleteReview):
		l.recordTask(out, t, sender, "review incomplete", now)
		out.record(wire.Record{Time: now, Kind: wire.KindReviewIncomplete, Subject: "task." + task, Agent: sender, From: sender,
			Type: protocol.TypeReview, Task: task, Body: env.Body, Reason: strings.Join(r.Missing, "; ")})
		l.notice(out, sender, task, r.Feedback(), now)
		return true
	case err != nil:
		return false // not a task in review: an ordinary message
	}
	id := l.newID(out)
	fwd := env.Clone()
	fwd.Body = env.Body
	fwd.Del("id")
	fwd.Set("to", t.Developer)
	fwd.Set("id", id)
	fwd.Set("decision", string(r.Decision))
	fwd.Set("task-state", string(t.State))
	out.record(wire.Record{Time: now, Kind: wire.KindMessage, Subject: "route." + sender, Agent: sender, From: sender, To: []string{t.Developer},
		Type: protocol.TypeReview, Task: task, MsgID: id, Body: env.Body, Fields: extraFields(&fwd)})
	why := fmt.Sprintf("review %s by %s", r.Decision, sender)
	if t.State == tasks.StatePassed {
		why += "; task closed"
	}
	l.recordTask(out, t, sender, why, now)
	if l.members[t.Developer] != nil {
		l.deliver(out, t.Developer, DeliverRelay, id, &fwd, now)
	}
	l.ack(out, sender, task, id, fmt.Sprintf("review %s of %s taken: task %s; sent to %s", id, task, t.State, orDash(t.Developer)), now)
	return true
}

// Tasks lists every task, newest updated first.
func (l *Lead) Tasks() []tasks.Task {
	if l.tasks == nil {
		return nil
	}
	return l.tasks.All()
}
