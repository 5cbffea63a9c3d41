package launch

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/config"
)

// The same agent gets the same doors from any Launcher: its primer as a
// flag, teamlead's MCP server in a file teamlead owns naming the
// Launcher's socket, and the socket in its environment; its own env wins
// over the preset's MCP env; a primer file is written before it starts.
func TestLauncherGivesAnAgentItsDoors(t *testing.T) {
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o700); err != nil {
		t.Fatal(err)
	}
	team := filepath.Join(dir, "team.yaml")
	yaml := "agents:\n" +
		"  - {name: claude, role: developer, preset: claude-code, dir: " + work + ", command: [claude]}\n" +
		"  - {name: open, role: qa, preset: opencode, dir: " + work + ", command: [opencode], env: {OPENCODE_CONFIG_CONTENT: mine}}\n"
	if err := os.WriteFile(team, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	tm, err := config.LoadTeam(team)
	if err != nil {
		t.Fatal(err)
	}
	var problems []error
	l := &Launcher{Team: tm, Socket: filepath.Join(dir, "node", "teamlead.sock"), MCP: filepath.Join(dir, "node", "mcp"),
		OnError: func(err error) { problems = append(problems, err) }, Warn: func(s string) { problems = append(problems, errors.New(s)) }}
	claude, open := tm.Agents[0], tm.Agents[1]

	cmd := l.Command(claude)
	if cmd[0] != "claude" || !strings.Contains(strings.Join(cmd, " "), "--append-system-prompt") {
		t.Errorf("claude's command: %q", cmd)
	}
	cfgFile := cmd[len(cmd)-1]
	if cmd[len(cmd)-2] != "--mcp-config" || filepath.Dir(cfgFile) != l.MCP {
		t.Fatalf("claude's MCP flag: %q", cmd)
	}
	var doc struct {
		MCPServers map[string]struct {
			Args []string          `json:"args"`
			Env  map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	b, err := os.ReadFile(cfgFile)
	if err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("the MCP configuration: %s, %v", b, err)
	}
	if s := doc.MCPServers["teamlead"]; strings.Join(s.Args, " ") != "mcp" || s.Env["TEAMLEAD_SOCKET"] != l.Socket || s.Env["TEAMLEAD_AGENT"] != "claude" {
		t.Errorf("the MCP configuration: %s", b)
	}
	if env := l.Env(claude); env["TEAMLEAD_SOCKET"] != l.Socket || env["TEAMLEAD_AGENT"] != "claude" {
		t.Errorf("claude's environment: %v", env)
	}
	if env := l.Env(open); env["OPENCODE_CONFIG_CONTENT"] != "mine" {
		t.Errorf("the agent's own env lost to the preset's MCP env: %v", env)
	}
	l.Prepare(open)
	if b, err := os.ReadFile(filepath.Join(work, "AGENTS.md")); err != nil || !strings.Contains(string(b), "[ROUTE]") {
		t.Errorf("open's primer file: %v\n%s", err, b)
	}
	if len(problems) > 0 {
		t.Errorf("problems: %v", problems)
	}
}
