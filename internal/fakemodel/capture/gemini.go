package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// gemini runs Google's Gemini CLI: a private HOME whose settings select
// API-key auth and whose trustedFolders.json trusts the project, with
// GOOGLE_GEMINI_BASE_URL pointing its model calls at the fake model's
// Gemini API.
type gemini struct{}

func (gemini) name() string { return "gemini-cli" }

func (gemini) setup(home, project, baseURL string) (env, args []string, err error) {
	dir := filepath.Join(home, ".gemini")
	settings := map[string]any{
		"security":                   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":                    map[string]any{"usageStatisticsEnabled": false},
		"general":                    map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"telemetry":                  map[string]any{"enabled": false},
		"hasSeenIdeIntegrationNudge": true,
	}
	if err := writeJSON(filepath.Join(dir, "settings.json"), settings); err != nil {
		return nil, nil, err
	}
	if err := writeJSON(filepath.Join(dir, "trustedFolders.json"), map[string]string{project: "TRUST_FOLDER"}); err != nil {
		return nil, nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	return []string{"GEMINI_API_KEY=fake-gemini-key", "GOOGLE_GEMINI_BASE_URL=" + baseURL, "NO_BROWSER=1"}, nil, nil
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
