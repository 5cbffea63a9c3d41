package protocol

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Gap is a parsed <gap> question block (PROTOCOL.md §4).
type Gap struct {
	Topic    string
	Question string
	Context  string
	// Urgency is low, normal, high or blocking (lower-cased), "normal" when
	// absent; any other value is kept as written for the router to judge.
	Urgency string
}

// Urgency levels of a Gap.
const (
	UrgencyLow      = "low"
	UrgencyNormal   = "normal"
	UrgencyHigh     = "high"
	UrgencyBlocking = "blocking"
)

// gapFields are the child elements of <gap>, in the order they are reported
// missing.
var gapFields = []string{"topic", "question", "context", "urgency"}

// parseGap reads the child elements out of the inner text of a <gap> block
// and lists the required ones that are missing or empty, as "<topic>" and
// "<question>". Element names are case-insensitive; an element without its
// closing tag runs to the next known opening tag.
func parseGap(s string) (Gap, []string) {
	low := asciiLower(s)
	val := func(name string) string {
		open := "<" + name + ">"
		i := strings.Index(low, open)
		if i < 0 {
			return ""
		}
		start := i + len(open)
		end := len(s)
		if j := strings.Index(low[start:], "</"+name+">"); j >= 0 {
			end = start + j
		} else {
			for _, other := range gapFields {
				if j := strings.Index(low[start:], "<"+other+">"); j >= 0 && start+j < end {
					end = start + j
				}
			}
		}
		return cleanValue(s[start:end])
	}
	g := Gap{Topic: val("topic"), Question: val("question"), Context: val("context")}
	g.Urgency = normalUrgency(val("urgency"))
	var missing []string
	if g.Topic == "" {
		missing = append(missing, "<topic>")
	}
	if g.Question == "" {
		missing = append(missing, "<question>")
	}
	return g, missing
}

// normalUrgency lower-cases a known urgency and defaults an empty one.
func normalUrgency(u string) string {
	switch l := strings.ToLower(u); l {
	case "":
		return UrgencyNormal
	case UrgencyLow, UrgencyNormal, UrgencyHigh, UrgencyBlocking:
		return l
	}
	return u
}

// cleanValue decodes entities and trims each line of an element's text,
// and the whole.
func cleanValue(s string) string {
	lines := strings.Split(decodeEntities(s), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSpace(l)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// entities are the XML predefined entities.
var entities = map[string]string{"lt": "<", "gt": ">", "amp": "&", "quot": `"`, "apos": "'"}

// decodeEntities replaces the XML predefined entities and numeric character
// references in s, in one pass (so "&amp;lt;" becomes "&lt;"). Anything
// else that starts with '&' is kept as it is.
func decodeEntities(s string) string {
	i := strings.IndexByte(s, '&')
	if i < 0 {
		return s
	}
	var b strings.Builder
	for i >= 0 {
		b.WriteString(s[:i])
		s = s[i:]
		semi := strings.IndexByte(s, ';')
		if r, ok := entity(s, semi); ok {
			b.WriteString(r)
			s = s[semi+1:]
		} else {
			b.WriteByte('&')
			s = s[1:]
		}
		i = strings.IndexByte(s, '&')
	}
	b.WriteString(s)
	return b.String()
}

// entity decodes the reference s[:semi+1] ("&name;", "&#N;" or "&#xH;").
func entity(s string, semi int) (string, bool) {
	if semi < 2 || semi > 10 {
		return "", false
	}
	name := s[1:semi]
	if r, ok := entities[name]; ok {
		return r, true
	}
	if name[0] != '#' {
		return "", false
	}
	var n uint64
	var err error
	if len(name) > 1 && (name[1] == 'x' || name[1] == 'X') {
		n, err = strconv.ParseUint(name[2:], 16, 32)
	} else {
		n, err = strconv.ParseUint(name[1:], 10, 32)
	}
	if err != nil || !utf8.ValidRune(rune(n)) || n == 0 {
		return "", false
	}
	return string(rune(n)), true
}
