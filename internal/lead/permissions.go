package lead

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
)

// MetaPermission is the store meta key prefix of permission requests.
const MetaPermission = "p/"

// KeyPress asks the engine to press keys in an agent's permission dialog.
type KeyPress struct {
	Agent      string
	Keys       string
	Permission string // p-<n>
	// Action is the dialog's action: the key answers that dialog only.
	Action string
	// NotBefore is when the dialog has been on screen long enough for its
	// CLI to take the key (the preset's settle).
	NotBefore time.Time
}

// toolAction matches an action already written as Tool(argument) or a bare tool name.
var toolAction = regexp.MustCompile(`^(?:[A-Z][A-Za-z]*|mcp__[A-Za-z0-9_-]+)(?:\(.*\))?$`)

// toolCall matches the start of Tool( at the beginning of a line.
var toolCall = regexp.MustCompile(`^(?:[A-Z][A-Za-z]*|mcp__[A-Za-z0-9_-]+)\(`)

// leadingAction is the Tool(argument) a line starts with, up to its
// matching parenthesis, when a reason follows on the same line.
func leadingAction(line string) (string, bool) {
	loc := toolCall.FindStringIndex(line)
	if loc == nil {
		return "", false
	}
	depth := 0
	for i := loc[1] - 1; i < len(line); i++ {
		switch line[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return line[:i+1], true
			}
		}
	}
	return "", false
}

// ActionOf reads the action of a type: permission envelope: its
// permission-action header, else its body's first line when written as
// Tool(argument), else the first `backticked` command, else the line as a
// shell command. Anything unclear is still an action: the policy asks.
func ActionOf(env *protocol.Envelope) string {
	if a := strings.TrimSpace(env.Get("action")); a != "" {
		return a
	}
	line, _, _ := strings.Cut(strings.TrimSpace(env.Body), "\n")
	line = strings.TrimSpace(line)
	if toolAction.MatchString(line) {
		return line
	}
	if a, ok := leadingAction(line); ok {
		return a // Tool(argument) — and the reason after it
	}
	if i := strings.Index(line, "`"); i >= 0 {
		if j := strings.Index(line[i+1:], "`"); j > 0 {
			return "Bash(" + line[i+1:i+1+j] + ")"
		}
	}
	return "Bash(" + line + ")"
}

// permissionRoute handles a type: permission envelope.
func (l *Lead) permissionRoute(out *Output, sender string, env *protocol.Envelope, now time.Time) {
	task := orDash(strings.TrimSpace(env.Get("task")))
	if l.approvals == nil {
		l.notice(out, sender, task, "permission requests are not handled by this console; ask the human with type: question", now)
		return
	}
	r := l.approvals.Ask(sender, approvals.FromRoute, ActionOf(env), task, approvals.Keys{}, now)
	l.permissionAsked(out, r, env.Body, now)
}

// PermissionDialog is a permission dialog seen on agent's screen. A dialog
// still showing is the same request (nothing new); the policy decides a
// new one: its key is pressed, or it waits for the human.
func (l *Lead) PermissionDialog(agent, action string, keys approvals.Keys, now time.Time) Output {
	var out Output
	if l.approvals == nil || l.members[agent] == nil {
		return out
	}
	// A screen shows one dialog: one for another action took the place of
	// any still pending, whose key would now answer this one (red team
	// 21b, finding 1: a y on npm install answered rm -rf ~).
	l.withdrawDialogs(&out, agent, action, "another dialog ("+action+") took its place on the agent's screen before anyone here decided", now)
	if r := l.approvals.PendingFor(agent, action); r != nil {
		if r.Source != approvals.FromDialog { // a hook that fell back to the CLI's dialog
			r.Source, r.Keys = approvals.FromDialog, keys
			l.recordPermission(&out, r, "the CLI shows its dialog", now)
		}
		return out
	}
	r := l.approvals.Ask(agent, approvals.FromDialog, action, "-", keys, now)
	l.permissionAsked(&out, r, "", now)
	return out
}

// DialogGone is agent's permission dialog leaving the screen: a request
// nobody decided is withdrawn (the person answered in the agent's own
// terminal, or the CLI gave up).
func (l *Lead) DialogGone(agent string, now time.Time) Output {
	var out Output
	l.withdrawDialogs(&out, agent, "", "the dialog left the screen before anyone here decided", now)
	return out
}

// withdrawDialogs withdraws agent's pending requests read off its screen,
// but one for the action kept: their dialogs are no longer there to answer.
func (l *Lead) withdrawDialogs(out *Output, agent, kept, why string, now time.Time) {
	if l.approvals == nil {
		return
	}
	for _, p := range l.approvals.Pending() {
		if p.Agent == agent && p.Source == approvals.FromDialog && (kept == "" || p.Action != kept) {
			if r, err := l.approvals.Withdraw(p.ID, why, now); err == nil {
				l.recordPermission(out, r, r.Note, now)
				l.closeItem(out, r.ID, "agent", "withdrawn", now)
			}
		}
	}
}

