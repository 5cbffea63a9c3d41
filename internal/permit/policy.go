package permit

import (
	"fmt"
	"sort"
	"strings"
)

// PathScope limits where a rule applies.
type PathScope int

const (
	// PathsAny applies the rule wherever the action's paths are.
	PathsAny PathScope = iota
	// PathsWorkdir applies the rule only when every path the action names is inside the working directory.
	PathsWorkdir
)

// String is the scope as written in permissions.yaml.
func (s PathScope) String() string {
	if s == PathsWorkdir {
		return "workdir"
	}
	return "any"
}

// Entry is one rule of a policy with its decision.
type Entry struct {
	// Rule is the parsed match.
	Rule Rule
	// Decide is what the rule does: allow, ask or deny.
	Decide Decide
	// Why is the reason shown to the human.
	Why string
	// Risk is the rule's risk level; 0 derives it from Decide (allow low, ask medium, deny high).
	Risk Risk
	// Paths limits the rule to actions whose paths are inside the working directory.
	Paths PathScope
	// File is the policy file the rule is in.
	File string
	// Line is the line of the rule's match in File.
	Line int
	// Agent is the agent whose overrides hold the rule; empty for the defaults.
	Agent string
}

func (e Entry) risk() Risk {
	if e.Risk != 0 {
		return e.Risk
	}
	switch e.Decide {
	case Allow:
		return Low
	case Deny:
		return High
	}
	return Medium
}

func (e Entry) ref() Ref {
	return Ref{Kind: ByRule, Text: e.Rule.Text, File: e.File, Line: e.Line, Agent: e.Agent}
}

// Policy is a loaded permissions.yaml: ordered rules, per-agent overrides
// checked before them, and the default for actions no rule matches.
type Policy struct {
	// File is the file the policy was read from.
	File string
	// Default decides actions no rule matches: ask or deny.
	Default Decide
	// DefaultLine is the line of default: in File (0 when not written).
	DefaultLine int
	// Rules are the rules for every agent, in order.
	Rules []Entry
	// Agents are each agent's own rules, checked before Rules.
	Agents map[string][]Entry
}

// Effective returns the rules that apply to an agent, in the order they
// are checked: the agent's own, then the defaults.
func (p *Policy) Effective(agent string) []Entry {
	out := make([]Entry, 0, len(p.Agents[agent])+len(p.Rules))
	out = append(out, p.Agents[agent]...)
	return append(out, p.Rules...)
}

// AgentNames returns the agents with overrides, sorted.
func (p *Policy) AgentNames() []string {
	out := make([]string, 0, len(p.Agents))
	for a := range p.Agents {
		out = append(out, a)
	}
	sort.Strings(out)
	return out
}

// first returns the rule that decides, or nil: the agent's own rules,
// then the defaults. Within a list the order of the rules does not matter:
// a matching deny rule decides, then a matching ask rule, then the most
// specific matching allow rule; a deny or ask rule gives way only to a
// matching allow rule that refines it, a narrower case written as its
// exception (Bash(npm install lodash) of Bash(npm install:*), Edit(src/**)
// of Edit, an approve-always rule of the ask that sent the action to the
// human). So no allow rule can shadow an ask or deny rule for the same
// command by its place in the file. Ask and deny rules for Bash match their
// options in any order and place (Bash(git branch -D:*) matches git branch
// -v -D x); allow rules match only as written.
func (p *Policy) first(s subject, inside bool, agent string) *Entry {
	for _, list := range [][]Entry{p.Agents[agent], p.Rules} {
		var deny, ask, allow []*Entry
		for i := range list {
			e := &list[i]
			if e.Paths == PathsWorkdir && !inside {
				continue
			}
			if !e.Rule.matches(s) && !(e.Decide != Allow && e.Rule.matchesLoose(s)) {
				continue
			}
			switch e.Decide {
			case Deny:
				deny = append(deny, e)
			case Ask:
				ask = append(ask, e)
			default:
				allow = append(allow, e)
			}
		}
		if e := unrefined(deny, allow); e != nil {
			return e
		}
		if e := unrefined(ask, allow); e != nil {
			return e
		}
		if len(allow) > 0 {
			return mostSpecific(allow)
		}
	}
	return nil
}

// unrefined returns the most specific of the rules that no allow rule
// refines, or nil.
func unrefined(rules, allow []*Entry) *Entry {
	var open []*Entry
	for _, r := range rules {
		refined := false
		for _, a := range allow {
			refined = refined || a.Rule.refines(r.Rule)
		}
		if !refined {
			open = append(open, r)
		}
	}
	if len(open) == 0 {
		return nil
	}
	return mostSpecific(open)
}

// mostSpecific returns the entry with the most literal text in its match,
// the first written on a tie.
func mostSpecific(list []*Entry) *Entry {
	best := list[0]
	for _, e := range list[1:] {
		if e.Rule.specificity() > best.Rule.specificity() {
			best = e
		}
	}
	return best
}

// decision builds the decision for one action (or part) from the rule
// that matched (nil: the default) and the floor entries it hits.
func (p *Policy) decision(action string, e *Entry, hits []hit) Decision {
	d := Decision{Action: action}
	if e != nil {
		d.Decide, d.Rule, d.Risk, d.Why = e.Decide, e.ref(), e.risk(), e.Why
	} else {
		d.Decide, d.Risk = p.Default, Medium
		d.Rule = Ref{Kind: ByDefault, Text: "default", File: p.File, Line: p.DefaultLine}
		d.Why = fmt.Sprintf("no rule matches; the policy's default is %s", p.Default)
		if p.Default == Deny {
			d.Risk = High
		}
	}
	if len(hits) == 0 {
		return d
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].level() > hits[j].level() })
	top := hits[0]
	for _, h := range hits {
		d.Floor = appendNew(d.Floor, h.id)
	}
	if d.Risk < top.level() {
		d.Risk = top.level()
	}
	if d.Decide == Deny {
		d.Why += " (also on the destructive floor: " + strings.Join(d.Floor, ", ") + ")"
		return d
	}
	allowedBy := e != nil && e.Decide == Allow
	d.Decide = Ask
	d.Rule = Ref{Kind: ByFloor, Text: top.id}
	d.Why = floorEntry(top.id).Reason
	if top.detail != "" {
		d.Why = top.detail + ": " + d.Why
	}
	if allowedBy {
		d.Why += fmt.Sprintf(" (%s at %s would allow it, but no rule can approve this unasked)", e.Rule.Text, e.ref().Where())
	}
	return d
}
