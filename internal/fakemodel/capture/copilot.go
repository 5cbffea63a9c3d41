package main

import (
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

// copilot runs GitHub Copilot CLI with a private HOME prepared by
// fakemodel.PrepareCopilot: offline mode, a custom provider of type
// anthropic at the fake model, the project trusted.
type copilot struct{}

func (copilot) name() string { return "copilot" }

func (copilot) setup(home, project, baseURL string) (env, args []string, err error) {
	env, err = fakemodel.PrepareCopilot(home, project, baseURL, "")
	return env, nil, err
}

var copilotDialogs = []string{"Confirm folder trust", "Do you trust the files"}

func (c copilot) ready(s string) (bool, error) {
	for _, d := range copilotDialogs {
		if strings.Contains(s, d) {
			return false, fmt.Errorf("start-up dialog %q on screen", d)
		}
	}
	if c.busy(s) {
		return false, nil
	}
	return strings.Contains(s, "Interactive · "), nil
}

func (copilot) submit() string { return "\r" }

func (copilot) busy(s string) bool { return strings.Contains(s, "esc interrupt") }

func (copilot) dialog(s string) bool { return looksLikeDialog(s) }

func (copilot) preset() string { return "copilot" }
