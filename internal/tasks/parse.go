package tasks

import (
	"sort"
	"strings"
)

// item is one raw item of a section and its continuation lines.
type item struct {
	text   string
	cont   []string
	marked bool // started by a list marker
	indent int
}

// found is one decision seen in the review.
type found struct {
	d     Decision
	where string // "header" or "body"
}

// reader walks the lines of a review body.
type reader struct {
	sec          section
	items        map[section][]item
	decisions    []found
	bad          []string // decision values that are not a decision
	wantDecision bool     // a decision heading with its value on the next line
	fence        []string // lines of the open code fence
	fenceMark    string   // "```" or "~~~" while a fence is open
	fenceIndent  int
}

// headerSections are the envelope headers read as leading body lines.
var headerSections = []string{"commands", "commands run", "steps", "reproducible steps", "evidence", "failures", "classification"}

// headerDecisions are the envelope headers that carry a decision.
var headerDecisions = []string{"decision", "final decision", "result", "verdict", "outcome"}

// ValidateReview reads a QA review (its envelope headers and body) by the
// grammar of the package documentation and says what it lacks.
func ValidateReview(headers map[string]string, body string) Review {
	rd := &reader{items: map[section][]item{}}
	keys := make([]string, 0, len(headers))
	for k := range headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	hs := map[string]string{} // by normalized key; the first in sorted order wins
	for _, k := range keys {
		if nk := normalizeLabel(k); hs[nk] == "" {
			hs[nk] = headers[k]
		}
	}
	for _, k := range headerDecisions {
		if v, ok := hs[k]; ok && strings.TrimSpace(v) != "" {
			if d := parseDecision(v); d != "" {
				rd.decisions = append(rd.decisions, found{d, "header"})
			} else {
				rd.bad = append(rd.bad, "header `"+k+": "+clip(v)+"`")
			}
		}
	}
	for _, k := range headerSections {
		if v, ok := hs[k]; ok && strings.TrimSpace(v) != "" {
			for _, ln := range strings.Split(k+": "+v, "\n") {
				rd.line(ln)
			}
		}
	}
	rd.sec = secNone
	for _, ln := range dedent(strings.Split(body, "\n")) {
		rd.line(ln)
	}
	rd.closeFence()
	return rd.review()
}

// line reads one line of the body.
func (rd *reader) line(raw string) {
	raw = strings.TrimRight(strings.ReplaceAll(raw, "\t", "    "), " \r")
	t := strings.TrimSpace(raw)
	indent := len(raw) - len(strings.TrimLeft(raw, " "))
	if rd.fenceMark != "" {
		if strings.HasPrefix(t, rd.fenceMark) && strings.Trim(t, rd.fenceMark[:1]) == "" {
			rd.closeFence()
		} else {
			rd.fence = append(rd.fence, raw)
		}
		return
	}
	if t == "" || isRule(t) {
		return
	}
	if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
		rd.fenceMark, rd.fenceIndent, rd.fence = t[:3], indent, nil
		return
	}
	l := splitLabel(t)
	if rd.decisionLine(l, indent) {
		return
	}
	if sec, ok := sections[l.key]; ok && rd.isHeading(l, sec, indent) {
		rd.sec, rd.wantDecision = sec, false
		if l.rest != "" {
			rd.add(item{text: l.rest})
		}
		return
	}
	if rd.wantDecision {
		rd.wantDecision = false
		rd.decide(t, "body", true)
		return
	}
	if (l.heading || rd.sec == secNone || rd.sec == secOther) && isBareDecision(t) {
		rd.sec = secNone
		rd.decide(t, "body", true)
		return
	}
	if l.heading {
		rd.sec = secOther
		return
	}
	if rd.sec == secNone || rd.sec == secOther {
		return
	}
	if strings.HasPrefix(t, "|") {
		rd.tableRow(t)
		return
	}
	marked, text := stripMarker(t)
	items := rd.items[rd.sec]
	if !marked && len(items) > 0 && items[len(items)-1].marked && indent > items[len(items)-1].indent {
		last := &items[len(items)-1]
		last.cont = append(last.cont, text)
		return
	}
	rd.add(item{text: text, marked: marked, indent: indent})
}

// isHeading reports whether a line whose label names section sec starts
// it: `name:` or a lone `name`; as a list item (`- Commands run:`) only
// with nothing after it and not for the sections we ignore; indented
// only as a list item ending in a colon, or a markdown or bold heading.
func (rd *reader) isHeading(l label, sec section, indent int) bool {
	if !l.colon && l.rest != "" {
		return false
	}
	if l.marked && (sec == secOther || l.rest != "") {
		return false
	}
	return indent == 0 || l.heading || l.marked && l.colon
}

