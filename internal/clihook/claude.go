package clihook

// Claude Code's hook protocol: a hook's tool call turned into the action
// the permission policy reads, the decision written as the hook's JSON,
// and teamlead's hooks installed in a project's .claude/settings.local.json.

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/fsutil"
)

// Input is the part of a hook's JSON that matters here (Claude Code and
// Gemini CLI name these fields alike).
type Input struct {
	// Event is hook_event_name: PreToolUse, PermissionRequest, Notification, Stop ...
	Event string `json:"hook_event_name"`
	// ToolName and ToolInput are the tool call of PreToolUse and PermissionRequest.
	ToolName  string         `json:"tool_name"`
	ToolInput map[string]any `json:"tool_input"`
	// SessionID is the CLI's conversation (Claude Code and Gemini CLI send
	// it with every event), which the console resumes after a restart.
	SessionID string `json:"session_id"`
	// TranscriptPath is Claude Code's transcript of the conversation,
	// from which the console reads what it used.
	TranscriptPath string `json:"transcript_path"`
	// Cwd is the folder the CLI's shell is in (Claude Code keeps the cd
	// of one Bash call for the next).
	Cwd string `json:"cwd"`
}

// ClaudeAction writes a Claude Code tool call as the policy reads actions:
// Bash(command), Edit(path), WebFetch(url), or the tool's name.
func ClaudeAction(tool string, input map[string]any) string {
	str := func(k string) string { s, _ := input[k].(string); return s }
	var arg string
	switch tool {
	case "Bash":
		arg = str("command")
	case "Edit", "MultiEdit", "Write", "Read":
		arg = str("file_path")
	case "NotebookEdit":
		arg = str("notebook_path")
	case "WebFetch":
		arg = str("url")
	case "WebSearch":
		arg = str("query")
	case "Glob", "Grep":
		arg = str("path")
	}
	if arg == "" {
		return tool
	}
	return tool + "(" + arg + ")"
}

// WriteClaudeDecision answers the hook: allow or deny when decided, and for
// a request still waiting for the human, "ask" (PreToolUse) or nothing
// (PermissionRequest): Claude Code then shows its own dialog, which the
// console continues.
func WriteClaudeDecision(w io.Writer, event string, r approvals.Request) error {
	reason := fmt.Sprintf("teamlead %s: %s", r.ID, r.Why)
	if r.Note != "" {
		reason = fmt.Sprintf("teamlead %s: %s", r.ID, r.Note)
	}
	var specific map[string]any
	switch {
	case event == "PermissionRequest" && r.Status == approvals.Approved:
		specific = map[string]any{"hookEventName": event, "decision": map[string]any{"behavior": "allow"}}
	case event == "PermissionRequest" && r.Status == approvals.Denied:
		specific = map[string]any{"hookEventName": event, "decision": map[string]any{"behavior": "deny", "message": reason}}
	case event == "PermissionRequest":
		return nil
	default:
		decision := "ask"
		switch r.Status {
		case approvals.Approved:
			decision = "allow"
		case approvals.Denied:
			decision = "deny"
		}
		specific = map[string]any{"hookEventName": event, "permissionDecision": decision, "permissionDecisionReason": reason}
	}
	return json.NewEncoder(w).Encode(map[string]any{"hookSpecificOutput": specific})
}

// claudeEvents are the Claude Code events teamlead listens to.
var claudeEvents = []string{"PreToolUse", "Notification", "Stop", "UserPromptSubmit"}

// InstallClaude writes teamlead's hooks into dir/.claude/settings.local.json,
// keeping every other setting and hook, and replacing teamlead's own from
// an earlier start.
func InstallClaude(dir, self string) error {
	// Never through a link out of the folder: an agent can make .claude a
	// link to any folder, and the console would write there.
	path, err := fsutil.Within(dir, filepath.Join(dir, ".claude", "settings.local.json"))
	if err != nil {
		return fmt.Errorf("Claude Code's hooks not installed: %w", err)
	}
	settings := map[string]any{}
	if data, err := fsutil.ReadRegular(path); err == nil {
		if err := json.Unmarshal(data, &settings); err != nil {
			return fmt.Errorf("%s is not JSON (%v): fix or remove it, and teamlead adds its hooks", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	hooks, _ := settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
	}
	command := command(self)
	for _, ev := range claudeEvents {
		var kept []any
		list, _ := hooks[ev].([]any)
		for _, m := range list {
			if !isTeamleadHook(m) {
				kept = append(kept, m)
			}
		}
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": command, "timeout": 60}}}
		if ev == "PreToolUse" {
			entry["matcher"] = "*"
		}
		hooks[ev] = append(kept, entry)
	}
	settings["hooks"] = hooks
	data, err := json.MarshalIndent(settings, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(data, '\n'), fsutil.Perm(path, 0o644))
}

// isTeamleadHook reports whether a hook matcher entry runs `teamlead hook`.
func isTeamleadHook(m any) bool {
	entry, _ := m.(map[string]any)
	list, _ := entry["hooks"].([]any)
	for _, h := range list {
		if hm, _ := h.(map[string]any); hm != nil {
			if cmd, _ := hm["command"].(string); strings.HasSuffix(cmd, " hook") && strings.Contains(cmd, "teamlead") {
				return true
			}
		}
	}
	return false
}
