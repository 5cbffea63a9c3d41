package permit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/internal/fsutil"
)

// ErrShadowed is wrapped when an added rule would not decide the action it
// was added for, because a rule checked before it (or the floor) does.
var ErrShadowed = errors.New("the new rule would not take effect")

// Addition is a rule to add to a policy file.
type Addition struct {
	// Agent gets the rule in its overrides; empty adds it to the rules of every agent.
	Agent string
	// Match is the rule, e.g. Bash(go test:*).
	Match string
	// Decide is what the rule does; 0 means allow.
	Decide Decide
	// Why is the reason shown when the rule decides.
	Why string
	// Paths limits the rule to actions inside the working directory.
	Paths PathScope
	// Comment is written on the line above the rule, e.g. who approved it and when.
	Comment string
	// Action is what prompted the rule: the rule goes as late in its list as it can while still deciding it. Empty appends at the end.
	Action string
	// ActionAgent is the agent Action came from, for whom the rule must take effect; empty means Agent.
	ActionAgent string
}

// AddRule adds a rule to the policy file at path: to its agent's list (made
// if missing) or to rules, keeping the file's comments, and writes the file
// in place (fsutil.Rewrite). With add.Action set, the
// rule goes in the last place of its list from which it decides that action
// (before the first rule that would otherwise match it); when no place
// works — an agent's own rule or the floor decides first — nothing is
// written and the error wraps ErrShadowed.
func AddRule(path string, add Addition, env Env) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: cannot read %v", ErrPolicy, err)
	}
	out, err := AddRuleTo(path, data, add, env)
	if err != nil {
		return err
	}
	// In place: a sandbox's read-only bind over the policy holds the file,
	// and a new file renamed over it would leave it writable there (red
	// team 9a, finding 10).
	return fsutil.Rewrite(path, out, fsutil.Perm(path, 0o644))
}

// AddRuleTo is AddRule on the policy text data (of the file at path),
// returning the new text: the console builds the whole new file from
// what it accepted, never from what an agent may have written since.
func AddRuleTo(path string, data []byte, add Addition, env Env) ([]byte, error) {
	if add.Decide == 0 {
		add.Decide = Allow
	}
	if _, err := ParseRule(add.Match); err != nil {
		return nil, err
	}
	if strings.TrimSpace(add.Why) == "" {
		return nil, fmt.Errorf("%w: %s: say why the rule is there; the human reads it when it decides", ErrPolicy, add.Match)
	}
	if add.Agent != "" && !agentName.MatchString(add.Agent) {
		return nil, fmt.Errorf("%w: agent %q: lower-case letters, digits, '.', '_' and '-'", ErrPolicy, add.Agent)
	}
	if _, err := Parse(path, data); err != nil {
		return nil, fmt.Errorf("the policy must be valid before a rule is added: %w", err)
	}
	return placeRule(path, data, add, env)
}

// placeRule returns the file's text with the rule added.
func placeRule(path string, data []byte, add Addition, env Env) ([]byte, error) {
	n, err := itemCount(data, add.Agent)
	if err != nil {
		return nil, err
	}
	var last Decision
	for pos := n; pos >= 0; pos-- {
		out, err := withRule(data, add, pos)
		if err != nil {
			return nil, err
		}
		p, err := Parse(path, out)
		if err != nil {
			return nil, fmt.Errorf("adding %s would break the policy: %w", add.Match, err)
		}
		if add.Action == "" {
			return out, nil
		}
		who := add.ActionAgent
		if who == "" {
			who = add.Agent
		}
		last = p.Check(add.Action, who, env)
		if decidedBy(last, add.Match, add.Agent) {
			return out, nil
		}
	}
	return nil, fmt.Errorf("%w: %s would not decide %s, which stays %s by %s (%s)", ErrShadowed, add.Match, add.Action, last.Decide, last.Rule, last.Why)
}

// decidedBy reports whether the rule decides the action or one of its parts.
func decidedBy(d Decision, match, agent string) bool {
	if d.Rule.Kind == ByRule && d.Rule.Text == match && d.Rule.Agent == agent {
		return true
	}
	for _, p := range d.Parts {
		if decidedBy(p, match, agent) {
			return true
		}
	}
	return false
}

