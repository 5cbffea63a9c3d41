// Package launch prepares an agent's start on the machine that runs it —
// the console's, or a node's (teamlead node): its command line (its
// primer as a flag, teamlead's MCP server), its environment (the socket
// its hooks and tools reach teamlead through) and the files its CLI reads
// at start (its primer file, Claude Code's hooks, the MCP configuration).
// One piece of code for both, so that an agent gets the same doors
// wherever it runs.
package launch

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/teamlead/teamlead/internal/clihook"
	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/fsutil"
	"github.com/teamlead/teamlead/internal/primer"
)

// Launcher prepares the starts of a team's agents on one machine.
type Launcher struct {
	Team *config.Team
	// Socket is the control socket the agents reach teamlead through
	// (the console's, or a node's door); "" gives them none.
	Socket string
	// MCP is the folder of the agents' MCP configuration files, which
	// teamlead owns (never the person's settings); "" gives no tools.
	MCP string
	// Warn tells the person something an agent goes without (its tools).
	Warn func(string)
	// OnError tells the person what could not be written for an agent's
	// CLI (its primer, its hooks); the agent starts all the same.
	OnError func(error)

	geminiOnce sync.Once
	geminiPath string
}

// Placeholders of a preset's mcp flag and env.
const (
	mcpConfigPlaceholder = "{mcp_config}"
	teamleadPlaceholder  = "{teamlead}"
	socketPlaceholder    = "{socket}"
	agentPlaceholder     = "{agent}"
)

// Command is a's command line: its command, then its primer when its
// preset takes it as a flag, then the flags that give it teamlead's tools.
func (l *Launcher) Command(a config.Agent) []string {
	return append(append(append([]string(nil), a.Command...), l.primerArgs(a)...), l.mcpArgs(a)...)
}

// Env is a's environment besides the machine's: its name and the socket,
// its own env:, the variables that give its CLI teamlead's tools (unless
// set by it or the machine's environment: the person's own setting wins),
// and Gemini CLI's hooks file.
func (l *Launcher) Env(a config.Agent) map[string]string {
	env := map[string]string{"TEAMLEAD_AGENT": a.Name}
	if l.Socket != "" {
		env["TEAMLEAD_SOCKET"] = l.Socket
	}
	for k, v := range a.Env {
		env[k] = v
	}
	for k, v := range l.mcpEnv(a, a.Env) {
		env[k] = v
	}
	if _, set := env[clihook.GeminiEnv]; a.Preset == "gemini" && !set && os.Getenv(clihook.GeminiEnv) == "" {
		if path := l.geminiHooks(); path != "" {
			env[clihook.GeminiEnv] = path
		}
	}
	return env
}

// Prepare writes what a's CLI reads when it starts: Claude Code's hooks
// into its project settings, and its primer into its instructions file.
func (l *Launcher) Prepare(a config.Agent) {
	if a.Preset == "claude-code" {
		l.installHooks(a.Dir)
	}
	l.writePrimerFile(a)
}

func (l *Launcher) fail(err error) {
	if l.OnError != nil {
		l.OnError(err)
	}
}

func (l *Launcher) warn(s string) {
	if l.Warn != nil {
		l.Warn(s)
	}
}

// primerArgs are the arguments a flag-mode preset appends to the agent's
// command (its primer as a system prompt); nil for the other modes.
func (l *Launcher) primerArgs(a config.Agent) []string {
	p := l.Team.Resolved[a.Name].Primer
	if p == nil || len(p.Flag) == 0 {
		return nil
	}
	text, err := primer.Text(l.Team, a.Name)
	if err == nil {
		var args []string
		if args, err = primer.FlagArgs(text, p.Flag); err == nil {
			return args
		}
	}
	l.primerFailed(a.Name, err)
	return nil
}

// writePrimerFile writes a file-mode agent's primer into its instructions
// file (between markers, the user's own text kept) before it starts.
func (l *Launcher) writePrimerFile(a config.Agent) {
	p := l.Team.Resolved[a.Name].Primer
	if p == nil || p.File == "" {
		return
	}
	text, err := primer.Text(l.Team, a.Name)
	if err == nil {
		path := p.File
		if !filepath.IsAbs(path) {
			path = filepath.Join(a.Dir, path)
		}
		err = primer.WriteFile(a.Dir, path, text)
	}
	if err != nil {
		l.primerFailed(a.Name, err)
	}
}

func (l *Launcher) primerFailed(agent string, err error) { l.fail(PrimerError(agent, err)) }

