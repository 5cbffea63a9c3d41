package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/permit"
)

// An agent over its budget has its permissions paused: what the policy
// would allow waits for the human, with the reason; what it asks or denies
// stays so; an agent within its budget is not touched.
func TestBudgetPausesPermissions(t *testing.T) {
	r := startEngine(t, "    budget: {tokens: 1000}\n",
		testAgent{name: "qa", script: "sleep 600\n"}, testAgent{name: "dev", script: "sleep 600\n"})
	check := r.e.checker()
	if d := check("Bash(go test ./...)", "dev"); d.Decide != permit.Allow {
		t.Fatalf("within its budget: %+v", d)
	}
	transcript := filepath.Join(r.dir, "t.jsonl")
	line := `{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":900,"output_tokens":200}}}` + "\n"
	if err := os.WriteFile(transcript, []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	r.e.sinks["dev"].spend.read(transcript, transcriptClaude)
	d := check("Bash(go test ./...)", "dev")
	if d.Decide != permit.Ask || d.Rule.Text != "budget" || !strings.Contains(d.Why, "dev used 1.1k tokens this run, its budget is 1.0k") {
		t.Fatalf("over its budget: %+v", d)
	}
	if d := check("Bash(rm -rf /)", "dev"); d.Rule.Text == "budget" {
		t.Fatalf("a floor action is the floor's, not the budget's: %+v", d)
	}
	if d := check("Bash(go test ./...)", "qa"); d.Decide != permit.Allow {
		t.Fatalf("qa has no budget: %+v", d)
	}
}
