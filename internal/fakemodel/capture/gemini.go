package main

import (
	"fmt"
	"strings"

	"github.com/teamlead/teamlead/internal/fakemodel"
)

// gemini runs Google's Gemini CLI with a private HOME prepared by
// fakemodel.PrepareGemini: its settings select API-key auth, its
// trustedFolders.json trusts the project, and GOOGLE_GEMINI_BASE_URL points
// its model calls at the fake model's Gemini API.
type gemini struct{}

func (gemini) name() string { return "gemini-cli" }

func (gemini) setup(home, project, baseURL string) (env, args []string, err error) {
	env, err = fakemodel.PrepareGemini(home, project, baseURL, "")
	return env, nil, err
}

var geminiDialogs = []string{"Do you trust", "How would you like to authenticate", "Get started"}

func (gemini) ready(s string) (bool, error) {
	for _, d := range geminiDialogs {
		if strings.Contains(s, d) {
			return false, fmt.Errorf("start-up dialog %q on screen", d)
		}
	}
	if strings.Contains(s, "esc to cancel") {
		return false, nil
	}
	return strings.Contains(s, "Type your message"), nil
}

func (gemini) submit() string { return "\r" }

func (gemini) busy(s string) bool { return strings.Contains(s, "esc to cancel") }

func (gemini) dialog(s string) bool { return looksLikeDialog(s) }

func (gemini) preset() string { return "gemini" }
