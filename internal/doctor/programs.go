package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/teamlead/teamlead/agents"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/primer"
	"github.com/teamlead/teamlead/internal/textsafe"
)

// installs say how each agent CLI teamlead has a preset for is installed:
// an npm package, or (pip) a Python one.
var installs = map[string]struct {
	pkg string
	pip bool
}{
	"claude":   {pkg: "@anthropic-ai/claude-code"},
	"codex":    {pkg: "@openai/codex"},
	"gemini":   {pkg: "@google/gemini-cli"},
	"copilot":  {pkg: "@github/copilot"},
	"opencode": {pkg: "opencode-ai"},
	"aider":    {pkg: "aider-chat", pip: true},
}

// InstallHint is the command that installs the agent CLI program (claude,
// codex, gemini, copilot, opencode, aider), at version when it is not "" (2.1.x: the newest
// 2.1); "" for a program teamlead knows no install for.
func InstallHint(program, version string) string {
	in, ok := installs[program]
	if !ok {
		return ""
	}
	version = strings.TrimSuffix(version, ".x")
	if in.pip {
		if version != "" {
			return "pip install " + in.pkg + "==" + version
		}
		return "pip install " + in.pkg
	}
	if version != "" {
		return "npm install -g " + in.pkg + "@" + version
	}
	return "npm install -g " + in.pkg
}

// knownCLI is the agent CLI whose program is named base, if teamlead
// knows it (primer.CLIs: the ones teamlead init looks for).
func knownCLI(base string) (primer.CLI, bool) {
	for _, c := range primer.CLIs {
		if c.Program == base {
			return c, true
		}
	}
	return primer.CLI{}, false
}

var (
	capturedOnce sync.Once
	captured     map[string]string
)

// CapturedVersions are the versions of the agent CLIs whose screens the
// built-in presets were captured from, by preset name. configs/presets.yaml
// has no field for it: each preset's comments name the CLI and its version
// ("Codex 0.169.0 with approval_policy …", "Claude Code 2.1.x, both
// renderers"), and that is what is read. A preset whose comments name none
// (aider) is absent.
func CapturedVersions() map[string]string {
	capturedOnce.Do(func() { captured = capturedVersions(configs.Presets) })
	return captured
}

func capturedVersions(text []byte) map[string]string {
	out := map[string]string{}
	var doc yaml.Node
	if yaml.Unmarshal(text, &doc) != nil || len(doc.Content) == 0 {
		return out
	}
	root := doc.Content[0]
	var presets *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "presets" {
			presets = root.Content[i+1]
		}
	}
	if presets == nil {
		return out
	}
	for i := 0; i+1 < len(presets.Content); i += 2 {
		name := presets.Content[i].Value
		var label string
		for _, c := range primer.CLIs {
			if c.Preset == name {
				label = c.Label
			}
		}
		if label == "" {
			continue
		}
		var comments strings.Builder
		comments.WriteString(presets.Content[i].HeadComment + "\n")
		walkComments(presets.Content[i+1], &comments)
		re := regexp.MustCompile(regexp.QuoteMeta(label) + `\s+v?(\d+\.\d+\.(?:\d+|x))\b`)
		if m := re.FindStringSubmatch(comments.String()); m != nil {
			out[name] = m[1]
		}
	}
	return out
}

func walkComments(n *yaml.Node, b *strings.Builder) {
	if n == nil {
		return
	}
	for _, c := range []string{n.HeadComment, n.LineComment, n.FootComment} {
		if c != "" {
			b.WriteString(c + "\n")
		}
	}
	for _, c := range n.Content {
		walkComments(c, b)
	}
}

// target is a program to look for: an agent's (required: the team cannot
// run without it), or a known agent CLI when there is no team.
type target struct {
	check, subject string
	program        string
	dir            string
	pathEnv        string
	ownPath        bool
	required       bool
}

