package permit

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// ErrAction is wrapped by the errors of ParseAction.
var ErrAction = errors.New("invalid action")

// Action is one thing an agent wants to do: a tool and its argument.
type Action struct {
	// Tool is the tool's name: Bash, Read, Edit, Write, WebFetch, mcp__server__tool...
	Tool string
	// Arg is the text between the parentheses: a shell command, a path, a URL.
	Arg string
	// HasArg reports whether the action was written with parentheses.
	HasArg bool
}

// String writes the action back as Tool or Tool(arg).
func (a Action) String() string {
	if !a.HasArg {
		return a.Tool
	}
	return a.Tool + "(" + a.Arg + ")"
}

// ParseAction reads "Tool" or "Tool(argument)". The argument runs to the
// last closing parenthesis, so it may hold parentheses of its own
// (Bash(echo $(date))). Unknown tools are accepted: the policy's default
// decides them.
func ParseAction(s string) (Action, error) {
	s = strings.TrimSpace(s)
	tool, arg, has, err := splitTool(s)
	if err != nil {
		return Action{}, fmt.Errorf("%w: %q: %v", ErrAction, s, err)
	}
	return Action{Tool: tool, Arg: arg, HasArg: has}, nil
}

// splitTool splits "Tool(arg)" into its tool name and argument.
func splitTool(s string) (tool, arg string, hasArg bool, err error) {
	open := strings.IndexByte(s, '(')
	tool = s
	if open >= 0 {
		tool = s[:open]
		if !strings.HasSuffix(s, ")") {
			return "", "", false, errors.New("missing the closing ) at the end")
		}
		arg, hasArg = s[open+1:len(s)-1], true
	}
	if tool == "" {
		return "", "", false, errors.New("missing the tool name before (, e.g. Bash(go test ./...)")
	}
	for i := 0; i < len(tool); i++ {
		c := tool[i]
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9' || c == '*' && strings.HasPrefix(tool, "mcp__")) {
			return "", "", false, fmt.Errorf("tool name %q: only letters, digits, _ and - are allowed", tool)
		}
	}
	return tool, arg, hasArg, nil
}

// editTools are the tools an Edit rule covers, as in Claude Code.
var editTools = map[string]bool{"Edit": true, "Write": true, "MultiEdit": true, "NotebookEdit": true}

// readTools are the tools a Read rule covers.
var readTools = map[string]bool{"Read": true, "Glob": true, "Grep": true, "LS": true, "NotebookRead": true}

// knownTools are the tool names a rule may name besides mcp__ tools.
var knownTools = map[string]bool{"Bash": true, "Read": true, "Edit": true, "Write": true, "MultiEdit": true,
	"NotebookEdit": true, "NotebookRead": true, "Glob": true, "Grep": true, "LS": true, "WebFetch": true,
	"WebSearch": true, "Task": true, "Agent": true, "Skill": true, "TodoWrite": true, "ExitPlanMode": true,
	"SlashCommand": true, "BashOutput": true, "KillShell": true}

func knownToolList() string {
	out := make([]string, 0, len(knownTools))
	for t := range knownTools {
		out = append(out, t)
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

// isPathTool reports a tool whose argument is a file path.
func isPathTool(tool string) bool { return editTools[tool] || readTools[tool] }

// ruleCovers reports whether a rule naming ruleTool applies to an action of tool.
func ruleCovers(ruleTool, tool string) bool {
	switch {
	case ruleTool == tool:
		return true
	case ruleTool == "Edit":
		return editTools[tool]
	case ruleTool == "Read":
		return readTools[tool]
	}
	return false
}
