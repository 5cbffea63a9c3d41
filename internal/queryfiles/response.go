package queryfiles

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Response is a response file (seed 000 "Responding to a Query").
type Response struct {
	// QueryID is "query_id": the id of the query answered (required).
	QueryID string
	// From is the answering agent, or whoever answered for it (required).
	From string
	// Timestamp is when the answer was given; written as RFC 3339 in UTC.
	Timestamp time.Time
	// Answer is the answer (required); multi-line text is written as a block.
	Answer string
	// Recommendation is the short pick among the query's options, if any.
	Recommendation string
	// AdditionalContext is anything else the asker should know, if any.
	AdditionalContext string
	// Extra holds fields this package does not know, when read from a file.
	Extra map[string]any
}

// responseFields are a response's known fields, in the seed's order.
var responseFields = []string{"query_id", "from", "timestamp", "answer", "recommendation", "additional_context"}

// responseHints say how to add each required field.
var responseHints = map[string]string{
	"query_id": `add "query_id: <the query's id>"`,
	"from":     `add "from: <your agent name>"`,
	"answer":   `add "answer: |" with the answer indented on the lines below`,
}

// ResponsePath is where the response to the query file at queryPath goes:
// the same folder, the query's name without .yaml plus -response.yaml.
func ResponsePath(queryPath string) string {
	ext := filepath.Ext(queryPath)
	return strings.TrimSuffix(queryPath, ext) + "-response.yaml"
}

// WriteResponse writes r as the response to the query file at queryPath,
// atomically, replacing any earlier response, and returns the response's
// path. A zero Timestamp is taken as now. It does not change the query's
// status: call SetStatus for that.
func WriteResponse(queryPath string, r Response) (string, error) {
	path := ResponsePath(queryPath)
	for _, f := range [][2]string{{"query_id", r.QueryID}, {"from", r.From}, {"answer", r.Answer}} {
		if field := f[0]; strings.TrimSpace(f[1]) == "" {
			return "", &FieldError{File: path, Field: field, Msg: "missing; " + responseHints[field], Err: ErrMissingField}
		}
	}
	if r.Timestamp.IsZero() {
		r.Timestamp = time.Now()
	}
	data, err := MarshalResponse(r, displayName(path))
	if err != nil {
		return "", err
	}
	if err := writeAtomic(path, data, 0o644, nil); err != nil {
		return "", fmt.Errorf("spc: write %s: %w", path, err)
	}
	return path, nil
}

// MarshalResponse renders r as a response file like the seed's example,
// with "# title" as its first line when title is not empty.
func MarshalResponse(r Response, title string) ([]byte, error) {
	m := &yaml.Node{Kind: yaml.MappingNode}
	add := func(key string, v *yaml.Node) {
		m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, v)
	}
	add("query_id", plain(r.QueryID))
	add("from", plain(r.From))
	add("timestamp", &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp",
		Value: r.Timestamp.UTC().Format(time.RFC3339)})
	add("answer", block(r.Answer))
	if r.Recommendation != "" {
		add("recommendation", block(r.Recommendation))
	}
	if r.AdditionalContext != "" {
		add("additional_context", block(r.AdditionalContext))
	}
	if title != "" {
		m.Content[0].HeadComment = "# " + title
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(m); err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseResponse reads a response file's bytes; name is used in errors.
// Errors are as for ParseQuery; the required fields are query_id, from and
// answer.
func ParseResponse(name string, data []byte) (*Response, error) {
	d := &doc{file: name, data: bytes.TrimPrefix(data, utf8BOM)}
	root := d.root()
	if root == nil {
		return nil, d.err
	}
	r := &Response{}
	r.Extra = d.fields(root, "", responseFields, func(key string, _, v *yaml.Node) {
		switch key {
		case "query_id":
			r.QueryID = d.line(key, v)
		case "from":
			r.From = d.line(key, v)
		case "timestamp":
			r.Timestamp = parseTime(d.line(key, v))
		case "answer":
			r.Answer = d.text(key, v)
		case "recommendation":
			r.Recommendation = d.text(key, v)
		case "additional_context":
			r.AdditionalContext = d.text(key, v)
		}
	})
	d.missing([]string{"query_id", "from", "answer"}, map[string]bool{
		"query_id": r.QueryID != "", "from": r.From != "", "answer": strings.TrimSpace(r.Answer) != "",
	}, responseHints)
	if d.err != nil {
		return nil, d.err
	}
	return r, nil
}

// ReadResponse reads and parses the response file at path.
func ReadResponse(path string) (*Response, error) {
	data, _, err := ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("spc: %w", err)
	}
	return ParseResponse(path, data)
}

// plain is a text scalar written without quotes where YAML allows it.
func plain(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
}

// block is a text scalar: a literal block ("|") when it spans lines, else
// in double quotes. Line ends are normalised to "\n", and trailing ones
// to one for a block and none for one line, so that it reads as in the
// seed's example.
func block(s string) *yaml.Node {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	t := strings.TrimRight(s, "\n")
	if strings.Contains(t, "\n") {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.LiteralStyle, Value: t + "\n"}
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Style: yaml.DoubleQuotedStyle, Value: t}
}

// displayName is how a file is named in its own header comment: with its
// .spc/queries folders when it lives in one, as in the seed.
func displayName(path string) string {
	dir, base := filepath.Split(path)
	queries := filepath.Dir(dir)
	if filepath.Base(queries) == "queries" && filepath.Base(filepath.Dir(queries)) == ".spc" {
		return ".spc/queries/" + base
	}
	return base
}
