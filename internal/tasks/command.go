package tasks

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

var (
	// reNeither removes phrases that name a failure without being one.
	reNeither = regexp.MustCompile(`\b(?:0|no|zero|without|not an?)\s+(?:fail\w*|errors?|regressions?|panics?|env(?:ironment)?[ _-]?block\w*)\b`)
	reFail    = regexp.MustCompile(`\b(?:fail|fails|failed|failing|failure|failures|error|errors|errored|broken|broke|panic|panics|panicked|crash|crashed|crashes|timeout|timed out|blocked|not run|could ?n[o']t run|cannot run|can't run|unable to run|did ?n[o']t run|non-?zero)\b|[❌✗✘✖🔴⛔🚫]`)
	rePass    = regexp.MustCompile(`\b(?:pass|passes|passed|passing|ok|okay|success|successful|successfully|succeeded|green|clean)\b|[✅✓✔🟢]`)
	reExit    = regexp.MustCompile(`\b(?:exit(?:ed)?(?: with)?(?: code| status)?|exit_code|exitcode|rc|return ?code|returned)\s*[:=]?\s*(-?\d+)`)
	reEnv     = regexp.MustCompile(`\benv(?:ironment(?:al)?)?[ _-]?block(?:er|ers|ed|ing)?\b`)
	reRegr    = regexp.MustCompile(`\bregress(?:ion|ions|ed)?\b`)
)

// resultWords start a command's result after a separator.
var resultWords = map[string]bool{
	"fail": true, "fails": true, "failed": true, "failing": true, "failure": true, "error": true, "errored": true,
	"pass": true, "passes": true, "passed": true, "passing": true, "ok": true, "okay": true, "success": true,
	"succeeded": true, "green": true, "broken": true, "panic": true, "panicked": true, "crashed": true,
	"timeout": true, "timed": true, "blocked": true, "exit": true, "exited": true, "rc": true, "returned": true,
	"could": true, "couldn't": true, "cannot": true, "can't": true, "unable": true, "not": true, "did": true,
	"didn't": true, "regression": true, "env": true, "environment": true,
}

// outcome is what a command's result text says.
type outcome struct {
	fail, pass bool
	class      string // Regression, EnvBlocker, or "" when none or both
	ambiguous  bool   // both classifications
}

// readOutcome reads a command's result text.
func readOutcome(s string) outcome {
	var o outcome
	s = reNeither.ReplaceAllString(strings.ToLower(s), " ")
	o.fail, o.pass = reFail.MatchString(s), rePass.MatchString(s)
	for _, m := range reExit.FindAllStringSubmatch(s, -1) {
		if n, err := strconv.Atoi(m[1]); err == nil && n == 0 {
			o.pass = true
		} else {
			o.fail = true
		}
	}
	env, regr := reEnv.MatchString(s), reRegr.MatchString(s)
	switch {
	case env && regr:
		o.ambiguous = true
	case env:
		o.class = EnvBlocker
	case regr:
		o.class = Regression
	}
	return o
}

// failed reports whether the result is a failure: it says so, or it
// carries a classification and does not say the command passed.
func (o outcome) failed() bool {
	return o.fail || (o.class != "" || o.ambiguous) && !o.pass
}

// parseCommand reads one item of the commands section.
func parseCommand(it item) Command {
	lead, text := cutLeadStatus(it.text)
	cmd, res := splitResult(text)
	o := readOutcome(lead + " " + res + " " + strings.Join(it.cont, " "))
	c := Command{Text: cmd}
	if o.failed() {
		c.Failed, c.Class, c.ambiguous = true, o.class, o.ambiguous
	}
	return c
}

// cutLeadStatus removes a leading result mark: `❌ `, `[FAIL] `, `FAIL: `.
func cutLeadStatus(s string) (lead, rest string) {
	for _, r := range []string{"❌", "✅", "✗", "✘", "✔", "✓", "🔴", "🟢", "⛔", "✖"} {
		if strings.HasPrefix(s, r) {
			return r, strings.TrimSpace(strings.TrimPrefix(s[len(r):], "\ufe0f"))
		}
	}
	for _, w := range []string{"FAIL", "FAILED", "PASS", "PASSED", "OK", "ERROR", "BLOCKED"} {
		for _, f := range []string{"[" + w + "] ", "(" + w + ") ", w + ": ", w + " - ", w + " — "} {
			if len(s) >= len(f) && strings.EqualFold(s[:len(f)], f) {
				return w, strings.TrimSpace(s[len(f):])
			}
		}
	}
	return "", s
}