// PermissionHook is a request from agent's CLI hook; the request returned
// may be decided already (policy) or pending (the caller waits for it).
// cwd is the folder the agent's shell is in, as the hook said.
func (l *Lead) PermissionHook(agent, action, cwd string, now time.Time) (approvals.Request, Output, error) {
	var out Output
	if l.approvals == nil {
		return approvals.Request{}, out, fmt.Errorf("%w: permission requests are not handled by this console", ErrUnknownAgent)
	}
	if l.members[agent] == nil {
		return approvals.Request{}, out, fmt.Errorf("%w: %q", ErrUnknownAgent, agent)
	}
	if r := l.approvals.PendingFor(agent, action); r != nil && r.Cwd == cwd {
		return *r, out, nil // asked again while the first still waits
	}
	r := l.approvals.AskIn(agent, approvals.FromHook, action, "-", cwd, approvals.Keys{}, now)
	l.permissionAsked(&out, r, "", now)
	return *r, out, nil
}

// permissionAsked records a new request and carries out the policy's
// decision, or puts it in front of the human.
func (l *Lead) permissionAsked(out *Output, r *approvals.Request, body string, now time.Time) {
	why := fmt.Sprintf("%s asks for %s: policy %s (%s; risk %s): %s", r.Agent, r.Action, r.Policy, r.Rule, r.Risk, r.Why)
	l.recordPermission(out, r, why, now)
	if r.Done() {
		l.answerPermission(out, r, now)
		return
	}
	text := fmt.Sprintf("%s wants %s — risk %s — %s: %s", r.Agent, r.Action, r.Risk, r.Rule, r.Why)
	if body != "" && body != r.Action {
		text += "\n" + body
	}
	l.toInbox(out, wire.Record{Time: now, Agent: r.Agent, From: r.Agent, Type: protocol.TypePermission, Task: r.Task, MsgID: r.ID, Body: text,
		Fields: map[string]string{"permission": r.ID, "action": r.Action, "risk": r.Risk, "rule": r.Rule, "source": string(r.Source)}})
	if r.Source == approvals.FromRoute {
		l.ack(out, r.Agent, r.Task, r.ID, fmt.Sprintf("permission %s for %s is waiting for the human (%s)", r.ID, r.Action, r.Why), now)
	}
}

// answerPermission gives the decision to whoever waits for it: a verdict
// envelope, the dialog's key, or the hook's caller.
func (l *Lead) answerPermission(out *Output, r *approvals.Request, now time.Time) {
	approved := r.Status == approvals.Approved
	switch {
	case r.Source == approvals.FromRoute, r.Source == approvals.FromDialog && !approved:
		// A dialog refused with its key leaves the CLI stopped, not told
		// why: the verdict follows as its next message (typed once the
		// dialog is gone), so the model learns the reason and goes on.
		verdict := "denied"
		if approved {
			verdict = "approved"
		}
		body := fmt.Sprintf("%s %s by %s: %s", r.Action, verdict, r.DecidedBy, r.Why)
		if r.Note != "" {
			body = fmt.Sprintf("%s %s by %s: %s", r.Action, verdict, r.DecidedBy, r.Note)
		}
		v := protocol.Envelope{Headers: []protocol.Header{
			{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: r.Agent}, {Key: "type", Value: protocol.TypeVerdict},
			{Key: "task", Value: orDash(r.Task)}, {Key: "permission", Value: r.ID}, {Key: "verdict", Value: verdict}}, Body: body}
		l.deliver(out, r.Agent, DeliverNotice, r.ID, &v, now)
	}
	if r.Source == approvals.FromDialog {
		keys := r.Keys.Deny
		if approved {
			keys = r.Keys.Approve
		}
		out.Keys = append(out.Keys, KeyPress{Agent: r.Agent, Keys: keys, Permission: r.ID, Action: r.Action, NotBefore: r.Created.Add(r.Keys.Settle)})
	}
	out.Resolved = append(out.Resolved, *r) // a hook's caller may be waiting
}

// DecidePermission is the human's decision on request id.
func (l *Lead) DecidePermission(id string, approve bool, note string, now time.Time) (Output, error) {
	var out Output
	if l.approvals == nil {
		return out, approvals.ErrNoRequest
	}
	r, err := l.approvals.Decide(id, approve, "human", note, now)
	if err != nil {
		return out, err
	}
	l.recordPermission(&out, r, fmt.Sprintf("%s %s by the human%s", r.Action, r.Status, noteSuffix(note)), now)
	l.closeItem(&out, r.ID, "human", string(r.Status), now)
	l.answerPermission(&out, r, now)
	return out, nil
}

