package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
)

// newQuestions builds the question machine: routes from answerers.yaml
// (or everything to the human), the team's capabilities, and the pending
// questions and id counter from the store.
func newQuestions(team *config.Team, st *store.Store) (*questions.Machine, error) {
	routes, err := questions.RoutesFrom(team.Questions.Answerers, team.OwnData)
	if err != nil {
		return nil, err
	}
	var names []string
	caps := map[string][]string{}
	for _, a := range team.Agents {
		names = append(names, a.Name)
		for _, c := range a.Capabilities {
			caps[c] = append(caps[c], a.Name)
		}
	}
	pending, err := readmodel.StoredQuestions(st, questions.Pending)
	if err != nil {
		return nil, err
	}
	next := uint64(1)
	if v, ok, err := st.Meta(questions.MetaNext); err != nil {
		return nil, err
	} else if ok {
		next, _ = strconv.ParseUint(v, 10, 64)
	}
	return questions.New(questions.Config{Routes: routes, Agents: names, Capabilities: caps, Next: next, Pending: pending}), nil
}

// Ask asks a question as asker (an agent's name, or "human").
func (e *Engine) Ask(a questions.Ask) (questions.Question, error) {
	var q questions.Question
	err := e.do(func(now time.Time) (lead.Output, error) {
		var out lead.Output
		var err error
		q, out, err = e.lead.Ask(a, now)
		return out, err
	})
	return q, err
}

// Questions lists the pending questions.
func (e *Engine) Questions() []questions.Question {
	var qs []questions.Question
	_ = e.do(func(time.Time) (lead.Output, error) {
		qs = e.lead.Questions()
		return lead.Output{}, nil
	})
	return qs
}

// AnswerAny answers a question (q-…) or an inbox item (m-…) as the human.
// A question answered before gets "already answered by X at T".
func (e *Engine) AnswerAny(id, text string) error {
	if isConsultID(id) {
		return e.ConsultVerdict(id, text)
	}
	if strings.HasPrefix(id, "p-") {
		return e.PermissionAnswer(id, text)
	}
	if !lead.IsQuestionID(id) {
		return e.Answer(id, text)
	}
	qid, _ := questions.ParseID(id)
	err := e.do(func(now time.Time) (lead.Output, error) {
		return e.lead.AnswerQuestion(qid, questions.Requester, text, now)
	})
	if errors.Is(err, questions.ErrNotPending) {
		if q, ok, _ := readmodel.StoredQuestion(e.store, qid); ok {
			switch q.Status {
			case questions.Answered:
				return fmt.Errorf("%s was already answered by %s at %s", qid, q.AnsweredBy, q.AnsweredAt.Local().Format("2006-01-02 15:04:05"))
			case questions.TimedOut:
				return fmt.Errorf("%s timed out; ask again if it still matters", qid)
			case questions.Dropped:
				return fmt.Errorf("%s was dropped by the human at %s", qid, q.AnsweredAt.Local().Format("2006-01-02 15:04:05"))
			}
		}
		return fmt.Errorf("no pending question %s", qid)
	}
	return err
}

// afterCommit carries out what a committed batch asked for: notifications
// and tool answerers, off the loop goroutine.
func (e *Engine) afterCommit(notes []questions.Notification, tools []questions.ToolTask) {
	for _, n := range notes {
		go e.notify(n)
	}
	for _, t := range tools {
		go e.runTool(t)
	}
}

// notify sends a notification: slack:// and webhook:// post JSON to the
// endpoint configured for the URL, exec:// runs a command, bell:// is the
// console's (it rings on the record).
func (e *Engine) notify(n questions.Notification) {
	proto, dest, _ := strings.Cut(n.URL, "://")
	var err error
	switch proto {
	case "slack", "webhook", "http", "https":
		endpoint := e.opts.Team.Questions.Notify[n.URL]
		if endpoint == "" && (proto == "http" || proto == "https") {
			endpoint = n.URL
		}
		if endpoint == "" {
			err = fmt.Errorf("no endpoint for %s: add it under questions.notify in the team file", n.URL)
			break
		}
		body, _ := json.Marshal(map[string]string{"subject": n.Subject, "title": n.Title, "text": n.Body})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		var resp *http.Response
		if resp, err = http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode >= 300 {
				err = fmt.Errorf("%s answered %s", endpoint, resp.Status)
			}
		}
	case "exec":
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, dest, n.Title, n.Body)
		agents.Isolate(cmd, e.protected()...) // named by a file an agent can write: runs as an agent's
		err = cmd.Run()
	case "bell":
		return
	default:
		err = fmt.Errorf("unknown notify scheme %q", proto)
	}
	if err != nil && e.opts.OnError != nil {
		e.opts.OnError(fmt.Errorf("notify %s: %w", n.URL, err))
	}
}

