package questions

import (
	"errors"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)

const chainYAML = `version: "1"
routes:
  - pattern: "architecture.*"
    answerer: agent/architect
    sla: 1h
    escalate_to: team/architecture
  - pattern: "loop.*"
    answerer: agent/architect
    sla: 10m
    escalate_to: team/loop
  - pattern: "never.*"
    answerer: agent/ghost
    capability: planning
    sla: 5m
  - pattern: "knowledge.*"
    answerer: tool/web-search
    sla: 5m
  - pattern: "team.architecture"
    answerer: team/architecture
    sla: 4h
    escalate_to: human/tech-lead
  - pattern: "team.loop"
    answerer: team/loop
    sla: 1m
    escalate_to: agent/architect
  - pattern: "human.tech-lead"
    answerer: human/tech-lead
    sla: 24h
    notify: slack://leads
default:
  answerer: human/requester
  sla: 24h
`

func machine(t *testing.T) *Machine {
	t.Helper()
	r, err := ParseRoutes("answerers.yaml", []byte(chainYAML))
	if err != nil {
		t.Fatal(err)
	}
	return New(Config{Routes: r, Agents: []string{"dev", "architect", "planner"}, Capabilities: map[string][]string{"planning": {"dev", "planner"}}})
}

func subjects(e Effects) string {
	var s []string
	for _, r := range e.Records {
		s = append(s, strings.SplitN(r.Subject, ".q-", 2)[0])
	}
	return strings.Join(s, ",")
}

