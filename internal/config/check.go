package config

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"
)

// This file holds the checks `teamlead validate` adds to the loader's:
// what is written correctly but cannot work when the team runs on this
// machine (a program that is not installed, a working folder that is a
// file), and what may be a mistake (rules for an agent the team does not
// have).

// Warning is a problem that may be fine: teamlead validate shows it, and
// still succeeds.
type Warning struct {
	FieldError
}

// Error is "file:line: warning: field: what may be wrong".
func (w *Warning) Error() string {
	e := w.FieldError
	if e.Field == "" {
		return fmt.Sprintf("%s:%d: warning: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: warning: %s: %s", e.File, e.Line, e.Field, e.Msg)
}

// Unwrap does not match ErrInvalid: a warning does not make a file invalid.
func (w *Warning) Unwrap() error { return nil }

// checkMachine runs the checks of this file on a team read from file
// (root is its YAML; nil when it is not YAML).
func (t *Team) checkMachine(file string, root *yaml.Node, p *problems) {
	items := child(root, "agents")
	for i := range t.Agents {
		var n *yaml.Node
		if items != nil && i < len(items.Content) {
			n = items.Content[i]
		}
		t.checkAgent(file, i, n, p)
	}
	t.checkTools(file, child(child(root, "questions"), "tools"), p)
	t.checkPolicyAgents(p)
}

func (t *Team) checkAgent(file string, i int, n *yaml.Node, p *problems) {
	a := t.Agents[i]
	field := fmt.Sprintf("agents[%d].", i)
	if len(a.Command) > 0 && strings.TrimSpace(a.Command[0]) != "" {
		line := lineOf(n, "command")
		var msg string
		if child(n, "command") == nil { // the preset's command
			line = lineOf(n, "preset")
			msg = fmt.Sprintf("the %s preset runs %q, which ", a.Preset, a.Command[0])
		}
		pathEnv, own := os.Getenv("PATH"), false
		if v, ok := a.Env["PATH"]; ok {
			pathEnv, own = v, true
		}
		if err := findProgram(a.Command[0], a.Dir, pathEnv, own); err != nil {
			if msg != "" {
				err = errors.New(msg + strings.TrimPrefix(err.Error(), fmt.Sprintf("%q ", a.Command[0])))
			}
			p.add(&FieldError{File: file, Line: line, Field: field + "command", Msg: err.Error()})
		}
	}
	if a.Dir == "" {
		return
	}
	line := lineOf(n, "dir")
	switch st, err := os.Stat(a.Dir); {
	case err == nil && !st.IsDir():
		p.add(&FieldError{File: file, Line: line, Field: field + "dir",
			Msg: fmt.Sprintf("%s is a file, not a folder; dir: is the folder the agent works in", a.Dir)})
	case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
		for up := filepath.Dir(a.Dir); up != filepath.Dir(up); up = filepath.Dir(up) {
			st, err := os.Stat(up)
			if err == nil && !st.IsDir() {
				p.add(&FieldError{File: file, Line: line, Field: field + "dir",
					Msg: fmt.Sprintf("%s cannot be made: %s is a file, not a folder", a.Dir, up)})
				return
			}
			if err == nil {
				break
			}
		}
		p.warn(&Warning{FieldError{File: file, Line: line, Field: field + "dir",
			Msg: fmt.Sprintf("the folder %s does not exist yet; it will be made when the team starts (check the path if you meant a folder you have)", a.Dir)}})
	case err != nil:
		p.add(&FieldError{File: file, Line: line, Field: field + "dir", Msg: fmt.Sprintf("cannot use %s: %v", a.Dir, err)})
	}
}

// checkTools looks for the tool answerers' programs, as the console runs
// them: on its own PATH.
func (t *Team) checkTools(file string, tools *yaml.Node, p *problems) {
	for _, name := range sortedKeys(t.Questions.Tools) {
		tool := t.Questions.Tools[name]
		if len(tool.Command) == 0 {
			continue
		}
		if err := findProgram(tool.Command[0], "", os.Getenv("PATH"), false); err != nil {
			p.add(&FieldError{File: file, Line: lineOf(child(tools, name), "command"), Field: "questions.tools." + name + ".command", Msg: err.Error()})
		}
	}
}

// findProgram says in plain words why name cannot be run, or nil: a path
// (with a slash) must be a program; a bare name is looked for in pathEnv,
// whose relative entries are taken from dir (the way agents start). own
// says pathEnv is the agent's env: PATH.
func findProgram(name, dir, pathEnv string, own bool) error {
	if strings.Contains(name, "/") {
		st, err := os.Stat(name)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return fmt.Errorf("%q does not exist; fix the path (a relative path is taken from the team file's folder), or give a program on PATH", name)
		case err != nil:
			return fmt.Errorf("%q cannot be run: %v", name, err)
		case st.IsDir():
			return fmt.Errorf("%q is a folder, not a program", name)
		case st.Mode().Perm()&0o111 == 0:
			return fmt.Errorf("%q is not executable; make it so with chmod +x %s", name, name)
		}
		return nil
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		if st, err := os.Stat(filepath.Join(d, name)); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
			return nil
		}
	}
	if dir == "" {
		if _, err := exec.LookPath(name); err == nil {
			return nil
		}
	}
	where := "PATH"
	if own {
		where = "the PATH its env: sets"
	}
	return fmt.Errorf("%q is not found on %s; install it, or give its full path (command: [/full/path/to/%s])", name, where, name)
}

// checkPolicyAgents warns about rules in the permission policy for agents
// the team does not have: they never apply (a policy may be shared, or
// keep the rules of an agent taken out of the team, so it is a warning).
func (t *Team) checkPolicyAgents(p *problems) {
	pol := t.Permissions.Parsed
	if pol == nil || t.Permissions.Builtin || len(pol.Agents) == 0 || len(t.Agents) == 0 {
		return
	}
	names := map[string]bool{}
	var list []string
	for _, a := range t.Agents {
		names[a.Name] = true
		list = append(list, a.Name)
	}
	var agentsNode *yaml.Node
	if data, err := os.ReadFile(pol.File); err == nil {
		var doc yaml.Node
		if yaml.Unmarshal(data, &doc) == nil && len(doc.Content) > 0 {
			agentsNode = child(doc.Content[0], "agents")
		}
	}
	for _, name := range sortedKeys(pol.Agents) {
		if names[name] {
			continue
		}
		msg := fmt.Sprintf("no agent named %q in the team file, so these rules never apply; %sfix the name (the agents are %s), or delete them",
			name, didYouMean(name, names), strings.Join(list, ", "))
		p.warn(&Warning{FieldError{File: pol.File, Line: lineOf(agentsNode, name), Field: "agents." + name, Msg: msg}})
	}
}
