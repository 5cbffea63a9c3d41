package tasks

import (
	"reflect"
	"testing"
)

// FuzzValidateReview: any body and header never panic, the result is
// deterministic and coherent, and a complete review has a decision, a
// command, a step and an evidence item, and agrees with its commands.
func FuzzValidateReview(f *testing.F) {
	f.Add("", Example)
	f.Add("PASS", "commands:\n- `make test` → ok\n"+goodSteps+goodEvidence)
	f.Add("", "## Commands run\n```bash\n$ go test ./api\nFAIL\n```\nclassification: regression\n"+goodSteps+goodEvidence+"## Decision\n**FAIL**\n")
	f.Add("maybe", "| # | Command | Result |\n|---|---|---|\n| 1 | `npm test` | exit 1 [env-blocker] |\nResult: BLOCKED\n")
	f.Add("", "- Commands run:\n  - ❌ go test ./api (exit 1) — regression\n    continued\n~~~\nunclosed")
	f.Add("blocked", "failures:\n- regression: go test ./api\n- env_blocker\n- (1) `x` → ✅\nVerdict — FAIL\n")
	f.Fuzz(func(t *testing.T, decision, body string) {
		h := map[string]string{"decision": decision, "Steps": decision}
		r := ValidateReview(h, body)
		if !reflect.DeepEqual(r, ValidateReview(h, body)) {
			t.Fatal("not deterministic")
		}
		switch r.Decision {
		case "", Pass, Fail, Blocked:
		default:
			t.Fatalf("decision %q", r.Decision)
		}
		for _, c := range r.Commands {
			if c.Class != "" && c.Class != Regression && c.Class != EnvBlocker || c.Class != "" && !c.Failed {
				t.Fatalf("command %+v", c)
			}
		}
		if r.Complete() != (len(r.Missing) == 0) {
			t.Fatal("Complete() disagrees with Missing")
		}
		if !r.Complete() {
			if r.Feedback() == "" {
				t.Fatal("no feedback for an incomplete review")
			}
			return
		}
		if r.Decision == "" || len(r.Commands) == 0 || len(r.Steps) == 0 || len(r.Evidence) == 0 {
			t.Fatalf("complete without a decision, command, step or evidence: %+v", r)
		}
		failed := r.Failed()
		for _, c := range failed {
			if c.Class == "" {
				t.Fatalf("complete with an unclassified failure: %+v", r)
			}
		}
		if r.Decision == Pass && len(failed) > 0 || r.Decision != Pass && len(failed) == 0 {
			t.Fatalf("complete %s with %d failures", r.Decision, len(failed))
		}
	})
}
