package agents

import (
	"strings"
	"testing"
)

// An agent's variable replaces the console's of the same name: the sandbox
// starts programs with execve, and a program that reads the first of two
// (Claude Code reads HOME so) would see the console's value.
func TestBuildEnvNamesEachVariableOnce(t *testing.T) {
	t.Setenv("HOME", "/console/home")
	t.Setenv("TL_ONLY_CONSOLE", "kept")
	env := buildEnv(map[string]string{"HOME": "/agent/home", "TL_ONLY_AGENT": "added"})
	count := map[string]int{}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		count[k]++
		if count[k] > 1 {
			t.Errorf("%s appears %d times in the agent's environment", k, count[k])
		}
	}
	for k, want := range map[string]string{"HOME": "/agent/home", "TL_ONLY_CONSOLE": "kept", "TL_ONLY_AGENT": "added"} {
		if got := envValue(env, k); got != want {
			t.Errorf("%s = %q, want %q", k, got, want)
		}
	}
}

// The token of the team's NATS server, in the console's environment, does
// not reach an agent.
func TestBuildEnvKeepsTheNATSURLFromAgents(t *testing.T) {
	t.Setenv("TEAMLEAD_NATS", "nats://secret@host:4222")
	if v := envValue(buildEnv(map[string]string{"TEAMLEAD_AGENT": "dev"}), "TEAMLEAD_NATS"); v != "" {
		t.Errorf("the agent got TEAMLEAD_NATS=%s", v)
	}
}
