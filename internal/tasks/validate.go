package tasks

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// review assembles the Review from what the reader collected and checks it
// against the QA Result Contract.
func (rd *reader) review() Review {
	var r Review
	for _, it := range rd.items[secCommands] {
		if c := parseCommand(it); c.Text != "" || c.Failed {
			r.Commands = append(r.Commands, c)
		}
	}
	r.Commands = rd.applyFailures(r.Commands)
	r.Steps = joinItems(rd.items[secSteps])
	r.Evidence = joinItems(rd.items[secEvidence])

	if len(r.Commands) == 0 {
		r.Missing = append(r.Missing, "commands run: none listed (add a 'commands:' section, one command per line)")
	}
	if len(r.Steps) == 0 {
		r.Missing = append(r.Missing, "reproducible steps: none listed (add a 'steps:' section, one step per line)")
	}
	if len(r.Evidence) == 0 {
		r.Missing = append(r.Missing, "evidence summary: none given (add an 'evidence:' section: log excerpts, screenshots or request/response)")
	}
	classified := true
	for _, c := range r.Commands {
		switch {
		case !c.Failed:
		case c.ambiguous:
			classified = false
			r.Missing = append(r.Missing, fmt.Sprintf("failed command %s is classified both regression and env_blocker (keep one)", quote(c.Text)))
		case c.Class == "":
			classified = false
			r.Missing = append(r.Missing, fmt.Sprintf("failed command %s has no classification (regression or env_blocker)", quote(c.Text)))
		}
	}
	r.Decision = rd.decision(&r)
	if r.Decision != "" && classified {
		r.Missing = append(r.Missing, consistency(r)...)
	}
	return r
}

// decision picks the one decision given, or reports none, bad or conflicting ones.
func (rd *reader) decision(r *Review) Decision {
	var d Decision
	var seen []string
	conflict := false
	for _, f := range rd.decisions {
		if s := fmt.Sprintf("%s (%s)", f.d, f.where); !slices.Contains(seen, s) {
			seen = append(seen, s)
		}
		if d == "" {
			d = f.d
		}
		conflict = conflict || f.d != d
	}
	switch {
	case conflict:
		r.Missing = append(r.Missing, "decision: conflicting values "+strings.Join(seen, ", ")+" (give exactly one of PASS, FAIL or BLOCKED)")
		return ""
	case d == "" && len(rd.bad) > 0:
		r.Missing = append(r.Missing, "decision: "+rd.bad[0]+" is not PASS, FAIL or BLOCKED")
	case d == "":
		r.Missing = append(r.Missing, "decision: none (end with 'decision: PASS', 'FAIL' or 'BLOCKED')")
	}
	return d
}

// consistency checks that the decision agrees with the commands.
func consistency(r Review) []string {
	var failed []string
	regr, env := 0, 0
	for _, c := range r.Commands {
		if c.Failed {
			failed = append(failed, quote(c.Text))
			if c.Class == Regression {
				regr++
			} else {
				env++
			}
		}
	}
	switch r.Decision {
	case Pass:
		if n := len(failed); n > 0 {
			return []string{fmt.Sprintf("decision PASS but %d command%s failed: %s (fix the decision, or the command's result)", n, plural(n), strings.Join(failed, ", "))}
		}
	case Fail:
		if len(failed) == 0 {
			return []string{"decision FAIL but no command failed (mark the failing command, e.g. '- `go test ./...` → FAIL (regression)')"}
		}
		if regr == 0 {
			return []string{"decision FAIL but every failure is env_blocker (decide BLOCKED, or classify the failure that is a regression)"}
		}
	case Blocked:
		if env == 0 {
			return []string{"decision BLOCKED but no failed command is classified env_blocker (mark the blocked command, e.g. '- `npm test` → failed (env_blocker)')"}
		}
	}
	return nil
}

