package queryfiles

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"unicode/utf8"

	"github.com/teamlead/teamlead/internal/yamlstrict"

	"go.yaml.in/yaml/v3"
)

// SetStatus sets the status of the query file at path, in place and
// atomically, keeping the rest of the file as written: only the status
// value changes (or a status line is added at the end when there is none),
// so comments, order, quoting and blank lines stay. Nothing is written when
// the file already has that status. The file must parse as a query; if it
// changes while being updated, the update is retried on the new content.
func SetStatus(path string, status Status) error {
	if !status.Valid() {
		return fmt.Errorf("spc: status %q is not one of pending, answered, resolved: %w", status, ErrInvalid)
	}
	for range 5 {
		data, perm, err := ReadFile(path)
		if err != nil {
			return fmt.Errorf("spc: %w", err)
		}
		out, err := withStatus(path, data, status)
		if err != nil || out == nil {
			return err
		}
		err = writeAtomic(path, out, perm, data)
		if !errors.Is(err, errChanged) {
			if err != nil {
				return fmt.Errorf("spc: update %s: %w", path, err)
			}
			return nil
		}
	}
	return fmt.Errorf("spc: update %s: %w", path, errChanged)
}

// withStatus returns data with its status set, or nil when it already has
// it. It edits the status value's bytes where the node tree says they are
// and checks the result; a file it cannot edit that way (a flow mapping, a
// status written as a block) is re-encoded from its node tree instead.
func withStatus(path string, data []byte, status Status) ([]byte, error) {
	q, err := ParseQuery(path, data)
	if err != nil {
		return nil, err
	}
	bom := bytes.HasPrefix(data, utf8BOM)
	body := bytes.TrimPrefix(data, utf8BOM)
	var docNode yaml.Node
	if err := yaml.Unmarshal(body, &docNode); err != nil { // parsed above, so not expected
		return nil, fmt.Errorf("spc: %s: %w: %v", path, ErrBadYAML, err)
	}
	root := yamlstrict.Deref(docNode.Content[0])
	if q.Status == status {
		return nil, nil
	}
	k, v := statusNode(root)
	want := *q
	want.Status = status
	check := func(out []byte) bool {
		got, err := ParseQuery(path, out)
		return err == nil && reflect.DeepEqual(*got, want)
	}
	if out := splice(body, k, v, root, status); out != nil && check(out) {
		return addBOM(bom, out), nil
	}
	if v != nil {
		v.Kind, v.Tag, v.Style, v.Value, v.Content = yaml.ScalarNode, "!!str", 0, string(status), nil
	} else {
		root.Content = append(root.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "status"},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: string(status)})
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&docNode); err != nil {
		return nil, fmt.Errorf("spc: %s: %w", path, err)
	}
	_ = enc.Close()
	if out := buf.Bytes(); check(out) {
		return addBOM(bom, out), nil
	}
	return nil, fmt.Errorf("spc: %s: cannot set the status without changing other fields; set it by hand: %w", path, ErrInvalid)
}

// statusNode finds the top-level status key and value, nil when absent.
func statusNode(root *yaml.Node) (k, v *yaml.Node) {
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := yamlstrict.Deref(root.Content[i]); k.Kind == yaml.ScalarNode && k.Value == "status" {
			return k, root.Content[i+1]
		}
	}
	return nil, nil
}

// splice replaces a one-line status value in body, or appends a status
// line to a block mapping without one; nil when it cannot.
func splice(body []byte, k, v, root *yaml.Node, status Status) []byte {
	if k == nil {
		if root.Style&yaml.FlowStyle != 0 {
			return nil
		}
		out := append([]byte(nil), body...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		return append(out, "status: "+string(status)+"\n"...)
	}
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		return nil
	}
	var written string
	switch v.Style {
	case 0:
		written = v.Value
	case yaml.DoubleQuotedStyle:
		written = `"` + v.Value + `"`
	case yaml.SingleQuotedStyle:
		written = "'" + v.Value + "'"
	default:
		return nil
	}
	at := offset(body, v.Line, v.Column)
	if at < 0 || !bytes.HasPrefix(body[at:], []byte(written)) {
		return nil
	}
	repl := string(status)
	if v.Style != 0 {
		repl = written[:1] + repl + written[:1]
	}
	out := append([]byte(nil), body[:at]...)
	out = append(out, repl...)
	return append(out, body[at+len(written):]...)
}

// offset converts a 1-based line and character column into a byte offset
// in body, -1 when out of range.
func offset(body []byte, line, col int) int {
	at := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(body[at:], '\n')
		if i < 0 {
			return -1
		}
		at += i + 1
	}
	for c := 1; c < col; c++ {
		if at >= len(body) || body[at] == '\n' {
			return -1
		}
		_, size := utf8.DecodeRune(body[at:])
		at += size
	}
	return at
}

// addBOM puts the byte order mark back when the file had one.
func addBOM(bom bool, data []byte) []byte {
	if !bom {
		return data
	}
	return append(append([]byte(nil), utf8BOM...), data...)
}
