package fakemodel

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Made-up API keys, used when a Prepare function is given none; only
// their form matters.
const (
	// ClaudeKey has the form of an Anthropic key (sk-ant-…).
	ClaudeKey = "sk-ant-api03-teamlead-fixture-capture-0123456789abcdefghij"
	// CodexKey is the key Codex sends to the fake provider.
	CodexKey = "sk-fake-capture"
	// GeminiKey is the key Gemini CLI sends.
	GeminiKey = "fake-gemini-key"
	// CopilotKey is the key GitHub Copilot CLI sends to its custom
	// provider.
	CopilotKey = "sk-ant-fake-copilot"
	// OpenCodeKey is the key OpenCode sends to its custom provider.
	OpenCodeKey = "sk-ant-fake-opencode"
)

// FakeModelName is the model the Copilot and OpenCode homes name; the
// fake model answers whatever model a request names.
const FakeModelName = "claude-sonnet-4.5"

// CodexKeyVar is the environment variable the fake Codex provider reads
// its key from (env_key in config.toml).
const CodexKeyVar = "FAKE_MODEL_API_KEY"

// ErrPrepare is a home or project that could not be prepared.
var ErrPrepare = errors.New("fakemodel: preparing the CLI's home")

// PrepareClaude prepares home (a private HOME) for Claude Code 2.1.x to run
// in project against the fake model at baseURL (Server.URL) without a
// start-up question: onboarding done, key approved (its last 20
// characters), project trusted, the auto-mode nudge seen, and permissions
// in the default mode, so that the CLI asks before its tools run (without
// it, 2.1.328 starts in auto mode and decides itself). key is the API key,
// ClaudeKey when empty. It returns the environment the CLI needs, HOME
// included; add PATH and TERM.
func PrepareClaude(home, project, baseURL, key string) ([]string, error) {
	if key == "" {
		key = ClaudeKey
	}
	if len(key) < 20 {
		return nil, fmt.Errorf("%w: the key %q is shorter than 20 characters", ErrPrepare, key)
	}
	home, project, err := absDirs(home, project)
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{
		"hasCompletedOnboarding":  true,
		"hasSeenAutoDefaultNudge": true,
		"theme":                   "dark",
		"customApiKeyResponses":   map[string]any{"approved": []string{key[len(key)-20:]}, "rejected": []string{}},
		"projects":                map[string]any{project: map[string]any{"hasTrustDialogAccepted": true, "allowedTools": []string{}}},
	}
	settings := map[string]any{"permissions": map[string]any{"defaultMode": "default"}}
	if err := writeJSONFile(filepath.Join(home, ".claude.json"), cfg); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(home, ".claude", "settings.json"), settings); err != nil {
		return nil, err
	}
	return []string{
		"HOME=" + home,
		"ANTHROPIC_BASE_URL=" + baseURL,
		"ANTHROPIC_API_KEY=" + key,
		"DISABLE_TELEMETRY=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	}, nil
}

// PrepareCodex prepares home for Codex 0.169.0 to run in project against
// the fake model's Responses API at baseURL: a config.toml whose model
// provider "fake" points at baseURL+"/v1" and reads its key from
// CodexKeyVar, approval_policy "on-request" in a read-only sandbox (a
// command the model escalates out of the sandbox shows the approval
// dialog), and the project trusted. key is the API key, CodexKey when
// empty. It returns the environment the CLI needs, HOME included.
func PrepareCodex(home, project, baseURL, key string) ([]string, error) {
	if key == "" {
		key = CodexKey
	}
	home, project, err := absDirs(home, project)
	if err != nil {
		return nil, err
	}
	cfg := fmt.Sprintf(`model = "gpt-fake"
model_provider = "fake"
approval_policy = "on-request"
sandbox_mode = "read-only"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
wire_api = "responses"
env_key = "%s"

[projects.%s]
trust_level = "trusted"
`, baseURL, CodexKeyVar, tomlString(project))
	dir := filepath.Join(home, ".codex")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPrepare, err)
	}
	if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPrepare, err)
	}
	return []string{"HOME=" + home, CodexKeyVar + "=" + key}, nil
}

// PrepareGemini prepares home for Gemini CLI 0.61.0 to run in project
// against the fake model's Gemini API at baseURL: API-key auth selected,
// usage statistics, telemetry and update checks off, the IDE nudge seen,
// and the project trusted (trustedFolders.json), with
// GOOGLE_GEMINI_BASE_URL pointing its model calls at baseURL. key is the
// API key, GeminiKey when empty. It returns the environment the CLI needs,
// HOME included.
func PrepareGemini(home, project, baseURL, key string) ([]string, error) {
	if key == "" {
		key = GeminiKey
	}
	home, project, err := absDirs(home, project)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(home, ".gemini")
	settings := map[string]any{
		"security":                   map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
		"privacy":                    map[string]any{"usageStatisticsEnabled": false},
		"general":                    map[string]any{"disableAutoUpdate": true, "disableUpdateNag": true},
		"telemetry":                  map[string]any{"enabled": false},
		"hasSeenIdeIntegrationNudge": true,
	}
	if err := writeJSONFile(filepath.Join(dir, "settings.json"), settings); err != nil {
		return nil, err
	}
	if err := writeJSONFile(filepath.Join(dir, "trustedFolders.json"), map[string]string{project: "TRUST_FOLDER"}); err != nil {
		return nil, err
	}
	return []string{"HOME=" + home, "GEMINI_API_KEY=" + key, "GOOGLE_GEMINI_BASE_URL=" + baseURL, "NO_BROWSER=1"}, nil
}

