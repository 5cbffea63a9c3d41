package lead

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/queryfiles"
)

// QueryFile is one query file the watcher reported.
type QueryFile struct {
	// Path is the query file.
	Path string
	// Owners are the agents whose working folder holds it (none for a
	// shared folder): the query must come from one of them.
	Owners []string
	// Query is the parsed file; nil when Err is set.
	Query *queryfiles.Query
	// Err is why the file could not be read.
	Err error
}

// FileOp is a change to the query files for the engine to make after the
// commit: a response written, the query's status and the index updated.
type FileOp struct {
	// Query is the query file.
	Query string
	// Response, when set, is written as the query's response file.
	Response *queryfiles.Response
	// Status, when set, becomes the query's status.
	Status queryfiles.Status
	// Index is upserted into the folder's index.yaml.
	Index queryfiles.IndexEntry
}

// Query handles a query file: each recipient becomes an optional
// consultation (the matrix applies), asked by envelope; a file already
// taken (by path) is not taken again.
func (l *Lead) Query(f QueryFile, now time.Time) Output {
	var out Output
	if l.consults == nil {
		return out
	}
	if f.Err != nil {
		l.queryError(&out, f, "", f.Err.Error(), now)
		return out
	}
	q := f.Query
	if len(l.consults.ForQuery(f.Path)) > 0 {
		if q.Status == queryfiles.StatusResolved {
			l.queryResolved(&out, f, now)
		}
		return out // taken already: a status change or a rewrite
	}
	if q.Status != queryfiles.StatusPending {
		return out // answered elsewhere before the console saw it
	}
	from := l.agentNamed(q.From, "")
	switch {
	case from == "":
		l.queryError(&out, f, "", fmt.Sprintf("from: %q is neither an agent nor a role of the team (%s)", q.From, strings.Join(l.order, ", ")), now)
		return out
	case len(f.Owners) > 0 && !contains(f.Owners, from):
		l.queryError(&out, f, "", fmt.Sprintf("from: %s, but the file is in the working folder of %s; an agent writes queries in its own folder", from, strings.Join(f.Owners, ", ")), now)
		return out
	}
	task := strings.TrimSpace(q.Context.CurrentTask)
	if task == "" || strings.ContainsAny(task, " \t") {
		task = "-" // a description, not a task id: it goes in the body
	}
	body := queryBody(q)
	var opened []string
	for _, name := range q.To {
		to := l.agentNamed(name, from)
		if to == "" {
			l.queryError(&out, f, from, fmt.Sprintf("to: %q is neither an agent nor a role of the team", name), now)
			continue
		}
		c, err := l.consults.Consult(from, to, "query", task, body, "", false, now)
		if err != nil {
			l.queryError(&out, f, from, "not consulted: "+err.Error(), now)
			continue
		}
		c.Priority, c.Query, c.QueryID = string(q.Priority), f.Path, q.ID
		l.sendConsult(&out, c, now)
		l.checkCycle(&out, c, now)
		opened = append(opened, c.ID)
	}
	if len(opened) == 0 {
		return out
	}
	out.record(wire.Record{Time: now, Kind: wire.KindQuery, Subject: "query." + from, Agent: from, From: from, Task: task,
		MsgID: q.ID, Body: q.Question, Fields: map[string]string{"file": f.Path, "consults": strings.Join(opened, ","), "priority": string(q.Priority)}})
	entry := queryfiles.NewIndexEntry(q)
	entry.Consult = strings.Join(opened, ",")
	out.Files = append(out.Files, FileOp{Query: f.Path, Index: entry})
	l.notice(&out, from, task, fmt.Sprintf("query %s (%s) taken as %s; the answer will be written to %s", q.ID, filepath.Base(f.Path),
		strings.Join(opened, ", "), filepath.Base(queryfiles.ResponsePath(f.Path))), now)
	return out
}

