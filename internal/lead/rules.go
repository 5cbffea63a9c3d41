package lead

import (
	"errors"
	"regexp"
)

// ErrUnknownAgent is returned when a command names an agent not in the team.
var ErrUnknownAgent = errors.New("unknown agent")

// codingPatterns recognise a request that the Team Lead itself write code or
// run tests (seed 001 rule 4, compliance check: no implement-code, no
// repo-test-run).
var codingPatterns = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(can|could|would|will|please)\s+you\s+(please\s+)?(write|implement|code|fix|refactor|patch|build|add|change|run|execute)\b`),
	regexp.MustCompile(`(?i)^\s*(please\s+)?(write|implement|code|fix|refactor|patch|add|change)\s+(the|a|an|this|that|some|my|our)?\s*(code|function|feature|bug|module|endpoint|class|method|test|tests|implementation|handler)\b`),
	regexp.MustCompile(`(?i)\b(team[- ]lead|you)\s+(should|must|need to|needs to)\s+(write|implement|code|fix|run|execute)\b`),
	regexp.MustCompile(`(?i)^\s*(please\s+)?(run|execute)\s+(the\s+)?(tests?|test suite|unit tests|build|linter|ci)\b`),
}

// CodingRequest reports whether body asks the Team Lead to write code or
// run tests, which its coordination-only role forbids.
func CodingRequest(body string) bool {
	for _, re := range codingPatterns {
		if re.MatchString(body) {
			return true
		}
	}
	return false
}
