package primer

import (
	"sort"
	"strings"
	"testing"

	"github.com/teamlead/teamlead/internal/mcptools"
)

// The primer teaches teamlead's tools first to an agent whose CLI has
// them (its preset's mcp:), naming every tool `teamlead mcp` serves in the
// form that CLI shows it to its model; an agent whose CLI has none is
// taught the printed envelope only, and no tool.
func TestToolsSection(t *testing.T) {
	team := loadTeam(t, "tools.yaml")
	var tools []string
	for name := range mcptools.New(nil, "test").ListTools() {
		tools = append(tools, name)
	}
	sort.Strings(tools)
	if len(tools) < 9 {
		t.Fatalf("the server has %d tools: %v", len(tools), tools)
	}
	const heading = "## Your teamlead tools: use them first"
	forms := map[string]string{ // as each CLI shows send_message
		"cc": "mcp__teamlead__send_message", "gm": "mcp_teamlead_send_message",
		"cp": "teamlead-send_message", "oc": "teamlead_send_message",
		"cx": "send_message", // Codex: namespace mcp__teamlead holding the tools
	}
	for agent, form := range forms {
		text := primerOf(t, team, agent)
		if !strings.Contains(text, heading) {
			t.Errorf("%s: no tools section", agent)
			continue
		}
		if i, j := strings.Index(text, heading), strings.Index(text, "## Messages: the [ROUTE] envelope"); j < i {
			t.Errorf("%s: the tools come after the printed envelope", agent)
		}
		section := text[strings.Index(text, heading):strings.Index(text, "## Messages:")]
		for _, tool := range tools {
			if name := strings.Replace(form, "send_message", tool, 1); !strings.Contains(section, "`"+name+"`") {
				t.Errorf("%s: the tools section does not name %s as its CLI shows it (`%s`):\n%s", agent, tool, name, section)
			}
		}
		for other, f := range forms {
			if f != form && strings.Contains(section, "`"+f+"`") {
				t.Errorf("%s: the tools section names %s's form %s", agent, other, f)
			}
		}
		if n := len(strings.Fields(text)); n > maxWords {
			t.Errorf("%s: %d words; keep it under %d", agent, n, maxWords)
		}
	}
	for _, agent := range []string{"ai", "mk"} {
		text := primerOf(t, team, agent)
		if strings.Contains(text, heading) || strings.Contains(text, "send_message") || strings.Contains(text, "mcp__teamlead") {
			t.Errorf("%s has no tools, yet its primer teaches them:\n%s", agent, text)
		}
	}
}
