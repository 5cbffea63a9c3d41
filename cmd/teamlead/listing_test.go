package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/protocol"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
)

// offline is a project folder with a team file and a state folder whose
// store holds a little of everything, and no console running.
type offline struct {
	dir, config, state string
}

// newOffline writes the team file (one agent, dev, with a progress file)
// and fills the store; the registry of consoles is the test's own.
func newOffline(t *testing.T) *offline {
	t.Helper()
	isolate(t)
	o := &offline{dir: t.TempDir()}
	o.config = filepath.Join(o.dir, "team.yaml")
	o.state = filepath.Join(o.dir, "state")
	work := filepath.Join(o.dir, "dev")
	team := "agents:\n  - name: dev\n    role: developer\n    restart: never\n    dir: " + work + "\n    command: [sh, -c, 'sleep 1']\n"
	if err := os.WriteFile(o.config, []byte(team), 0o600); err != nil {
		t.Fatal(err)
	}
	progress := `{"version": "2.0", "workflow_id": "wf-1", "task": {"summary": "Add SSE"}, "status": "in_progress",
"current_step": 2, "total_steps": 3, "completed_steps": [{"step": 1, "expert": "dev", "action": "design", "duration_ms": 1500}],
"next_step": {"step": 2, "expert": "dev", "action": "implement"}}`
	if err := os.MkdirAll(filepath.Join(work, ".claude", "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".claude", "state", "progress.json"), []byte(progress), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(filepath.Join(o.state, "store"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	now := time.Now().Add(-time.Minute)
	q := questions.Question{ID: "q-0001", Topic: "staging", Text: "May I run the load test tonight?", Urgency: "normal", Asker: "dev",
		Task: "T-1", Status: questions.Pending, Answerer: "human/requester", AssignedAt: now, Created: now, Deadline: now.Add(time.Hour),
		Hops: []questions.Hop{{To: "human/requester", At: now, Why: "routed by the default route"}}}
	agentQ := q
	agentQ.ID, agentQ.Answerer, agentQ.Text = "q-0002", "agent/architect", "Which transport?"
	task := tasks.Task{ID: "T-1", State: tasks.StateInProgress, Developer: "dev", Created: now, Updated: now,
		History: []tasks.Transition{{To: tasks.StateInProgress, At: now, By: "dev", Note: "created"}}}
	c := consult.Consultation{ID: "c-1", Requester: "dev", RequesterRole: "developer", Consulted: "dev", ConsultedRole: "developer",
		Decision: "infrastructure", Task: "T-1", Body: "NATS", Status: consult.Pending, Created: now}
	perm := approvals.Request{ID: "p-2", Agent: "dev", Action: "Bash(rm -rf /srv/x)", Task: "T-1", Policy: "ask", Rule: "floor delete-recursive-outside",
		Risk: "critical", Why: "rm of /srv/x: a recursive delete reaches outside the working directory", Status: approvals.Pending, Created: now}
	meta := map[string]string{}
	for key, v := range map[string]any{lead.QuestionKey(q.ID): q, lead.QuestionKey(agentQ.ID): agentQ, lead.MetaTask + task.ID: task,
		lead.MetaConsult + c.ID: c, lead.MetaPermission + perm.ID: perm} {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		meta[key] = string(b)
	}
	meta[lead.StatusPrefix(questions.Pending)+q.ID] = ""
	meta[lead.StatusPrefix(questions.Pending)+agentQ.ID] = ""
	permText := fmt.Sprintf("dev wants %s — risk %s — %s: %s\n%s — the old files fill the disk.", perm.Action, perm.Risk, perm.Rule, perm.Why, perm.Action)
	b := store.Batch{Meta: meta, Records: []store.Record{
		{Time: now, Kind: "agent", Agent: "dev", Reason: "exited", Fields: map[string]string{"restarts": "0"}},
		{Time: now, Kind: wire.KindInbox, Agent: "dev", From: "dev", Type: protocol.TypeBlocker, Task: "T-1", MsgID: "m-3", Body: "May I drop the legacy API?"},
		{Time: now, Kind: wire.KindInbox, Agent: "dev", From: "dev", Type: protocol.TypePermission, Task: "T-1", MsgID: perm.ID, Body: permText,
			Fields: map[string]string{"permission": perm.ID, "action": perm.Action, "risk": perm.Risk, "rule": perm.Rule}},
		{Time: now, Kind: wire.KindInbox, Agent: "dev", From: "dev", Type: protocol.TypeBlocker, MsgID: "m-4", Body: "dropped later"},
		{Time: now, Kind: wire.KindDropped, Agent: "dev", MsgID: "m-4"},
	}}
	if err := st.Commit(&b); err != nil {
		t.Fatal(err)
	}
	return o
}

// isolate gives the test its own registry of running consoles and no
// TEAMLEAD_* variables from the environment.
func isolate(t *testing.T) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	for _, k := range []string{"TEAMLEAD_STATE", "TEAMLEAD_CONFIG", "TEAMLEAD_SOCKET"} {
		t.Setenv(k, "")
	}
}

// run runs teamlead ARGS against the folder's state and team file.
func (o *offline) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	return runCLI(t, append(args, "--state", o.state, "--config", o.config)...)
}

