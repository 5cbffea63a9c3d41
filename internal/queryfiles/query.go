package queryfiles

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/teamlead/teamlead/internal/yamlstrict"

	"go.yaml.in/yaml/v3"
)

// Query is one query file (seed 000 "Query File Format").
type Query struct {
	// File is the file's name or path as given to ParseQuery.
	File string
	// ID is "id" (required), e.g. query-20260115-001.
	ID string
	// From is the asking agent (required).
	From string
	// To are the agents asked (required): "to" as one name, a list, or names
	// separated by commas.
	To []string
	// Timestamp is "timestamp" as written.
	Timestamp string
	// Time is Timestamp read as a time, zero when it is absent or unreadable.
	Time time.Time
	// Context is "context".
	Context Context
	// Question is "question" (required), as written (a block keeps its newlines).
	Question string
	// Options are "options", the asker's candidate answers.
	Options []string
	// Priority is "priority"; medium when the file gives none.
	Priority Priority
	// Status is "status"; pending when the file gives none.
	Status Status
	// Extra holds the top-level fields this package does not know, decoded.
	Extra map[string]any
}

// Context is a query's "context".
type Context struct {
	// CurrentTask is "current_task": what the asker is working on.
	CurrentTask string
	// Reference is "reference": a file and line range, e.g. docs/a.md:L45-50.
	Reference string
	// Extra holds the context fields this package does not know, decoded.
	Extra map[string]any
}

// queryFields are a query's known top-level fields, in the seed's order.
var queryFields = []string{"id", "from", "to", "timestamp", "context", "question", "options", "priority", "status"}

// queryHints say how to add each required field.
var queryHints = map[string]string{
	"id":       `add "id: query-<date>-<number>", unique in this folder`,
	"from":     `add "from: <your agent name>"`,
	"to":       `add "to: <agent>" (or a list of agents) naming who should answer`,
	"question": `add "question: |" with the question indented on the lines below`,
}

// ParseQuery reads a query file's bytes; name is used in errors. Errors are
// *FieldError values wrapping ErrBadYAML, ErrMissingField, ErrInvalid or
// ErrIncomplete; any that may come from a half-written file also match
// ErrIncomplete, so test that first.
func ParseQuery(name string, data []byte) (*Query, error) {
	d := &doc{file: name, data: bytes.TrimPrefix(data, utf8BOM)}
	root := d.root()
	if root == nil {
		return nil, d.err
	}
	q := &Query{File: name, Priority: PriorityMedium, Status: StatusPending}
	q.Extra = d.fields(root, "", queryFields, func(key string, _, v *yaml.Node) {
		switch key {
		case "id":
			q.ID = d.line(key, v)
		case "from":
			q.From = d.line(key, v)
		case "to":
			q.To = d.agents(key, v)
		case "timestamp":
			q.Timestamp = d.line(key, v)
			q.Time = parseTime(q.Timestamp)
		case "context":
			q.Context = d.context(v)
		case "question":
			q.Question = d.text(key, v)
		case "options":
			q.Options = d.options(key, v)
		case "priority":
			if s := d.line(key, v); s != "" {
				p, ok := ParsePriority(s)
				if !ok {
					d.invalid(key, v, "%q is not one of %s", s, joinPriorities())
				}
				q.Priority = p
			}
		case "status":
			if s := d.line(key, v); s != "" {
				st, ok := ParseStatus(s)
				if !ok {
					d.invalid(key, v, "%q is not one of pending, answered, resolved", s)
				}
				q.Status = st
			}
		}
	})
	d.missing([]string{"id", "from", "to", "question"}, map[string]bool{
		"id": q.ID != "", "from": q.From != "", "to": len(q.To) > 0,
		"question": strings.TrimSpace(q.Question) != "",
	}, queryHints)
	if d.err != nil {
		return nil, d.err
	}
	return q, nil
}

// ReadQuery reads and parses the query file at path.
func ReadQuery(path string) (*Query, error) {
	data, _, err := ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	return ParseQuery(path, data)
}

