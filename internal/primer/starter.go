package primer

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/internal/worktree"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"text/template"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/tasks"
)

// ErrExists: the folder already has a team.yaml and Force was not given.
var ErrExists = errors.New("team file exists")

//go:embed starter.tmpl
var starterText string

var starterTmpl = template.Must(template.New("starter").Funcs(template.FuncMap{
	"comment": comment,
}).Parse(starterText))

// CLI is an agent CLI that `teamlead init` looks for on PATH.
type CLI struct {
	// Program is the command's name on PATH.
	Program string
	// Label names the CLI for people.
	Label string
	// Preset is the preset that talks to it.
	Preset string
	// Args are the arguments the starter team gives it.
	Args []string
}

// CLIs are the agent CLIs `teamlead init` looks for, in the order they get
// the roles of StarterRoles.
var CLIs = []CLI{
	{Program: "claude", Label: "Claude Code", Preset: "claude-code"},
	{Program: "codex", Label: "Codex", Preset: "codex"},
	{Program: "gemini", Label: "Gemini CLI", Preset: "gemini"},
	{Program: "copilot", Label: "GitHub Copilot CLI", Preset: "copilot"},
	{Program: "opencode", Label: "OpenCode", Preset: "opencode"},
	{Program: "aider", Label: "Aider", Preset: "aider", Args: []string{"--no-auto-commits"}},
}

// StarterRole is a role of the starter team and the name its agent gets.
type StarterRole struct{ Name, Role, Does string }

// StarterRoles are given to the CLIs found, in order: a developer first,
// then the roles the default rules make a developer's handoff wait for
// (review, testing), then QA, who tests what was handed off.
var StarterRoles = []StarterRole{
	{Name: "dev", Role: "developer", Does: "writes the code; its handoff is checked, then goes to QA"},
	{Name: "reviewer", Role: "review", Does: "approves the developer's work before its handoff passes"},
	{Name: "tester", Role: "testing", Does: "checks test coverage before the developer's handoff passes"},
	{Name: "qa", Role: tasks.QARole, Does: "tests handed-off work and sends the review: PASS, FAIL or BLOCKED"},
}

// StarterOptions tune WriteStarter.
type StarterOptions struct {
	// Force overwrites an existing team.yaml (consultations.yaml,
	// answerers.yaml and the demo scripts are never overwritten).
	Force bool
	// LookPath finds a program on PATH; exec.LookPath when nil.
	LookPath func(string) (string, error)
	// MockAgent is the mockagent program the demo team runs; when empty it
	// is looked up on PATH, then beside the running executable, else the
	// team names plain "mockagent".
	MockAgent string
}

// StarterAgent is one agent of the starter team.
type StarterAgent struct {
	// Name, Role and Preset are as written in team.yaml.
	Name, Role, Preset string
	// Command is the argv written in team.yaml.
	Command []string
	// Dir is the working folder written in team.yaml.
	Dir string
	// Restart is the restart policy written, "" for the preset's.
	Restart string
	// Found is where the CLI was found on PATH ("" for the demo).
	Found string
	// Comment is the line above the agent in team.yaml.
	Comment string
}

// StarterResult says what WriteStarter did.
type StarterResult struct {
	// Team is the team file written.
	Team string
	// Demo: no agent CLI was found; the team is the mockagent demo.
	Demo bool
	// Agents are the team's agents.
	Agents []StarterAgent
	// Written and Kept list the files written and those already there.
	Written, Kept []string
	// Notes are what the team cannot do as configured (a mandatory rule
	// whose role has no agent, no QA agent), with what to do.
	Notes []string
	// Worktrees: dir is in a git repository with a commit, so each agent
	// works in a git worktree of its own (the demo's too: its scripts are
	// read from the team's folder, not the worktree).
	Worktrees bool
}