// listings are the listing commands: each takes --format table|json.
var listings = [][]string{{"agents"}, {"inbox"}, {"questions"}, {"questions", "all"}, {"tasks"}, {"progress"}, {"consults"}, {"audit"}, {"permissions", "list"}}

// badFormat is the error of every listing for an unknown format.
var badFormat = regexp.MustCompile(`^--format: "yaml": use table(, json or csv| or json)$`)

// snake is a JSON key the way every listing spells it.
var snake = regexp.MustCompile(`^[a-z][a-z0-9]*(_[a-z0-9]+)*$`)

// checkJSON fails on a key that is not snake_case, a zero time, or a time
// (a key ending in _at, or a known time key) that is not RFC 3339.
func checkJSON(t *testing.T, where string, v any, path string) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if !snake.MatchString(k) && !strings.HasSuffix(path, ".fields") {
				t.Errorf("%s: key %s%s is not snake_case", where, path, "."+k)
			}
			if s, ok := x.(string); ok && isTimeKey(k) {
				if _, err := time.Parse(time.RFC3339Nano, s); err != nil {
					t.Errorf("%s: %s.%s = %q is not RFC 3339", where, path, k, s)
				}
			}
			checkJSON(t, where, x, path+"."+k)
		}
	case []any:
		for i, x := range v {
			checkJSON(t, where, x, fmt.Sprintf("%s[%d]", path, i))
		}
	case string:
		if strings.HasPrefix(v, "0001-01-01") {
			t.Errorf("%s: %s is the zero time %q: leave it out", where, path, v)
		}
	}
}

func isTimeKey(k string) bool {
	switch k {
	case "time", "since", "created", "updated", "deadline", "changed", "at", "decided":
		return true
	}
	return strings.HasSuffix(k, "_at")
}

// Every listing command takes --format table|json; its JSON is one object
// a line with snake_case keys, times in RFC 3339 and zero times left out;
// an unknown format is refused the same way everywhere.
func TestListingsFormat(t *testing.T) {
	o := newOffline(t)
	for _, args := range listings {
		name := strings.Join(args, " ")
		if _, err := o.run(t, append(args, "--format", "table")...); err != nil {
			t.Errorf("%s --format table: %v", name, err)
		}
		out, err := o.run(t, append(args, "--format", "json")...)
		if err != nil {
			t.Errorf("%s --format json: %v\n%s", name, err, out)
			continue
		}
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if strings.TrimSpace(out) == "" {
			t.Errorf("%s --format json printed nothing", name)
		}
		for _, line := range lines {
			var v map[string]any
			if err := json.Unmarshal([]byte(line), &v); err != nil {
				t.Errorf("%s --format json: line %q: %v", name, line, err)
				continue
			}
			checkJSON(t, name, v, "")
		}
		out, err = o.run(t, append(args, "--format", "yaml")...)
		if err == nil || !badFormat.MatchString(err.Error()) {
			t.Errorf("%s --format yaml: %v\n%s", name, err, out)
		}
	}
}