// IsQueryFile reports whether name (a path or a base name) is a query file:
// query-*.yaml (or .yml), neither a response nor a hidden or temporary file.
func IsQueryFile(name string) bool {
	base := filepath.Base(name)
	stem, ok := strings.CutSuffix(base, ".yaml")
	if !ok {
		stem, ok = strings.CutSuffix(base, ".yml")
	}
	return ok && strings.HasPrefix(stem, "query-") && len(stem) > len("query-") &&
		!strings.HasSuffix(stem, "-response")
}

// IsResponseFile reports whether name (a path or a base name) is a response
// file: query-*-response.yaml (or .yml).
func IsResponseFile(name string) bool {
	base := filepath.Base(name)
	stem, ok := strings.CutSuffix(base, ".yaml")
	if !ok {
		stem, ok = strings.CutSuffix(base, ".yml")
	}
	return ok && strings.HasPrefix(stem, "query-") && strings.HasSuffix(stem, "-response")
}

// agents reads "to": one name, names separated by commas, or a list of names.
func (d *doc) agents(field string, v *yaml.Node) []string {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.SequenceNode:
		items = v.Content
	case yaml.ScalarNode:
		items = []*yaml.Node{v}
	default:
		d.invalid(field, v, "want an agent name or a list of agent names, got %s%s", kindName(v), placeholderHint(v))
		return nil
	}
	var out []string
	for _, it := range items {
		it = yamlstrict.Deref(it)
		if it.Kind != yaml.ScalarNode {
			d.invalid(field, it, "want an agent name, got %s", kindName(it))
			return nil
		}
		if it.Tag == "!!null" {
			continue
		}
		for name := range strings.SplitSeq(it.Value, ",") {
			if name = strings.TrimSpace(name); name != "" && !slices.Contains(out, name) {
				out = append(out, name)
			}
		}
	}
	return out
}

// context reads "context": a mapping, or text taken as the current task.
func (d *doc) context(v *yaml.Node) Context {
	var c Context
	switch v.Kind {
	case yaml.ScalarNode:
		c.CurrentTask = d.text("context", v)
	case yaml.MappingNode:
		c.Extra = d.fields(v, "context", []string{"current_task", "reference"}, func(key string, _, v *yaml.Node) {
			if key == "current_task" {
				c.CurrentTask = d.text("context.current_task", v)
			} else {
				c.Reference = d.line("context.reference", v)
			}
		})
	default:
		d.invalid("context", v, "want current_task: and reference: under it, got %s", kindName(v))
	}
	return c
}

// options reads "options": a list of texts (one text reads as one option).
// An unquoted item such as `- SSE: simpler` is YAML for a one-key mapping;
// it reads back as the text "SSE: simpler".
func (d *doc) options(field string, v *yaml.Node) []string {
	var items []*yaml.Node
	switch v.Kind {
	case yaml.SequenceNode:
		items = v.Content
	case yaml.ScalarNode:
		if v.Tag == "!!null" {
			return nil
		}
		items = []*yaml.Node{v}
	default:
		d.invalid(field, v, "want a list of options (- \"Option A: ...\"), got %s", kindName(v))
		return nil
	}
	var out []string
	for i, it := range items {
		it = yamlstrict.Deref(it)
		at := fmt.Sprintf("%s[%d]", field, i)
		switch {
		case it.Kind == yaml.ScalarNode:
			out = append(out, it.Value)
		case it.Kind == yaml.MappingNode && len(it.Content) == 2 &&
			yamlstrict.Deref(it.Content[0]).Kind == yaml.ScalarNode && yamlstrict.Deref(it.Content[1]).Kind == yaml.ScalarNode:
			out = append(out, yamlstrict.Deref(it.Content[0]).Value+": "+yamlstrict.Deref(it.Content[1]).Value)
		default:
			d.invalid(at, it, "want the option as text in quotes, got %s", kindName(it))
			return nil
		}
	}
	return out
}

// joinPriorities lists the priorities for messages.
func joinPriorities() string {
	var s []string
	for _, p := range Priorities() {
		s = append(s, string(p))
	}
	return strings.Join(s, ", ")
}