// queryBody is what the consulted agent reads: the question, its options
// and the reference.
func queryBody(q *queryfiles.Query) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(q.Question))
	if len(q.Options) > 0 {
		b.WriteString("\noptions:")
		for _, o := range q.Options {
			b.WriteString("\n- " + o)
		}
	}
	if q.Context.CurrentTask != "" {
		b.WriteString("\ncurrent task: " + q.Context.CurrentTask)
	}
	if q.Context.Reference != "" {
		b.WriteString("\nreference: " + q.Context.Reference)
	}
	b.WriteString("\nReply with type: answer, consult: <this consult id>, your answer in the body (and recommendation: if you have one).")
	return b.String()
}

// queryError records why a query file was not taken and tells its author.
func (l *Lead) queryError(out *Output, f QueryFile, from, why string, now time.Time) {
	if from == "" && len(f.Owners) == 1 {
		from = f.Owners[0]
	}
	out.record(wire.Record{Time: now, Kind: wire.KindQueryError, Subject: "query.error", Agent: from, From: from,
		Body: f.Path, Reason: why, Fields: map[string]string{"file": f.Path}})
	if from != "" {
		l.notice(out, from, "-", fmt.Sprintf("query file %s not taken: %s", filepath.Base(f.Path), why), now)
	}
}

// queryResolved notes that the asking agent marked its query resolved.
func (l *Lead) queryResolved(out *Output, f QueryFile, now time.Time) {
	entry := queryfiles.NewIndexEntry(f.Query)
	out.Files = append(out.Files, FileOp{Query: f.Path, Index: entry})
	out.record(wire.Record{Time: now, Kind: wire.KindQuery, Subject: "query." + f.Query.From, Agent: f.Query.From, From: f.Query.From,
		MsgID: f.Query.ID, Body: "resolved", Fields: map[string]string{"file": f.Path, "status": string(queryfiles.StatusResolved)}})
}

// answerQuery takes the answer to a query-born consultation: the asker gets
// it as an envelope, and the response file is written once every
// consultation of the query has its answer.
func (l *Lead) answerQuery(out *Output, by string, c *consult.Consultation, env *protocol.Envelope, now time.Time) {
	l.recordConsult(out, c, now)
	a := protocol.Envelope{Headers: []protocol.Header{
		{Key: "from", Value: by}, {Key: "to", Value: c.Requester}, {Key: "type", Value: protocol.TypeAnswer},
		{Key: "task", Value: orDash(c.Task)}, {Key: "consult", Value: c.ID}, {Key: "query", Value: filepath.Base(c.Query)}}, Body: env.Body}
	if by == consult.Human {
		a.Set("from", protocol.TeamLead)
		a.Set("answered-by", consult.Human)
	}
	if rec := env.Get("recommendation"); rec != "" {
		a.Set("recommendation", rec)
	}
	l.deliver(out, c.Requester, DeliverRelay, c.ID, &a, now)
	l.closeItem(out, c.ID, by, "answered", now)
	all := l.consults.ForQuery(c.Query)
	var answers, from, recs []string
	for _, o := range all {
		if o.Status != consult.Answered {
			return // wait for the others before writing the response
		}
		last := o.Verdicts[len(o.Verdicts)-1]
		from = append(from, last.By)
		if len(all) > 1 {
			answers = append(answers, last.By+": "+last.Body)
		} else {
			answers = append(answers, last.Body)
		}
	}
	if rec := env.Get("recommendation"); rec != "" {
		recs = append(recs, rec)
	}
	resp := &queryfiles.Response{QueryID: c.QueryID, From: strings.Join(from, ", "), Timestamp: now, Answer: strings.Join(answers, "\n\n"), Recommendation: strings.Join(recs, "; ")}
	out.Files = append(out.Files, FileOp{Query: c.Query, Response: resp, Status: queryfiles.StatusAnswered,
		Index: queryfiles.IndexEntry{ID: c.QueryID, File: filepath.Base(c.Query), Status: queryfiles.StatusAnswered, Answered: now, Response: filepath.Base(queryfiles.ResponsePath(c.Query))}})
}

// agentNamed resolves a query's from: or to: value, an agent name or a
// role (seed 000 writes roles: developer, architect ...), to an agent
// other than not.
func (l *Lead) agentNamed(name, not string) string {
	name = strings.ToLower(strings.TrimSpace(name))
	if m := l.members[name]; m != nil && name != not {
		return name
	}
	for _, n := range l.order {
		if l.members[n].Role == name && n != not {
			return n
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