// programChecks checks each agent's program (or, with no team, each known
// agent CLI): that it is there, and for the agent CLIs teamlead has
// presets for, its version against the one the preset was captured from.
func programChecks(o Options, team *config.Team) []Check {
	var own []string
	if team != nil {
		own = team.OwnFiles()
	}
	protect := control.Protected(o.State, own)
	var ts []target
	if team != nil {
		for _, a := range team.Agents {
			if len(a.Command) == 0 || strings.TrimSpace(a.Command[0]) == "" {
				continue // the team file's check says so
			}
			pathEnv, own := os.Getenv("PATH"), false
			if v, ok := a.Env["PATH"]; ok {
				pathEnv, own = v, true
			}
			ts = append(ts, target{check: "agent", subject: a.Name, program: a.Command[0], dir: a.Dir, pathEnv: pathEnv, ownPath: own, required: true})
		}
	} else {
		for _, c := range primer.CLIs {
			ts = append(ts, target{check: "agent CLI", subject: c.Program, program: c.Program, pathEnv: os.Getenv("PATH")})
		}
	}
	paths := make([]string, len(ts))
	found := make([]lookup, len(ts))
	// Each known CLI found is asked its version once, all at once.
	versions := map[string]*versionResult{}
	var wg sync.WaitGroup
	for i, t := range ts {
		found[i] = lookProgram(t.program, t.dir, t.pathEnv, t.ownPath)
		paths[i] = found[i].path
		if _, known := knownCLI(filepath.Base(t.program)); known && found[i].path != "" && versions[found[i].path] == nil {
			r := &versionResult{}
			versions[found[i].path] = r
			wg.Add(1)
			go func(path string) {
				defer wg.Done()
				*r = runVersion(path, o.VersionTimeout, protect)
			}(found[i].path)
		}
	}
	wg.Wait()
	out := make([]Check, len(ts))
	for i, t := range ts {
		out[i] = programCheck(t, found[i], versions[paths[i]])
	}
	return out
}

func programCheck(t target, l lookup, v *versionResult) Check {
	base := filepath.Base(t.program)
	cli, known := knownCLI(base)
	c := Check{Check: t.check, Subject: t.subject, Program: t.program, Path: l.path}
	if l.path == "" {
		if !t.required {
			c.Status = Warning
			c.Finding = fmt.Sprintf("%s (%s) is not installed: %s", cli.Label, base, l.finding)
			c.Fix = "to lead it, install it: " + InstallHint(base, "")
			return c
		}
		c.Status, c.Finding, c.Fix = Problem, l.finding, l.fix
		switch {
		case known:
			c.Fix = "install it: " + InstallHint(base, "") + " (or give its full path in command:)"
		case base == "mockagent":
			c.Fix = "build it: make build (it writes bin/mockagent), or go build -o bin/mockagent ./cmd/mockagent"
		}
		return c
	}
	if !known {
		c.Status, c.Finding = OK, fmt.Sprintf("%s at %s", base, shortPath(l.path))
		return c
	}
	if v == nil || v.err != nil {
		why := "it was not run"
		if v != nil {
			why = v.err.Error()
		}
		c.Status = Warning
		c.Finding = fmt.Sprintf("%s at %s, but `%s --version` failed: %s", base, shortPath(l.path), base, why)
		c.Fix = fmt.Sprintf("run %s --version yourself to see why; if it is broken, reinstall it: %s", base, InstallHint(base, ""))
		return c
	}
	c.Version = v.version
	c.CapturedVersion = CapturedVersions()[cli.Preset]
	if c.CapturedVersion == "" {
		c.Status = OK
		c.Finding = fmt.Sprintf("%s %s at %s (configs/presets.yaml records no version the %s preset was captured from)", base, v.version, shortPath(l.path), cli.Preset)
		return c
	}
	switch cmp := compareVersions(v.version, c.CapturedVersion); {
	case cmp == 0:
		c.Status = OK
		c.Finding = fmt.Sprintf("%s %s at %s: the version the %s preset was captured from (%s)", base, v.version, shortPath(l.path), cli.Preset, c.CapturedVersion)
	default:
		than := "newer"
		if cmp < 0 {
			than = "older"
		}
		c.Status = Warning
		c.Finding = fmt.Sprintf("%s %s at %s is %s than %s, the version the %s preset was captured from: its screens (permission dialog, busy and idle) may differ",
			base, v.version, shortPath(l.path), than, c.CapturedVersion, cli.Preset)
		c.Fix = fmt.Sprintf("if the console says %s's permission detector matched nothing, fix the %s section of configs/presets.yaml, or install the captured version: %s",
			cli.Preset, cli.Preset, InstallHint(base, c.CapturedVersion))
	}
	return c
}

