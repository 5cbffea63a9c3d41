package tasks

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// section is the part of a review body a line belongs to.
type section int

const (
	secNone     section = iota // before the first heading
	secCommands                // commands run
	secSteps                   // reproducible steps
	secEvidence                // evidence summary
	secFailures                // failure classification
	secOther                   // a heading we do not read (notes, summary, ...)
)

// sections maps a normalized heading to its section.
var sections = map[string]section{}

func init() {
	for sec, names := range map[section][]string{
		secCommands: {"commands", "command", "commands run", "command run", "commands ran", "commands executed",
			"commands used", "commands and results", "commands tests run", "tests run", "test commands",
			"tests executed", "checks run", "checks", "executed", "executed commands", "what i ran", "cmds"},
		secSteps: {"steps", "step", "reproducible steps", "reproduction steps", "steps to reproduce", "repro steps",
			"repro", "reproduction", "how to reproduce", "to reproduce", "reproduce", "str", "test steps"},
		secEvidence: {"evidence", "evidence summary", "logs", "log", "log excerpt", "screenshots", "screenshot",
			"output", "test output", "request response", "requests", "artifacts", "proof"},
		secFailures: {"failures", "failure", "failure classification", "failure classifications",
			"classification", "classifications", "failed commands", "failed", "failing commands", "failed checks"},
		secOther: {"notes", "note", "summary", "context", "scope", "environment", "env", "observations",
			"comments", "remarks", "details", "next steps", "recommendations", "reason", "rationale", "risks"},
	} {
		for _, n := range names {
			sections[n] = sec
		}
	}
}

// decisionLabels maps a normalized label to whether it is strong: a strong
// label must carry a decision, a weak one counts only when it does.
var decisionLabels = map[string]bool{
	"decision": true, "final decision": true, "qa decision": true, "review decision": true,
	"overall decision": true, "verdict": true, "final verdict": true, "qa verdict": true,
	"final result": true, "final status": true, "final outcome": true,
	"result": false, "results": false, "outcome": false, "overall": false, "status": false,
	"conclusion": false, "overall status": false, "overall result": false, "qa result": false,
	"review result": false, "test result": false, "recommendation": false,
}

// label is a line split as a possible heading or `label: value` line.
type label struct {
	key     string // normalized label, "" when the line does not start with words
	rest    string // text after the label and its separator
	colon   bool   // the label was followed by ':' (or '=' / a dash / an arrow)
	heading bool   // markdown heading (#) or a bold-only line
	marked  bool   // the line had a list marker
}

// splitLabel reads a trimmed line as `[# ][marker ][**]label[**][:][**] rest`.
func splitLabel(t string) label {
	var l label
	if strings.HasPrefix(t, "#") {
		l.heading = true
		t = strings.TrimSpace(strings.TrimLeft(t, "#"))
	}
	if m, rest := stripMarker(t); m {
		l.marked = true
		t = rest
	}
	bold := strings.HasPrefix(t, "**") || strings.HasPrefix(t, "__")
	t = strings.TrimLeftFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '`' })
	// the label: letters, digits, spaces and a few joiners, up to a separator
	end := 0
	for i, r := range t {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == ' ' || r == '/' || r == '&' || r == '\'' || r == '(' || r == ')' ||
			(r == '-' || r == '_') && i > 0 && i+1 < len(t) && isLetterAt(t, i+1) {
			end = i + utf8.RuneLen(r)
			continue
		}
		break
	}
	l.key = normalizeLabel(t[:end])
	rest := strings.TrimLeft(t[end:], "*_ ")
	switch {
	case strings.HasPrefix(rest, ":"), strings.HasPrefix(rest, "="):
		l.colon, rest = true, rest[1:]
	case strings.HasPrefix(rest, "："):
		l.colon, rest = true, rest[len("："):]
	default:
		for _, sep := range []string{"—", "–", "->", "→", "- "} {
			if strings.HasPrefix(rest, sep) {
				l.colon, rest = true, rest[len(sep):]
				break
			}
		}
	}
	l.rest = strings.TrimSpace(strings.TrimLeft(rest, "*_ "))
	if bold && l.rest == "" {
		l.heading = true
	}
	return l
}

func isLetterAt(s string, i int) bool {
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r)
}

var labelReplacer = strings.NewReplacer("_", " ", "-", " ", "/", " ", "&", " and ", ")", " ")

// normalizeLabel lower-cases a label, drops a trailing parenthetical and
// makes `_`, `-` and `/` spaces and `&` "and".
func normalizeLabel(s string) string {
	s = strings.ToLower(s)
	if i := strings.Index(s, "("); i >= 0 {
		s = s[:i]
	}
	s = labelReplacer.Replace(s)
	return strings.Join(strings.Fields(s), " ")
}

// stripMarker removes a list marker (`-`, `*`, `+`, `•`, `·`, `1.`, `1)`,
// `(1)`, `[x]`, `[ ]`, `Step 1:`) and reports whether there was one.
func stripMarker(t string) (bool, string) {
	marked := false
	for {
		s, ok := stripOneMarker(t)
		if !ok {
			return marked, t
		}
		marked, t = true, s
	}
}

func stripOneMarker(t string) (string, bool) {
	for _, m := range []string{"- ", "* ", "+ ", "• ", "· ", "[x] ", "[X] ", "[ ] ", "☐ ", "☑ "} {
		if strings.HasPrefix(t, m) {
			return strings.TrimSpace(t[len(m):]), true
		}
	}
	if t == "-" || t == "*" || t == "+" || t == "•" {
		return "", true
	}
	s := t
	if strings.HasPrefix(strings.ToLower(s), "step ") {
		s = strings.TrimSpace(s[len("step "):])
	}
	open := strings.HasPrefix(s, "(")
	if open {
		s = s[1:]
	}
	n := 0
	for n < len(s) && n < 3 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	if n == 0 || n == len(s) {
		return t, false
	}
	switch c := s[n]; {
	case c == ')' || c == ':' || (c == '.' && !open):
		if n+1 == len(s) || s[n+1] == ' ' {
			return strings.TrimSpace(s[n+1:]), true
		}
	}
	return t, false
}
