package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/consult"
)

// The shipped consultations.yaml and consult.DefaultRules must agree: the
// file is what people edit, the function what tests and tools use.
func TestShippedConsultationsAreTheDefaults(t *testing.T) {
	r, err := ParseConsultations("consultations.yaml", configs.Consultations)
	if err != nil {
		t.Fatal(err)
	}
	d := consult.DefaultRules()
	if !reflect.DeepEqual(r.Matrix, d.Matrix) || r.Defaults.Timeout != d.Defaults.Timeout {
		t.Errorf("matrix or defaults differ:\n%+v\n%+v", r, d)
	}
	if len(r.Mandatory) != len(d.Mandatory) {
		t.Fatalf("rules %d vs %d", len(r.Mandatory), len(d.Mandatory))
	}
	for i := range r.Mandatory {
		a, b := r.Mandatory[i], d.Mandatory[i]
		if a.Requester != b.Requester || a.Consulted != b.Consulted || a.Decision != b.Decision {
			t.Errorf("rule %d: %+v vs %+v", i, a, b)
		}
	}
}

func TestConsultationRulesErrors(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown key", "mandatory:\n  - requester: a\n    consulted: b\n    decison: x\n", "f:4: mandatory[0].decison: unknown field"},
		{"missing decision", "mandatory:\n  - requester: a\n    consulted: b\n", "f:2: mandatory[0].decision: missing"},
		{"self", "mandatory:\n  - requester: a\n    consulted: a\n    decision: x\n", "f:3: mandatory[0].consulted: a role cannot be required to consult itself"},
		{"bad escalation", "mandatory:\n  - requester: a\n    consulted: b\n    decision: x\n    escalate_to: [human, boss]\n", `f:5: mandatory[0].escalate_to[1]: "boss": use human, role:<role> or agent:<name>`},
		{"bad duration", "defaults:\n  timeout: soon\n", `f:2: defaults.timeout: expected a duration like 30s or 5m, got the string "soon"`},
		{"negative", "defaults:\n  timeout: -1h\n", "f:2: defaults.timeout: must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConsultations("f", []byte(tc.yaml))
			if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}
	r, err := ParseConsultations("f", []byte("defaults:\n  timeout: 90m\nmandatory:\n  - {requester: a, consulted: b, decision: x, timeout: 2h, escalate_to: [role:b, agent:boss, human]}\n"))
	if err != nil || r.Defaults.Timeout != 90*time.Minute || r.Mandatory[0].Timeout != 2*time.Hour || len(r.Mandatory[0].EscalateTo) != 3 {
		t.Errorf("%+v %v", r, err)
	}
}
