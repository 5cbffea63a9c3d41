package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/consult"
)

// LoadConsultations reads a consultations.yaml file; "" means the built-in
// rules (configs/consultations.yaml). The error reports every problem.
func LoadConsultations(path string) (consult.Rules, error) {
	r, errs := loadConsultations(path)
	if len(errs) > 0 {
		return r, errors.Join(errs...)
	}
	return r, nil
}

func loadConsultations(path string) (consult.Rules, []error) {
	if path == "" {
		return parseConsultations("consultations.yaml (built in)", configs.Consultations)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return consult.Rules{}, []error{fmt.Errorf("%w: cannot read the consultation rules: %v (fix consultations.rules in the team file)", ErrInvalid, err)}
	}
	return parseConsultations(path, data)
}

// ParseConsultations decodes and checks the text of a consultations.yaml;
// file names it in errors. The error reports every problem.
func ParseConsultations(file string, data []byte) (consult.Rules, error) {
	r, errs := parseConsultations(file, data)
	if len(errs) > 0 {
		return r, errors.Join(errs...)
	}
	return r, nil
}

func parseConsultations(file string, data []byte) (consult.Rules, []error) {
	var r consult.Rules
	p := &problems{}
	root, errs := decodeAll(file, data, &r)
	p.add(errs...)
	if root == nil {
		return r, p.list
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
				p.add(&FieldError{File: file, Line: lineOrNode(rn), Field: field + "." + f.key, Msg: "missing; every rule names requester, consulted and decision"})
			}
		}
		if rule.Requester != "" && rule.Requester == rule.Consulted {
			p.add(&FieldError{File: file, Line: lineOf(rn, "consulted"), Field: field + ".consulted",
				Msg: "a role cannot be required to consult itself; name another role"})
		}
		if rule.Timeout < 0 {
			p.add(&FieldError{File: file, Line: lineOf(rn, "timeout"), Field: field + ".timeout", Msg: "must not be negative"})
		}
		p.add(checkEscalation(file, child(rn, "escalate_to"), field+".escalate_to", rule.EscalateTo)...)
	}
	dn := child(root, "defaults")
	if r.Defaults.Timeout < 0 {
		p.add(&FieldError{File: file, Line: lineOf(dn, "timeout"), Field: "defaults.timeout", Msg: "must not be negative"})
	}
	p.add(checkEscalation(file, child(dn, "escalate_to"), "defaults.escalate_to", r.Defaults.EscalateTo)...)
	for _, role := range sortedKeys(r.Matrix) {
		for _, t := range r.Matrix[role] {
			if strings.TrimSpace(t) == "" {
				p.add(&FieldError{File: file, Line: lineOf(child(root, "matrix"), role), Field: "matrix." + role, Msg: "an empty role; list role names or \"*\""})
				break
			}
		}
	}
	p.sort()
	return r, p.list
}

func checkEscalation(file string, n *yaml.Node, field string, steps []string) []error {
	var errs []error
	for i, s := range steps {
		if s == consult.Human || strings.HasPrefix(s, "role:") && len(s) > 5 || strings.HasPrefix(s, "agent:") && len(s) > 6 {
			continue
		}
		line := lineOrNode(n)
		if n != nil && i < len(n.Content) {
			line = n.Content[i].Line
		}
		errs = append(errs, &FieldError{File: file, Line: line, Field: fmt.Sprintf("%s[%d]", field, i),
			Msg: fmt.Sprintf("%q: use human, role:<role> or agent:<name>", s)})
	}
	return errs
}

func lineOrNode(n *yaml.Node) int {
	if n == nil {
		return 0
	}
	return n.Line
}
