package protocol

import (
	"regexp"
	"strings"
)

// markerRE finds the block markers in any case: [ROUTE], [/ROUTE], <gap>,
// </gap>.
var markerRE = regexp.MustCompile(`(?i)\[(/?)route\]|<(/?)gap>`)

// defuseMarkers rewrites every block marker in s with look-alike brackets
// (［ROUTE］, ‹gap›) that no parser reads as one: the text still says what it
// said, and cannot close the envelope carrying it or open another.
func defuseMarkers(s string) string {
	return markerRE.ReplaceAllStringFunc(s, func(m string) string {
		if m[0] == '[' {
			return "［" + m[1:len(m)-1] + "］"
		}
		return "‹" + m[1:len(m)-1] + "›"
	})
}

// Defuse makes e safe to type into an agent whatever text of other agents
// it carries (a question, a progress file's next step, a query file's
// question): header values become one line (a line break would start a
// header of the sender's choosing) and no header or body text can hold a
// block marker (a "[/ROUTE]" in a body would end the envelope there, and
// what follows would read as a new envelope, from anyone — team-lead
// included). The console defuses every envelope before it fingerprints
// and types it.
//
// The markers are looked for in the text as the parser will read it, with
// escape sequences and control characters removed (StripANSI): a NUL
// inside "[rou\x00te]" hid the marker from the look, and the parser,
// which drops the NUL, read it (FuzzDefuse).
func Defuse(e *Envelope) {
	for i, h := range e.Headers {
		v := strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(h.Value)
		e.Headers[i].Value = defuseMarkers(StripANSI(v))
	}
	e.Body = defuseMarkers(StripANSI(e.Body))
}
