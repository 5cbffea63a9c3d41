package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// claude runs Claude Code (REAL_CLIS.md): a private HOME that has completed
// onboarding, approves the API key, trusts the project and has seen the
// auto-mode nudge, and permissions in the default mode.
type claude struct{}

func (claude) name() string { return "claude-code" }

// apiKey is a made-up key; only its form matters.
const apiKey = "sk-ant-api03-teamlead-fixture-capture-0123456789abcdefghij"

func (claude) setup(home, project, baseURL string) (env, args []string, err error) {
	cfg := map[string]any{
		"hasCompletedOnboarding":  true,
		"hasSeenAutoDefaultNudge": true,
		"theme":                   "dark",
		"customApiKeyResponses":   map[string]any{"approved": []string{apiKey[len(apiKey)-20:]}, "rejected": []string{}},
		"projects":                map[string]any{project: map[string]any{"hasTrustDialogAccepted": true, "allowedTools": []string{}}},
	}
	settings := map[string]any{"permissions": map[string]any{"defaultMode": "default"}}
	if err := writeJSON(filepath.Join(home, ".claude.json"), cfg); err != nil {
		return nil, nil, err
	}
	if err := writeJSON(filepath.Join(home, ".claude", "settings.json"), settings); err != nil {
		return nil, nil, err
	}
	env = []string{
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=" + apiKey,
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}
	return env, nil, nil
}

// dialogs are start-up questions the home should have suppressed.
var claudeDialogs = []string{
	"Do you trust the files", "Make auto mode your default", "Detected a custom API key",
	"Select login method", "Choose the text style", "Unable to connect",
}

func (claude) ready(s string) (bool, error) {
	for _, d := range claudeDialogs {
		if strings.Contains(s, d) {
			return false, fmt.Errorf("start-up dialog %q on screen", d)
		}
	}
	if strings.Contains(s, "esc to interrupt") {
		return false, nil
	}
	lines := strings.Split(s, "\n")
	for i := 1; i < len(lines); i++ {
		if strings.HasPrefix(lines[i], "❯") && strings.HasPrefix(strings.TrimSpace(lines[i-1]), "──") {
			return true, nil
		}
	}
	return false, nil
}

func (claude) submit() string { return "\r" }

func writeJSON(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

func (claude) busy(s string) bool { return strings.Contains(s, "esc to interrupt") }

func (claude) dialog(s string) bool {
	return strings.Contains(s, "Do you want to") && strings.Contains(s, "1. Yes")
}

func (claude) preset() string { return "claude-code" }
