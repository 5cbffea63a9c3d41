package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runValidate writes files (name → text) into a temporary folder, runs
// teamlead validate on its team.yaml, and returns the output and the final
// error's text with the folder cut from the file names.
func runValidate(t *testing.T, files map[string]string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	err := validate(&out, filepath.Join(dir, "team.yaml"))
	cut := func(s string) string { return strings.ReplaceAll(s, dir+string(filepath.Separator), "") }
	if err == nil {
		return cut(out.String()), ""
	}
	return cut(out.String()), cut(err.Error())
}

const validTeam = "agents:\n  - name: dev\n    command: [sh]\n    capabilities: [planning]\n  - name: qa\n    command: [sh]\nquestions:\n  tools:\n    lookup:\n      command: [sh, -c, cat]\n"

// teamlead validate reports every error of every file, each with its file,
// line and field, and fails naming the files with errors (it stopped at the
// first error, and said "the team file has errors" for any file).
func TestValidateReportsEveryError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // lines of the output
		err   string   // the final error; "" for none
		not   []string // what the output and error must not say
	}{
		{"every file", map[string]string{
			"team.yaml": "agents:\n  - name: dev\n    command: [sh]\n  - name: qa\n    role: qa\n    dir: .\n    command: sh\n  - name: dev\n    command: [cat]\n    restart: sometimes\n" +
				"progress:\n  stall: 30\n",
			"consultations.yaml": "mandatory:\n  - requester: a\n    consulted: a\n    decision: x\n  - requester: b\n    consulted: c\n    decision: y\n    escalate_to: [boss]\n",
			"permissions.yaml":   "default: ask\nrules:\n  - match: Bash(ls)\n    decide: sometimes\n    why: listing\n",
			"answerers.yaml":     "version: \"1\"\nroutes:\n  - pattern: \"api.*\"\n    answerer: robot/x\n  - pattern: \"db.*\"\n    answerer: agent/dev\n    sla: soon\n",
		}, []string{
			`team.yaml:7: agents[1].command: expected a list of words like [sh, -c, "..."], got the string "sh"`,
			`team.yaml:8: agents[2].name: duplicate name "dev" (also agents[0]); names must be unique`,
			`team.yaml:10: agents[2].restart: "sometimes" is not a restart policy; use never, on-failure or always`,
			`team.yaml:12: progress.stall: expected a duration like 30s or 5m, got the number 30`,
			`consultations.yaml:3: mandatory[0].consulted: a role cannot be required to consult itself`,
			`consultations.yaml:8: mandatory[1].escalate_to[0]: "boss": use human, role:<role> or agent:<name>`,
			`permissions.yaml:4: rules[0].decide: "sometimes"`,
			`answerers.yaml:4: routes[0].answerer: "robot/x": unknown answerer kind "robot"`,
			`answerers.yaml:7: routes[1].sla: "soon"`,
		}, "9 errors (4 in team.yaml, 2 in consultations.yaml, 1 in permissions.yaml, 2 in answerers.yaml); fix them and run teamlead validate again",
			[]string{"the team file has errors", " ok"}},
		{"only the consultations file", map[string]string{
			"team.yaml":          validTeam,
			"consultations.yaml": "mandatory:\n  - requester: a\n    consulted: a\n    decision: x\n  - requester: b\n",
		}, []string{
			`consultations.yaml:3: mandatory[0].consulted: a role cannot be required to consult itself`,
			`consultations.yaml:5: mandatory[1].consulted: missing`,
			`consultations.yaml:5: mandatory[1].decision: missing`,
			"team.yaml: 2 agents ok",
			"permissions.yaml (built in; approve-always writes permissions.yaml): permission policy ok",
		}, "3 errors in consultations.yaml; fix them and run teamlead validate again", []string{"team file"}},
		{"only the permissions file", map[string]string{
			"team.yaml":        validTeam,
			"permissions.yaml": "default: allow\n",
		}, []string{
			`permissions.yaml:1: default: allow would approve every action`,
			"team.yaml: 2 agents ok",
			"consultations.yaml (built in): 4 mandatory consultation rules ok",
		}, "1 error in permissions.yaml; fix it and run teamlead validate again", []string{"team file"}},
		{"only the answerers file", map[string]string{
			"team.yaml":      validTeam,
			"answerers.yaml": "routes:\n  - pattern: a.*\n    answerer: x\n",
		}, []string{`answerers.yaml:3: routes[0].answerer: "x" has no kind`, "team.yaml: 2 agents ok"},
			"1 error in answerers.yaml; fix it and run teamlead validate again", []string{"team file"}},
		{"a team file that is not YAML still has the files beside it checked", map[string]string{
			"team.yaml":          "agents:\n  - name: dev\n    command: [sh]\n   dir: .\n",
			"consultations.yaml": "defaults:\n  timeout: soon\n",
		}, []string{
			`team.yaml:4: not valid YAML: did not find expected '-' indicator; check the indentation of this line`,
			`consultations.yaml:2: defaults.timeout: expected a duration like 30s or 5m, got the string "soon"`,
		}, "2 errors (1 in team.yaml, 1 in consultations.yaml)", nil},
		{"files the team file names that are not there", map[string]string{
			"team.yaml": validTeam + "consultations:\n  rules: rules.yaml\npermissions:\n  policy: policy/\n",
			"policy/x":  "",
		}, []string{
			`team.yaml:12: consultations.rules: there is no file rules.yaml; fix the path (relative to the team file's folder)`,
			`team.yaml:14: permissions.policy: policy is a folder, not a file`,
		}, "2 errors in team.yaml", []string{"--policy"}},
		{"valid", map[string]string{"team.yaml": validTeam, "answerers.yaml": "routes:\n  - pattern: a.*\n    answerer: agent/dev\n"}, []string{
			"team.yaml: 2 agents ok",
			"consultations.yaml (built in): 4 mandatory consultation rules ok",
			"answerers.yaml: 1 route ok, in precedence order:",
		}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runValidate(t, tc.files)
			lines := strings.Split(out, "\n")
			for _, w := range tc.want {
				found := false
				for _, l := range lines {
					found = found || strings.HasPrefix(l, w)
				}
				if !found {
					t.Errorf("output lacks a line starting %q:\n%s", w, out)
				}
			}
			if tc.err == "" && err != "" || !strings.Contains(err, tc.err) {
				t.Errorf("error %q, want %q", err, tc.err)
			}
			for _, n := range tc.not {
				if strings.Contains(out, n) || strings.Contains(err, n) {
					t.Errorf("says %q:\n%s%s", n, out, err)
				}
			}
		})
	}
}