// splitResult splits an item into the command and its result text.
func splitResult(s string) (cmd, res string) {
	s = strings.TrimSpace(s)
	if i := strings.Index(s, "`"); i >= 0 {
		ticks := "`"
		if strings.HasPrefix(s[i:], "``") {
			ticks = "``"
		}
		if j := strings.Index(s[i+len(ticks):], ticks); j > 0 {
			inner := strings.TrimSpace(s[i+len(ticks) : i+len(ticks)+j])
			if inner != "" {
				return trimCommand(inner), s[:i] + " " + s[i+len(ticks)+j+len(ticks):]
			}
		}
	}
	// the earliest of: an arrow or spaced dash, a separator followed by a
	// result word, a trailing group that reads as a result
	cut, after := -1, 0
	take := func(i, n int) {
		if i > 0 && (cut < 0 || i < cut) {
			cut, after = i, i+n
		}
	}
	for _, sep := range []string{"→", "⇒", "⟶", " -> ", " => ", " — ", " – "} {
		take(strings.Index(s, sep), len(sep))
	}
	for _, sep := range []string{": ", ", ", " - ", " | ", " = ", " -- "} {
		for off := 0; off < len(s); {
			i := strings.Index(s[off:], sep)
			if i < 0 {
				break
			}
			i += off
			if i > 0 && startsWithResult(s[i+len(sep):]) {
				take(i, len(sep))
				break
			}
			off = i + len(sep)
		}
	}
	if i := trailingGroup(s); i > 0 {
		if o := readOutcome(s[i:]); o.fail || o.pass || o.class != "" || o.ambiguous {
			take(i, 0)
		}
	}
	for off := 0; off < len(s); {
		i := strings.Index(s[off:], " (")
		if i < 0 {
			break
		}
		i += off
		j := strings.Index(s[i:], ")")
		if j < 0 {
			break
		}
		if j < 200 {
			if o := readOutcome(s[i : i+j+1]); o.fail || o.pass || o.class != "" || o.ambiguous {
				take(i, 0)
				break
			}
		}
		off = i + 2
	}
	fields := fieldSpans(s)
	for k, f := range fields {
		if k > 0 && resultToken(s[f[0]:f[1]]) {
			take(f[0], 0)
			break
		}
	}
	if cut > 0 {
		return trimCommand(s[:cut]), s[after:]
	}
	for _, f := range fields[min(1, len(fields)):] {
		word := s[f[0]:f[1]]
		w := strings.ToLower(strings.Trim(word, ".,;:!()[]*_"))
		if resultWords[w] && w != "not" && w != "did" && w != "env" && w != "exit" && w != "could" ||
			strings.ContainsAny(word, "❌✅✗✘✔✓🔴🟢") {
			return trimCommand(s[:f[0]]), s[f[0]:]
		}
	}
	return trimCommand(s), ""
}

// fieldSpans gives the [start, end) byte offsets of s's fields, split at
// white space as strings.Fields splits them (tabs and form feeds too, so a
// field is never looked up again as " "+field).
func fieldSpans(s string) [][2]int {
	var spans [][2]int
	start := -1
	for i, r := range s {
		if unicode.IsSpace(r) {
			if start >= 0 {
				spans = append(spans, [2]int{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		spans = append(spans, [2]int{start, len(s)})
	}
	return spans
}

// trailingGroup is the index of a trailing (…) or […] group, or -1.
func trailingGroup(s string) int {
	if s == "" {
		return -1
	}
	closeB := s[len(s)-1]
	var openB byte
	switch closeB {
	case ')':
		openB = '('
	case ']':
		openB = '['
	default:
		return -1
	}
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case closeB:
			depth++
		case openB:
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}

// startsWithResult reports whether s starts with a result word or mark.
func startsWithResult(s string) bool {
	s = strings.TrimLeftFunc(s, func(r rune) bool {
		return r == '*' || r == '_' || r == '[' || r == '(' || r == '`' || r == ' ' || r == '\ufe0f'
	})
	for _, m := range []string{"❌", "✅", "✗", "✘", "✔", "✓", "🔴", "🟢", "⛔", "✖"} {
		if strings.HasPrefix(s, m) {
			return true
		}
	}
	end := strings.IndexFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' && r != '_' && r != '-' })
	if end < 0 {
		end = len(s)
	}
	w := strings.ToLower(s[:end])
	if resultWords[w] {
		return true
	}
	return reEnv.MatchString(w) || reRegr.MatchString(w)
}

// trimCommand removes a shell prompt, wrapping punctuation and spaces.
func trimCommand(s string) string {
	s = strings.TrimSpace(s)
	_, s = cutPrompt(s)
	s = strings.TrimRight(s, " :,;—–|")
	s = strings.Trim(s, "`*_ ")
	return strings.Join(strings.Fields(s), " ")
}

// resultToken reports a word that can only be a result after a command:
// "failed", "passed", ... or an upper-case FAIL, PASS, OK, ERROR, BLOCKED.
func resultToken(f string) bool {
	w := strings.Trim(f, ".,;:!()[]*_")
	switch w {
	case "FAIL", "FAILED", "PASS", "PASSED", "OK", "ERROR", "BLOCKED":
		return true
	}
	switch strings.ToLower(w) {
	case "failed", "fails", "failing", "passed", "passes", "passing", "errored", "succeeded", "crashed", "panicked":
		return true
	}
	return false
}
