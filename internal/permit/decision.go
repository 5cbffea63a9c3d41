package permit

import (
	"fmt"
	"strings"
)

// Decide is what the policy does with an action.
type Decide int

// The decisions, from the most to the least permissive.
const (
	// Allow runs the action without asking anyone.
	Allow Decide = iota + 1
	// Ask puts the action in front of the human.
	Ask
	// Deny refuses the action.
	Deny
)

// String is the decision as written in permissions.yaml.
func (d Decide) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return "unset"
}

// ParseDecide reads allow, ask or deny.
func ParseDecide(s string) (Decide, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return 0, fmt.Errorf("%q: use allow, ask or deny", s)
}

// Risk is how much harm an action can do.
type Risk int

// The risk levels.
const (
	// Low is ordinary development inside the working directory.
	Low Risk = iota + 1
	// Medium is an action that reaches outside the project or cannot be judged.
	Medium
	// High can lose work or data, or expose it.
	High
	// Critical can damage the machine, shared history or secrets beyond repair.
	Critical
)

// String is the risk as written in permissions.yaml.
func (r Risk) String() string {
	switch r {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	case Critical:
		return "critical"
	}
	return "unset"
}

// ParseRisk reads low, medium, high or critical.
func ParseRisk(s string) (Risk, error) {
	for r := Low; r <= Critical; r++ {
		if r.String() == s {
			return r, nil
		}
	}
	return 0, fmt.Errorf("%q: use low, medium, high or critical", s)
}

// RefKind tells what decided.
type RefKind int

// What can decide.
const (
	// ByRule is a rule of the policy file.
	ByRule RefKind = iota + 1
	// ByFloor is an entry of the built-in destructive floor.
	ByFloor
	// ByDefault is the policy's default for actions no rule matches.
	ByDefault
)

// Ref names what decided an action.
type Ref struct {
	// Kind is a rule, the floor or the default.
	Kind RefKind
	// Text is the rule as written, the floor entry's id, or "default".
	Text string
	// File is the policy file the rule or default is in; empty for the floor.
	File string
	// Line is the rule's line in File.
	Line int
	// Agent is the agent whose overrides hold the rule; empty for the defaults.
	Agent string
}

// Where is file:line, or empty for the floor.
func (r Ref) Where() string {
	if r.File == "" {
		return ""
	}
	return fmt.Sprintf("%s:%d", r.File, r.Line)
}

// String is "Bash(go test:*) at configs/permissions.yaml:40", "floor
// git-force-push" or "default at permissions.yaml:9".
func (r Ref) String() string {
	switch r.Kind {
	case ByFloor:
		return "floor " + r.Text
	case ByDefault:
		return "default (" + r.Where() + ")"
	}
	s := r.Text
	if w := r.Where(); w != "" {
		s += " at " + w
	}
	if r.Agent != "" {
		s += " (agent " + r.Agent + ")"
	}
	return s
}

// Decision is the policy's answer for one action.
type Decision struct {
	// Action is what was checked: the whole action, or one part of a compound command.
	Action string
	// Decide is allow, ask or deny.
	Decide Decide
	// Rule is what decided: a rule with its file:line, a floor entry, or the default.
	Rule Ref
	// Risk is the harm the action can do.
	Risk Risk
	// Why is the reason shown to the human.
	Why string
	// Floor lists the floor entries the action hits, even when a deny rule decided.
	Floor []string
	// Parts are the decisions for each simple command of a compound shell command; empty otherwise.
	Parts []Decision
}

// Allowed reports whether the action may run without asking.
func (d Decision) Allowed() bool { return d.Decide == Allow }

// combine folds the decisions of the parts into the decision for the
// whole: the most restrictive part decides (a deny anywhere denies, an ask
// anywhere asks), the risk is the highest of all.
func combine(action string, parts []Decision) Decision {
	if len(parts) == 1 {
		d := parts[0]
		d.Action = action
		return d
	}
	top := parts[0]
	risk := top.Risk
	var floor []string
	for _, p := range parts {
		if p.Decide > top.Decide || p.Decide == top.Decide && p.Risk > top.Risk && p.Decide != Allow {
			top = p
		}
		if p.Risk > risk {
			risk = p.Risk
		}
		floor = appendNew(floor, p.Floor...)
	}
	why := top.Why
	switch top.Decide {
	case Allow:
		why = fmt.Sprintf("every part is allowed (%d parts)", len(parts))
	default:
		why = fmt.Sprintf("part %q: %s", strings.TrimSuffix(strings.TrimPrefix(top.Action, "Bash("), ")"), top.Why)
	}
	return Decision{Action: action, Decide: top.Decide, Rule: top.Rule, Risk: risk, Why: why, Floor: floor, Parts: parts}
}

func appendNew(list []string, items ...string) []string {
	for _, it := range items {
		found := false
		for _, x := range list {
			if x == it {
				found = true
			}
		}
		if !found {
			list = append(list, it)
		}
	}
	return list
}
