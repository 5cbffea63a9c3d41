package agents

import (
	"path/filepath"
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

// A sandboxed program gets Go caches of its own, per console and agent,
// whose proxy looks in the human's module cache first; its GOFLAGS are
// kept (red team 16a, finding 7).
func TestOwnGoCaches(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", "/c")
	env := ownGoCaches([]string{"HOME=/h", "GOENV=off", "GOMODCACHE=/human/mod", "GOCACHE=/human/build", "GOPROXY=off", "GOFLAGS=-mod=mod",
		"TEAMLEAD_AGENT=dev", "TEAMLEAD_SOCKET=/s/control.sock"})
	get := func(k string) string { return envValue(env, k) }
	if get("GOPROXY") != "file:///human/mod/cache/download,off" || get("GOFLAGS") != "-mod=mod -modcacherw" {
		t.Errorf("GOPROXY %q, GOFLAGS %q", get("GOPROXY"), get("GOFLAGS"))
	}
	mod, build := get("GOMODCACHE"), get("GOCACHE")
	if !strings.HasPrefix(mod, "/c/teamlead/go/") || !strings.HasSuffix(mod, "-dev/mod") || filepath.Dir(build) != filepath.Dir(mod) {
		t.Errorf("GOMODCACHE %q, GOCACHE %q", mod, build)
	}
	other := ownGoCaches([]string{"HOME=/h", "TEAMLEAD_AGENT=dev", "TEAMLEAD_SOCKET=/other/control.sock"})
	if envValue(other, "GOMODCACHE") == mod {
		t.Error("two consoles' agents of one name share a module cache")
	}
	if p := envValue(other, "GOPROXY"); !strings.HasPrefix(p, "file:///h/go/pkg/mod/cache/download,") {
		t.Errorf("GOPROXY without the human's setting: %q", p)
	}
}
