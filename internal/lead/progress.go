package lead

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/protocol"
)

// workflowSeen is what the lead remembers of a progress file.
type workflowSeen struct {
	wf      *progress.Workflow
	err     string
	stalled bool
}

// Progress handles a new state of a progress file: it records what
// changed (a workflow started, steps completed, finished or failed, the
// file unreadable), hands the next step to its expert when that is another
// supervised agent, and after a restart offers an unfinished workflow to
// the human for resumption.
func (l *Lead) Progress(st progress.State, now time.Time) Output {
	var out Output
	prev := l.workflows[st.Path]
	seen := &workflowSeen{wf: st.Workflow}
	l.workflows[st.Path] = seen
	if st.Err != nil {
		seen.err = st.Err.Error()
		if prev == nil || prev.err != seen.err {
			out.record(wire.Record{Time: now, Kind: wire.KindProgress, Subject: "progress." + orDash(st.Agent), Agent: st.Agent,
				Reason: fmt.Sprintf("%s: %v", st.Path, st.Err)})
		}
		if prev != nil {
			seen.wf = prev.wf // keep the last good reading: the file may be half-written
		}
		return out
	}
	cur := st.Workflow
	if cur == nil {
		return out
	}
	var before *progress.Workflow
	if prev != nil {
		before = prev.wf
		seen.stalled = prev.stalled && cur.Status == before.Status && cur.CurrentStep == before.CurrentStep
	}
	l.workflowEvents(&out, st, before, cur, now)
	// A workflow found at start-up is offered for resumption, not handed
	// over again: its handoff may have happened before the restart.
	if !l.started && before == nil {
		return out
	}
	if next, ok := progress.HandoffDue(before, cur, st.Agent, func(n string) bool { return l.members[n] != nil }); ok {
		l.handoff(&out, st, cur, next, now)
	}
	return out
}

func (l *Lead) workflowEvents(out *Output, st progress.State, before, cur *progress.Workflow, now time.Time) {
	rec := func(kind wire.Kind, body string) {
		out.record(wire.Record{Time: now, Kind: kind, Subject: "progress." + orDash(st.Agent) + "." + orDash(cur.WorkflowID),
			Agent: st.Agent, Task: cur.WorkflowID, Body: body,
			Fields: map[string]string{"workflow": cur.WorkflowID, "status": cur.Status, "step": strconv.Itoa(cur.CurrentStep),
				"steps": strconv.Itoa(cur.TotalSteps), "path": st.Path}})
	}
	switch {
	case before == nil && l.started && cur.Status != "completed" && cur.Status != "failed":
		rec(wire.KindWorkflow, fmt.Sprintf("workflow %s started: %s (%s, %d steps)", cur.WorkflowID, cur.Task, cur.Strategy, cur.TotalSteps))
	case before == nil && cur.Status != "completed" && cur.Status != "failed":
		// Seen at start-up, not finished: offer it for resumption.
		rec(wire.KindWorkflow, fmt.Sprintf("workflow %s found unfinished at step %d of %d", cur.WorkflowID, cur.CurrentStep, cur.TotalSteps))
		l.toInbox(out, wire.Record{Time: now, Agent: st.Agent, From: orDash(st.Agent), Type: "resume", Task: cur.WorkflowID,
			// the agent in the id: two agents naming one workflow id took
			// one inbox item, and the later one's agent got the answer
			// (red team 22b, finding 3)
			MsgID: "w-" + orDash(st.Agent) + "-" + cur.WorkflowID,
			Body: fmt.Sprintf("Workflow %s (%s) stopped at step %d of %d; answer to tell %s how to resume from step %d.",
				cur.WorkflowID, cur.Task, cur.CurrentStep, cur.TotalSteps, orDash(st.Agent), cur.CurrentStep)})
	case before == nil:
	case before.Status != cur.Status && (cur.Status == "completed" || cur.Status == "failed"):
		rec(wire.KindWorkflow, fmt.Sprintf("workflow %s %s", cur.WorkflowID, cur.Status))
	}
	done := map[int]bool{}
	if before != nil {
		for _, s := range before.Steps {
			if s.Status == "completed" {
				done[s.Number] = true
			}
		}
	}
	for _, s := range cur.Steps {
		if s.Status == "completed" && !done[s.Number] && before != nil {
			rec(wire.KindStep, fmt.Sprintf("step %d completed by %s: %s (%s)", s.Number, s.Expert, s.Action, s.Duration.Round(time.Second)))
		}
	}
}

// handoff types the next step into its expert (seed 003 section 7).
func (l *Lead) handoff(out *Output, st progress.State, wf *progress.Workflow, next progress.NextStep, now time.Time) {
	task := wf.WorkflowID
	if task == "" {
		task = "-"
	}
	env := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: next.Expert}, {Key: "type", Value: protocol.TypeHandoff},
		{Key: "task", Value: task}, {Key: "workflow", Value: wf.WorkflowID}, {Key: "step", Value: strconv.Itoa(next.Number)},
		{Key: "action", Value: next.Action}, {Key: "handed-over-by", Value: orDash(st.Agent)}},
		Body: strings.TrimSpace(next.Context)}
	if env.Body == "" {
		env.Body = fmt.Sprintf("Step %d of workflow %s is yours: %s.", next.Number, wf.WorkflowID, next.Action)
	}
	id := l.newID(out)
	env.Set("id", id)
	out.record(wire.Record{Time: now, Kind: wire.KindHandoff, Subject: "progress.handoff." + next.Expert, Agent: next.Expert,
		From: orDash(st.Agent), To: []string{next.Expert}, Type: protocol.TypeHandoff, Task: task, MsgID: id, Body: env.Body,
		Fields: map[string]string{"workflow": wf.WorkflowID, "step": strconv.Itoa(next.Number), "action": next.Action}})
	l.deliver(out, next.Expert, DeliverRelay, id, &env, now)
}

// Stalled records that the workflow at path has not moved for too long
// (once per stall) and puts it in front of the human.
func (l *Lead) Stalled(st progress.State, after time.Duration, now time.Time) Output {
	var out Output
	seen := l.workflows[st.Path]
	if seen == nil || seen.wf == nil || seen.stalled {
		return out
	}
	seen.stalled = true
	wf := seen.wf
	out.record(wire.Record{Time: now, Kind: wire.KindStalled, Subject: "progress.stalled." + orDash(st.Agent), Agent: st.Agent,
		Task: wf.WorkflowID, Body: fmt.Sprintf("workflow %s has not moved for %s (step %d of %d: %s)", wf.WorkflowID,
			after, wf.CurrentStep, wf.TotalSteps, nextAction(wf)), Fields: map[string]string{"workflow": wf.WorkflowID}})
	return out
}

// Workflows lists the progress files the lead has seen, by path.
func (l *Lead) Workflows() map[string]*progress.Workflow {
	out := map[string]*progress.Workflow{}
	for p, s := range l.workflows {
		out[p] = s.wf
	}
	return out
}

// Started marks the end of start-up: workflows seen from now on are new,
// not left over from before a restart.
func (l *Lead) Started() { l.started = true }

func nextAction(wf *progress.Workflow) string {
	if wf.Next != nil {
		return wf.Next.Action
	}
	return "no next step"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
