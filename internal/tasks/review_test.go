package tasks

import (
	"reflect"
	"strings"
	"testing"
)

// c builds an expected command.
func c(text string, failed bool, class string) Command {
	return Command{Text: text, Failed: failed, Class: class}
}

const goodSteps = "steps:\n1. git checkout feat/login\n2. go test ./api -run TestLogin\n"
const goodEvidence = "evidence:\n- TestLogin: expected 200, got 500\n"

func TestValidateReview(t *testing.T) {
	for _, tc := range []struct {
		name     string
		headers  map[string]string
		body     string
		decision Decision
		cmds     []Command // nil: not checked
		steps    int       // -1: not checked
		evidence int       // -1: not checked
		missing  []string  // each Missing item must start with the matching prefix
	}{
		{
			name: "canonical example", body: Example, decision: Fail,
			cmds:  []Command{c("go test ./...", true, Regression), c("npm run lint", false, "")},
			steps: 2, evidence: 1,
		},
		{
			name: "markdown headings, PASS, counts that are not failures",
			body: "QA review of T-12: login flow verified.\n\n## Summary\nEverything looks fine, tests pass.\n\n" +
				"## Commands run\n- `go test ./...` — ok\n- `npm test` — 42 passed, 0 failed\n\n" +
				"## Reproducible steps\n1. `git checkout feat/login`\n2. `make test`\n\n" +
				"## Evidence\n- go test: ok github.com/acme/api 0.41s\n- screenshot: artifacts/login.png\n\n## Decision\nPASS\n",
			decision: Pass, cmds: []Command{c("go test ./...", false, ""), c("npm test", false, "")}, steps: 2, evidence: 2,
		},
		{
			name: "bold headings, BLOCKED by the environment",
			body: "**Commands run**\n* `docker compose up -d db` → failed: port 5432 already in use [env-blocker]\n" +
				"* `go test ./integration/...` → not run (env blocker)\n\n**Steps**\n* docker compose up -d db\n\n" +
				"**Evidence**\n* Error response from daemon: address already in use\n\n**Final decision:** BLOCKED\n",
			decision: Blocked, steps: 1, evidence: 1,
			cmds: []Command{c("docker compose up -d db", true, EnvBlocker), c("go test ./integration/...", true, EnvBlocker)},
		},
		{
			name: "decision in a header", headers: map[string]string{"decision": "PASS"},
			body:     "commands:\n- `make test` → PASS\n" + goodSteps + goodEvidence,
			decision: Pass, cmds: []Command{c("make test", false, "")}, steps: 2, evidence: 1,
		},
		{
			name: "result header, lower case", headers: map[string]string{"Result": "passed"},
			body:     "commands:\n- make test → ok\n" + goodSteps + goodEvidence,
			decision: Pass, steps: 2, evidence: 1,
		},
		{
			name: "sections given as envelope headers",
			headers: map[string]string{"commands": "`go test ./...` → PASS", "steps": "run go test ./...",
				"evidence": "ok github.com/acme/api 0.4s", "result": "PASS"},
			body: "LGTM", decision: Pass, cmds: []Command{c("go test ./...", false, "")}, steps: 1, evidence: 1,
		},
		{
			name: "no commands", body: goodSteps + goodEvidence + "decision: PASS\n", decision: Pass, steps: 2, evidence: 1,
			missing: []string{"commands run: none listed (add a 'commands:' section, one command per line)"},
		},
		{
			name: "commands: none", body: "commands: none\n" + goodSteps + goodEvidence + "decision: PASS\n", decision: Pass,
			steps: -1, evidence: -1, missing: []string{"commands run: none listed"},
		},
		{
			name: "no steps", body: "commands:\n- `go test ./...` → PASS\n" + goodEvidence + "decision: PASS\n",
			decision: Pass, steps: 0, evidence: 1, missing: []string{"reproducible steps: none listed"},
		},
		{
			name: "no evidence", body: "commands:\n- `go test ./...` → PASS\n" + goodSteps + "decision: PASS\n",
			decision: Pass, steps: 2, evidence: 0, missing: []string{"evidence summary: none given"},
		},
		{
			name: "no decision", body: "commands:\n- `go test ./...` → PASS\n" + goodSteps + goodEvidence,
			steps: 2, evidence: 1, missing: []string{"decision: none (end with 'decision: PASS', 'FAIL' or 'BLOCKED')"},
		},
		{
			name: "empty review", body: "looks good to me", steps: 0, evidence: 0,
			missing: []string{"commands run:", "reproducible steps:", "evidence summary:", "decision: none"},
		},
		{
			name: "a decision that is not one", body: "commands:\n- `go test ./...` → PASS\n" + goodSteps + goodEvidence + "Decision: maybe later\n",
			steps: 2, evidence: 1, missing: []string{"decision: `maybe later` is not PASS, FAIL or BLOCKED"},
		},
		{
			name: "PASS with a failure", body: "commands:\n- `go test ./...` → PASS\n- `go test ./api` → FAIL (regression)\n" + goodSteps + goodEvidence + "decision: PASS\n",
			decision: Pass, steps: 2, evidence: 1,
			cmds:    []Command{c("go test ./...", false, ""), c("go test ./api", true, Regression)},
			missing: []string{"decision PASS but 1 command failed: `go test ./api`"},
		},
		{
			name: "FAIL with an unclassified failure", body: "commands:\n- go test ./api: FAIL\n" + goodSteps + goodEvidence + "Final decision: FAIL\n",
			decision: Fail, steps: 2, evidence: 1, cmds: []Command{c("go test ./api", true, "")},
			missing: []string{"failed command `go test ./api` has no classification (regression or env_blocker)"},
		},
		{
			name: "FAIL with no failed command", body: "commands:\n- `go test ./...` → PASS\n" + goodSteps + goodEvidence + "decision: FAIL\n",
			decision: Fail, steps: 2, evidence: 1, missing: []string{"decision FAIL but no command failed"},
		},
		{
			name: "FAIL when every failure is env_blocker", body: "commands:\n- `npm ci` → exit 1 (env_blocker)\n" + goodSteps + goodEvidence + "decision: FAIL\n",
			decision: Fail, steps: 2, evidence: 1, missing: []string{"decision FAIL but every failure is env_blocker"},
		},
		{
			name: "BLOCKED with only a regression", body: "commands:\n- `go test ./...` → FAIL (regression)\n" + goodSteps + goodEvidence + "Result: BLOCKED\n",
			decision: Blocked, steps: 2, evidence: 1, missing: []string{"decision BLOCKED but no failed command is classified env_blocker"},
		},
		{
			name: "both classifications on one command", body: "commands:\n- `go test ./...` → FAIL (regression or env_blocker?)\n" + goodSteps + goodEvidence + "decision: FAIL\n",
			decision: Fail, steps: 2, evidence: 1, missing: []string{"failed command `go test ./...` is classified both regression and env_blocker"},
		},
		{
			name: "header and body disagree", headers: map[string]string{"decision": "PASS"},
			body:  "commands:\n- `go test ./...` → PASS\n" + goodSteps + goodEvidence + "decision: FAIL\n",
			steps: 2, evidence: 1, missing: []string{"decision: conflicting values PASS (header), FAIL (body)"},
		},
		{
			name: "failures section classifies listed commands",
			body: "Commands:\n- go test ./... → FAIL\n- npm test → FAIL\n- go vet ./... → ok\n" +
				"Failure classification:\n- go test ./...: regression\n- env_blocker: npm test (registry unreachable)\n" + goodSteps + goodEvidence + "Decision: FAIL\n",
			decision: Fail, steps: 2, evidence: 1,
			cmds: []Command{c("go test ./...", true, Regression), c("npm test", true, EnvBlocker), c("go vet ./...", false, "")},
		},
		{
			name: "one classification for every failure",
			body: "commands:\n- `npm ci` → failed\n- `npm test` → not run\nclassification: env_blocker (npm registry unreachable from the sandbox)\n" +
				goodSteps + goodEvidence + "decision: BLOCKED\n",
			decision: Blocked, steps: 2, evidence: 1, cmds: []Command{c("npm ci", true, EnvBlocker), c("npm test", true, EnvBlocker)},
		},
		{
			name:     "failure listed only under failures",
			body:     "commands:\n- `go build ./...` → ok\nfailures:\n- `go test ./api` → regression\n" + goodSteps + goodEvidence + "decision: FAIL\n",
			decision: Fail, steps: 2, evidence: 1, cmds: []Command{c("go build ./...", false, ""), c("go test ./api", true, Regression)},
		},
		{
			name: "fenced shell session with output",
			body: "Commands run:\n```bash\n$ go test ./api\n--- FAIL: TestLogin (0.01s)\nFAIL\tgithub.com/acme/api\t0.012s\n$ go vet ./...\n```\n" +
				"Failure classification: regression\n" + goodSteps + "Evidence:\n```\n--- FAIL: TestLogin (0.01s)\n    login_test.go:41: expected 200, got 500\n```\n**Decision: FAIL**\n",
			decision: Fail, steps: 2, evidence: 1, cmds: []Command{c("go test ./api", true, Regression), c("go vet ./...", false, "")},
		},
		{
			name: "markdown table of commands",
			body: "### Commands\n| # | Command | Result | Classification |\n|---|---|---|---|\n| 1 | `go test ./...` | FAIL | regression |\n| 2 | `npm test` | PASS | |\n\n" +
				"### Steps to reproduce\n1. go test ./... -run TestLogin\n\n### Evidence (logs)\n- expected 200, got 500\n\n### Verdict\n**FAIL**\n",
			decision: Fail, steps: 1, evidence: 1, cmds: []Command{c("go test ./...", true, Regression), c("npm test", false, "")},
		},
		{
			name:     "one-line sections",
			body:     "Commands: `make test` → PASS\nSteps: run make test on a clean checkout\nEvidence: 120 tests, 0 failures\nResult: PASS\n",
			decision: Pass, steps: 1, evidence: 1, cmds: []Command{c("make test", false, "")},
		},
		{
			name: "emoji marks, exit codes and continuation lines",
			body: "- Commands run:\n  - ❌ go test ./api (exit 1) — regression\n  - ✅ go vet ./...\n  - make build\n    exit status 2\n    classification: regression\n" +
				"- Steps:\n  - make build\n- Evidence:\n  - build log: undefined: api.Login\nVerdict — FAIL\n",
			decision: Fail, steps: 1, evidence: 1,
			cmds: []Command{c("go test ./api", true, Regression), c("go vet ./...", false, ""), c("make build", true, Regression)},
		},
		{
			name: "sections nested under a bullet",
			body: "- QA review of T-3:\n  - Commands run:\n    - `go test ./...` → ok\n      output: ok github.com/acme 0.2s\n  - Steps:\n    - go test ./...\n" +
				"  - Evidence:\n    - ok github.com/acme 0.2s\n  - Decision: PASS\n",
			decision: Pass, steps: 1, evidence: 1, cmds: []Command{c("go test ./...", false, "")},
		},
		{
			name:     "indented items without markers",
			body:     "Commands run:\n    go test ./...    (pass)\n    npm test         (exit 1, env_blocker)\n\nSteps:\n    npm test\n\nEvidence:\n    npm ERR! network request failed\n\nDecision BLOCKED\n",
			decision: Blocked, steps: 1, evidence: 1, cmds: []Command{c("go test ./...", false, ""), c("npm test", true, EnvBlocker)},
		},
		{
			name: "leading result marks and words",
			body: "commands:\n- [FAIL] pytest tests/test_auth.py (regression)\n- PASS: ruff check .\n- npm test failed [environment blocker]\n" +
				goodSteps + goodEvidence + "decision: fail\n",
			decision: Fail, steps: 2, evidence: 1,
			cmds: []Command{c("pytest tests/test_auth.py", true, Regression), c("ruff check .", false, ""), c("npm test", true, EnvBlocker)},
		},
		{
			name:     "whole body indented, notes ignored",
			body:     "  ## Notes\n  - flaky: nothing\n  ## Commands run\n  - `go test ./...` → ok\n  ## Steps\n  - go test ./...\n  ## Evidence\n  - ok github.com/acme 0.3s\n  ## Decision\n  ✅ PASS\n",
			decision: Pass, steps: 1, evidence: 1, cmds: []Command{c("go test ./...", false, "")},
		},
		{
			name: "request-response evidence and curl",
			body: "commands run:\n1) `curl -s -X POST localhost:8080/login -d '{\"user\":\"a\"}'` → 500, FAIL (regression)\n" +
				"repro steps:\n1) start the server: go run ./cmd/api\n2) send the curl above\n" +
				"request/response:\nPOST /login {\"user\":\"a\"} -> 500 {\"error\":\"nil pointer\"}\nFinal verdict: FAIL\n",
			decision: Fail, steps: 2, evidence: 1,
			cmds: []Command{c(`curl -s -X POST localhost:8080/login -d '{"user":"a"}'`, true, Regression)},
		},
		{
			name:     "a bold decision alone closes the review",
			body:     "commands:\n- `npm ci` → exit 1 [env_blocker]\n" + goodSteps + goodEvidence + "**BLOCKED**\n",
			decision: Blocked, steps: 2, evidence: 1, cmds: []Command{c("npm ci", true, EnvBlocker)},
		},
		{
			name:  "a FAIL line of pasted output is not a decision",
			body:  "commands:\n- `go test ./...` → FAIL (regression)\n" + goodSteps + "evidence:\n--- FAIL: TestLogin\nFAIL\n",
			steps: 2, evidence: 2, missing: []string{"decision: none"},
		},
		{
			name:  "status line that is not a decision is ignored",
			body:  "Status: all green, ready to merge\ncommands:\n- `go test ./...` → PASS\n" + goodSteps + goodEvidence,
			steps: 2, evidence: 1, missing: []string{"decision: none"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ValidateReview(tc.headers, tc.body)
			if r.Decision != tc.decision {
				t.Errorf("decision %q, want %q", r.Decision, tc.decision)
			}
			if tc.cmds != nil && !reflect.DeepEqual(r.Commands, tc.cmds) {
				t.Errorf("commands\n got %+v\nwant %+v", r.Commands, tc.cmds)
			}
			if tc.steps >= 0 && len(r.Steps) != tc.steps {
				t.Errorf("steps %q, want %d", r.Steps, tc.steps)
			}
			if tc.evidence >= 0 && len(r.Evidence) != tc.evidence {
				t.Errorf("evidence %q, want %d", r.Evidence, tc.evidence)
			}
			ok := len(r.Missing) == len(tc.missing)
			for i := 0; ok && i < len(tc.missing); i++ {
				ok = strings.HasPrefix(r.Missing[i], tc.missing[i])
			}
			if !ok {
				t.Errorf("missing\n got %q\nwant %q", r.Missing, tc.missing)
			}
			if r.Complete() != (len(tc.missing) == 0) {
				t.Errorf("Complete() = %v with missing %q", r.Complete(), r.Missing)
			}
		})
	}
}

func TestFeedback(t *testing.T) {
	if fb := ValidateReview(nil, Example).Feedback(); fb != "" {
		t.Errorf("feedback for a complete review: %q", fb)
	}
	r := ValidateReview(map[string]string{"decision": "PASS"}, "commands:\n- `go test ./api` → FAIL\n")
	fb := r.Feedback()
	for _, m := range r.Missing {
		if !strings.Contains(fb, "- "+m+"\n") {
			t.Errorf("feedback lacks %q:\n%s", m, fb)
		}
	}
	if !strings.HasSuffix(fb, Example) || len(r.Missing) != 3 {
		t.Errorf("%q\n%s", r.Missing, fb)
	}
}

func TestHeadersAreReadDeterministically(t *testing.T) {
	h := map[string]string{"Decision": "PASS", "decision": "FAIL", "DECISION": "BLOCKED"}
	for i := 0; i < 20; i++ {
		if d := ValidateReview(h, "").Decision; d != Blocked { // "DECISION" sorts first
			t.Fatalf("run %d: %q", i, d)
		}
	}
}
