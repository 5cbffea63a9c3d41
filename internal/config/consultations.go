package config

import (
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/consult"
)

// LoadConsultations reads a consultations.yaml file; "" means the built-in
// rules (configs/consultations.yaml).
func LoadConsultations(path string) (consult.Rules, error) {
	if path == "" {
		return ParseConsultations("consultations.yaml (built in)", configs.Consultations)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return consult.Rules{}, fmt.Errorf("%w: cannot read the consultation rules: %v (fix consultations.rules in the team file)", ErrInvalid, err)
	}
	return ParseConsultations(path, data)
}

// ParseConsultations decodes and checks the text of a consultations.yaml;
// file names it in errors.
func ParseConsultations(file string, data []byte) (consult.Rules, error) {
	var r consult.Rules
	root, err := decodeStrict(file, data, &r)
	if err != nil {
		return r, err
	}
	mn := child(root, "mandatory")
	for i, rule := range r.Mandatory {
		var rn *yaml.Node
		if mn != nil && i < len(mn.Content) {
			rn = mn.Content[i]
		}
		field := fmt.Sprintf("mandatory[%d]", i)
		for _, f := range []struct{ key, val string }{{"requester", rule.Requester}, {"consulted", rule.Consulted}, {"decision", rule.Decision}} {
			if strings.TrimSpace(f.val) == "" {
				return r, &FieldError{File: file, Line: lineOrNode(rn), Field: field + "." + f.key, Msg: "missing; every rule names requester, consulted and decision"}
			}
		}
		if rule.Requester == rule.Consulted {
			return r, &FieldError{File: file, Line: lineOf(rn, "consulted"), Field: field + ".consulted",
				Msg: "a role cannot be required to consult itself; name another role"}
		}
		if rule.Timeout < 0 {
			return r, &FieldError{File: file, Line: lineOf(rn, "timeout"), Field: field + ".timeout", Msg: "must not be negative"}
		}
		if err := checkEscalation(file, child(rn, "escalate_to"), field+".escalate_to", rule.EscalateTo); err != nil {
			return r, err
		}
	}
	dn := child(root, "defaults")
	if r.Defaults.Timeout < 0 {
		return r, &FieldError{File: file, Line: lineOf(dn, "timeout"), Field: "defaults.timeout", Msg: "must not be negative"}
	}
	if err := checkEscalation(file, child(dn, "escalate_to"), "defaults.escalate_to", r.Defaults.EscalateTo); err != nil {
		return r, err
	}
	for role, targets := range r.Matrix {
		for _, t := range targets {
			if strings.TrimSpace(t) == "" {
				return r, &FieldError{File: file, Line: lineOf(child(root, "matrix"), role), Field: "matrix." + role, Msg: "an empty role; list role names or \"*\""}
			}
		}
	}
	return r, nil
}

func checkEscalation(file string, n *yaml.Node, field string, steps []string) error {
	for i, s := range steps {
		if s == consult.Human || strings.HasPrefix(s, "role:") && len(s) > 5 || strings.HasPrefix(s, "agent:") && len(s) > 6 {
			continue
		}
		line := lineOrNode(n)
		if n != nil && i < len(n.Content) {
			line = n.Content[i].Line
		}
		return &FieldError{File: file, Line: line, Field: fmt.Sprintf("%s[%d]", field, i),
			Msg: fmt.Sprintf("%q: use human, role:<role> or agent:<name>", s)}
	}
	return nil
}

func lineOrNode(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}
