package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/progress"
	"github.com/teamlead/teamlead/internal/textsafe"
)

// Workflow renders a progress file's state as lines of text: the summary,
// experts and strategy, a bar of the steps, each step with its expert,
// action, duration and artifacts, the next step with its context, the
// errors, and how long since the file changed (stalled when over stall).
func Workflow(st progress.State, now time.Time, stall time.Duration, width int) []string {
	lines := workflowLines(st, now, stall)
	for i, l := range lines {
		// one line each: the file is the agent's, and a line break in
		// its workflow id drew rows of the audit's (red team 19b, finding 7)
		lines[i] = textsafe.Line(l)
		if width > 0 {
			lines[i] = clip(lines[i], width)
		}
	}
	return lines
}

func workflowLines(st progress.State, now time.Time, stall time.Duration) []string {
	who := Dash(st.Agent)
	switch {
	case st.Missing:
		return []string{who + ": no workflow yet; " + who + " keeps it in " + st.Path + " (the primer's \"Progress file\" section says how)"}
	case st.Workflow == nil && st.Err != nil:
		return []string{who + ": " + st.Path + ": " + st.Err.Error()}
	case st.Workflow == nil:
		return []string{who + ": " + st.Path + ": nothing yet"}
	}
	wf := st.Workflow
	lines := []string{fmt.Sprintf("%s · %s · %s", who, Dash(wf.WorkflowID), wf.Status)}
	if wf.Task != "" {
		lines = append(lines, "  "+wf.Task)
	}
	experts := wf.Primary
	if len(wf.Supporting) > 0 {
		experts += " (with " + strings.Join(wf.Supporting, ", ") + ")"
	}
	lines = append(lines, fmt.Sprintf("  experts %s · strategy %s", Dash(experts), Dash(wf.Strategy)))
	age := now.Sub(st.ModTime)
	changed := "changed " + Age(age) + " ago"
	if progress.Stalled(st, now, stall) {
		changed = "STALLED: no change for " + Age(age)
	}
	lines = append(lines, fmt.Sprintf("  %s step %d/%d · %s", bar(done(wf), wf.TotalSteps, 20), wf.CurrentStep, wf.TotalSteps, changed))
	for _, s := range wf.Steps {
		line := fmt.Sprintf("  %s %d. %s: %s", mark(s.Status), s.Number, Dash(s.Expert), s.Action)
		if s.Duration > 0 {
			line += " (" + s.Duration.Round(time.Second).String() + ")"
		}
		if len(s.Artifacts) > 0 {
			line += " → " + strings.Join(s.Artifacts, ", ")
		}
		lines = append(lines, line)
	}
	if n := wf.Next; n != nil {
		lines = append(lines, fmt.Sprintf("  next: %d. %s: %s", n.Number, Dash(n.Expert), n.Action))
		for _, c := range strings.Split(strings.TrimSpace(n.Context), "\n") {
			if c != "" {
				lines = append(lines, "    "+c)
			}
		}
	}
	for _, e := range wf.Errors {
		lines = append(lines, "  ERROR "+e)
	}
	if st.Err != nil {
		lines = append(lines, "  (latest read failed: "+st.Err.Error()+"; showing the last good one)")
	}
	return lines
}

func done(wf *progress.Workflow) int {
	n := 0
	for _, s := range wf.Steps {
		if s.Status == "completed" {
			n++
		}
	}
	return n
}

func bar(n, total, width int) string {
	if total <= 0 {
		return "[" + strings.Repeat("·", width) + "]"
	}
	full := min(n*width/total, width)
	return "[" + strings.Repeat("█", full) + strings.Repeat("·", width-full) + "]"
}

func mark(status string) string {
	switch status {
	case "completed":
		return "✓"
	case "failed":
		return "✗"
	case "in_progress":
		return "▶"
	}
	return "·"
}
