package e2e

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/teamlead/teamlead/agents"
)

// questionsYAML is the team-file section using the team folder's
// answerers.yaml, plus more of it.
func questionsYAML(more string) string { return "questions:\n  answerers: answerers.yaml\n" + more }

// writeFile writes a file into the team's folder (before the console starts).
func (tm *team) writeFile(name, text string) {
	tm.t.Helper()
	if err := os.WriteFile(filepath.Join(tm.dir, name), []byte(text), 0o600); err != nil {
		tm.t.Fatal(err)
	}
}

func questionsJSON(t *testing.T, tm *team, args ...string) []map[string]any {
	t.Helper()
	out := tm.mustCLI(append([]string{"questions", "--format", "json"}, args...)...)
	var qs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var q map[string]any
		if err := json.Unmarshal([]byte(line), &q); err != nil {
			t.Fatalf("questions json %q: %v", line, err)
		}
		qs = append(qs, q)
	}
	return qs
}

const routesYAML = `version: "1"
routes:
  - pattern: "architecture.*"
    answerer: agent/architect
    sla: 1h
  - pattern: "knowledge.*"
    answerer: tool/lookup
    sla: 1h
  - pattern: "ops.*"
    answerer: agent/architect
    sla: 400ms
    escalate_to: team/oncall
  - pattern: "oncall.team"
    answerer: team/oncall
    sla: 400ms
    escalate_to: human/lead
  - pattern: "oncall.lead"
    answerer: human/lead
    sla: 400ms
default:
  answerer: human/requester
  sla: 24h
`

// A <gap> routed to an agent answerer: the answerer gets the question in
// PROTOCOL.md section 4's form, answers it, and the asker gets the answer.
func TestGapRoutedToAgentAnswerer(t *testing.T) {
	tm := newTeamWith(t, questionsYAML(""),
		agentDef{name: "dev", flags: []string{"--raw"}, script: `
gap topic=architecture.auth question="Cookies or localStorage?" context="session layer" urgency=high
expect ^answered-by:
idle
`},
		agentDef{name: "architect", flags: []string{"--raw"}, script: `
expect ^context:
expect ^\[/ROUTE\]
route to=team-lead type=answer task=- question=q-0001 body="Cookies, HttpOnly."
idle
`},
	)
	tm.writeFile("answerers.yaml", routesYAML)
	c := tm.start()
	got := tm.waitReceived("architect", "context: session layer\r[/ROUTE]\r")
	if !strings.Contains(got, typed("[ROUTE]", "from: team-lead", "to: architect", "type: question", "question: q-0001", "topic: architecture.auth", "task: -", "body: Cookies or localStorage?", "context: session layer", "[/ROUTE]")) {
		t.Errorf("architect received %q", got)
	}
	ans := tm.waitReceived("dev", "body: Cookies, HttpOnly.")
	if !strings.Contains(ans, typed("[ROUTE]", "from: team-lead", "to: dev", "type: answer", "question: q-0001", "topic: architecture.auth", "task: -", "answered-by: agent/architect", "body: Cookies, HttpOnly.", "[/ROUTE]")) {
		t.Errorf("dev received %q", ans)
	}
	qs := questionsJSON(t, tm, "answered")
	if len(qs) != 1 || qs[0]["answered_by"] != "agent/architect" || qs[0]["urgency"] != "high" {
		t.Errorf("answered questions %v", qs)
	}
	c.stop()
}

// A question for the human, answered from the command line; two answers at
// once: exactly one wins, the other is told who answered when.
func TestHumanAnswerAndConcurrentAnswers(t *testing.T) {
	tm := newTeam(t, agentDef{name: "dev", flags: []string{"--raw"}, script: `
route to=team-lead type=question task=T-3 topic=requirements.scope body="Is mobile in scope?"
expect ^answered-by:
idle
`})
	c := tm.start()
	tm.waitReceived("dev", "as question q-0001, routed to human/requester")
	if out := tm.mustCLI("questions"); !strings.Contains(out, "q-0001") || !strings.Contains(out, "human/requester") || !strings.Contains(out, "Is mobile in scope?") {
		t.Fatalf("pending questions:\n%s", out)
	}
	var wg sync.WaitGroup
	results := make([]string, 2)
	errs := make([]error, 2)
	for i, text := range []string{"Yes, phones only.", "No, desktop first."} {
		wg.Add(1)
		go func(i int, text string) {
			defer wg.Done()
			results[i], errs[i] = tm.cli("answer", "q-0001", text)
		}(i, text)
	}
	wg.Wait()
	won := 0
	for i := range errs {
		if errs[i] == nil {
			won++
		} else if !strings.Contains(results[i], "q-0001 was already answered by human/requester at") {
			t.Errorf("the losing answer says %q", results[i])
		}
	}
	if won != 1 {
		t.Fatalf("%d answers won: %q %v", won, results, errs)
	}
	got := tm.waitReceived("dev", "answered-by: human/requester")
	if strings.Count(got, "type: answer") != 1 {
		t.Errorf("dev got %d answers: %q", strings.Count(got, "type: answer"), got)
	}
	c.stop()
	// Offline, from the store.
	if out := tm.mustCLI("questions", "q-0001"); !strings.Contains(out, "answered by human/requester") {
		t.Errorf("question detail:\n%s", out)
	}
}

