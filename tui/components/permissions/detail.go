package permissions

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/tui/components/layout"
)

// sources says how each door brought a request.
var sources = map[approvals.Source]string{
	approvals.FromRoute:  "a [ROUTE] of type permission",
	approvals.FromDialog: "its CLI's permission dialog",
	approvals.FromHook:   "its CLI's hook",
}

// detailView is the selected request's whole record: who wants what, what
// the policy said and why, the floor entries it hits, and what became of it.
func (m Model) detailView() string {
	r, ok := m.Selected()
	if !ok {
		return m.st.Muted.Render("nothing selected")
	}
	w := max(m.Width(), 20)
	now := m.now()
	var lines []string
	add := func(style func(...string) string, text string) {
		for _, l := range layout.Wrap(text, w, "    ") {
			lines = append(lines, style(l))
		}
	}
	text, muted, accent := m.st.Text.Render, m.st.Muted.Render, m.st.Title.Render

	lines = append(lines, StatusStyle(m.st, r.Status).Render(r.ID+" · "+string(r.Status))+muted(" · ")+m.st.Risk(r.Risk).Render("risk "+layout.OrDash(r.Risk)))
	via := sources[r.Source]
	if via == "" {
		via = layout.OrDash(string(r.Source))
	}
	who := fmt.Sprintf("%s asks, through %s", r.Agent, via)
	if r.Task != "" && r.Task != "-" {
		who += ", for " + r.Task
	}
	add(text, who)
	when := fmt.Sprintf("asked %s (%s ago)", layout.Stamp(r.Created), report.Age(now.Sub(r.Created)))
	switch {
	case r.Escalated && !r.Done():
		when += " · escalated: waited too long"
	case !r.Deadline.IsZero() && !r.Done():
		if left := r.Deadline.Sub(now); left > 0 {
			when += " · escalates in " + report.Age(left)
		} else {
			when += " · escalation due"
		}
	}
	add(muted, when)

	lines = append(lines, "", accent("Action"))
	// Cut at the width, not between words: what is shown is exactly
	// what would run.
	for _, l := range strings.Split(ansi.Hardwrap(r.Action, max(w-2, 1), true), "\n") {
		lines = append(lines, text("  "+l))
	}

	lines = append(lines, "", accent("Policy"))
	add(text, fmt.Sprintf("  %s — %s", layout.OrDash(r.Policy), layout.OrDash(r.Rule)))
	if why := strings.TrimSpace(r.Why); why != "" {
		add(text, "  "+why)
	}
	if len(r.Floor) > 0 {
		lines = append(lines, "", m.st.Error.Render("Floor (never approved always; asked every time)"))
		for _, f := range r.Floor {
			add(m.st.Error.Render, "  "+f)
		}
	}

	lines = append(lines, "", accent("Decision"))
	switch r.Status {
	case approvals.Pending:
		add(m.st.Warn.Render, "  waiting for you")
	default:
		d := fmt.Sprintf("  %s by %s", r.Status, layout.OrDash(r.DecidedBy))
		if r.DecidedBy == "" {
			d = "  " + string(r.Status)
		}
		if !r.Decided.IsZero() {
			d += " at " + layout.Stamp(r.Decided)
		}
		add(StatusStyle(m.st, r.Status).Render, d)
		if note := strings.TrimSpace(r.Note); note != "" {
			add(text, "  "+note)
		}
	}

	return strings.Join(m.Scroll(lines), "\n")
}
