package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes files (name → text) into a new temporary folder and
// returns the folder.
func writeFiles(t *testing.T, files map[string]string) string {
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
	return dir
}

// wantErrors checks that err names each of want ("file:line: field: ..."
// substrings), after the folder dir is cut from the file names.
func wantErrors(t *testing.T, dir string, err error, want []string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %q", want)
	}
	msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Errorf("errors:\n%s\nlack %q", msg, w)
		}
	}
}

const okAgent = "agents:\n  - name: dev\n    command: [sh]\n"

// A YAML syntax error is reported on the line of the problem: the YAML
// library names the line where the enclosing block began, counted from 0
// (an indentation mistake on line 5 came out as line 1).
func TestSyntaxErrorLine(t *testing.T) {
	indentHint := "check the indentation of this line"
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"key indented one space too far", map[string]string{"team.yaml": "agents:\n  - name: dev\n\n    command: [sh]\n     dir: .\n"},
			"team.yaml:5: not valid YAML: did not find expected key; " + indentHint},
		{"key out of its list item", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [sh]\n    dir: .\n  preset: plain\n"},
			"team.yaml:5: not valid YAML: did not find expected '-' indicator; " + indentHint},
		{"nested mapping", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [sh]\n    env:\n      A: b\n     B: c\n"},
			"team.yaml:6: not valid YAML: did not find expected key"},
		{"tab", map[string]string{"team.yaml": "agents:\n  - name: dev\n\tcommand: [sh]\n"},
			"team.yaml:3: not valid YAML: found a tab character that violates indentation; this line is indented with a tab: YAML indents with spaces only"},
		{"unclosed quote after a closed one", map[string]string{"team.yaml": "agents:\n- name: x\n  command: [sh, \"-c\n   x\"]\n  role: \"dev\n"},
			"team.yaml:5: not valid YAML: found unexpected end of stream; a quote or a bracket opened on this line is never closed"},
		{"colon in a value", map[string]string{"team.yaml": "agents:\n- name: x\n  command: [sh]\n  role: a: b\n"},
			"team.yaml:4: not valid YAML: mapping values are not allowed in this context; a value that contains \": \" must be quoted"},
		{"consultations file", map[string]string{"team.yaml": okAgent, "consultations.yaml": "mandatory:\n  - requester: a\n    consulted: b\n   decision: x\n"},
			"consultations.yaml:4: not valid YAML: did not find expected '-' indicator; " + indentHint},
		{"permissions file", map[string]string{"team.yaml": okAgent, "permissions.yaml": "default: ask\nrules:\n  - match: Bash(ls)\n    decide: allow\n     why: listing\n"},
			"permissions.yaml:5: not valid YAML: mapping values are not allowed in this context; a value that contains \": \" must be quoted (\"...\"), or this line is indented too far"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := LoadTeam(filepath.Join(dir, "team.yaml"))
			wantErrors(t, dir, err, []string{tc.want})
		})
	}
}