func TestToolAnswerer(t *testing.T) {
	dir := t.TempDir()
	tool := filepath.Join(dir, "lookup.sh")
	nsFile := filepath.Join(dir, "tool-ns")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\nreadlink /proc/self/ns/user > "+nsFile+"\nread q\necho \"the docs say: $q ($TEAMLEAD_TOPIC)\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	extra := questionsYAML("  tools:\n    lookup:\n      command: [" + tool + "]\n      timeout: 10s\n")
	tm := newTeamWith(t, extra, agentDef{name: "dev", flags: []string{"--raw"}, script: `
gap topic=knowledge.http question="Is 429 retryable?"
expect ^answered-by:
idle
`})
	tm.writeFile("answerers.yaml", routesYAML)
	c := tm.start()
	got := tm.waitReceived("dev", "answered-by: tool/lookup")
	if !strings.Contains(got, "body: the docs say: Is 429 retryable? (knowledge.http)\r") {
		t.Errorf("dev received %q", got)
	}
	c.stop()
	// The tool is named by a file an agent can write: it runs marked as an
	// agent's, in a user namespace of its own (where the kernel has them).
	theirs, _ := os.ReadFile(nsFile)
	ours, _ := os.Readlink("/proc/self/ns/user")
	if userNamespacesHere(t) && strings.TrimSpace(string(theirs)) == ours {
		t.Errorf("the tool ran in the console's user namespace %s", ours)
	}
}

// userNamespacesHere reports whether this machine gives the test's user a
// user namespace (the console then isolates what it starts).
func userNamespacesHere(t *testing.T) bool {
	t.Helper()
	return agents.Isolate(exec.Command("/bin/true"))
}

// An SLA that escalates twice and then times out, each hop on time.
func TestEscalatesTwiceThenTimesOut(t *testing.T) {
	tm := newTeamWith(t, questionsYAML(""),
		agentDef{name: "dev", flags: []string{"--raw"}, script: "gap topic=ops.db question=\"Is the primary down?\"\nidle\n"},
		agentDef{name: "architect", flags: []string{"--raw"}, script: "idle\n"},
	)
	tm.writeFile("answerers.yaml", routesYAML)
	c := tm.start()
	var q map[string]any
	waitFor(t, 20*time.Second, "the question to time out", func() bool {
		qs := questionsJSON(t, tm, "timeout")
		if len(qs) == 1 {
			q = qs[0]
		}
		return q != nil
	})
	hops := q["hops"].([]any)
	var to []string
	var at []time.Time
	for _, h := range hops {
		hm := h.(map[string]any)
		to = append(to, hm["to"].(string))
		ts, _ := time.Parse(time.RFC3339Nano, hm["at"].(string))
		at = append(at, ts)
	}
	if strings.Join(to, ",") != "agent/architect,team/oncall,human/lead" {
		t.Fatalf("chain %v", to)
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < 400*time.Millisecond || gap > 3*time.Second {
			t.Errorf("hop %d came %v after the previous one; the SLA is 400ms", i, gap)
		}
	}
	audit := tm.mustCLI("audit", "--format", "csv")
	if strings.Count(audit, "question-escalate") != 2 || strings.Count(audit, "question.timeout.q-0001") != 4 {
		t.Errorf("audit: %d escalations, %d timeout events\n%s", strings.Count(audit, "question-escalate"), strings.Count(audit, "question.timeout.q-0001"), audit)
	}
	c.stop()
}

