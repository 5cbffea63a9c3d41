// Package yamlstrict holds what the strict YAML loaders share (the
// permission policy, answerers.yaml, the agents' query files): following
// aliases, naming fields by their dotted path, walking a mapping that
// refuses unknown and repeated keys, and the line a YAML syntax error
// names. It does no I/O.
package yamlstrict

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Deref follows an alias to the node it names; nil stays nil.
func Deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode && n.Alias != nil && i < 100; i++ {
		n = n.Alias
	}
	return n
}

// Join makes the dotted name of key inside path.
func Join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// errorLine finds the line number in a yaml error message.
var errorLine = regexp.MustCompile(`line (\d+):`)

// ErrorLine is the line a yaml error message names, with the text that
// names it ("line 3:"); 0 and "" when it names none.
func ErrorLine(msg string) (line int, mark string) {
	m := errorLine.FindStringSubmatch(msg)
	if m == nil {
		return 0, ""
	}
	line, _ = strconv.Atoi(m[1])
	return line, m[0]
}

// Mapping walks the keys of a mapping node the way the strict loaders
// read a file.
type Mapping struct {
	// Known lists the keys Each is given; nil gives it every key.
	Known []string
	// Hint is added to the message of an unknown key.
	Hint string
	// PlainKeys follows a key's aliases and reports a key that is not
	// plain text ("a key must be a plain word", field path.(key)).
	PlainKeys bool
	// Each is called for each accepted key, with its dotted name, the key
	// and its value (aliases followed).
	Each func(field string, k, v *yaml.Node) error
	// Bad is called instead for a key refused: not plain, unknown
	// ("unknown field; known fields are …") or given twice ("given twice
	// (first on line N)").
	Bad func(field string, k *yaml.Node, msg string) error
}

// Walk calls m.Each or m.Bad for each key of mapping n, in order; path
// prefixes the field names. An error from either ends the walk.
func (m Mapping) Walk(n *yaml.Node, path string) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], Deref(n.Content[i+1])
		if m.PlainKeys {
			if k = Deref(k); k.Kind != yaml.ScalarNode {
				if err := m.Bad(Join(path, "(key)"), k, "a key must be a plain word"); err != nil {
					return err
				}
				continue
			}
		}
		field := Join(path, k.Value)
		var err error
		switch prev, dup := seen[k.Value]; {
		case m.Known != nil && !slices.Contains(m.Known, k.Value):
			err = m.Bad(field, k, "unknown field; known fields are "+strings.Join(m.Known, ", ")+m.Hint)
		case dup:
			err = m.Bad(field, k, fmt.Sprintf("given twice (first on line %d)", prev))
		default:
			seen[k.Value] = k.Line
			err = m.Each(field, k, v)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