// applyFailures merges the failures section into the commands.
func (rd *reader) applyFailures(cmds []Command) []Command {
	var global []outcome
	normed := make([]string, len(cmds))
	for i, c := range cmds {
		normed[i] = norm(c.Text)
	}
	for _, it := range rd.items[secFailures] {
		text := it.text + " " + strings.Join(it.cont, " ")
		o := readOutcome(text)
		if o.pass && !o.fail {
			continue // "go vet ./...: passed" is not a failure
		}
		name := failureName(it)
		i := matchCommand(normed, name, text)
		switch {
		case i >= 0:
			cmds[i].Failed = true
			if o.class != "" || o.ambiguous {
				cmds[i].Class, cmds[i].ambiguous = o.class, o.ambiguous
			}
		case o.class != "" || o.ambiguous:
			global = append(global, o)
			if name != "" && !anyFailed(cmds) {
				cmds = append(cmds, Command{Text: name, Failed: true, Class: o.class, ambiguous: o.ambiguous})
				normed = append(normed, norm(name))
				global = global[:len(global)-1]
			}
		case name != "":
			cmds = append(cmds, Command{Text: name, Failed: true})
			normed = append(normed, norm(name))
		}
	}
	for _, o := range global {
		for i := range cmds {
			if cmds[i].Failed && cmds[i].Class == "" && !cmds[i].ambiguous {
				cmds[i].Class, cmds[i].ambiguous = o.class, o.ambiguous
			}
		}
	}
	return cmds
}

// failureName is the command a failures item names, without its
// classification ("regression: go test ./api" → "go test ./api").
func failureName(it item) string {
	text := strings.TrimSpace(it.text)
	if strings.Contains(text, "`") {
		cmd, _ := splitResult(text)
		return cmd
	}
	lower := strings.ToLower(text)
	for _, re := range []interface{ FindStringIndex(string) []int }{reEnv, reRegr} {
		if m := re.FindStringIndex(lower); m != nil && strings.Trim(lower[:m[0]], "[( ") == "" {
			text = strings.TrimLeft(text[m[1]:], ")] :-—–→>|")
			break
		}
	}
	cmd, _ := splitResult(text)
	if isNone(cmd) {
		return ""
	}
	return cmd
}

// matchCommand finds the listed command (by its normalized text) that a
// failures item names: the same text, else the longest command the item
// contains; -1 when none.
func matchCommand(normed []string, name, text string) int {
	n, t := norm(name), norm(text)
	best := -1
	for i, ct := range normed {
		if ct == "" {
			continue
		}
		if ct == n {
			return i
		}
		if strings.Contains(t, ct) && (best < 0 || len(ct) > len(normed[best])) {
			best = i
		}
	}
	return best
}

func norm(s string) string {
	return strings.ToLower(strings.Join(strings.Fields(strings.Trim(s, "`*_ ")), " "))
}

func anyFailed(cmds []Command) bool {
	for _, c := range cmds {
		if c.Failed {
			return true
		}
	}
	return false
}

// joinItems turns items into one string each, continuation lines joined.
func joinItems(its []item) []string {
	var out []string
	for _, it := range its {
		s := strings.TrimSpace(strings.Join(append([]string{it.text}, it.cont...), " "))
		if strings.Contains(it.text, "\n") {
			s = it.text // a fenced block keeps its lines
		}
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// parseDecision reads PASS, FAIL or BLOCKED from the first word of s.
func parseDecision(s string) Decision {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) })
	if end >= 0 {
		s = s[:end]
	}
	switch strings.ToUpper(s) {
	case "PASS", "PASSED":
		return Pass
	case "FAIL", "FAILED":
		return Fail
	case "BLOCKED":
		return Blocked
	}
	return ""
}

// isBareDecision reports a line that is only an upper-case decision word,
// possibly decorated (`**FAIL**`, `✅ PASS`).
func isBareDecision(t string) bool {
	w := strings.TrimFunc(t, func(r rune) bool { return !unicode.IsLetter(r) })
	return w != "" && w == strings.ToUpper(w) && parseDecision(w) != "" && !strings.ContainsFunc(w, unicode.IsSpace)
}

func quote(s string) string {
	if s == "" {
		return "(unnamed)"
	}
	return "`" + clip(s) + "`"
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