// itemCount is how many entries the target list already has.
func itemCount(data []byte, agent string) (int, error) {
	doc, err := parseDoc(data)
	if err != nil {
		return 0, err
	}
	root := doc.Content[0]
	list := child(root, "rules")
	if agent != "" {
		list = child(child(root, "agents"), agent)
	}
	if list == nil || list.Kind != yaml.SequenceNode {
		return 0, nil
	}
	return len(list.Content), nil
}

// blankMark keeps blank lines through the yaml round trip, which drops them.
const blankMark = "#teamlead:blank-line"

var blankLine = regexp.MustCompile(`(?m)^[ \t]*$`)
var markLine = regexp.MustCompile(`(?m)^[ \t]*` + blankMark + `[ \t]*$`)

// withRule inserts the rule at index pos of its list, editing the yaml.Node tree.
func withRule(data []byte, add Addition, pos int) ([]byte, error) {
	marked := blankLine.ReplaceAll(bytes.TrimRight(data, "\n"), []byte(blankMark))
	out, err := insertNode(marked, add, pos)
	if err == nil && sameRules(data, out) {
		return out, nil
	}
	return insertNode(data, add, pos) // a blank line inside a string: give up keeping them
}

func insertNode(data []byte, add Addition, pos int) ([]byte, error) {
	doc, err := parseDoc(data)
	if err != nil {
		return nil, err
	}
	root := doc.Content[0]
	list := ensure(root, "rules", yaml.SequenceNode)
	if add.Agent != "" {
		agents := ensure(root, "agents", yaml.MappingNode)
		list = ensure(agents, add.Agent, yaml.SequenceNode)
	}
	list.Style = 0
	if pos > len(list.Content) {
		pos = len(list.Content)
	}
	entry := &yaml.Node{Kind: yaml.MappingNode}
	pair := func(k, v string) {
		entry.Content = append(entry.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
	}
	pair("match", add.Match)
	pair("decide", add.Decide.String())
	if add.Paths == PathsWorkdir {
		pair("paths", "workdir")
	}
	pair("why", strings.TrimSpace(add.Why))
	if add.Comment != "" {
		entry.HeadComment = "# " + strings.ReplaceAll(strings.TrimSpace(add.Comment), "\n", "\n# ")
	}
	list.Content = append(list.Content[:pos], append([]*yaml.Node{entry}, list.Content[pos:]...)...)
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	return markLine.ReplaceAll(b.Bytes(), nil), nil
}

// sameRules reports whether out holds every rule of data, unchanged, plus one.
func sameRules(data, out []byte) bool {
	a, err1 := Parse("a", data)
	b, err2 := Parse("b", out)
	if err1 != nil || err2 != nil || a.Default != b.Default {
		return false
	}
	whys := func(p *Policy) map[string]int {
		m := map[string]int{}
		for _, name := range append(p.AgentNames(), "") {
			for _, e := range p.Agents[name] {
				m[name+"\x00"+e.Rule.Text+"\x00"+e.Why]++
			}
		}
		for _, e := range p.Rules {
			m["\x00"+e.Rule.Text+"\x00"+e.Why]++
		}
		return m
	}
	wa, wb := whys(a), whys(b)
	for k, n := range wa {
		if wb[k] < n {
			return false
		}
	}
	return true
}

func parseDoc(data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPolicy, err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		doc = yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{{Kind: yaml.MappingNode}}}
	}
	if doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%w: the top level is not a mapping", ErrPolicy)
	}
	return &doc, nil
}

// ensure returns the value of key in mapping n, made (or emptied of a null) with kind if missing.
func ensure(n *yaml.Node, key string, kind yaml.Kind) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			v := n.Content[i+1]
			if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
				*v = yaml.Node{Kind: kind, LineComment: v.LineComment}
			}
			v.Style = 0
			return v
		}
	}
	v := &yaml.Node{Kind: kind}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: key}, v)
	return v
}