// An answerer the team does not have is reported: an error when its
// questions can never be answered, a warning when they go on to an
// escalate_to; a program that is not installed, a working folder that is a
// file, and permission rules for an agent not in the team too.
func TestValidateReportsWhatCannotWork(t *testing.T) {
	team := "agents:\n  - name: dev\n    command: [sh]\n  - name: qa\n    command: [sh]\n  - name: ops\n    command: [no-such-agent-cli]\n    dir: notes.txt\n"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
		err   string
	}{
		{"answerers", map[string]string{"team.yaml": validTeam, "answerers.yaml": "version: \"1\"\nroutes:\n" +
			"  - pattern: api.*\n    answerer: agent/nobody\n" +
			"  - pattern: db.*\n    answerer: tool/missing\n" +
			"  - pattern: plan.*\n    answerer: agent/architect\n    capability: planning\n" +
			"  - pattern: sec.*\n    answerer: agent/security\n    capability: reviewing\n    sla: 1h\n    escalate_to: team/security\n" +
			"  - pattern: web.*\n    answerer: tool/search\n    sla: 5m\n    escalate_to: agent/ghost\n" +
			"  - pattern: ask.*\n    answerer: tool/lookup\n" +
			"default:\n  answerer: human/requester\n"},
			[]string{
				`answerers.yaml:4: routes[0].answerer: no agent named "nobody" in the team file, so its questions are never answered; name one of its agents (dev, qa), or a person (human/<name>)`,
				`answerers.yaml:6: routes[1].answerer: no tool "missing" under questions.tools (the team file has lookup), so its questions are never answered; add it there with its command`,
				`answerers.yaml:18: routes[4].escalate_to: no agent named "ghost" in the team file; name one of its agents (dev, qa)`,
				`answerers.yaml:11: warning: routes[3].answerer: no agent named "security" in the team file, and no agent lists the capability "reviewing", so its questions go straight on to team/security`,
				`answerers.yaml:16: warning: routes[4].answerer: no tool "search" under questions.tools (the team file has lookup), so its questions wait out the sla and then go on to agent/ghost`,
			}, "3 errors in answerers.yaml; fix them and run teamlead validate again (and check the 2 warnings)"},
		{"the team and its policy", map[string]string{"team.yaml": team, "notes.txt": "x",
			"permissions.yaml": "default: ask\nagents:\n  qa:\n    - {match: Bash(ls), decide: allow, why: listing}\n  deva:\n    - {match: Bash(ls), decide: allow, why: listing}\n"},
			[]string{
				`team.yaml:7: agents[2].command: "no-such-agent-cli" is not found on PATH; install it, or give its full path (command: [/full/path/to/no-such-agent-cli])`,
				`team.yaml:8: agents[2].dir: notes.txt is a file, not a folder`,
				`permissions.yaml:5: warning: agents.deva: no agent named "deva" in the team file, so these rules never apply; did you mean dev? fix the name (the agents are dev, qa, ops), or delete them`,
			}, "2 errors in team.yaml; fix them and run teamlead validate again (and check the 1 warning)"},
		{"only warnings", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [sh]\n  - name: qa\n    command: [sh]\n    dir: work/qa\n"},
			[]string{`team.yaml:6: warning: agents[1].dir: the folder work/qa does not exist yet`, "team.yaml: 2 agents ok", "1 warning: the team can run, but check it"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := runValidate(t, tc.files)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			if err != tc.err {
				t.Errorf("error %q, want %q", err, tc.err)
			}
		})
	}
}
