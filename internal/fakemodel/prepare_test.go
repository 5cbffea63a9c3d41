package fakemodel

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return m
}

// get follows keys through nested objects.
func get(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		o, _ := v.(map[string]any)
		v = o[k]
	}
	return v
}

func TestPrepareClaude(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "a project")
	env, err := PrepareClaude(home, project, "http://127.0.0.1:9", "")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HOME=" + home, "ANTHROPIC_BASE_URL=http://127.0.0.1:9", "ANTHROPIC_API_KEY=" + ClaudeKey,
		"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %q lacks %q", env, want)
		}
	}
	if fi, err := os.Stat(project); err != nil || !fi.IsDir() {
		t.Errorf("project not created: %v", err)
	}
	cfg := readJSON(t, filepath.Join(home, ".claude.json"))
	if cfg["hasCompletedOnboarding"] != true || cfg["hasSeenAutoDefaultNudge"] != true {
		t.Errorf(".claude.json: %v", cfg)
	}
	approved, _ := get(cfg, "customApiKeyResponses", "approved").([]any)
	if len(approved) != 1 || approved[0] != ClaudeKey[len(ClaudeKey)-20:] {
		t.Errorf("approved keys %v", approved)
	}
	if get(cfg, "projects", project, "hasTrustDialogAccepted") != true {
		t.Errorf("project %s not trusted: %v", project, cfg["projects"])
	}
	settings := readJSON(t, filepath.Join(home, ".claude", "settings.json"))
	if get(settings, "permissions", "defaultMode") != "default" {
		t.Errorf("settings.json: %v", settings)
	}

	// A key of its own; one too short to approve is refused.
	key := "sk-ant-api03-another-key-of-the-tests-000111222333"
	env, err = PrepareClaude(home, project, "http://127.0.0.1:9", key)
	if err != nil || !slices.Contains(env, "ANTHROPIC_API_KEY="+key) {
		t.Fatalf("env %q, %v", env, err)
	}
	if got := get(readJSON(t, filepath.Join(home, ".claude.json")), "customApiKeyResponses", "approved").([]any)[0]; got != key[len(key)-20:] {
		t.Errorf("approved %v", got)
	}
	if _, err := PrepareClaude(home, project, "http://x", "sk-short"); !errors.Is(err, ErrPrepare) {
		t.Errorf("short key: %v", err)
	}
	if _, err := PrepareClaude("", project, "http://x", ""); !errors.Is(err, ErrPrepare) {
		t.Errorf("no home: %v", err)
	}
}

func TestPrepareCodex(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, `pro"ject`)
	env, err := PrepareCodex(home, project, "http://127.0.0.1:9", "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(env, []string{"HOME=" + home, CodexKeyVar + "=" + CodexKey}) {
		t.Errorf("env %q", env)
	}
	b, err := os.ReadFile(filepath.Join(home, ".codex", "config.toml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b)
	for _, want := range []string{
		`model_provider = "fake"`, `approval_policy = "on-request"`, `sandbox_mode = "read-only"`,
		`base_url = "http://127.0.0.1:9/v1"`, `wire_api = "responses"`, `env_key = "` + CodexKeyVar + `"`,
		`[projects."` + strings.ReplaceAll(project, `"`, `\"`) + `"]`, `trust_level = "trusted"`,
	} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config.toml lacks %s:\n%s", want, cfg)
		}
	}
}

func TestPrepareGemini(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	env, err := PrepareGemini(home, project, "http://127.0.0.1:9", "k")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"HOME=" + home, "GEMINI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL=http://127.0.0.1:9"} {
		if !slices.Contains(env, want) {
			t.Errorf("env %q lacks %q", env, want)
		}
	}
	settings := readJSON(t, filepath.Join(home, ".gemini", "settings.json"))
	if get(settings, "security", "auth", "selectedType") != "gemini-api-key" || get(settings, "general", "disableAutoUpdate") != true {
		t.Errorf("settings.json: %v", settings)
	}
	if trusted := readJSON(t, filepath.Join(home, ".gemini", "trustedFolders.json")); trusted[project] != "TRUST_FOLDER" {
		t.Errorf("trustedFolders.json: %v", trusted)
	}
}

func TestTOMLString(t *testing.T) {
	for in, want := range map[string]string{
		"/tmp/x":     `"/tmp/x"`,
		`a"b\c`:      `"a\"b\\c"`,
		"tab\there":  `"tab\u0009here"`,
		"/tmp/héllo": `"/tmp/héllo"`,
	} {
		if got := tomlString(in); got != want {
			t.Errorf("tomlString(%q) = %s, want %s", in, got, want)
		}
	}
}

// A process left with a private home is found and killed; others are not.
func TestKillHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "home")
	start := func(h string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	mine, other := start(home), start(home+"-other")
	if ps := WithHome(home); !slices.Equal(ps, []int{mine.Process.Pid}) {
		t.Fatalf("WithHome = %v, want [%d]", ps, mine.Process.Pid)
	}
	done := make(chan error, 1)
	go func() { done <- mine.Wait() }()
	if killed := KillHome(home); !slices.Equal(killed, []int{mine.Process.Pid}) {
		t.Errorf("KillHome = %v", killed)
	}
	if err := <-done; err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("sleep ended with %v", err)
	}
	if ps := WithHome(home + "-other"); !slices.Equal(ps, []int{other.Process.Pid}) {
		t.Errorf("the other home's process: %v", ps)
	}
}