// PrepareCopilot prepares home for GitHub Copilot CLI 1.0.102 to run in
// project against the fake model's Messages API at baseURL, offline: its
// config.json (under home/.copilot, its COPILOT_HOME) trusts the project,
// and the environment selects offline mode (no GitHub sign-in, telemetry,
// web tools, GitHub MCP server or update) with a custom provider of type
// anthropic at baseURL. key is the API key, CopilotKey when empty. It
// returns the environment the CLI needs, HOME included.
func PrepareCopilot(home, project, baseURL, key string) ([]string, error) {
	if key == "" {
		key = CopilotKey
	}
	home, project, err := absDirs(home, project)
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{"trustedFolders": []string{project}, "appTipShown": true}
	if err := writeJSONFile(filepath.Join(home, ".copilot", "config.json"), cfg); err != nil {
		return nil, err
	}
	return []string{
		"HOME=" + home,
		"COPILOT_OFFLINE=true",
		"COPILOT_AUTO_UPDATE=false",
		"COPILOT_PROVIDER_BASE_URL=" + baseURL,
		"COPILOT_PROVIDER_TYPE=anthropic",
		"COPILOT_PROVIDER_API_KEY=" + key,
		"COPILOT_MODEL=" + FakeModelName,
	}, nil
}

// PrepareOpenCode prepares home for OpenCode 1.18.33 to run in project
// against the fake model's Messages API at baseURL, offline: its global
// config (home/.config/opencode/opencode.json) declares a provider "fake"
// (the bundled @ai-sdk/anthropic at baseURL+"/v1") with one model and
// makes it the default, turns sharing and auto-update off, and asks before
// bash and edits (OpenCode's default runs them unasked) but not before
// touching a folder outside the project (the command or file it then asks
// about names it, and the console judges that). The environment turns off
// the models.dev catalogue, LSP downloads and auto-update, and points npm
// at an address nothing listens on: OpenCode installs its plugin package
// from the registry at start when it can, and runs without it. key is the
// API key, OpenCodeKey when empty. It returns the environment the CLI
// needs, HOME included.
func PrepareOpenCode(home, project, baseURL, key string) ([]string, error) {
	if key == "" {
		key = OpenCodeKey
	}
	home, project, err := absDirs(home, project)
	if err != nil {
		return nil, err
	}
	cfg := map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"model":      "fake/" + FakeModelName,
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"fake": map[string]any{
			"npm":     "@ai-sdk/anthropic",
			"name":    "Fake",
			"options": map[string]any{"baseURL": baseURL + "/v1", "apiKey": key},
			"models":  map[string]any{FakeModelName: map[string]any{"name": "Fake model", "tool_call": true}},
		}},
		"permission": map[string]any{"bash": "ask", "edit": "ask", "external_directory": "allow"},
	}
	if err := writeJSONFile(filepath.Join(home, ".config", "opencode", "opencode.json"), cfg); err != nil {
		return nil, err
	}
	return []string{
		"HOME=" + home,
		"OPENCODE_DISABLE_MODELS_FETCH=1",
		"OPENCODE_DISABLE_AUTOUPDATE=1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD=1",
		"OPENCODE_DISABLE_SHARE=1",
		"npm_config_registry=http://127.0.0.1:9/",
	}, nil
}

// absDirs makes home and project absolute (the CLIs key their trust by
// the absolute path) and creates both.
func absDirs(home, project string) (string, string, error) {
	var out [2]string
	for i, d := range []string{home, project} {
		if d == "" {
			return "", "", fmt.Errorf("%w: an empty directory name", ErrPrepare)
		}
		abs, err := filepath.Abs(d)
		if err == nil {
			err = os.MkdirAll(abs, 0o755)
		}
		if err != nil {
			return "", "", fmt.Errorf("%w: %v", ErrPrepare, err)
		}
		out[i] = abs
	}
	return out[0], out[1], nil
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// writeJSONFile writes v as indented JSON to path, creating its folder.
func writeJSONFile(path string, v any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%w: %v", ErrPrepare, err)
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPrepare, err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("%w: %v", ErrPrepare, err)
	}
	return nil
}

// WithHome lists the processes (other than this one) whose environment
// holds HOME=home: what a CLI run with that private home left behind,
// such as Codex's app-server daemon, which leaves the CLI's session.
func WithHome(home string) []int {
	ents, _ := os.ReadDir("/proc")
	want := []byte("HOME=" + home + "\x00")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err == nil && (bytes.HasPrefix(env, want) || bytes.Contains(env, append([]byte{0}, want...))) {
			out = append(out, pid)
		}
	}
	return out
}

// KillHome sends SIGKILL to every process WithHome(home) finds, and again
// to any it finds after (a daemon may be starting a helper), until a scan
// finds none or five seconds have passed; it returns the processes it
// killed. home must be a private home made for a CLI, never a person's
// own.
func KillHome(home string) []int {
	var killed []int
	seen := map[int]bool{}
	deadline := time.Now().Add(5 * time.Second)
	for {
		ps := WithHome(home)
		if len(ps) == 0 || time.Now().After(deadline) {
			return killed
		}
		for _, p := range ps {
			if syscall.Kill(p, syscall.SIGKILL) == nil && !seen[p] {
				seen[p] = true
				killed = append(killed, p)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}