// A console killed with pending questions comes back with their deadlines:
// the escalation happens on time, not restarted from zero nor lost.
func TestQuestionDeadlineSurvivesKill(t *testing.T) {
	routes := `routes:
  - pattern: "ops.*"
    answerer: human/first
    sla: 3s
    escalate_to: human/second
  - pattern: "x.second"
    answerer: human/second
    sla: 1h
`
	tm := newTeamWith(t, questionsYAML(""), agentDef{name: "dev", flags: []string{"--raw"}, script: "gap topic=ops.db question=\"Is the primary down?\"\nidle\n"})
	tm.writeFile("answerers.yaml", routes)
	c := tm.start()
	var created time.Time
	waitFor(t, 10*time.Second, "the question", func() bool {
		qs := questionsJSON(t, tm)
		if len(qs) == 1 {
			created, _ = time.Parse(time.RFC3339Nano, qs[0]["created"].(string))
		}
		return !created.IsZero()
	})
	c.kill()
	tm.write("team.yaml", []agentDef{{name: "dev", flags: []string{"--raw"}, script: "idle\n"}})
	c2 := tm.start()
	var escalated time.Time
	waitFor(t, 20*time.Second, "the escalation after the restart", func() bool {
		qs := questionsJSON(t, tm, "q-0001")
		if len(qs) == 1 && qs[0]["answerer"] == "human/second" {
			hops := qs[0]["hops"].([]any)
			escalated, _ = time.Parse(time.RFC3339Nano, hops[len(hops)-1].(map[string]any)["at"].(string))
		}
		return !escalated.IsZero()
	})
	if d := escalated.Sub(created); d < 3*time.Second || d > 6*time.Second {
		t.Errorf("escalated %v after the question was asked; the SLA is 3s", d)
	}
	c2.stop()
}

// teamlead ask from an agent's own shell reaches the console through
// TEAMLEAD_SOCKET, and the asker is the agent whose session the process is
// in, whatever it claims.
func TestAskFromAgentShellCannotForgeAsker(t *testing.T) {
	tm := newTeam(t, agentDef{name: "dev", command: []string{"sh", "-c",
		`echo ready; TEAMLEAD_AGENT=qa "` + bin.teamlead + `" ask --task T-5 --urgency blocking api.pagination 'Does the API paginate?'; echo asked-$?; sleep 100`}},
		agentDef{name: "qa", script: "idle\n"})
	c := tm.start()
	var qs []map[string]any
	waitFor(t, 20*time.Second, "the question", func() bool {
		qs = questionsJSON(t, tm)
		return len(qs) == 1
	})
	if qs[0]["asker"] != "dev" || qs[0]["task"] != "T-5" || qs[0]["urgency"] != "blocking" || qs[0]["text"] != "Does the API paginate?" {
		t.Errorf("question %v", qs[0])
	}
	// A blocking question marks its asker blocked until answered.
	if out := tm.mustCLI("agents"); !strings.Contains(out, "running (blocked on a question)") {
		t.Errorf("agents:\n%s", out)
	}
	tm.mustCLI("answer", "q-0001", "yes, with cursors")
	if out := tm.mustCLI("agents"); strings.Contains(out, "blocked") {
		t.Errorf("still blocked after the answer:\n%s", out)
	}
	// From outside any agent, the asker is the human.
	out := tm.mustCLI("ask", "requirements.scope", "Is", "mobile", "in", "scope?")
	if !strings.Contains(out, "q-0002 routed to human/requester") {
		t.Errorf("ask: %s", out)
	}
	if q := questionsJSON(t, tm, "q-0002"); len(q) != 1 || q[0]["asker"] != "human" {
		t.Errorf("human question %v", q)
	}
	c.stop()
}

// A route's notify URL posts JSON to the endpoint the team file maps it to.
func TestWebhookNotification(t *testing.T) {
	got := make(chan map[string]string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]string
		if err := json.NewDecoder(r.Body).Decode(&body); err == nil && r.URL.Path == "/hook" && r.Header.Get("Content-Type") == "application/json" {
			got <- body
		}
	}))
	defer srv.Close()
	routes := "routes:\n  - pattern: \"security.*\"\n    answerer: team/security\n    sla: 1h\n    notify: webhook://security-alerts\n"
	extra := questionsYAML("  notify:\n    \"webhook://security-alerts\": " + srv.URL + "/hook\n")
	tm := newTeamWith(t, extra, agentDef{name: "dev", flags: []string{"--raw"}, script: "gap topic=security.tokens question=\"Rotate keys weekly?\"\nidle\n"})
	tm.writeFile("answerers.yaml", routes)
	c := tm.start()
	select {
	case body := <-got:
		if body["subject"] != "notification.webhook.security-alerts" || !strings.Contains(body["text"], "Rotate keys weekly?") || !strings.Contains(body["title"], "team/security") {
			t.Errorf("posted %v", body)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no notification posted")
	}
	c.stop()
}
