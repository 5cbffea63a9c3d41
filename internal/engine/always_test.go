package engine

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/approvals"
)

// TestApproveAlwaysWithNothingToAdd: PlanAlways says what an approve-always
// would write and writes nothing; a request the policy allows by the
// time the human approves it always (a rule added since it was asked) is
// approved once, the policy file is left as it is, and the note says so
// and why, never "approved always:  added to" (red team 9a, finding 11).
func TestApproveAlwaysWithNothingToAdd(t *testing.T) {
	dir := t.TempDir()
	policy := filepath.Join(dir, "permissions.yaml")
	if err := os.WriteFile(policy, []byte("default: ask\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startEngine(t, "permissions:\n  policy: "+policy+"\n  hook_wait: 60s\n", testAgent{name: "dev", script: "sleep 60\n"})
	r.waitState("dev", "running")
	for _, action := range []string{"Bash(npm install left-pad)", "Bash(npm install 'left-pad')"} {
		go func() { _, _ = r.e.HookPermission("dev", action, "") }()
	}
	ids := map[string]string{}
	deadline := time.Now().Add(30 * time.Second)
	for len(ids) < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the requests did not arrive: %v", ids)
		}
		for _, p := range r.e.Permissions() {
			if p.Status == approvals.Pending {
				ids[p.Action] = p.ID
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	note := func(id string) approvals.Request {
		for _, p := range r.e.Permissions() {
			if p.ID == id {
				return p
			}
		}
		t.Fatalf("no request %s", id)
		return approvals.Request{}
	}
	// PlanAlways says what would be written, and writes nothing.
	plan, err := r.e.PlanAlways(ids["Bash(npm install 'left-pad')"], "prefix")
	if err != nil || strings.Join(plan.Rules, ",") != "Bash(npm install left-pad:*)" || plan.Why != "" {
		t.Errorf("plan before: %+v %v", plan, err)
	}
	if text, _ := os.ReadFile(policy); string(text) != "default: ask\n" {
		t.Errorf("planning wrote the policy file:\n%s", text)
	}
	if err := r.e.ApproveAlways(ids["Bash(npm install left-pad)"], "prefix", false); err != nil {
		t.Fatal(err)
	}
	if p := note(ids["Bash(npm install left-pad)"]); p.Note != approvals.AlwaysNote+"Bash(npm install left-pad:*) added to "+policy {
		t.Errorf("first: %s %q", p.Status, p.Note)
	}
	plan, err = r.e.PlanAlways(ids["Bash(npm install 'left-pad')"], "prefix")
	if err != nil || len(plan.Rules) != 0 || !strings.HasPrefix(plan.Why, "the policy allows it already (Bash(npm install left-pad:*) at ") {
		t.Errorf("plan after: %+v %v", plan, err)
	}
	before, _ := os.ReadFile(policy)
	if err := r.e.ApproveAlways(ids["Bash(npm install 'left-pad')"], "prefix", false); err != nil {
		t.Fatal(err)
	}
	p := note(ids["Bash(npm install 'left-pad')"])
	if p.Status != approvals.Approved || !strings.HasPrefix(p.Note, approvals.NoRuleNote+"the policy allows it already (Bash(npm install left-pad:*) at "+policy+":") {
		t.Errorf("second: %s %q", p.Status, p.Note)
	}
	if after, _ := os.ReadFile(policy); string(after) != string(before) {
		t.Errorf("the policy file changed:\n%s", after)
	}
	if _, err := r.e.PlanAlways(ids["Bash(npm install 'left-pad')"], "prefix"); !errors.Is(err, approvals.ErrDecided) {
		t.Errorf("plan of a decided request: %v", err)
	}
}
