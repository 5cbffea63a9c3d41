package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/internal/permit"
)

// Permissions configures permission requests (PROTOCOL.md section 6).
type Permissions struct {
	// Policy is the permissions.yaml file; default: permissions.yaml beside
	// the team file if there is one, else the built-in policy. Approve-always
	// writes its rules here (a copy of the built-in policy is made first).
	Policy string `yaml:"policy"`
	// EscalateAfter is how long a request waits for the human before it is
	// escalated: the bell again and the notify URLs (default 10m).
	EscalateAfter time.Duration `yaml:"escalate_after"`
	// Notify are the notification URLs of an escalated request (slack://,
	// webhook://, exec://, as questions.notify maps them).
	Notify []string `yaml:"notify"`
	// HookWait is how long `teamlead hook` waits for the human before it
	// lets the CLI ask in its own dialog (default 50s; Claude Code gives a
	// hook 60s).
	HookWait time.Duration `yaml:"hook_wait"`
	// Parsed is the loaded policy.
	Parsed *permit.Policy `yaml:"-"`
	// Builtin is set when Parsed is the built-in policy (Policy names where
	// a copy of it goes on the first approve-always).
	Builtin bool `yaml:"-"`
}

func (t *Team) validatePermissions(file string, root *yaml.Node, base string) error {
	p := &t.Permissions
	if p.EscalateAfter == 0 {
		p.EscalateAfter = 10 * time.Minute
	}
	if p.HookWait == 0 {
		p.HookWait = 50 * time.Second
	}
	explicit := p.Policy != ""
	switch {
	case explicit && !filepath.IsAbs(p.Policy):
		p.Policy = filepath.Join(base, p.Policy)
	case !explicit:
		p.Policy = filepath.Join(base, "permissions.yaml")
	}
	if explicit {
		if err := readable(p.Policy); err != nil {
			return &FieldError{File: file, Line: lineOf(child(root, "permissions"), "policy"), Field: "permissions.policy",
				Msg: err.Error() + "; fix the path (relative to the team file's folder), or delete the key for the built-in policy"}
		}
	}
	var err error
	// One read: the bytes parsed are the bytes whose hash is recorded (a
	// stat then a load could see two different files).
	data, readErr := os.ReadFile(p.Policy)
	switch {
	case readErr == nil:
		p.Parsed, err = permit.Parse(p.Policy, data)
		err = policySyntax(p.Policy, err)
		t.noteRead(p.Policy, data)
	case explicit:
		p.Parsed, err = permit.Load(p.Policy) // a policy named but missing is an error
		err = policySyntax(p.Policy, err)
	default:
		p.Parsed, err = permit.Builtin()
		p.Builtin = true
		t.noteRead(p.Policy, nil)
	}
	return err
}

// policySyntax puts a YAML syntax error of the policy file at the line of
// the problem (the YAML library names the line where the enclosing block
// began), said the way the other files say it; other errors pass through.
func policySyntax(file string, err error) error {
	var pe *permit.PolicyError
	if !errors.As(err, &pe) || pe.Field != "(file)" || !strings.HasPrefix(pe.Msg, "not YAML: ") {
		return err
	}
	data, readErr := os.ReadFile(file)
	if readErr != nil {
		return err
	}
	var doc yaml.Node
	yerr := yaml.Unmarshal(data, &doc)
	if yerr == nil {
		return err
	}
	return SyntaxError(pe.File, data, yerr)
}

// OwnFiles are teamlead's own files for this team: the team file, the
// permission policy, and the answerers, consultations and presets files
// beside the team file. An agent's write to one of them (by Edit or by any
// shell command) is on the permission floor: it would change what steers
// the agents.
func (t *Team) OwnFiles() []string {
	var out []string
	add := func(p string) {
		if p != "" {
			out = append(out, filepath.Clean(p))
		}
	}
	add(t.File)
	add(t.Permissions.Policy)
	if t.File != "" {
		dir := filepath.Dir(t.File)
		for _, name := range []string{"answerers.yaml", "consultations.yaml", "presets.yaml"} {
			add(filepath.Join(dir, name))
		}
		if a := t.Questions.Answerers; a != "" && !filepath.IsAbs(a) {
			add(filepath.Join(dir, a))
		} else {
			add(a)
		}
	}
	// A theme file colours what the human reads: a theme that draws "risk
	// critical" in the background's colour hides it (red team 9a).
	if th := t.ThemeName(); isThemeFile(th) {
		add(th)
	}
	return out
}

// ThemeName is the console's theme: a built-in name, or a .yaml file,
// relative to the team file's folder.
func (t *Team) ThemeName() string {
	th := t.UI.Theme
	if isThemeFile(th) && !filepath.IsAbs(th) && t.File != "" {
		return filepath.Join(filepath.Dir(t.File), th)
	}
	return th
}

func isThemeFile(name string) bool {
	return strings.HasSuffix(name, ".yaml") || strings.ContainsRune(name, filepath.Separator)
}
