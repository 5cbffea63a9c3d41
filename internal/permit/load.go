package permit

import (
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/yamlstrict"
)

// ErrPolicy is wrapped by every error about a policy file.
var ErrPolicy = errors.New("invalid permissions policy")

// BuiltinName is how the embedded default policy is named in decisions.
const BuiltinName = "configs/permissions.yaml"

// PolicyError is a problem at one place of a policy file.
type PolicyError struct {
	// File is the policy file.
	File string
	// Line is the line of the problem.
	Line int
	// Field is the dotted path of the problem, e.g. rules[3].match.
	Field string
	// Msg says what is wrong and what to do.
	Msg string
	// Err is the underlying error (ErrRule for a bad rule), if any.
	Err error
}

// Error is "file:line: field: what is wrong".
func (e *PolicyError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Unwrap lets errors.Is match ErrPolicy and the underlying error.
func (e *PolicyError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrPolicy, e.Err}
	}
	return []error{ErrPolicy}
}

// Load reads and checks a policy file.
func Load(path string) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: cannot read %v (pass --policy FILE, or leave it out for the built-in policy)", ErrPolicy, err)
	}
	return Parse(path, data)
}

// Builtin returns the policy embedded in the binary (configs/permissions.yaml).
func Builtin() (*Policy, error) {
	return Parse(BuiltinName, configs.Permissions)
}

var agentName = regexp.MustCompile(`^[a-z0-9][a-z0-9_.-]*$`)

// Parse checks a policy file's text strictly: an unknown key, a key given
// twice, a bad rule or value is an error naming file:line and the field.
func Parse(file string, data []byte) (*Policy, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line := 1
		if l, mark := yamlstrict.ErrorLine(err.Error()); mark != "" {
			line = l
		}
		return nil, &PolicyError{File: file, Line: line, Field: "(file)", Msg: "not YAML: " + err.Error()}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return nil, &PolicyError{File: file, Line: 1, Field: "(file)", Msg: "the file is empty: write default:, rules: and agents:"}
	}
	root := yamlstrict.Deref(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		return nil, &PolicyError{File: file, Line: root.Line, Field: "(top level)", Msg: "expected a mapping with default, rules and agents"}
	}
	p := &Policy{File: file, Default: Ask, Agents: map[string][]Entry{}}
	err := eachKey(file, root, "", []string{"default", "rules", "agents"}, func(k, v *yaml.Node) error {
		switch k.Value {
		case "default":
			d, err := ParseDecide(v.Value)
			if err == nil && d == Allow {
				err = errors.New("allow would approve every action no rule names: keep ask (or deny) and write allow rules for what may run unasked")
			}
			if err != nil || v.Kind != yaml.ScalarNode {
				return fieldErr(file, v, "default", fmt.Sprint(err), nil)
			}
			p.Default, p.DefaultLine = d, k.Line
		case "rules":
			entries, err := parseEntries(file, v, "rules", "")
			p.Rules = entries
			return err
		case "agents":
			return parseAgents(file, v, p)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

func parseAgents(file string, n *yaml.Node, p *Policy) error {
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		return fieldErr(file, n, "agents", "expected a mapping of agent names to their lists of rules", nil)
	}
	return eachKey(file, n, "agents", nil, func(k, v *yaml.Node) error {
		if !agentName.MatchString(k.Value) {
			return fieldErr(file, k, "agents."+k.Value, "an agent name is lower-case letters, digits, '.', '_' and '-', as in the team file", nil)
		}
		entries, err := parseEntries(file, v, "agents."+k.Value, k.Value)
		p.Agents[k.Value] = entries
		return err
	})
}

// entryKeys are the fields of one rule.
var entryKeys = []string{"match", "decide", "why", "risk", "paths"}

func parseEntries(file string, n *yaml.Node, field, agent string) ([]Entry, error) {
	if isNull(n) {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, fieldErr(file, n, field, "expected a list of rules, each {match: …, decide: …, why: …}", nil)
	}
	var out []Entry
	for i, item := range n.Content {
		item = yamlstrict.Deref(item)
		f := fmt.Sprintf("%s[%d]", field, i)
		if item.Kind != yaml.MappingNode {
			return nil, fieldErr(file, item, f, "expected {match: …, decide: …, why: …}", nil)
		}
		var matches []*yaml.Node
		tmpl := Entry{File: file, Agent: agent}
		err := eachKey(file, item, f, entryKeys, func(k, v *yaml.Node) error {
			return parseEntryField(file, f, k, v, &tmpl, &matches)
		})
		if err != nil {
			return nil, err
		}
		for _, key := range []string{"match", "decide", "why"} {
			if child(item, key) == nil {
				return nil, fieldErr(file, item, f, "missing "+key+": every rule needs match, decide and why", nil)
			}
		}
		for _, m := range matches {
			r, err := ParseRule(m.Value)
			if err != nil {
				return nil, fieldErr(file, m, f+".match", strings.TrimPrefix(err.Error(), ErrRule.Error()+": "), err)
			}
			e := tmpl
			e.Rule, e.Line = r, m.Line
			out = append(out, e)
		}
	}
	return out, nil
}

func parseEntryField(file, f string, k, v *yaml.Node, e *Entry, matches *[]*yaml.Node) error {
	name := f + "." + k.Value
	if k.Value == "match" {
		switch v.Kind {
		case yaml.ScalarNode:
			*matches = append(*matches, v)
		case yaml.SequenceNode:
			for _, m := range v.Content {
				if m = yamlstrict.Deref(m); m.Kind != yaml.ScalarNode {
					return fieldErr(file, m, name, "expected a rule such as Bash(go test:*)", nil)
				}
				*matches = append(*matches, m)
			}
			if len(v.Content) == 0 {
				return fieldErr(file, v, name, "an empty list matches nothing: give at least one rule", nil)
			}
		default:
			return fieldErr(file, v, name, "expected a rule, or a list of rules", nil)
		}
		return nil
	}
	if v.Kind != yaml.ScalarNode {
		return fieldErr(file, v, name, "expected a single value", nil)
	}
	var err error
	switch k.Value {
	case "decide":
		e.Decide, err = ParseDecide(v.Value)
	case "why":
		e.Why = strings.TrimSpace(v.Value)
		if e.Why == "" {
			err = errors.New("empty: say why, the human reads it when this rule decides")
		}
	case "risk":
		e.Risk, err = ParseRisk(v.Value)
	case "paths":
		switch v.Value {
		case "any":
			e.Paths = PathsAny
		case "workdir":
			e.Paths = PathsWorkdir
		default:
			err = fmt.Errorf("%q: use workdir (every path the action names is inside the working directory) or any", v.Value)
		}
	}
	if err != nil {
		return fieldErr(file, v, name, err.Error(), nil)
	}
	return nil
}

// eachKey walks a mapping, refusing duplicate keys and, when known is not
// nil, keys not in it.
func eachKey(file string, n *yaml.Node, path string, known []string, do func(k, v *yaml.Node) error) error {
	return yamlstrict.Mapping{Known: known,
		Each: func(_ string, k, v *yaml.Node) error { return do(k, v) },
		Bad:  func(field string, k *yaml.Node, msg string) error { return fieldErr(file, k, field, msg, nil) },
	}.Walk(n, path)
}

func fieldErr(file string, n *yaml.Node, field, msg string, err error) error {
	return &PolicyError{File: file, Line: n.Line, Field: field, Msg: msg, Err: err}
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.Tag == "!!null" }

// child returns the value of key in mapping n, or nil.
func child(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return yamlstrict.Deref(n.Content[i+1])
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
