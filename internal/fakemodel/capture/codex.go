package main

import (
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

// codex runs OpenAI's Codex CLI (REAL_CLIS.md) with a private HOME
// prepared by fakemodel.PrepareCodex: its config.toml points a model
// provider at the fake model's Responses API and trusts the project. Codex leaves a background app-server daemon in its
// process group; stop kills the whole group.
type codex struct{}

func (codex) name() string { return "codex" }

func (codex) setup(home, project, baseURL string) (env, args []string, err error) {
	env, err = fakemodel.PrepareCodex(home, project, baseURL, "")
	return env, nil, err
}

var codexDialogs = []string{"Sign in with ChatGPT", "Do you trust", "allow Codex to work", "Update available"}

func (codex) ready(s string) (bool, error) {
	for _, d := range codexDialogs {
		if strings.Contains(s, d) {
			return false, fmt.Errorf("start-up dialog %q on screen", d)
		}
	}
	if strings.Contains(s, "esc to interrupt") || strings.Contains(s, "Working") {
		return false, nil
	}
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "›") {
			return true, nil
		}
	}
	return false, nil
}

func (codex) submit() string { return "\r" }

func (codex) busy(s string) bool {
	return strings.Contains(s, "esc to interrupt") || strings.Contains(s, "Working")
}

func (codex) dialog(s string) bool { return looksLikeDialog(s) }

func (codex) preset() string { return "codex" }
