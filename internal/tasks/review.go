package tasks

import "strings"

// Decision is a QA review's final decision.
type Decision string

// The three decisions of the QA Result Contract.
const (
	Pass    Decision = "PASS"
	Fail    Decision = "FAIL"
	Blocked Decision = "BLOCKED"
)

// The two classifications of a failed command.
const (
	Regression = "regression"  // the change under review broke it
	EnvBlocker = "env_blocker" // the environment kept it from running
)

// Command is one command the QA agent ran.
type Command struct {
	// Text is the command as written, without backticks or its result.
	Text string `json:"text"`
	// Failed is set when its result says it failed, or it was classified.
	Failed bool `json:"failed,omitempty"`
	// Class is Regression, EnvBlocker or "" (unclassified or not failed).
	Class string `json:"class,omitempty"`

	ambiguous bool // both classifications were given
}

// Review is a QA review as ValidateReview read it.
type Review struct {
	// Decision is PASS, FAIL, BLOCKED, or "" when missing or conflicting.
	Decision Decision `json:"decision,omitempty"`
	// Commands are the commands run, in order.
	Commands []Command `json:"commands,omitempty"`
	// Steps are the reproducible steps, in order.
	Steps []string `json:"steps,omitempty"`
	// Evidence are the evidence items (log excerpts, screenshots, requests).
	Evidence []string `json:"evidence,omitempty"`
	// Missing says what is missing or wrong, one human-readable item each.
	Missing []string `json:"missing,omitempty"`
}

// Complete reports whether the review meets the QA Result Contract.
func (r Review) Complete() bool { return len(r.Missing) == 0 }

// Failed lists the commands that failed.
func (r Review) Failed() []Command {
	var out []Command
	for _, c := range r.Commands {
		if c.Failed {
			out = append(out, c)
		}
	}
	return out
}

// Feedback is the text to send back to the QA agent for an incomplete
// review ("" for a complete one): each missing item and the expected form.
func (r Review) Feedback() string {
	if r.Complete() {
		return ""
	}
	var b strings.Builder
	b.WriteString("review incomplete, send it again with:\n")
	for _, m := range r.Missing {
		b.WriteString("- " + m + "\n")
	}
	b.WriteString("expected form:\n" + Example)
	return b.String()
}

// Example is a complete review body in the canonical form, to teach agents.
const Example = "commands:\n" +
	"- `go test ./...` → FAIL (regression)\n" +
	"- `npm run lint` → PASS\n" +
	"steps:\n" +
	"1. git checkout feat/login\n" +
	"2. go test ./api -run TestLogin\n" +
	"evidence:\n" +
	"- TestLogin: expected 200, got 500 (api/login_test.go:41)\n" +
	"decision: FAIL\n"

func (r Review) clone() Review {
	r.Commands = append([]Command(nil), r.Commands...)
	r.Steps = append([]string(nil), r.Steps...)
	r.Evidence = append([]string(nil), r.Evidence...)
	r.Missing = append([]string(nil), r.Missing...)
	return r
}
