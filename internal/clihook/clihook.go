// Package clihook speaks the hook protocols of the agent CLIs that have
// hooks, so that they tell the console what they do (and, for Claude Code,
// ask it before each tool call) instead of the console reading it off
// their screens, which change between versions: Claude Code (claude.go)
// and Gemini CLI (gemini.go). Each runs `teamlead hook` with the event's
// JSON on stdin.
package clihook

import "strings"

// command is the hook's command line: `teamlead hook` by its path.
func command(self string) string { return shellQuote(self) + " hook" }

func shellQuote(s string) string {
	if !strings.ContainsAny(s, " '\"\\$`") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