// KeyUnread is the key for dialog request id not read by the CLI and taken
// back (red team 18b, finding 1): the decision answered nothing. With its
// dialog still on screen (open) the request is open again and back in the
// inbox; with the dialog gone it is withdrawn.
func (l *Lead) KeyUnread(id string, open, notTyped bool, now time.Time) Output {
	var out Output
	if l.approvals == nil {
		return out
	}
	r, ok := l.approvals.Get(id)
	if !ok || r.Status == approvals.Pending || r.Status == approvals.Withdrawn {
		return out
	}
	was := r.Status
	if r, _ = l.approvals.Reopen(id, now); r == nil {
		return out
	}
	if was == approvals.Denied {
		// A refused dialog's verdict follows the key as a notice
		// (answerPermission): it is on its way, and would tell the
		// agent of a refusal its dialog never got.
		l.keyNotReadNotice(&out, r, open, now)
	}
	if notTyped {
		open = false
	}
	if !open {
		why := fmt.Sprintf("the key for %s (%s) was not read; taken back, and its dialog is gone: withdrawn", id, was)
		if notTyped {
			why = fmt.Sprintf("the key for %s (%s) was not typed: its dialog was no longer on the agent's screen (another, or none, was there); withdrawn", id, was)
		}
		if w, err := l.approvals.Withdraw(id, why, now); err == nil {
			l.recordPermission(&out, w, why, now)
		}
		return out
	}
	l.recordPermission(&out, r, fmt.Sprintf("the key for %s (%s) was not read; taken back, the request is open again", id, was), now)
	text := fmt.Sprintf("%s wants %s — risk %s — %s: %s (asked again: the key of the last decision was not read)", r.Agent, r.Action, r.Risk, r.Rule, r.Why)
	l.toInbox(&out, wire.Record{Time: now, Agent: r.Agent, From: r.Agent, Type: protocol.TypePermission, Task: r.Task, MsgID: r.ID, Body: text,
		Fields: map[string]string{"permission": r.ID, "action": r.Action, "risk": r.Risk, "rule": r.Rule, "source": string(r.Source)}})
	return out
}

// keyNotReadNotice tells the agent that the refusal of r it is told of
// did not reach its dialog.
func (l *Lead) keyNotReadNotice(out *Output, r *approvals.Request, open bool, now time.Time) {
	state := "it is withdrawn (its dialog is gone)"
	if open {
		state = "the request is open again, for the human to decide"
	}
	v := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: protocol.TeamLead}, {Key: "to", Value: r.Agent}, {Key: "type", Value: protocol.TypeStatus},
		{Key: "task", Value: orDash(r.Task)}, {Key: "permission", Value: r.ID}},
		Body: fmt.Sprintf("disregard the refusal of %s (%s): your dialog did not read its key; %s", r.ID, r.Action, state)}
	l.deliver(out, r.Agent, DeliverNotice, r.ID+"-unread", &v, now)
}

// HookGaveUp withdraws a hook's request its caller stopped waiting for,
// unless the CLI's own dialog took it over.
func (l *Lead) HookGaveUp(id string, now time.Time) Output {
	var out Output
	if l.approvals == nil {
		return out
	}
	if r, ok := l.approvals.Get(id); ok && !r.Done() && r.Source == approvals.FromHook {
		l.recordPermission(&out, r, "the hook stopped waiting; the CLI asks in its own dialog", now)
	}
	return out
}

func noteSuffix(note string) string {
	if note == "" {
		return ""
	}
	return ": " + note
}

// recordPermission writes request r to the store and the audit log.
func (l *Lead) recordPermission(out *Output, r *approvals.Request, body string, now time.Time) {
	if out.Meta == nil {
		out.Meta = map[string]string{}
	}
	b, _ := json.Marshal(r)
	out.Meta[MetaPermission+r.ID] = string(b)
	out.record(wire.Record{Time: now, Kind: wire.KindPermission, Subject: "permission.request." + r.Agent, Agent: r.Agent, From: r.Agent,
		Type: protocol.TypePermission, Task: r.Task, MsgID: r.ID, Body: body,
		Fields: map[string]string{"action": r.Action, "source": string(r.Source), "policy": r.Policy, "rule": r.Rule, "risk": r.Risk,
			"status": string(r.Status), "decided_by": r.DecidedBy, "escalated": fmt.Sprint(r.Escalated)}})
}

// tickPermissions escalates the requests that waited too long for the
// human: the bell and the configured notifications, once each.
func (l *Lead) tickPermissions(out *Output, now time.Time) {
	if l.approvals == nil {
		return
	}
	for _, r := range l.approvals.Tick(now) {
		l.recordPermission(out, r, fmt.Sprintf("%s has waited since %s for the human: escalated", r.ID, r.Created.Format(time.TimeOnly)), now)
		for _, url := range l.permissionNotify {
			out.Notify = append(out.Notify, questions.NewNotification(url, "permission waiting: "+r.Agent, fmt.Sprintf("%s: %s wants %s (risk %s)", r.ID, r.Agent, r.Action, r.Risk)))
		}
	}
}

// Permission returns request id.
func (l *Lead) Permission(id string) (approvals.Request, bool) {
	if l.approvals == nil {
		return approvals.Request{}, false
	}
	r, ok := l.approvals.Get(id)
	if !ok {
		return approvals.Request{}, false
	}
	return *r, true
}

// Permissions lists every permission request, newest first.
func (l *Lead) Permissions() []approvals.Request {
	if l.approvals == nil {
		return nil
	}
	return l.approvals.All()
}
