package control

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/lead"
	"github.com/teamlead/teamlead/internal/questions"
	"github.com/teamlead/teamlead/internal/store"
)

// readAs sends req over srv's socket from a child process the console
// names as agent (its teamlead CLI in the agent's sandbox), and returns
// the reply lines.
func readAs(t *testing.T, con *fakeConsole, srv *Server, agent, req string) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	con.mu.Lock()
	con.asAgent = agent
	con.mu.Unlock()
	defer func() {
		con.mu.Lock()
		con.asAgent = ""
		con.mu.Unlock()
	}()
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), "TEAMLEAD_TEST_DIAL="+srv.Path(), "TEAMLEAD_TEST_REQ="+req)
	out, _ := cmd.CombinedOutput()
	if strings.Contains(string(out), `"error"`) {
		t.Fatalf("%s as %s: %s", req, agent, out)
	}
	return string(out)
}

// commitMeta stores key/value pairs as the console's engine does.
func commitMeta(t *testing.T, con *fakeConsole, key string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := con.st.Commit(&store.Batch{Meta: map[string]string{key: string(b)}}); err != nil {
		t.Fatal(err)
	}
}

// The human's answer to b's question reaches b, and no other agent's
// audit or questions (red team 18b, finding 2: a read b's password in
// the question-answer record, in teamlead questions q-0001 and in
// questions answered --format json).
func TestAnswerWithheldFromOtherAgents(t *testing.T) {
	con, dir := newConsole(t)
	const secret = "HUMAN-ANSWER-SECRET-pw=hunter2"
	now := time.Now()
	con.commit(t,
		store.Record{Kind: "question", Subject: "question.ask.q-0001", Agent: "b", From: "b", Type: "question", MsgID: "q-0001",
			Body: "What is the staging DB password?", Fields: map[string]string{"topic": "ops.deploy", "answerer": "human/requester"}},
		store.Record{Kind: "question-answer", Subject: "question.answer.q-0001", Agent: "b", From: "b", Type: "question", MsgID: "q-0001",
			Body: secret, Fields: map[string]string{"topic": "ops.deploy", "answerer": "human/requester", "status": "answered"}})
	commitMeta(t, con, lead.StatusPrefix(questions.Answered)+"q-0001", "")
	commitMeta(t, con, lead.QuestionKey("q-0001"), questions.Question{ID: "q-0001", Asker: "b", Topic: "ops.deploy",
		Text: "What is the staging DB password?", Answerer: "human/requester", Status: questions.Answered,
		Answer: secret, AnsweredBy: "human/requester", AnsweredAt: now})
	srv := listen(t, con, dir)

	reads := []string{`{"cmd":"audit"}`, `{"cmd":"questions","id":"q-0001"}`, `{"cmd":"questions","status":"answered"}`, `{"cmd":"questions","status":"all"}`}
	for _, req := range reads {
		out := readAs(t, con, srv, "a", req)
		if strings.Contains(out, "hunter2") || !strings.Contains(out, "withheld") {
			t.Errorf("agent a read %s as: %s", req, out)
		}
		// What was asked, and that it was answered, by whom, stay visible.
		if !strings.Contains(out, "staging DB password") && req != `{"cmd":"audit"}` || !strings.Contains(out, "human/requester") {
			t.Errorf("agent a lost the question's metadata in %s: %s", req, out)
		}
		if out := readAs(t, con, srv, "b", req); !strings.Contains(out, secret) {
			t.Errorf("b, the asker, lost the answer to its own question in %s: %s", req, out)
		}
	}
	// A process the console cannot name is no agent the answer is for.
	if out := readAs(t, con, srv, "", `{"cmd":"questions","id":"q-0001"}`); strings.Contains(out, "hunter2") {
		t.Errorf("an unnamed agent process read the answer: %s", out)
	}
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	qs, err := c.Questions("all", "")
	if err != nil || len(qs) != 1 || qs[0].Answer != secret {
		t.Errorf("the human's questions: %+v, %v", qs, err)
	}

	// An agent that answered sees its answer; the asker too.
	commitMeta(t, con, lead.QuestionKey("q-0002"), questions.Question{ID: "q-0002", Asker: "b", Topic: "code.review",
		Text: "Is the patch right?", Answerer: "agent/qa", Status: questions.Answered,
		Answer: "QA-ANSWER-words", AnsweredBy: "agent/qa", AnsweredAt: now})
	for agent, sees := range map[string]bool{"b": true, "qa": true, "a": false} {
		if got := strings.Contains(readAs(t, con, srv, agent, `{"cmd":"questions","id":"q-0002"}`), "QA-ANSWER-words"); got != sees {
			t.Errorf("%s sees qa's answer to b: %v, want %v", agent, got, sees)
		}
	}
}