// decisionLine records a `decision: X` line and reports whether it was one.
func (rd *reader) decisionLine(l label, indent int) bool {
	strong, ok := decisionLabels[l.key]
	rest := l.rest
	if !ok && !l.colon { // "Decision PASS": the value was read as part of the label
		if i := strings.LastIndex(l.key, " "); i > 0 {
			if s, ok2 := decisionLabels[l.key[:i]]; ok2 && parseDecision(l.key[i+1:]) != "" {
				strong, ok, rest = s, true, l.key[i+1:]
			}
		}
	}
	if !ok {
		return false
	}
	if !strong && (l.marked || indent > 0 || parseDecision(rest) == "") {
		return false
	}
	if !l.colon && rest == "" && !l.heading && !strong {
		return false
	}
	if !l.colon && rest == "" && !l.heading && l.marked {
		return false
	}
	rd.sec = secNone
	if rest == "" {
		rd.wantDecision = true
		return true
	}
	rd.decide(rest, "body", strong)
	return true
}

// decide records the decision in s, or a bad value when strong.
func (rd *reader) decide(s, where string, strong bool) {
	if d := parseDecision(s); d != "" {
		rd.decisions = append(rd.decisions, found{d, where})
	} else if strong {
		rd.bad = append(rd.bad, "`"+clip(s)+"`")
	}
}

// maxItems bounds the items read per section, so that a pathological
// review costs little; no real review comes near it.
const maxItems = 500

func (rd *reader) add(it item) {
	if isNone(it.text) && len(it.cont) == 0 || len(rd.items[rd.sec]) >= maxItems {
		return
	}
	rd.items[rd.sec] = append(rd.items[rd.sec], it)
}

// closeFence turns the lines of a code fence into items of the section.
func (rd *reader) closeFence() {
	lines := rd.fence
	open := rd.fenceMark != ""
	rd.fence, rd.fenceMark = nil, ""
	if !open {
		return
	}
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
		if len(l)-len(strings.TrimLeft(l, " ")) >= rd.fenceIndent {
			lines[i] = strings.TrimRight(l[rd.fenceIndent:], " ")
		}
	}
	switch rd.sec {
	case secNone, secOther:
		return
	case secEvidence:
		if text := strings.TrimSpace(strings.Join(lines, "\n")); text != "" {
			rd.add(item{text: text})
		}
		return
	}
	prompted := false
	for _, l := range lines {
		if p, _ := cutPrompt(l); p {
			prompted = true
			break
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		p, cmd := cutPrompt(t)
		switch {
		case prompted && rd.sec == secCommands && p:
			rd.add(item{text: cmd})
		case prompted && rd.sec == secCommands:
			if its := rd.items[secCommands]; len(its) > 0 {
				its[len(its)-1].cont = append(its[len(its)-1].cont, t)
			}
		case rd.sec == secCommands && strings.HasPrefix(t, "#"):
		default:
			rd.add(item{text: cmd})
		}
	}
}

// cutPrompt removes a shell prompt (`$ `, `% `, `> `).
func cutPrompt(t string) (bool, string) {
	t = strings.TrimSpace(t)
	for _, p := range []string{"$ ", "% ", "> "} {
		if strings.HasPrefix(t, p) {
			return true, strings.TrimSpace(t[len(p):])
		}
	}
	return false, t
}

// tableRow reads a markdown table row as an item; header and rule rows are skipped.
func (rd *reader) tableRow(t string) {
	var cells []string
	for _, c := range strings.Split(strings.Trim(t, "|"), "|") {
		if c = strings.TrimSpace(c); c != "" {
			cells = append(cells, c)
		}
	}
	if len(cells) == 0 || strings.Trim(strings.Join(cells, ""), ":- ") == "" {
		return
	}
	switch strings.ToLower(strings.Trim(cells[0], "*_ ")) {
	case "#", "no", "n", "command", "commands", "cmd", "step", "steps", "evidence", "check", "test":
		return
	}
	if len(cells) > 1 && strings.Trim(cells[0], "0123456789.") == "" {
		cells = cells[1:]
	}
	if rd.sec == secCommands || rd.sec == secFailures {
		rd.add(item{text: cells[0], cont: cells[1:]})
		return
	}
	rd.add(item{text: strings.Join(cells, " | ")})
}

// isRule reports a markdown horizontal rule (---, ***, ___).
func isRule(t string) bool {
	if len(t) < 3 {
		return false
	}
	s := strings.ReplaceAll(t, " ", "")
	return strings.Trim(s, "-") == "" || strings.Trim(s, "*") == "" || strings.Trim(s, "_") == "" || strings.Trim(s, "=") == ""
}

// isNone reports an item that says there is nothing: none, n/a, -.
func isNone(s string) bool {
	switch strings.ToLower(strings.Trim(s, " .*_`()")) {
	case "", "-", "none", "n/a", "na", "nothing", "no failures", "none failed", "no failed commands", "not applicable":
		return true
	}
	return false
}

// clip shortens s for a message.
func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}

// dedent removes the indentation common to every non-blank line.
func dedent(lines []string) []string {
	least := -1
	for i, l := range lines {
		l = strings.TrimRight(strings.ReplaceAll(l, "\t", "    "), " \r")
		lines[i] = l
		if l == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); least < 0 || n < least {
			least = n
		}
	}
	if least <= 0 {
		return lines
	}
	for i, l := range lines {
		if len(l) >= least {
			lines[i] = l[least:]
		}
	}
	return lines
}
