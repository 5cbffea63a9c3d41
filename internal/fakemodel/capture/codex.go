package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// codex runs OpenAI's Codex CLI (REAL_CLIS.md): a private HOME whose
// config.toml points a model provider at the fake model's Responses API and
// trusts the project. Codex leaves a background app-server daemon in its
// process group; stop kills the whole group.
type codex struct{}

func (codex) name() string { return "codex" }

func (codex) setup(home, project, baseURL string) (env, args []string, err error) {
	cfg := fmt.Sprintf(`model = "gpt-fake"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "read-only"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "FAKE_MODEL_API_KEY"

[projects.%q]
trust_level = "trusted"
`, baseURL, project)
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		return nil, nil, err
	}
	return []string{"FAKE_MODEL_API_KEY=sk-fake-capture"}, nil, nil
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