// PrimerError says agent's primer was not handed over (err), and how to
// type it.
func PrimerError(agent string, err error) error {
	return fmt.Errorf("agent %s: the protocol primer was not handed over: %w (it can still be typed: teamlead primer %s | teamlead send %s -)", agent, err, agent, agent)
}

// geminiHooks is the Gemini CLI hooks file, written beside the socket
// (the hooks reach teamlead through it) once; "" when there is no socket
// or it cannot be written (the screen is read instead).
func (l *Launcher) geminiHooks() string {
	l.geminiOnce.Do(func() {
		if l.Socket == "" {
			return
		}
		self, err := os.Executable()
		if err == nil {
			l.geminiPath, err = clihook.WriteGemini(filepath.Dir(l.Socket), self)
		}
		if err != nil {
			l.fail(fmt.Errorf("Gemini CLI hooks: %w; gemini agents' states are read off their screens (a --state folder under your home fixes this)", err))
		}
	})
	return l.geminiPath
}

// installHooks puts teamlead's hooks into a Claude Code agent's project
// settings, so that its tool calls ask teamlead (the preferred door:
// screens change between versions, hooks do not).
func (l *Launcher) installHooks(dir string) {
	self, err := os.Executable()
	if err == nil {
		err = clihook.InstallClaude(dir, self)
	}
	if err != nil {
		l.fail(fmt.Errorf("installing the Claude Code hooks in %s: %w (its permission dialogs are still read off its screen)", dir, err))
	}
}

// mcpArgs are the arguments that give a's CLI teamlead's tools (its
// preset's mcp flag): the configuration file they name is written under
// MCP, never in the person's settings.
func (l *Launcher) mcpArgs(a config.Agent) []string {
	p := l.Team.Resolved[a.Name].MCP
	if p == nil || len(p.Flag) == 0 || l.MCP == "" {
		return nil
	}
	expand := l.mcpExpander(a.Name)
	args := make([]string, 0, len(p.Flag))
	for _, f := range p.Flag {
		v, ok := expand(f)
		if !ok {
			return nil
		}
		args = append(args, v)
	}
	return args
}

// mcpEnv are the environment variables that give a's CLI teamlead's
// tools (its preset's mcp env), placeholders replaced, except those
// already set (by the agent's env, given as set, or the machine's own
// environment).
func (l *Launcher) mcpEnv(a config.Agent, set map[string]string) map[string]string {
	p := l.Team.Resolved[a.Name].MCP
	if p == nil || len(p.Env) == 0 || l.MCP == "" {
		return nil
	}
	expand := l.mcpExpander(a.Name)
	out := map[string]string{}
	for k, v := range p.Env {
		if _, ok := set[k]; ok {
			continue
		}
		if _, ok := os.LookupEnv(k); ok {
			continue
		}
		x, ok := expand(v)
		if !ok {
			return nil
		}
		out[k] = x
	}
	return out
}

// mcpExpander returns what replaces the placeholders of a preset's mcp
// flags and env for agent: teamlead's executable, the socket, the agent's
// name, and its MCP configuration file, written the first time one names
// it. false (and a warning) when it cannot: the agent then gets no
// teamlead tools.
func (l *Launcher) mcpExpander(agent string) func(string) (string, bool) {
	exe, exeErr := os.Executable()
	file := ""
	return func(s string) (string, bool) {
		if exeErr != nil {
			l.warn(fmt.Sprintf("%s gets no teamlead tools: %v", agent, exeErr))
			return "", false
		}
		if strings.Contains(s, mcpConfigPlaceholder) && file == "" {
			var err error
			if file, err = l.writeMCPConfig(agent, exe); err != nil {
				l.warn(fmt.Sprintf("%s gets no teamlead tools: %v", agent, err))
				return "", false
			}
		}
		return strings.NewReplacer(mcpConfigPlaceholder, file, teamleadPlaceholder, exe,
			socketPlaceholder, l.Socket, agentPlaceholder, agent).Replace(s), true
	}
}

// writeMCPConfig writes the agent's MCP configuration: teamlead's server,
// started as `teamlead mcp` with the socket.
func (l *Launcher) writeMCPConfig(agent, exe string) (string, error) {
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	doc := map[string]map[string]server{"mcpServers": {"teamlead" /* mcptools.Name */ : {Type: "stdio", Command: exe, Args: []string{"mcp"},
		Env: map[string]string{"TEAMLEAD_SOCKET": l.Socket, "TEAMLEAD_AGENT": agent}}}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(l.MCP, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(l.MCP, agent+".json")
	return path, fsutil.WriteFileAtomic(path, b, 0o600)
}
