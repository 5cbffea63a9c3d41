// Package tasks is the task lifecycle of seed 001 and the QA Result
// Contract. It is pure and deterministic like the Team Lead core: no I/O,
// no goroutines, no clock; every call carries its time.
//
// # Lifecycle
//
// A task exists from the first envelope that names it (Touch; later ones
// only update it). Its moves:
//
//	from              call                        to
//	(no task)         Touch, HandedOff            in-progress
//	in-progress       HandedOff                   in-review (QA assigned)
//	failed, blocked   HandedOff                   in-progress, then in-review
//	failed, blocked   Reopen                      in-progress
//	in-review         Reassign                    in-review (another QA agent)
//	in-review         Review PASS, FAIL, BLOCKED  passed, failed, blocked
//	anything else                                 ErrIllegal
//
// HandedOff is called by the Team Lead once a developer's handoff passed its
// consultations and a QA agent was picked (PickQA). Only that QA agent may
// review. An incomplete review leaves the task in review and is returned
// with ErrIncompleteReview so the caller sends it back (Review.Feedback).
// passed is final.
//
// # Review grammar
//
// The body of a `type: review` envelope is read line by line. It is made of
// sections, each started by a heading line, and a decision:
//
//	commands:
//	- `go test ./...` → FAIL (regression)
//	- `npm run lint` → PASS
//	steps:
//	1. git checkout feat/login && go test ./api -run TestLogin
//	evidence:
//	- TestLogin: expected 200, got 500 (api/login_test.go:41)
//	decision: FAIL
//
// Headings. A line that is a known section name followed by a colon (the
// rest of the line, if any, is the first item) or alone on its line. It may
// be written `Commands run:`, `## Commands run`, `**Commands run**`,
// `**Commands run:**`, or as a list item with nothing after it
// (`- Commands run:`, also nested under another item), in any case, with
// a trailing parenthetical ignored. The names:
//
//	commands  commands, commands run, commands executed, tests run, checks run, ...
//	steps     steps, reproducible steps, steps to reproduce, repro steps, how to reproduce, ...
//	evidence  evidence, evidence summary, logs, screenshots, output, request/response, ...
//	failures  failures, failure classification, classification, failed commands
//
// Other headings (`## Notes`, `**Summary**`, `notes:`, `environment:`) end
// the section; their lines are ignored. Text before the first heading is
// ignored too.
//
// Items. Every non-blank line of a section is one item, with its list marker
// (`-`, `*`, `+`, `•`, `1.`, `1)`, `[x]`) removed. A line without a marker
// indented under a marked item continues that item. A fenced code block is
// one evidence item in evidence, and one item per line elsewhere (in
// commands, when some lines start with a `$ ` prompt, only those are
// commands and the other lines are their output). Markdown table rows are
// items too (in commands: the first cell is the command, the others its
// result); header and rule rows are skipped. Items reading `none`, `n/a`
// or `-` are not items.
//
// Commands. The command is the first `backticked` span of the item, or
// else the text before its result. The result starts at the earliest of: an
// arrow (→, ⇒, " -> ", " => "); a spaced dash (" — ", " – "); a ": ", ", ",
// " - ", " | " or " = " followed by a result word (failed, passed, ok,
// exit, regression, ...); a " (…)" group that reads as a result; a word
// only a result uses (failed, passed, FAIL, PASS, OK); a trailing (…) or
// […] group. The result, and any continuation or output lines, say whether
// the command failed: fail, failed, failure, error, panic, timeout,
// blocked, not run, could not run, exit 1 (any non-zero exit, exit code,
// exit status or rc), ❌ ✗ mark a failure; pass, ok, success, green,
// clean, exit 0, ✅ ✓ a success; "0 failed", "no errors", "not a
// regression" are neither. A classification marks a command failed unless
// its result says it passed. Leading marks work too: `❌ npm test`,
// `[FAIL] npm test`, `FAIL: npm test`.
//
// Classification. `regression`, or `env_blocker` (also written env-blocker,
// env blocker, environment blocker), anywhere in a command's result, or as
// an item of the failures section naming the command:
// `- go test ./api: regression`, `- regression: go test ./api`. A failures
// item naming a command not listed under commands adds it as a failed
// command; an item with a classification and no command (`classification:
// env_blocker`) classifies every failed command that has none.
//
// Decision. `decision: PASS`, `FAIL` or `BLOCKED` (any case, PASSED and
// FAILED too) given as an envelope header (decision, result, verdict or
// outcome) or as a body line: `Decision: PASS`, `**Final decision:** FAIL`,
// `Verdict — BLOCKED`, `Decision PASS`, or a `## Decision` heading with
// the value on the next line; outside the sections, a line holding only an
// upper-case decision (`**FAIL**`) counts too. `Result:`, `Outcome:`,
// `Status:` and `Overall:` lines count only when their value is one of the
// three and they are not list items. Two different decisions are an error.
//
// Envelope headers named commands, steps, evidence, failures or
// classification are read as if they were the first lines of the body. At
// most 500 items per section are read.
//
// Completeness. A review is complete when it lists at least one command,
// one step and one evidence item; every failed command has exactly one
// classification; it has one decision; and the decision agrees with the
// commands: PASS with no failed command, FAIL with at least one failed
// command and at least one regression, BLOCKED with at least one failure
// classified env_blocker.
package tasks