// runTool runs a tool answerer: the question on stdin, the answer from
// stdout, within the tool's time limit. A failure leaves the question
// pending: its SLA escalates it.
func (e *Engine) runTool(t questions.ToolTask) {
	tool, ok := e.opts.Team.Questions.Tools[t.Tool]
	var out []byte
	var err error
	if !ok {
		err = fmt.Errorf("no tool %q under questions.tools in the team file", t.Tool)
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), tool.Timeout)
		cmd := exec.CommandContext(ctx, tool.Command[0], tool.Command[1:]...)
		cmd.Stdin = strings.NewReader(t.Question.Text + "\n")
		cmd.Env = append(cmd.Environ(), "TEAMLEAD_QUESTION="+t.Question.ID, "TEAMLEAD_TOPIC="+t.Question.Topic, "TEAMLEAD_CONTEXT="+t.Question.Context)
		agents.Isolate(cmd, e.protected()...) // named by a file an agent can write: runs as an agent's
		out, err = cmd.Output()
		cancel()
		if err == nil && strings.TrimSpace(string(out)) == "" {
			err = errors.New("it printed nothing")
		}
	}
	id, by := t.Question.ID, "tool/"+t.Tool
	_ = e.do(func(now time.Time) (lead.Output, error) {
		if err != nil {
			return lead.Output{Records: []store.Record{{Time: now, Kind: wire.KindQuestionToolFailed, Subject: "tool.task." + t.Tool,
				MsgID: id, Reason: err.Error(), Agent: t.Question.Asker}}}, nil
		}
		out, aerr := e.lead.AnswerQuestion(id, by, strings.TrimSpace(string(out)), now)
		if aerr != nil {
			out.Records = append(out.Records, store.Record{Time: now, Kind: wire.KindQuestionToolFailed, Subject: "tool.task." + t.Tool, MsgID: id, Reason: aerr.Error()})
		}
		return out, nil
	})
}

// Escalate escalates question id now.
func (e *Engine) Escalate(id string) error {
	if isConsultID(id) {
		return e.do(func(now time.Time) (lead.Output, error) { return e.lead.EscalateConsult(id, now) })
	}
	qid, ok := questions.ParseID(id)
	if !ok {
		return fmt.Errorf("%q is not a question id (q-…)", id)
	}
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.EscalateQuestion(qid, now) })
}

// Reassign gives question id to answerer (kind/name).
func (e *Engine) Reassign(id, answerer string) error {
	if isConsultID(id) {
		to := strings.TrimPrefix(answerer, "agent/")
		return e.do(func(now time.Time) (lead.Output, error) { return e.lead.ReassignConsult(id, to, now) })
	}
	qid, ok := questions.ParseID(id)
	if !ok {
		return fmt.Errorf("%q is not a question id (q-…)", id)
	}
	return e.do(func(now time.Time) (lead.Output, error) { return e.lead.ReassignQuestion(qid, answerer, now) })
}

// sweepEvery is how often answered and timed-out questions are checked
// for expiry.
const sweepEvery = time.Hour

// expireQuestions deletes answered and timed-out questions closed longer
// than questions.expire ago. Pending questions never expire, however old.
func (e *Engine) expireQuestions(now time.Time) (store.Batch, error) {
	var b store.Batch
	keep := e.opts.Team.Questions.Expire
	if keep <= 0 {
		return b, nil
	}
	for _, status := range []questions.Status{questions.Answered, questions.TimedOut, questions.Dropped} {
		prefix := lead.StatusPrefix(status)
		err := e.store.MetaPrefix(prefix, func(key, _ string) error {
			id := strings.TrimPrefix(key, prefix)
			q, ok, err := readmodel.StoredQuestion(e.store, id)
			if err != nil || !ok {
				return err
			}
			closed := q.AnsweredAt
			if closed.IsZero() && len(q.Hops) > 0 {
				closed = q.Hops[len(q.Hops)-1].At
			}
			if now.Sub(closed) > keep {
				b.MetaDel = append(b.MetaDel, key, lead.QuestionKey(id))
			}
			return nil
		})
		if err != nil {
			return b, err
		}
	}
	if n := len(b.MetaDel) / 2; n > 0 {
		b.Records = append(b.Records, store.Record{Time: now, Kind: wire.KindQuestionExpired, Subject: wire.SubjectQuestionExpired,
			Body: fmt.Sprintf("%d closed questions older than %s removed", n, keep)})
	}
	return b, nil
}
