package consults

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/consult"
	"github.com/teamlead/teamlead/internal/report"
	"github.com/teamlead/teamlead/tui/components/layout"
)

// step is one dated line of a consultation's history.
type step struct {
	at   time.Time
	text string
}

// detailView is the selected consultation's whole record: who asks whom
// about what, the request, every verdict and event in time order, and the
// lineage of resubmissions.
func (m Model) detailView() string {
	c, ok := m.Selected()
	if !ok {
		return m.st.Muted.Render("nothing selected")
	}
	w := max(m.Width(), 20)
	now := m.now()
	var lines []string
	addIndent := func(style func(...string) string, text, indent string) {
		for _, l := range layout.Wrap(text, w, indent) {
			lines = append(lines, style(l))
		}
	}
	add := func(style func(...string) string, text string) { addIndent(style, text, "    ") }
	text, muted, accent := m.st.Text.Render, m.st.Muted.Render, m.st.Title.Render

	head := fmt.Sprintf("%s · %s", c.ID, c.Status)
	if c.Mandatory {
		head += " · mandatory"
	}
	if c.Priority != "" {
		head += " · priority " + c.Priority
	}
	lines = append(lines, m.statusStyle(c.Status).Render(head))
	add(text, fmt.Sprintf("%s (%s) asks %s (%s) about the %s decision on %s", c.Requester, layout.OrDash(c.RequesterRole), c.Consulted,
		layout.OrDash(c.ConsultedRole), layout.OrDash(c.Decision), layout.OrDash(c.Task)))
	when := fmt.Sprintf("opened %s (%s ago)", layout.Stamp(c.Created), report.Age(now.Sub(c.Created)))
	if d := deadline(c, now); d != "" {
		when += " · " + d
	}
	if !c.ResolvedAt.IsZero() {
		when += fmt.Sprintf(" · closed %s", layout.Stamp(c.ResolvedAt))
	}
	add(muted, when)
	if c.Query != "" {
		add(muted, "query file: "+c.Query)
	}
	if b, ok := m.blockOf(c); ok {
		add(m.st.Error.Render, m.blockLine(b))
	}

	lines = append(lines, "", accent("Request"))
	body := strings.TrimSpace(c.Body)
	if body == "" {
		body = "(no text)"
	}
	for _, l := range strings.Split(body, "\n") {
		add(text, "  "+l)
	}

	lines = append(lines, "", accent("History"))
	for _, s := range history(c) {
		addIndent(text, "  "+layout.Stamp(s.at)+"  "+s.text, strings.Repeat(" ", 2+len(layout.Stamp(s.at))+2))
	}

	if chain := m.lineage(c); len(chain) > 1 {
		lines = append(lines, "", accent("Lineage (newest first)"))
		for _, l := range chain {
			mark := "  "
			if l.ID == c.ID {
				mark = "▸ "
			}
			line := fmt.Sprintf("%s%s %s, opened %s", mark, l.ID, l.Status, layout.Stamp(l.Created))
			if l.Supersedes != "" {
				line += ", supersedes " + l.Supersedes
			}
			if n := len(l.Verdicts); n > 0 {
				v := l.Verdicts[n-1]
				line += fmt.Sprintf(" — %s by %s", v.Verdict, v.By)
				if b := report.OneLine(v.Body); b != "" {
					line += ": " + b
				}
			}
			add(text, line)
		}
	}

	return strings.Join(m.Scroll(lines), "\n")
}

// history merges the verdicts and events of c in time order.
func history(c consult.Consultation) []step {
	out := []step{{at: c.Created, text: "opened by " + c.Requester}}
	if c.Supersedes != "" {
		out[0].text += ", superseding " + c.Supersedes
	}
	for _, v := range c.Verdicts {
		t := fmt.Sprintf("%s by %s", v.Verdict, v.By)
		if v.Verdict == consult.Resolved && v.By == consult.Human {
			t = "concerns acknowledged by the human"
		}
		if b := report.OneLine(v.Body); b != "" {
			t += ": " + b
		}
		out = append(out, step{at: v.At, text: t})
	}
	for _, e := range c.Events {
		var t string
		switch e.Kind {
		case consult.EventAddressed:
			t = "concerns addressed by " + e.By
		case consult.EventDelegated:
			t = fmt.Sprintf("delegated by %s to %s", e.By, e.To)
		case consult.EventEscalated:
			t = "escalated"
			if e.To != "" {
				t += " to " + e.To
			}
		case consult.EventCycle:
			t = "circle of waiting agents found"
		default:
			t = e.Kind + " by " + e.By
		}
		if b := report.OneLine(e.Body); b != "" {
			t += ": " + b
		}
		out = append(out, step{at: e.At, text: t})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].at.Before(out[j].at) })
	return out
}

// lineage is the chain of resubmissions c belongs to, newest first: the
// ones that superseded it and the ones it superseded.
func (m Model) lineage(c consult.Consultation) []consult.Consultation {
	byID := map[string]consult.Consultation{}
	next := map[string]string{} // superseded id → the one superseding it
	all := m.All()
	for _, x := range all {
		byID[x.ID] = x
		if x.Supersedes != "" {
			next[x.Supersedes] = x.ID
		}
	}
	top := c.ID
	for seen := 0; next[top] != "" && seen < len(all); seen++ {
		top = next[top]
	}
	var out []consult.Consultation
	for id, seen := top, 0; id != "" && seen <= len(all); seen++ {
		x, ok := byID[id]
		if !ok {
			break
		}
		out = append(out, x)
		id = x.Supersedes
	}
	return out
}

// blockOf is the blocked decision c holds, if any.
func (m Model) blockOf(c consult.Consultation) (Block, bool) {
	for _, b := range m.blocks {
		for _, h := range b.Held {
			if h.ID == c.ID {
				return b, true
			}
		}
	}
	return Block{}, false
}