// The JSON of each listing has the fields a program reads, under stable
// names.
func TestListingsJSONFields(t *testing.T) {
	o := newOffline(t)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"agents"}, []string{`"name":"dev"`, `"role":"developer"`, `"state":"not running","last_state":"exited"`, `"restarts":0`, `"live":false`}},
		{[]string{"progress"}, []string{`"agent":"dev"`, `"workflow_id":"wf-1"`, `"current_step":2`, `"total_steps":3`, `"next_step":{"step":2,"expert":"dev","action":"implement"}`, `"duration_ms":1500`}},
		{[]string{"questions"}, []string{`"id":"q-0001"`, `"asker":"dev"`, `"topic":"staging"`}},
		{[]string{"tasks"}, []string{`"id":"T-1"`, `"state":"in-progress"`}},
	} {
		out, err := o.run(t, append(tc.args, "--format", "json")...)
		if err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v --format json lacks %s:\n%s", tc.args, w, out)
			}
		}
	}
}

// The inbox lists the questions waiting for a person or a team next to
// the lead's items (as the console's Inbox does), not those an agent
// answers, and not an item dropped.
func TestInboxListsQuestions(t *testing.T) {
	o := newOffline(t)
	out, err := o.run(t, "inbox")
	if err != nil {
		t.Fatal(err, out)
	}
	row := lineContaining(out, "q-0001")
	for _, want := range []string{"dev", "question", "T-1", "May I run the load test tonight?", "topic staging"} {
		if !strings.Contains(row, want) {
			t.Errorf("the row of q-0001 lacks %q:\n%s", want, out)
		}
	}
	for _, not := range []string{"q-0002", "m-4"} {
		if strings.Contains(out, not) {
			t.Errorf("the inbox lists %s:\n%s", not, out)
		}
	}
	if !strings.Contains(out, "m-3") || !strings.Contains(out, "p-2") {
		t.Errorf("the inbox lacks the lead's items:\n%s", out)
	}
	js, err := o.run(t, "inbox", "--format", "json")
	if err != nil || !strings.Contains(js, `{"id":"q-0001","from":"dev","type":"question","task":"T-1","text":"May I run the load test tonight?","topic":"staging","urgency":"normal","answerer":"human/requester"`) {
		t.Errorf("inbox --format json: %v\n%s", err, js)
	}
}

// A permission request's row keeps the agent's words (TEXT) apart from the
// policy's explanation (NOTE), each cut to its column.
func TestInboxSeparatesTextFromNote(t *testing.T) {
	o := newOffline(t)
	out, err := o.run(t, "inbox")
	if err != nil {
		t.Fatal(err, out)
	}
	header, row := lineContaining(out, "ID "), lineContaining(out, "p-2")
	text, note := strings.Index(header, "TEXT"), strings.Index(header, "NOTE")
	if text < 0 || note < 0 || len(row) < note {
		t.Fatalf("no TEXT and NOTE columns:\n%s", out)
	}
	if got := strings.TrimSpace(row[text:note]); got != "Bash(rm -rf /srv/x) — the old files fill the disk." {
		t.Errorf("TEXT of p-2 = %q:\n%s", got, out)
	}
	got := strings.TrimSpace(row[note:])
	if !strings.HasPrefix(got, "risk critical, floor delete-recursive-outside: rm of /srv/x: a recursive") || !strings.HasSuffix(got, "…") ||
		len([]rune(got)) > inboxNoteWidth || strings.Contains(got, "old files") {
		t.Errorf("NOTE of p-2 = %q:\n%s", got, out)
	}
	js, _ := o.run(t, "inbox", "--format", "json")
	if !strings.Contains(js, `"note":"risk critical, floor delete-recursive-outside: rm of /srv/x: a recursive delete reaches outside the working directory"`) ||
		!strings.Contains(js, `"action":"Bash(rm -rf /srv/x)","risk":"critical","rule":"floor delete-recursive-outside"`) {
		t.Errorf("inbox --format json:\n%s", js)
	}
}

// lineOf is the first line of out containing s.
func lineContaining(out, s string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}

// The line under a listing counts in words: one task, not "1 tasks".
func TestListingSummaryCountsInWords(t *testing.T) {
	o := newOffline(t)
	for cmd, want := range map[string]string{"tasks": "\n1 task: 1 in-progress\n", "consults": "\n1 consultation: 1 pending"} {
		out, err := o.run(t, cmd)
		if err != nil || !strings.Contains(out, want) {
			t.Errorf("%s: %v\n%s\nwant %q", cmd, err, out, want)
		}
	}
}
