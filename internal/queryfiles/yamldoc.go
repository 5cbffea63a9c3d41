package queryfiles

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/internal/textdist"
	"github.com/teamlead/teamlead/internal/yamlstrict"
)

// doc is one YAML file being read: its name, its bytes and the first
// problem met.
type doc struct {
	file string
	data []byte // without a UTF-8 byte order mark
	err  *FieldError
}

// utf8BOM is the byte order mark some editors put first; it is skipped.
var utf8BOM = []byte("\xef\xbb\xbf")

// root parses d.data and returns its top-level mapping, or nil with d.err set.
func (d *doc) root() *yaml.Node {
	var n yaml.Node
	if err := yaml.Unmarshal(d.data, &n); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		line := 0
		if l, mark := yamlstrict.ErrorLine(msg); mark != "" {
			line = l
			msg = strings.TrimSpace(strings.Replace(msg, mark, "", 1))
		}
		cut := line >= d.lastLine() || strings.Contains(msg, "end of stream") ||
			strings.Contains(msg, "incomplete UTF-8")
		d.fail(&FieldError{Line: line, Msg: ErrBadYAML.Error() + ": " + msg + yamlHint(msg),
			Err: ErrBadYAML, Incomplete: cut})
		return nil
	}
	var top *yaml.Node
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		top = yamlstrict.Deref(n.Content[0])
	}
	if top == nil || (top.Kind == yaml.ScalarNode && top.Tag == "!!null") {
		d.fail(&FieldError{Line: 0, Msg: "the file is empty", Err: ErrIncomplete, Incomplete: true})
		return nil
	}
	if top.Kind != yaml.MappingNode {
		d.fail(&FieldError{Line: top.Line, Msg: "want a mapping of fields (id: ..., from: ...), got " + kindName(top),
			Err: ErrInvalid, Incomplete: d.cut(top.Line)})
		return nil
	}
	return top
}

// yamlHint says how to fix the most common YAML mistake in agent-written files.
func yamlHint(msg string) string {
	if strings.Contains(msg, "mapping values are not allowed") {
		return ` (text containing ": " must be quoted, or written as a block: "question: |" and the text indented on the lines below)`
	}
	return ""
}

// lastLine is the number of the file's last line (a final newline starts an
// empty last line).
func (d *doc) lastLine() int { return bytes.Count(d.data, []byte("\n")) + 1 }

// cut reports whether a problem on line could come from the file being cut
// short: the file does not end with a newline and line is its last line.
func (d *doc) cut(line int) bool {
	return len(d.data) > 0 && d.data[len(d.data)-1] != '\n' && line >= d.lastLine()
}

// fail records e as the file's problem unless one is already recorded.
func (d *doc) fail(e *FieldError) {
	if d.err == nil {
		e.File = d.file
		d.err = e
	}
}

// invalid records a bad value for field at node n.
func (d *doc) invalid(field string, n *yaml.Node, format string, args ...any) {
	d.fail(&FieldError{Line: n.Line, Field: field, Msg: fmt.Sprintf(format, args...),
		Err: ErrInvalid, Incomplete: d.cut(n.Line)})
}

// fields walks mapping m, calling fn for each known key and collecting the
// others. A key given twice, and an unknown key that looks like a misspelling
// of a known field absent from the file, are errors.
func (d *doc) fields(m *yaml.Node, path string, known []string, fn func(key string, k, v *yaml.Node)) map[string]any {
	present := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if k := yamlstrict.Deref(m.Content[i]); k.Kind == yaml.ScalarNode {
			if _, dup := present[k.Value]; !dup {
				present[k.Value] = k.Line
			}
		}
	}
	var extra map[string]any
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := yamlstrict.Deref(m.Content[i]), yamlstrict.Deref(m.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			d.invalid(yamlstrict.Join(path, "(key)"), k, "a key must be plain text, got %s", kindName(k))
			continue
		}
		if seen[k.Value] {
			d.fail(&FieldError{Line: k.Line, Field: yamlstrict.Join(path, k.Value), Err: ErrInvalid,
				Msg: fmt.Sprintf("given twice (first on line %d); keep one", present[k.Value])})
			continue
		}
		seen[k.Value] = true
		if slices.Contains(known, k.Value) {
			fn(k.Value, k, v)
			continue
		}
		if want := nearMiss(k.Value, known); want != "" && present[want] == 0 {
			d.fail(&FieldError{Line: k.Line, Field: yamlstrict.Join(path, k.Value), Err: ErrInvalid,
				Incomplete: d.cut(k.Line),
				Msg:        fmt.Sprintf("unknown field; did you mean %q? (fields are %s)", want, strings.Join(known, ", "))})
			continue
		}
		if extra == nil {
			extra = map[string]any{}
		}
		extra[k.Value] = decodeAny(v)
	}
	return extra
}

// text reads a scalar value as text; null reads as "". Other shapes are errors.
func (d *doc) text(field string, v *yaml.Node) string {
	switch {
	case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
		return ""
	case v.Kind == yaml.ScalarNode:
		return v.Value
	}
	d.invalid(field, v, "want text, got %s; quote it or write it as a block (%s: |)%s", kindName(v), field, placeholderHint(v))
	return ""
}

// placeholderHint explains a {placeholder} copied from the seed's template,
// which YAML reads as a mapping.
func placeholderHint(v *yaml.Node) string {
	if v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle != 0 {
		return "; {...} in the seed's template is a placeholder: write the value itself"
	}
	return ""
}

// line reads a one-line scalar value (an id, an agent name), trimmed.
func (d *doc) line(field string, v *yaml.Node) string {
	return strings.TrimSpace(d.text(field, v))
}

// missing records the first of the required fields that is empty; a file
// lacking a field is often one caught half-written, so it is also incomplete.
func (d *doc) missing(required []string, values map[string]bool, hints map[string]string) {
	var absent []string
	for _, f := range required {
		if !values[f] {
			absent = append(absent, f)
		}
	}
	if len(absent) == 0 {
		return
	}
	msg := "missing; " + hints[absent[0]]
	if len(absent) > 1 {
		msg += fmt.Sprintf(" (also missing: %s)", strings.Join(absent[1:], ", "))
	}
	d.fail(&FieldError{Field: absent[0], Msg: msg, Err: ErrMissingField, Incomplete: true})
}

// kindName names a node's shape for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "text"
	}
	return "something else"
}

// decodeAny decodes an unknown field's value; nil if it cannot be decoded.
func decodeAny(v *yaml.Node) any {
	var out any
	if err := v.Decode(&out); err != nil {
		return nil
	}
	return out
}

// nearMiss returns the known field that key looks like a misspelling of:
// the same but for case, or (for fields of 4 letters or more) within two edits.
func nearMiss(key string, known []string) string {
	lower := strings.ToLower(key)
	for _, f := range known {
		if lower == f {
			return f
		}
	}
	best, bestDist := "", 3
	for _, f := range known {
		if len(f) < 4 || len(lower) < 3 {
			continue
		}
		if dist := editDistance(lower, f, bestDist); dist < bestDist {
			best, bestDist = f, dist
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, or max when it
// is at least max (a length difference that large is not measured).
func editDistance(a, b string, max int) int {
	if d := len(a) - len(b); d >= max || -d >= max {
		return max
	}
	return min(textdist.Levenshtein(a, b), max)
}

// parseTime reads the timestamps agents write; zero when unreadable.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05Z07:00",
		"2006-01-02 15:04:05", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t
		}
	}
	return time.Time{}
}
