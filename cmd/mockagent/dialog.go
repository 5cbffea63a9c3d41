package main

import (
	"fmt"
	"strings"
)

// dialogs imitate each agent CLI's permission dialog for a shell command,
// row for row as the captures in internal/detect/testdata show them (the
// same words, rules, options and keys), so that the console's detectors
// and key handling are tested end to end without the real CLIs.
var dialogs = map[string]func(action string) string{
	// Claude Code 2.1.x (classic renderer): 1 approves, Esc refuses.
	"claude-code": func(action string) string {
		rule, dash := strings.Repeat("─", 80), strings.Repeat("╌", 80)
		return strings.Join([]string{rule, " Bash command", "", " Run what the model asked for", dash, " " + action, dash,
			" Do you want to proceed?", " ❯ 1. Yes", "   2. Yes, and always allow access to build/ from this project",
			"   3. Yes, and switch to auto mode · auto mode handles these prompts for you", "   4. No", " Esc to cancel · Tab to amend"}, "\n")
	},
	// Codex 0.169.0: y approves, Esc refuses.
	"codex": func(action string) string {
		return strings.Join([]string{"• Running " + action, "  Would you like to run the following command?", "  Environment: local",
			"  Reason: Run what the model asked for", "  $ " + action, "› 1. Yes, proceed (y)",
			"  2. Yes, and don't ask again for commands that start with `" + action + "` (p)",
			"  3. No, and tell Codex what to do differently (esc)", "  Press enter to confirm or esc to cancel"}, "\n")
	},
	// Gemini CLI 0.61.0: 1 allows once, Esc refuses.
	"gemini": func(action string) string {
		w := 78
		line := func(s string) string { return "│ " + s + strings.Repeat(" ", max(w-2-len([]rune(s)), 0)) + " │" }
		inner := func(s string) string {
			return "│ │ " + s + strings.Repeat(" ", max(w-6-len([]rune(s)), 0)) + " │ │"
		}
		return strings.Join([]string{"╭" + strings.Repeat("─", w) + "╮", line("? Shell  " + action),
			"│ ╭" + strings.Repeat("─", w-4) + "╮ │", inner(action), "│ ╰" + strings.Repeat("─", w-4) + "╯ │",
			line("Allow execution of [Shell]?"), line(""), line("● 1. Allow once"), line("  2. Allow for this session"),
			line("  3. No, suggest changes (esc)"), "╰" + strings.Repeat("─", w) + "╯"}, "\n")
	},
	// Aider: a one-line question; y and Enter approve, n and Enter refuse.
	"aider": func(action string) string {
		return action + "\nRun shell command? (Y)es/(N)o/(D)on't ask again [Yes]: "
	},
}

// dialogText renders cli's dialog asking to run action.
func dialogText(cli, action string) (string, error) {
	f, ok := dialogs[cli]
	if !ok {
		return "", fmt.Errorf("dialog: unknown CLI %q (known: claude-code, codex, gemini, aider)", cli)
	}
	return f(action), nil
}
