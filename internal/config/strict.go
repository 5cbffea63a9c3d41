// Package config loads teamlead's YAML files (team, presets) strictly:
// an unknown key, a duplicate name or a bad value is an error that names the
// file, the line and the field, and says what to do.
package config

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ErrInvalid is wrapped by every validation error of a config file.
var ErrInvalid = errors.New("invalid config")

// FieldError is a problem at one place of a config file.
type FieldError struct {
	File  string
	Line  int
	Field string // dotted path, e.g. agents[1].preset; "" for the file as a whole
	Msg   string
}

func (e *FieldError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Unwrap lets errors.Is(err, ErrInvalid) match.
func (e *FieldError) Unwrap() error { return ErrInvalid }

// decodeStrict decodes the YAML document data into out (a pointer to a
// struct), first checking every mapping key against the yaml tags of the
// struct it lands in, so that a typo is reported with its line instead of
// being silently ignored.
// It returns the document's root node so callers can find the line of a
// value they reject after decoding.
func decodeStrict(file string, data []byte, out any) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, SyntaxError(file, data, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &FieldError{File: file, Line: 1, Field: "(file)", Msg: "the file is empty"}
	}
	root := doc.Content[0]
	if err := checkKeys(file, root, reflect.TypeOf(out).Elem(), ""); err != nil {
		return nil, err
	}
	if err := root.Decode(out); err != nil {
		return nil, typeError(file, err)
	}
	return root, nil
}

// lineOf returns the line of key inside mapping n (or of n itself).
func lineOf(n *yaml.Node, key string) int {
	if n == nil {
		return 0
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i].Line
		}
	}
	return n.Line
}

// child returns the value node of key inside mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// typeError turns yaml's "line N: cannot unmarshal ..." into a FieldError.
func typeError(file string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		line := 0
		if _, scanErr := fmt.Sscanf(msg, "line %d:", &line); scanErr == nil {
			msg = strings.TrimSpace(msg[strings.Index(msg, ":")+1:])
		}
		return &FieldError{File: file, Line: line, Field: "(value)", Msg: msg}
	}
	return fmt.Errorf("%s: %w: %v", file, ErrInvalid, err)
}

func checkKeys(file string, n *yaml.Node, t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	switch t.Kind() {
	case reflect.Struct:
		if t.PkgPath() == "time" { // time.Duration etc. decode from scalars
			return nil
		}
		if n.Kind != yaml.MappingNode {
			return &FieldError{File: file, Line: n.Line, Field: orRoot(path), Msg: "expected a mapping of keys to values"}
		}
		fields := yamlFields(t)
		seen := map[string]int{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				return &FieldError{File: file, Line: k.Line, Field: join(path, k.Value),
					Msg: "unknown field; known fields are " + strings.Join(sortedKeys(fields), ", ")}
			}
			if prev, dup := seen[k.Value]; dup {
				return &FieldError{File: file, Line: k.Line, Field: join(path, k.Value),
					Msg: fmt.Sprintf("given twice (first on line %d)", prev)}
			}
			seen[k.Value] = k.Line
			if err := checkKeys(file, v, f.Type, join(path, k.Value)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 || n.Kind != yaml.SequenceNode {
			return nil
		}
		for i, c := range n.Content {
			if err := checkKeys(file, c, t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if err := checkKeys(file, n.Content[i+1], t.Elem(), join(path, n.Content[i].Value)); err != nil {
				return err
			}
		}
	}
	return nil
}

func yamlFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		out[name] = f
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func orRoot(path string) string {
	if path == "" {
		return "(top level)"
	}
	return path
}
