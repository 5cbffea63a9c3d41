package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/permit"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/store"
	"github.com/teamlead/teamlead/internal/tasks"
	"github.com/teamlead/teamlead/internal/usage"
)

// An agent over its budget has its permissions paused: what the policy
// would allow waits for the human, with the reason; what it asks or denies
// stays so; an agent within its budget is not touched.
func TestBudgetPausesPermissions(t *testing.T) {
	r := startEngine(t, "    budget: {tokens: 1000}\n",
		testAgent{name: "qa", script: "sleep 600\n"}, testAgent{name: "dev", script: "sleep 600\n"})
	check := r.e.checker()
	if d := check("Bash(go test ./...)", "dev", ""); d.Decide != permit.Allow {
		t.Fatalf("within its budget: %+v", d)
	}
	transcript := filepath.Join(r.dir, "t.jsonl")
	line := `{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":900,"output_tokens":200}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	r.e.sinks["dev"].spend.read(transcript, transcriptClaude)
	d := check("Bash(go test ./...)", "dev", "")
	if d.Decide != permit.Ask || d.Rule.Text != "budget" || !strings.Contains(d.Why, "dev used 1.1k tokens this run, its budget is 1.0k") {
		t.Fatalf("over its budget: %+v", d)
	}
	if d := check("Bash(rm -rf /)", "dev", ""); d.Rule.Text == "budget" {
		t.Fatalf("a floor action is the floor's, not the budget's: %+v", d)
	}
	if d := check("Bash(go test ./...)", "qa", ""); d.Decide != permit.Allow {
		t.Fatalf("qa has no budget: %+v", d)
	}
}

// What an agent's CLI uses is recorded in the audit against the task it
// last wrote about, and added to the task's total the store keeps.
func TestSpendCountedPerTask(t *testing.T) {
	r := startEngine(t, "", testAgent{name: "qa", script: "sleep 600\n"},
		testAgent{name: "dev", script: "printf '[ROUTE] to: qa type: status task: T-7 body: on it [/ROUTE]\\n'\nsleep 600\n"})
	r.waitRecords("message", "dev's message on T-7", func(recs []store.Record) bool { return len(recs) > 0 })
	write := transcriptOf(t, r, "dev")
	first := `{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":900,"output_tokens":200}}}` + "\n"
	write(first)
	write(first + `{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":50,"output_tokens":5,"cache_read_input_tokens":10}}}` + "\n")
	r.e.recordSpend() // nothing new: no record
	recs := r.waitRecords(wire.KindUsage, "two usage records", func(recs []store.Record) bool { return len(recs) >= 2 })
	if len(recs) != 2 || recs[0].Task != "T-7" || recs[0].Agent != "dev" || recs[0].Fields["input"] != "900" || recs[0].Fields["output"] != "200" ||
		recs[1].Fields["input"] != "50" || recs[1].Fields["cache_read"] != "10" {
		t.Fatalf("usage records: %+v", recs)
	}
	spent, err := readmodel.StoredTaskSpend(r.e.store)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := spent["T-7"], (usage.Tokens{Input: 950, Output: 205, CacheRead: 10}); got != want || len(spent) != 1 {
		t.Fatalf("stored totals %+v, want T-7 %+v", spent, want)
	}
	ts := readmodel.WithSpend([]tasks.Task{{ID: "T-7"}, {ID: "T-8"}}, spent)
	if ts[0].Tokens == nil || ts[0].Tokens.All() != 1165 || ts[1].Tokens != nil {
		t.Fatalf("WithSpend: %+v %+v", ts[0].Tokens, ts[1].Tokens)
	}
}

// A conversation resumed after a console restart is read from its start
// again: what the last run recorded of it is not counted twice, in the
// audit or in the task's total; what it adds is.
func TestResumedConversationCountedOnce(t *testing.T) {
	r := startEngine(t, "", testAgent{name: "qa", script: "sleep 600\n"},
		testAgent{name: "dev", script: "printf '[ROUTE] to: qa type: status task: T-7 body: on it [/ROUTE]\\n'\nsleep 600\n"})
	r.waitRecords("message", "dev's message on T-7", func(recs []store.Record) bool { return len(recs) > 0 })
	transcript := filepath.Join(r.dir, "t.jsonl")
	first := `{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":900,"output_tokens":200}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(first), 0o600); err != nil {
		t.Fatal(err)
	}
	r.e.sinks["dev"].spend.read(transcript, transcriptClaude)
	r.e.recordSpend()
	r.waitRecords(wire.KindUsage, "the first run's usage", func(recs []store.Record) bool { return len(recs) == 1 })
	team := r.e.opts.Team
	r.stop()

	// The next run resumes the conversation, which grows by one turn.
	r = startLoaded(t, r.dir, team)
	r.e.sinks["dev"].task.set("T-7")
	second := first + `{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":50,"output_tokens":5}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(second), 0o600); err != nil {
		t.Fatal(err)
	}
	r.e.sinks["dev"].spend.read(transcript, transcriptClaude)
	if got := r.e.sinks["dev"].spend.total(); got != (usage.Tokens{Input: 50, Output: 5}) {
		t.Errorf("this run's usage: %+v, want the new turn's only", got)
	}
	r.e.recordSpend()
	recs := r.waitRecords(wire.KindUsage, "the second run's usage", func(recs []store.Record) bool { return len(recs) == 2 })
	if recs[1].Fields["input"] != "50" || recs[1].Fields["output"] != "5" {
		t.Errorf("the second run recorded %+v", recs[1].Fields)
	}
	spent, err := readmodel.StoredTaskSpend(r.e.store)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := spent["T-7"], (usage.Tokens{Input: 950, Output: 205}); got != want {
		t.Errorf("T-7's total %+v, want %+v", got, want)
	}
}

// Where a CLI writes no cost of its own (Codex, Gemini CLI, Copilot CLI),
// the team's price gives one: in the agent list, the task's total and the
// audit, and against a budget in dollars, which pauses the agent's
// permissions and tells the human once.
func TestPricedSpending(t *testing.T) {
	r := startEngine(t, "    budget: {usd: 0.01}\nprice: {input: 3, output: 15}\n", testAgent{name: "qa", script: "sleep 600\n"},
		testAgent{name: "dev", script: "printf '[ROUTE] to: qa type: status task: T-7 body: on it [/ROUTE]\\n'\nsleep 600\n"})
	r.waitRecords("message", "dev's message on T-7", func(recs []store.Record) bool { return len(recs) > 0 })
	write := transcriptOf(t, r, "dev")
	costOf := func() float64 {
		for _, a := range r.e.Agents() {
			if a.Name == "dev" {
				return a.Tokens.CostUSD
			}
		}
		t.Fatal("no agent dev")
		return 0
	}
	first := `{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":900,"output_tokens":200}}}` + "\n"
	write(first) // 900×$3 + 200×$15 a million: $0.0057
	if got := costOf(); got < 0.00569 || got > 0.00571 {
		t.Fatalf("dev's cost at the team's price: %v, want 0.0057", got)
	}
	if d := r.e.checker()("Bash(go test ./...)", "dev", ""); d.Decide != permit.Allow {
		t.Fatalf("within its budget of $0.01: %+v", d)
	}
	write(first + `{"type":"assistant","message":{"id":"m2","usage":{"input_tokens":2000,"output_tokens":300}}}` + "\n")
	if got := costOf(); got < 0.01619 || got > 0.01621 {
		t.Fatalf("dev's cost: %v, want 0.0162", got)
	}
	d := r.e.checker()("Bash(go test ./...)", "dev", "")
	if d.Decide != permit.Ask || d.Rule.Text != "budget" || !strings.Contains(d.Why, "dev spent $0.02 this run, its budget is $0.01") {
		t.Fatalf("over its budget: %+v", d)
	}
	spent, err := readmodel.StoredTaskSpend(r.e.store)
	if err != nil {
		t.Fatal(err)
	}
	if c := spent["T-7"].CostUSD; c < 0.01619 || c > 0.01621 {
		t.Fatalf("T-7's total: %+v, want a cost of $0.0162", spent["T-7"])
	}
	recs := r.waitRecords(wire.KindUsage, "two usage records", func(recs []store.Record) bool { return len(recs) >= 2 })
	if recs[0].Fields["cost_usd"] != "0.0057" || recs[1].Fields["cost_usd"] != "0.0105" {
		t.Fatalf("the audit's costs: %v, %v", recs[0].Fields, recs[1].Fields)
	}
	r.waitRecords(wire.KindWarning, "the human told once", func(recs []store.Record) bool {
		n := 0
		for _, w := range recs {
			if strings.Contains(w.Body, "dev spent $0.02") {
				n++
			}
		}
		return n == 1
	})
}

// transcriptOf returns a function that writes lines as agent's Claude Code
// transcript, has the engine read it, and records what it used.
func transcriptOf(t *testing.T, r *running, agent string) func(lines string) {
	transcript := filepath.Join(r.dir, agent+".jsonl")
	return func(lines string) {
		t.Helper()
		if err := os.WriteFile(transcript, []byte(lines), 0o600); err != nil {
			t.Fatal(err)
		}
		r.e.sinks[agent].spend.read(transcript, transcriptClaude)
		r.e.recordSpend()
	}
}
