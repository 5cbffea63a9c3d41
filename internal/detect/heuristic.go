package detect

import (
	"regexp"
	"strings"
)

// LooksLikeDialog reports whether a screen plainly asks the human
// something, by generic signs any CLI's dialog shows: a question ("Do you
// want …", "Allow …", "Approve …", "Would you like …", "… proceed?")
// followed within a few rows by at least two numbered options, one of
// them a yes (Yes, Allow, Approve, Proceed, Accept, Run, Trust), or by a
// row of buttons, a yes and a no apart (OpenCode's "Allow once   Allow
// always   Reject"); or a
// yes/no prompt ("(y/n)", "[Y/n]", "(Y)es/(N)o") on the last non-blank
// row. A reply that merely quotes such a question in a paragraph, without
// the options, is not a dialog.
func LooksLikeDialog(screen []string) bool {
	rows, _ := rowsOf(screen)
	last := len(rows) - 1
	for last >= 0 && strings.TrimSpace(rows[last].text) == "" {
		last--
	}
	if last < 0 {
		return false
	}
	if yesNo.MatchString(rows[last].text) {
		return true
	}
	for q := 0; q <= last; q++ {
		if !question.MatchString(rows[q].text) {
			continue
		}
		numbered, yes := 0, false
		for i := q; i <= min(last, q+dialogSpan); i++ {
			if sm := numberedOption.FindStringSubmatch(rows[i].text); sm != nil {
				numbered++
				yes = yes || affirmative.MatchString(sm[1])
			}
		}
		if numbered >= 2 && yes {
			return true
		}
		for i := q; i <= min(last, q+dialogSpan); i++ {
			if buttons.MatchString(rows[i].text) {
				return true
			}
		}
	}
	return false
}

// dialogSpan is how many rows below its question a dialog's options may
// reach.
const dialogSpan = 12

var (
	question       = regexp.MustCompile(`(?i)\b(do you want|would you like|allow\b|approve|proceed\?|confirm|permission|are you sure)`)
	numberedOption = regexp.MustCompile(`^\s*(?:[❯›>▶●○◉◯*→]\s*)?\(?\d{1,2}[.)]\s+(\S.*)$`)
	affirmative    = regexp.MustCompile(`(?i)^(yes|allow|approve|proceed|accept|run|trust|ok|continue)\b`)
	buttons        = regexp.MustCompile(`(?i)^\s*(yes|allow|approve|accept)\b[^.!?]*\s{2,}(no|reject|deny|decline)\b`)
	yesNo          = regexp.MustCompile(`(?i)(\(y/n\)|\[y/n\]|\(yes/no\)|\[yes/no\]|\(Y\)es/\(N\)o|\[y/N\]|\[Y/n\])`)
)