// A value of the wrong kind names its field and line, what is expected and
// what was given (yaml said "(value): cannot unmarshal !!str `sh` into
// []string"); every such value of the file is reported.
func TestTypeErrorsNameTheField(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{"command as a string", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [sh]\n  - name: qa\n    role: qa\n    dir: .\n    command: sh\n"},
			[]string{`team.yaml:7: agents[1].command: expected a list of words like [sh, -c, "..."], got the string "sh"`}},
		{"duration without a unit", map[string]string{"team.yaml": okAgent + "progress:\n  stall: 30\n"},
			[]string{`team.yaml:5: progress.stall: expected a duration like 30s or 5m, got the number 30 (a number needs a unit: s, m or h, as in 30s)`}},
		{"duration in words", map[string]string{"team.yaml": okAgent + "permissions:\n  escalate_after: 5 minutes\n"},
			[]string{`team.yaml:5: permissions.escalate_after: expected a duration like 30s or 5m, got the string "5 minutes"`}},
		{"number", map[string]string{"team.yaml": okAgent + "    cols: wide\n"},
			[]string{`team.yaml:4: agents[0].cols: expected a whole number like 120, got the string "wide"`}},
		{"mapping for a list", map[string]string{"team.yaml": okAgent + "    capabilities:\n      plan: yes\n"},
			[]string{`team.yaml:5: agents[0].capabilities: expected a list like [a, b], got a mapping (key: value)`}},
		{"list for a value", map[string]string{"team.yaml": okAgent + "    role: [dev, qa]\n"},
			[]string{`team.yaml:4: agents[0].role: expected a single value, got a list`}},
		{"string for a mapping", map[string]string{"team.yaml": okAgent + "    env: A=b\n"},
			[]string{`team.yaml:4: agents[0].env: expected a mapping of names to values (name: value, on the lines below, indented), got the string "A=b"`}},
		{"every one of them", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: sh\n    rows: tall\n    comand: [x]\nlead:\n  relay_rate: fast\n"},
			[]string{`team.yaml:3: agents[0].command: expected a list of words`, `team.yaml:4: agents[0].rows: expected a whole number`,
				`team.yaml:5: agents[0].comand: unknown field; did you mean command? known fields are`, `team.yaml:7: lead.relay_rate: expected a number like 10 or 0.5, got the string "fast"`}},
		{"consultations file", map[string]string{"team.yaml": okAgent, "consultations.yaml": "defaults:\n  timeout: 4\nmandatory:\n  - requester: a\n    consulted: b\n    decision: x\n    escalate_to: human\n"},
			[]string{`consultations.yaml:2: defaults.timeout: expected a duration like 30s or 5m, got the number 4`, `consultations.yaml:7: mandatory[0].escalate_to: expected a list like [a, b], got the string "human"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := LoadTeam(filepath.Join(dir, "team.yaml"))
			wantErrors(t, dir, err, tc.want)
		})
	}
}

// LoadTeam and ReadTeam report every problem of the team file and the files
// it uses, sorted by file and line, and a value that could not be read is
// not also reported as missing.
func TestReadTeamReportsEveryError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string // in this order
		not   []string
	}{
		{"every agent", map[string]string{"team.yaml": "agents:\n  - name: Dev\n    command: [x]\n    preset: clod\n  - role: qa\n    command: [y]\n    parse: pixels\n    cols: 2000\n  - name: ok\n    command: [z]\n    restart: sometimes\nlead:\n  relay_burst: -3\n"},
			[]string{`team.yaml:2: agents[0].name: "Dev" is not a usable name`, `team.yaml:4: agents[0].preset: unknown preset "clod"`,
				`team.yaml:5: agents[1].name: missing`, `team.yaml:7: agents[1].parse: "pixels" is not a parse mode`, `team.yaml:8: agents[1].cols: terminal size`,
				`team.yaml:11: agents[2].restart: "sometimes"`, `team.yaml:13: lead.relay_burst: -3 is negative`}, nil},
		{"a value that could not be read is not missing too", map[string]string{"team.yaml": "agents:\n  - name: [dev]\n    command: sh\n"},
			[]string{`team.yaml:2: agents[0].name: expected a single value, got a list`, `team.yaml:3: agents[0].command: expected a list of words`},
			[]string{"missing"}},
		{"team, consultations and permissions", map[string]string{
			"team.yaml":          "agents:\n  - name: dev\n    command: sh\n",
			"consultations.yaml": "mandatory:\n  - requester: a\n    consulted: a\n    decision: x\n    timeout: -1h\n",
			"permissions.yaml":   "default: maybe\n",
		}, []string{`team.yaml:3: agents[0].command`, `consultations.yaml:3: mandatory[0].consulted`, `consultations.yaml:5: mandatory[0].timeout: must not be negative`,
			`permissions.yaml:1: default`}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			_, err := LoadTeam(filepath.Join(dir, "team.yaml"))
			wantErrors(t, dir, err, tc.want)
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			at := 0
			for _, w := range tc.want {
				i := strings.Index(msg[at:], w)
				if i < 0 {
					t.Errorf("%q is not after the errors before it:\n%s", w, msg)
					break
				}
				at += i
			}
			for _, n := range tc.not {
				if strings.Contains(msg, n) {
					t.Errorf("errors say %q:\n%s", n, msg)
				}
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
		})
	}
}

// ReadTeam (teamlead validate) reports what is written correctly but cannot
// work on this machine, and warns of what may be a mistake; LoadTeam
// (teamlead run) does neither.
func TestReadTeamChecksWhatCannotWork(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "myagent"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	for _, tc := range []struct {
		name     string
		files    map[string]string
		errs     []string
		warnings []string
	}{
		{"fine", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\n    dir: work\n", "work/x": ""}, nil, nil},
		{"program not on PATH", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\n  - name: qa\n    command: [claudee, --x]\n"},
			[]string{`team.yaml:5: agents[1].command: "claudee" is not found on PATH; install it, or give its full path (command: [/full/path/to/claudee])`}, nil},
		{"the preset's program not on PATH", map[string]string{"team.yaml": "agents:\n  - name: dev\n    preset: claude-code\n"},
			[]string{`team.yaml:3: agents[0].command: the claude-code preset runs "claude", which is not found on PATH; install it, or give its full path`}, nil},
		{"the agent's own PATH", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\n    env: {PATH: /nonexistent}\n"},
			[]string{`team.yaml:3: agents[0].command: "myagent" is not found on the PATH its env: sets`}, nil},
		{"program path", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [./bin/agent]\n  - name: qa\n    command: [./script.sh]\n", "script.sh": "#!/bin/sh\n"},
			[]string{`team.yaml:3: agents[0].command: "bin/agent" does not exist; fix the path (a relative path is taken from the team file's folder)`,
				`team.yaml:5: agents[1].command: "script.sh" is not executable; make it so with chmod +x script.sh`}, nil},
		{"dir is a file", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\n    dir: notes.txt\n  - name: qa\n    command: [myagent]\n    dir: notes.txt/qa\n", "notes.txt": "x"},
			[]string{`team.yaml:4: agents[0].dir: notes.txt is a file, not a folder; dir: is the folder the agent works in`,
				`team.yaml:7: agents[1].dir: notes.txt/qa cannot be made: notes.txt is a file, not a folder`}, nil},
		{"dir missing", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\n    dir: work/dev\n"},
			nil, []string{`team.yaml:4: warning: agents[0].dir: the folder work/dev does not exist yet; it will be made when the team starts`}},
		{"tool not on PATH", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\nquestions:\n  tools:\n    search:\n      command: [websearch]\n"},
			[]string{`team.yaml:7: questions.tools.search.command: "websearch" is not found on PATH`}, nil},
		{"permission rules for agents not in the team", map[string]string{"team.yaml": "agents:\n  - name: dev\n    command: [myagent]\n",
			"permissions.yaml": "default: ask\nagents:\n  devv:\n    - {match: Bash(rm:*), decide: deny, why: never}\n  dev:\n    - {match: Bash(ls), decide: allow, why: listing}\n  nobody: []\n"},
			nil, []string{`permissions.yaml:3: warning: agents.devv: no agent named "devv" in the team file, so these rules never apply; did you mean dev? fix the name (the agents are dev), or delete them`,
				`permissions.yaml:7: warning: agents.nobody: no agent named "nobody"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeFiles(t, tc.files)
			file := filepath.Join(dir, "team.yaml")
			if _, err := LoadTeam(file); err != nil {
				t.Errorf("LoadTeam: %v", err)
			}
			_, errs, warnings := ReadTeam(file)
			check := func(kind string, got []error, want []string) {
				if len(got) != len(want) {
					t.Errorf("%d %s, want %d: %q", len(got), kind, len(want), got)
				}
				if len(got) > 0 {
					wantErrors(t, dir, errors.Join(got...), want)
				}
			}
			check("errors", errs, tc.errs)
			check("warnings", warnings, tc.warnings)
			for _, w := range warnings {
				if errors.Is(w, ErrInvalid) {
					t.Errorf("warning %v wraps ErrInvalid", w)
				}
			}
		})
	}
}
