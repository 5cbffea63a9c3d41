package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/teamlead/teamlead/internal/clihook"
	"github.com/teamlead/teamlead/internal/control"
)

func newHookCmd(g *globals) *cobra.Command {
	var install string
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Answer a Claude Code or Gemini CLI hook through the running console",
		Long: "Claude Code runs `teamlead hook` with the hook's JSON on stdin. For PreToolUse and PermissionRequest\n" +
			"the console's permission policy decides (the human, if it asks; up to permissions.hook_wait);\n" +
			"the answer is the hook's JSON on stdout. Notification, Stop and UserPromptSubmit tell the console\n" +
			"whether the agent waits, is idle or busy. With no console reachable it prints nothing, and\n" +
			"Claude Code asks as it would without the hook.\n\n" +
			"Gemini CLI runs it on BeforeAgent (busy) and AfterAgent (idle), and gets {} back; the\n" +
			"console hands gemini agents these hooks as their system defaults (GEMINI_CLI_SYSTEM_DEFAULTS_PATH).\n\n" +
			"teamlead hook --install DIR writes the hooks into DIR/.claude/settings.local.json, keeping\n" +
			"what else is there; the console does this for claude-code agents when it starts them.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if install != "" {
				self, err := os.Executable()
				if err != nil {
					return err
				}
				return clihook.InstallClaude(install, self)
			}
			return runHook(g, cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().StringVar(&install, "install", "", "write the hooks into this project folder's .claude/settings.local.json")
	return cmd
}

func runHook(g *globals, in io.Reader, out io.Writer) error {
	var h clihook.Input
	if err := json.NewDecoder(io.LimitReader(in, 4<<20)).Decode(&h); err != nil {
		return fmt.Errorf("hook: the input is not Claude Code's hook JSON: %w", err)
	}
	if clihook.IsGeminiEvent(h.Event) {
		// Gemini CLI reads stdout as JSON: {} whatever happens below.
		defer func() { _ = clihook.WriteGeminiAnswer(out) }()
	}
	c, err := g.client()
	if err != nil {
		return nil // no console: stay out of the way, Claude Code asks as usual
	}
	info := control.HookInfo{Session: h.SessionID, Transcript: h.TranscriptPath, Cwd: h.Cwd}
	switch h.Event {
	case "PreToolUse", "PermissionRequest":
		r, err := c.Permission(clihook.ClaudeAction(h.ToolName, h.ToolInput), info)
		if err != nil {
			fmt.Fprintln(os.Stderr, "teamlead hook:", err)
			return nil
		}
		return clihook.WriteClaudeDecision(out, h.Event, r)
	case "Notification":
		_ = c.HookState("waiting", info)
	case "Stop", "SubagentStop":
		_ = c.HookState("idle", info)
	case "UserPromptSubmit", "PostToolUse":
		_ = c.HookState("busy", info)
	default:
		if state := clihook.GeminiStates[h.Event]; state != "" {
			_ = c.HookState(state, info)
		}
	}
	return nil
}