// WriteStarter writes a starter team into dir: team.yaml, with one agent
// per agent CLI found on PATH (or the mockagent demo team when none is),
// commented so that a person can edit it; and consultations.yaml and
// answerers.yaml copied from the defaults when missing. An existing
// team.yaml is kept unless Force (ErrExists). The written team is loaded
// back with config.LoadTeam before WriteStarter returns.
func WriteStarter(dir string, opt StarterOptions) (*StarterResult, error) {
	if dir == "" {
		dir = "."
	}
	look := opt.LookPath
	if look == nil {
		look = exec.LookPath
	}
	teamFile := filepath.Join(dir, "team.yaml")
	if _, err := os.Stat(teamFile); err == nil && !opt.Force {
		return nil, fmt.Errorf("%w: %s already exists; pass --force to overwrite it (consultations.yaml and answerers.yaml are kept either way)", ErrExists, teamFile)
	}
	res := &StarterResult{Team: teamFile}
	for _, c := range CLIs {
		path, err := look(c.Program)
		if err != nil || len(res.Agents) == len(StarterRoles) {
			continue
		}
		r := StarterRoles[len(res.Agents)]
		res.Agents = append(res.Agents, StarterAgent{Name: r.Name, Role: r.Role, Preset: c.Preset,
			Command: append([]string{c.Program}, c.Args...), Dir: ".", Found: path,
			Comment: fmt.Sprintf("%s, found at %s: %s", c.Label, path, r.Does)})
	}
	files := []struct{ name, from string }{{"consultations.yaml", ""}, {"answerers.yaml", "answerers.yaml"}}
	if len(res.Agents) == 0 {
		res.Demo = true
		mock := opt.MockAgent
		if mock == "" {
			mock = findMockAgent(look)
		}
		for _, a := range []struct{ name, role, does string }{
			{"dev", "developer", "asks the architect a question, runs the tests, hands the work to QA, asks to clear a cache"},
			{"architect", "architect", "answers the developer's question and decides the infrastructure"},
			{"security", "security", "approves the architect's infrastructure decision"},
			{"qa", tasks.QARole, "checks the developer's work and asks the human a question"},
		} {
			res.Agents = append(res.Agents, StarterAgent{Name: a.name, Role: a.role, Preset: "plain", Restart: "never",
				Command: []string{mock, "--name", a.name, a.name + ".mock"}, Dir: "./demo",
				Comment: "scripted (demo/" + a.name + ".mock): " + a.does})
			files = append(files, struct{ name, from string }{"demo/" + a.name + ".mock", "demo/" + a.name + ".mock"})
		}
	}
	for _, f := range files {
		data := configs.Consultations
		switch {
		case f.from == "answerers.yaml":
			data = configs.Answerers
		case f.from != "":
			var err error
			if data, err = configs.Demo.ReadFile(f.from); err != nil {
				return nil, fmt.Errorf("init: %w", err)
			}
		}
		wrote, err := writeIfMissing(filepath.Join(dir, filepath.FromSlash(f.name)), data)
		if err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		if wrote {
			res.Written = append(res.Written, f.name)
		} else {
			res.Kept = append(res.Kept, f.name)
		}
	}
	if !res.Demo {
		notes, err := starterNotes(filepath.Join(dir, "consultations.yaml"), res.Agents)
		if err != nil {
			return nil, err
		}
		res.Notes = notes
	}
	if _, _, err := worktree.Head(dir); err == nil {
		res.Worktrees = true
		if res.Demo {
			// Each demo agent reads its script from the team's folder: the
			// scripts just written are in no commit, so in no worktree.
			abs, err := filepath.Abs(dir)
			if err != nil {
				return nil, fmt.Errorf("init: %w", err)
			}
			for i := range res.Agents {
				c := res.Agents[i].Command
				c[len(c)-1] = filepath.Join(abs, "demo", c[len(c)-1])
			}
		}
	}
	var b bytes.Buffer
	if err := starterTmpl.Execute(&b, res); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	if err := writeFile(teamFile, b.Bytes()); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	res.Written = append([]string{"team.yaml"}, res.Written...)
	if _, err := config.LoadTeam(teamFile); err != nil {
		return res, fmt.Errorf("init: the team file written does not load (a bug in teamlead init): %w", err)
	}
	return res, nil
}

// findMockAgent is the mockagent program for the demo: on PATH, else beside
// the running executable (make build puts both in bin/), else its bare name.
func findMockAgent(look func(string) (string, error)) string {
	if _, err := look("mockagent"); err == nil {
		return "mockagent"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "mockagent")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return "mockagent"
}

// starterNotes lists what the starter team cannot do under the rules in
// rulesFile, and what to do about it.
func starterNotes(rulesFile string, agents []StarterAgent) ([]string, error) {
	rules, err := config.LoadConsultations(rulesFile)
	if err != nil {
		return nil, err
	}
	roles := map[string]bool{}
	for _, a := range agents {
		roles[a.Role] = true
	}
	var notes []string
	for _, r := range rules.Mandatory {
		req, con := strings.ToLower(r.Requester), strings.ToLower(r.Consulted)
		if roles[req] && !roles[con] {
			notes = append(notes, fmt.Sprintf("no agent has role %s, so every %s decision of the %s stays blocked: add an agent with role %s, or remove the rule %s→%s from consultations.yaml.",
				con, r.Decision, req, con, req, con))
		}
	}
	dev, qa := roles["developer"], roles[tasks.QARole]
	if dev && !qa {
		notes = append(notes, "no agent has role qa, so a developer's handoff that passes its consultations waits in your queue in the console: add an agent with role qa to have it tested.")
	}
	return notes, nil
}

// writeIfMissing writes data to path unless a file is there; it reports
// whether it wrote.
func writeIfMissing(path string, data []byte) (bool, error) {
	if _, err := os.Lstat(path); err == nil {
		return false, nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, writeFile(path, data)
}

// writeFile replaces path with data atomically, making its folder if missing.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, data, 0o644)
}

// plainWord is a YAML scalar that needs no quotes in a flow sequence.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./][A-Za-z0-9_./=+-]*$|^--?[A-Za-z0-9][A-Za-z0-9_-]*$`)

// Argv writes a command as a YAML flow sequence, quoting what needs it.
func (a StarterAgent) Argv() string {
	out := make([]string, len(a.Command))
	for i, w := range a.Command {
		if plainWord.MatchString(w) {
			out[i] = w
		} else {
			out[i] = strconv.Quote(w)
		}
	}
	return "[" + strings.Join(out, ", ") + "]"
}

// Found lists the programs found, for the team file's header.
func (r *StarterResult) Found() string {
	var out []string
	for _, a := range r.Agents {
		if a.Found != "" {
			out = append(out, a.Command[0])
		}
	}
	return strings.Join(out, ", ")
}

// Looked lists the programs looked for.
func (r *StarterResult) Looked() string {
	var out []string
	for _, c := range CLIs {
		out = append(out, c.Program)
	}
	return strings.Join(out, ", ")
}

// comment wraps text into YAML comment lines of at most 78 columns, each
// starting with indent and "# ".
func comment(indent, text string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(indent)+2+len(line)+1+len(w) > 78 {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	for i, l := range lines {
		lines[i] = indent + "# " + l
	}
	return strings.Join(lines, "\n")
}
