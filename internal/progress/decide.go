package progress

import (
	"strings"
	"time"
)

// Stalled reports whether s is an in_progress workflow whose file has not
// changed for longer than after, at now. The file's modification time is
// what counts (an agent's own updated_at is often made up); updated_at is
// used only when the modification time is unknown. An after of zero or
// less turns the check off.
func Stalled(s State, now time.Time, after time.Duration) bool {
	if after <= 0 || s.Workflow == nil || s.Workflow.Status != "in_progress" {
		return false
	}
	last := s.ModTime
	if last.IsZero() {
		last = s.Workflow.UpdatedAt
	}
	return !last.IsZero() && now.Sub(last) > after
}

// HandoffDue reports the next step to hand over when cur's next_step names
// an expert that isAgent reports as a supervised agent, that expert is not
// writer (the agent whose file it is), and the same next step (step number
// and expert) was not already due in prev — so a next step is handed over
// once, not on every rewrite. A completed or failed workflow hands nothing
// over. Expert names are compared without regard to case or surrounding
// spaces; isAgent gets the name as the file has it.
func HandoffDue(prev, cur *Workflow, writer string, isAgent func(string) bool) (NextStep, bool) {
	if cur == nil || cur.Next == nil || isAgent == nil {
		return NextStep{}, false
	}
	if cur.Status == "completed" || cur.Status == "failed" {
		return NextStep{}, false
	}
	next := *cur.Next
	if next.Expert == "" || sameName(next.Expert, writer) || !isAgent(next.Expert) {
		return NextStep{}, false
	}
	if prev != nil && prev.Next != nil && prev.Next.Number == next.Number && sameName(prev.Next.Expert, next.Expert) {
		return NextStep{}, false
	}
	return next, true
}

// sameName compares two agent names loosely.
func sameName(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}
