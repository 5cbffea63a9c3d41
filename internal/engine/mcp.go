package engine

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/fsutil"
)

// Placeholders of a preset's mcp flag.
const (
	mcpConfigPlaceholder = "{mcp_config}"
	teamleadPlaceholder  = "{teamlead}"
	socketPlaceholder    = "{socket}"
	agentPlaceholder     = "{agent}"
)

// mcpArgs are the arguments that give a's CLI teamlead's tools (its
// preset's mcp flag): the configuration file they name is written under
// Options.MCP, which the console owns, never in the person's settings.
func (e *Engine) mcpArgs(a config.Agent) []string {
	p := e.opts.Team.Resolved[a.Name].MCP
	if p == nil || len(p.Flag) == 0 || e.opts.MCP == "" {
		return nil
	}
	expand := e.mcpExpander(a.Name)
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
// already set (by the agent's env, given as set, or the console's own
// environment): the person's own setting wins.
func (e *Engine) mcpEnv(a config.Agent, set map[string]string) map[string]string {
	p := e.opts.Team.Resolved[a.Name].MCP
	if p == nil || len(p.Env) == 0 || e.opts.MCP == "" {
		return nil
	}
	expand := e.mcpExpander(a.Name)
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
// flags and env for agent: teamlead's executable, the console's socket,
// the agent's name, and its MCP configuration file, written the first
// time one names it. false (and a warning) when it cannot: the agent then
// gets no teamlead tools.
func (e *Engine) mcpExpander(agent string) func(string) (string, bool) {
	exe, exeErr := os.Executable()
	file := ""
	return func(s string) (string, bool) {
		if exeErr != nil {
			e.Warn(fmt.Sprintf("%s gets no teamlead tools: %v", agent, exeErr))
			return "", false
		}
		if strings.Contains(s, mcpConfigPlaceholder) && file == "" {
			var err error
			if file, err = e.writeMCPConfig(agent, exe); err != nil {
				e.Warn(fmt.Sprintf("%s gets no teamlead tools: %v", agent, err))
				return "", false
			}
		}
		return strings.NewReplacer(mcpConfigPlaceholder, file, teamleadPlaceholder, exe,
			socketPlaceholder, e.opts.Socket, agentPlaceholder, agent).Replace(s), true
	}
}

// writeMCPConfig writes the agent's MCP configuration: teamlead's server,
// started as `teamlead mcp` with the console's socket.
func (e *Engine) writeMCPConfig(agent, exe string) (string, error) {
	type server struct {
		Type    string            `json:"type"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	doc := map[string]map[string]server{"mcpServers": {"teamlead" /* mcptools.Name */ : {Type: "stdio", Command: exe, Args: []string{"mcp"},
		Env: map[string]string{"TEAMLEAD_SOCKET": e.opts.Socket, "TEAMLEAD_AGENT": agent}}}}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(e.opts.MCP, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(e.opts.MCP, agent+".json")
	return path, fsutil.WriteFileAtomic(path, b, 0o600)
}