func TestAskRoutesToAgentWithProtocolEnvelope(t *testing.T) {
	m := machine(t)
	q, eff, err := m.Ask(Ask{Asker: "dev", Topic: "Architecture.Auth", Text: "Cookies?", Context: "session layer", Urgency: "high", Task: "T-12"}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if q.ID != "q-0001" || q.Answerer != "agent/architect" || !q.Deadline.Equal(t0.Add(time.Hour)) || q.EscalateTo != "team/architecture" {
		t.Errorf("question %+v", q)
	}
	want := "[ROUTE]\nfrom: team-lead\nto: architect\ntype: question\nquestion: q-0001\ntopic: architecture.auth\ntask: T-12\nbody: Cookies?\ncontext: session layer\n[/ROUTE]"
	if len(eff.Deliveries) != 1 || eff.Deliveries[0].Agent != "architect" || eff.Deliveries[0].Text != want {
		t.Errorf("delivery %+v\nwant %q", eff.Deliveries, want)
	}
	if subjects(eff) != "question.ask,agent.task.question-answerer" {
		t.Errorf("subjects %s", subjects(eff))
	}
	if _, _, err := m.Ask(Ask{Asker: "dev", Topic: "", Text: "x"}, t0); !errors.Is(err, ErrInvalid) {
		t.Errorf("no topic: %v", err)
	}
}

func TestEscalationChainThenTimeout(t *testing.T) {
	m := machine(t)
	q, _, _ := m.Ask(Ask{Asker: "dev", Topic: "architecture.db", Text: "Postgres?"}, t0)
	if at, ok := m.NextDeadline(); !ok || !at.Equal(t0.Add(time.Hour)) {
		t.Fatalf("next deadline %v %v", at, ok)
	}
	// Not yet: nothing happens, even on repeated ticks (no re-firing).
	for i := 0; i < 3; i++ {
		if eff := m.Tick(t0.Add(59 * time.Minute)); len(eff.Records) != 0 {
			t.Fatalf("early tick: %+v", eff)
		}
	}
	// 1h: agent/architect → team/architecture (its own SLA: 4h).
	eff := m.Tick(t0.Add(time.Hour))
	got, _ := m.Get(q.ID)
	if got.Answerer != "team/architecture" || !got.Deadline.Equal(t0.Add(5*time.Hour)) || got.EscalateTo != "human/tech-lead" {
		t.Fatalf("after first escalation: %+v", got)
	}
	if subjects(eff) != "question.timeout,question.escalate,human.questions" {
		t.Errorf("subjects %s", subjects(eff))
	}
	if eff := m.Tick(t0.Add(time.Hour + time.Second)); len(eff.Records) != 0 {
		t.Errorf("re-fired: %+v", eff)
	}
	// 5h: → human/tech-lead (24h), with its notify.
	eff = m.Tick(t0.Add(5 * time.Hour))
	got, _ = m.Get(q.ID)
	if got.Answerer != "human/tech-lead" || !got.Deadline.Equal(t0.Add(29*time.Hour)) || len(eff.Notify) != 1 || eff.Notify[0].Subject != "notification.slack.leads" {
		t.Fatalf("after second escalation: %+v %+v", got, eff.Notify)
	}
	// 29h: nothing left → timeout, the human told, no longer pending.
	eff = m.Tick(t0.Add(29 * time.Hour))
	if _, ok := m.Get(q.ID); ok {
		t.Fatal("still pending after the chain ended")
	}
	last := eff.Questions[len(eff.Questions)-1]
	if last.Status != TimedOut || len(last.Hops) != 3 {
		t.Errorf("final %+v", last)
	}
	if len(eff.Notify) == 0 || !strings.Contains(eff.Notify[len(eff.Notify)-1].Title, "timed out: no escalate_to left") {
		t.Errorf("notify %+v", eff.Notify)
	}
	if _, ok := m.NextDeadline(); ok {
		t.Error("a deadline is left")
	}
}

func TestEscalationCycleStops(t *testing.T) {
	m := machine(t)
	q, _, _ := m.Ask(Ask{Asker: "dev", Topic: "loop.x", Text: "?"}, t0)
	m.Tick(t0.Add(10 * time.Minute)) // architect → team/loop
	got, _ := m.Get(q.ID)
	if got.Answerer != "team/loop" {
		t.Fatalf("%+v", got)
	}
	eff := m.Tick(t0.Add(11 * time.Minute)) // team/loop → agent/architect again: a cycle
	if _, ok := m.Get(q.ID); ok {
		t.Fatal("cycle not stopped")
	}
	final := eff.Questions[len(eff.Questions)-1]
	if final.Status != TimedOut || !strings.Contains(eff.Records[len(eff.Records)-1].Body, "escalation cycle back to agent/architect") {
		t.Errorf("%+v\n%+v", final, eff.Records)
	}
}

func TestCapabilityPicksAgentNotAsker(t *testing.T) {
	m := machine(t)
	q, eff, _ := m.Ask(Ask{Asker: "dev", Topic: "never.x", Text: "?"}, t0)
	if q.Answerer != "agent/planner" || eff.Deliveries[0].Agent != "planner" {
		t.Errorf("picked %s", q.Answerer)
	}
	q2, _, _ := m.Ask(Ask{Asker: "planner", Topic: "never.y", Text: "?"}, t0)
	if q2.Answerer != "agent/dev" {
		t.Errorf("picked %s for planner's own question", q2.Answerer)
	}
}

func TestAnswerIsCompareAndSet(t *testing.T) {
	m := machine(t)
	q, _, _ := m.Ask(Ask{Asker: "dev", Topic: "architecture.auth", Text: "Cookies?", Task: "T-1"}, t0)
	if _, _, err := m.Answer(q.ID, "agent/dev", "yes", t0); !errors.Is(err, ErrNotAssigned) {
		t.Errorf("answer from an agent it was not assigned to: %v", err)
	}
	got, eff, err := m.Answer(q.ID, "agent/architect", "HttpOnly cookies.", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	want := "[ROUTE]\nfrom: team-lead\nto: dev\ntype: answer\nquestion: q-0001\ntopic: architecture.auth\ntask: T-1\nanswered-by: agent/architect\nbody: HttpOnly cookies.\n[/ROUTE]"
	if got.Status != Answered || len(eff.Deliveries) != 1 || eff.Deliveries[0].Text != want || eff.Deliveries[0].Agent != "dev" {
		t.Errorf("%+v %+v", got, eff.Deliveries)
	}
	if _, _, err := m.Answer(q.ID, Requester, "no, localStorage", t0.Add(2*time.Minute)); !errors.Is(err, ErrNotPending) {
		t.Errorf("second answer: %v", err)
	}
}

func TestHumanAnswersAnyAndHumanAskerGetsNoDelivery(t *testing.T) {
	m := machine(t)
	q, _, _ := m.Ask(Ask{Asker: "human", Topic: "architecture.x", Text: "?"}, t0)
	_, eff, err := m.Answer(q.ID, Requester, "done", t0)
	if err != nil || len(eff.Deliveries) != 0 {
		t.Errorf("%v %+v", err, eff.Deliveries)
	}
}

func TestRestoreKeepsDeadlines(t *testing.T) {
	m := machine(t)
	q, _, _ := m.Ask(Ask{Asker: "dev", Topic: "architecture.db", Text: "?"}, t0)
	saved, _ := m.Get(q.ID)
	// A new machine (a restarted console) from the stored question.
	r, _ := ParseRoutes("answerers.yaml", []byte(chainYAML))
	m2 := New(Config{Routes: r, Agents: []string{"dev", "architect"}, Next: m.Next(), Pending: []Question{saved}})
	if at, ok := m2.NextDeadline(); !ok || !at.Equal(t0.Add(time.Hour)) {
		t.Fatalf("deadline after restart %v", at)
	}
	if eff := m2.Tick(t0.Add(time.Hour)); len(eff.Questions) == 0 {
		t.Error("no escalation after restart")
	}
	q2, _, _ := m2.Ask(Ask{Asker: "dev", Topic: "x", Text: "?"}, t0)
	if q2.ID != "q-0002" {
		t.Errorf("ids reused: %s", q2.ID)
	}
}

func TestSortForHuman(t *testing.T) {
	qs := []Question{
		{ID: "a", Status: Answered, Urgency: "blocking"},
		{ID: "b", Status: Pending, Urgency: "low", Deadline: t0},
		{ID: "c", Status: Pending, Urgency: "blocking"},
		{ID: "d", Status: Pending, Urgency: "high", Deadline: t0.Add(time.Hour)},
		{ID: "e", Status: Pending, Urgency: "high", Deadline: t0},
	}
	SortForHuman(qs)
	var order []string
	for _, q := range qs {
		order = append(order, q.ID)
	}
	if strings.Join(order, "") != "cedba" {
		t.Errorf("order %v", order)
	}
}

func TestParseID(t *testing.T) {
	for in, want := range map[string]string{"q-7f3a": "q-7f3a", " Q-0001 ": "q-0001"} {
		if got, ok := ParseID(in); !ok || got != want {
			t.Errorf("ParseID(%q) = %q %v", in, got, ok)
		}
	}
	for _, bad := range []string{"m-1", "q-", "q-xyz", "7f3a"} {
		if _, ok := ParseID(bad); ok {
			t.Errorf("ParseID(%q) accepted", bad)
		}
	}
}

func TestEscalateNowAndReassign(t *testing.T) {
	m := machine(t)
	q, _, _ := m.Ask(Ask{Asker: "dev", Topic: "architecture.db", Text: "?"}, t0)
	eff, err := m.EscalateNow(q.ID, t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := m.Get(q.ID)
	if got.Answerer != "team/architecture" || !got.Deadline.Equal(t0.Add(time.Minute+4*time.Hour)) || len(eff.Records) == 0 {
		t.Errorf("escalate now: %+v", got)
	}
	eff, err = m.Reassign(q.ID, "agent/planner", t0.Add(2*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	got, _ = m.Get(q.ID)
	if got.Answerer != "agent/planner" || len(eff.Deliveries) != 1 || eff.Deliveries[0].Agent != "planner" {
		t.Errorf("reassign: %+v %+v", got, eff.Deliveries)
	}
	if _, err := m.Reassign(q.ID, "robot/x", t0); err == nil {
		t.Error("bad answerer accepted")
	}
	if _, err := m.EscalateNow("q-ffff", t0); !errors.Is(err, ErrNotPending) {
		t.Errorf("unknown: %v", err)
	}
}