// lookup is where a program was found (path), or why not and what to do.
type lookup struct {
	path, finding, fix string
}

// lookProgram finds name as the console starts it: a path (with a slash)
// must be a program; a bare name is looked for in pathEnv, whose relative
// entries are taken from dir.
func lookProgram(name, dir, pathEnv string, own bool) lookup {
	if strings.Contains(name, "/") {
		st, err := os.Stat(name)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return lookup{finding: fmt.Sprintf("%s does not exist", shortPath(name)),
				fix: "fix the path in command: (a relative path is taken from the team file's folder), or give a program on PATH"}
		case err != nil:
			return lookup{finding: fmt.Sprintf("%s cannot be run: %v", name, err), fix: "fix the path in command:, or its permissions"}
		case st.IsDir():
			return lookup{finding: fmt.Sprintf("%s is a folder, not a program", name), fix: "name the program in command:, not its folder"}
		case st.Mode().Perm()&0o111 == 0:
			return lookup{finding: fmt.Sprintf("%s is not executable", name), fix: "make it so: chmod +x " + name}
		}
		return lookup{path: name}
	}
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) && dir != "" {
			d = filepath.Join(dir, d)
		}
		p := filepath.Join(d, name)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode().Perm()&0o111 != 0 {
			return lookup{path: p}
		}
	}
	where := "PATH"
	if own {
		where = "the PATH its env: sets"
	}
	return lookup{finding: fmt.Sprintf("%s is not on %s", name, where),
		fix: fmt.Sprintf("install it, or give its full path (command: [/full/path/to/%s])", name)}
}

// versionResult is what `<cli> --version` said.
type versionResult struct {
	version string
	err     error
}

var versionRE = regexp.MustCompile(`\d+\.\d+(?:\.\d+)?`)

// runVersion runs `path --version` with nothing on its input, for at most
// timeout, and reads the first version number it prints.
func runVersion(path string, timeout time.Duration, protect []string) versionResult {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	// The program is named by a team file an agent can write: it runs as
	// an agent's (a process it leaves behind cannot act as you, nor reach
	// your tmux, nor change teamlead's files).
	agents.Isolate(cmd, protect...)
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	// A child that keeps the output open does not hold the check up.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	first := firstLine(out.b.String())
	switch {
	case ctx.Err() != nil:
		return versionResult{err: fmt.Errorf("it did not answer within %s", timeout)}
	case err != nil && first != "":
		return versionResult{err: fmt.Errorf("%v: %s", err, first)}
	case err != nil:
		return versionResult{err: err}
	}
	v := versionRE.FindString(out.b.String())
	if v == "" {
		return versionResult{err: fmt.Errorf("it printed no version number (%q)", first)}
	}
	return versionResult{version: v}
}

// firstLine is s's first non-blank line, made safe to print and cut short.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 120 {
				l = l[:120] + "…"
			}
			return textsafe.Line(l)
		}
	}
	return ""
}

// capped keeps the first 64 KiB written to it.
type capped struct{ b bytes.Buffer }

func (c *capped) Write(p []byte) (int, error) {
	if room := 64<<10 - c.b.Len(); room > 0 {
		c.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// compareVersions compares an installed version with a captured one, part
// by part; an x in the captured one matches any part from there on.
func compareVersions(installed, captured string) int {
	a, b := strings.Split(installed, "."), strings.Split(captured, ".")
	for i, cp := range b {
		if cp == "x" {
			return 0
		}
		var ip int
		if i < len(a) {
			ip, _ = strconv.Atoi(a[i])
		}
		n, _ := strconv.Atoi(cp)
		if ip != n {
			if ip < n {
				return -1
			}
			return 1
		}
	}
	return 0
}