// The human's deny message to a reaches a, and no other agent's audit or
// permissions (red team 18b, finding 2: b read "denied by the human:
// DENY-SECRET-use-token-XYZ" in a's permission record).
func TestDenyMessageWithheldFromOtherAgents(t *testing.T) {
	con, dir := newConsole(t)
	const secret = "DENY-SECRET-use-token-XYZ"
	con.commit(t, store.Record{Kind: "permission", Subject: "permission.request.a", Agent: "a", From: "a", Type: "permission", MsgID: "p-2",
		Body:   "Bash(git push origin main) denied by the human: " + secret,
		Fields: map[string]string{"action": "Bash(git push origin main)", "status": "denied", "decided_by": "human"}})
	commitMeta(t, con, lead.MetaPermission+"p-2", approvals.Request{ID: "p-2", Agent: "a", Action: "Bash(git push origin main)",
		Status: approvals.Denied, DecidedBy: "human", Note: secret})
	srv := listen(t, con, dir)
	for _, req := range []string{`{"cmd":"audit"}`, `{"cmd":"permissions"}`} {
		out := readAs(t, con, srv, "b", req)
		if strings.Contains(out, "DENY-SECRET") || !strings.Contains(out, "withheld") || !strings.Contains(out, "denied") {
			t.Errorf("agent b read %s as: %s", req, out)
		}
		if out := readAs(t, con, srv, "a", req); !strings.Contains(out, secret) {
			t.Errorf("a lost the human's message to it in %s: %s", req, out)
		}
	}
	c, err := NewClient(dir)
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	if err := c.Audit(store.Query{}, func(r store.Record) error { bodies = append(bodies, r.Body); return nil }); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(bodies, "\n"), secret) {
		t.Errorf("the human's audit lost their own words: %q", bodies)
	}
}

// The human's verdict on a consultation reaches its two parties, and no
// third agent's consults or consult-query.
func TestVerdictWithheldFromOtherAgents(t *testing.T) {
	con, dir := newConsole(t)
	const secret = "VERDICT-SECRET-rotate-key-42"
	now := time.Now()
	commitMeta(t, con, lead.MetaConsult+"c-1", consult.Consultation{ID: "c-1", Requester: "dev", Consulted: "sec", Decision: "auth.tokens",
		Body: "may I keep tokens in env?", Status: consult.Rejected, Created: now,
		Verdicts: []consult.Verdict{{By: consult.Human, Verdict: consult.Rejected, Body: secret, At: now}}})
	srv := listen(t, con, dir)
	for _, req := range []string{`{"cmd":"consults"}`, `{"cmd":"consult-query"}`} {
		out := readAs(t, con, srv, "qa", req)
		if strings.Contains(out, "VERDICT-SECRET") || !strings.Contains(out, "withheld") || !strings.Contains(out, "may I keep tokens") {
			t.Errorf("agent qa read %s as: %s", req, out)
		}
		for _, party := range []string{"dev", "sec"} {
			if out := readAs(t, con, srv, party, req); !strings.Contains(out, secret) {
				t.Errorf("%s, party to c-1, lost the verdict in %s: %s", party, req, out)
			}
		}
	}
}

// The text left in an agent's input box when its submit key was pressed
// again is what was typed into it, the human's words often: it is that
// agent's to read, no other's (red team 21b, finding 2: the human's
// message to victim in a submit-stuck record, read by evil).
func TestTypedTextWithheldFromOtherAgents(t *testing.T) {
	con, dir := newConsole(t)
	con.commit(t,
		store.Record{Kind: "submit-stuck", Subject: "agent.b.input", Agent: "b", Body: "HUMAN-SECRET: the prod db password is hunter2",
			Reason: "the text still waits in the input box after the submit key was pressed 3 more times"},
		store.Record{Kind: "resubmit", Subject: "agent.b.input", Agent: "b", Body: "the answer is hunter2",
			Reason: "the text still waited in the input box; the submit key was pressed once more and it was taken"})
	srv := listen(t, con, dir)
	for _, format := range []string{`{"cmd":"audit"}`, `{"cmd":"audit","format":"json"}`} {
		if out := readAs(t, con, srv, "a", format); strings.Contains(out, "hunter2") || !strings.Contains(out, "withheld") {
			t.Errorf("agent a read %s as: %s", format, out)
		}
		if out := readAs(t, con, srv, "b", format); !strings.Contains(out, "hunter2") {
			t.Errorf("agent b could not read its own input in %s: %s", format, out)
		}
	}
}
