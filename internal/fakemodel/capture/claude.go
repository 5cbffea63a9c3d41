package main

import (
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

// claude runs Claude Code (REAL_CLIS.md) with a private HOME prepared by
// fakemodel.PrepareClaude: onboarding completed, the API key approved, the
// project trusted, the auto-mode nudge seen, permissions in the default
// mode.
type claude struct{}

func (claude) name() string { return "claude-code" }

func (claude) setup(home, project, baseURL string) (env, args []string, err error) {
	env, err = fakemodel.PrepareClaude(home, project, baseURL, "")
	return env, nil, err
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

func (claude) busy(s string) bool { return strings.Contains(s, "esc to interrupt") }

func (claude) dialog(s string) bool {
	return strings.Contains(s, "Do you want to") && strings.Contains(s, "1. Yes")
}

func (claude) preset() string { return "claude-code" }
