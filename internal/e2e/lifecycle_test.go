package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// An agent that crashes is restarted; a message sent to it meanwhile waits
// and is delivered to the new process. One that exits for good makes later
// messages to it come back to the sender as a blocker.
func TestCrashRestartAndExitedRecipient(t *testing.T) {
	defs := []agentDef{
		{name: "dev", script: `
expect ^flaky-is-back
route to=flaky type=status task=T-1 body="are you there?"
expect relayed m-\d+ to flaky
route to=quitter type=status task=T-1 body="too late"
idle
`},
		{name: "flaky"},
		{name: "quitter", script: "exit 0\n"},
	}
	tm := newTeam(t, defs...)
	// flaky crashes on its first run and works on its second.
	flaky := filepath.Join(tm.dir, "flaky.sh")
	if err := os.WriteFile(flaky, []byte(`#!/bin/sh
if [ -e "$1.ran" ]; then exec `+bin.mockagent+` --raw --record "$1" -e 'say flaky ready
idle'; fi
touch "$1.ran"; echo first run; exit 1
`), 0o755); err != nil {
		t.Fatal(err)
	}
	defs[1] = agentDef{name: "flaky", command: []string{flaky, tm.input("flaky")}, restart: "on-failure"}
	tm.write("team.yaml", defs)

	c := tm.start("--restart-backoff", "200ms")
	waitFor(t, 20*time.Second, "flaky to restart", func() bool {
		return strings.Contains(c.out.String(), "flaky running") && strings.Count(c.out.String(), "flaky running") >= 2
	}, func() string { return c.out.String() })
	tm.mustCLI("send", "dev", "flaky-is-back")

	got := tm.waitReceived("flaky", "[/ROUTE]\r")
	if !strings.Contains(got, "body: are you there?\r") {
		t.Errorf("flaky got %q", got)
	}
	dev := tm.waitReceived("dev", "quitter has exited")
	if !strings.Contains(dev, "type: blocker") {
		t.Errorf("dev got %q", dev)
	}
	life := tm.mustCLI("audit", "--agent", "flaky", "--kind", "agent")
	for _, want := range []string{"exited", "restarting", "running"} {
		if !strings.Contains(life, want) {
			t.Errorf("flaky's lifecycle lacks %q:\n%s", want, life)
		}
	}
	agents := tm.mustCLI("agents")
	if !strings.Contains(agents, "flaky") || !strings.Contains(agents, "exited") {
		t.Errorf("agents:\n%s", agents)
	}
	human := auditJSON(t, tm, "--kind", "human")
	if len(human) != 1 || human[0]["body"] != "flaky-is-back" || human[0]["agent"] != "dev" {
		t.Errorf("human records %v", human)
	}
	c.stop()
}

// Shutdown: an agent that ignores SIGTERM is killed after the grace period,
// and the console still exits cleanly and records it.
func TestShutdownKillsStubbornAgent(t *testing.T) {
	tm := newTeam(t,
		agentDef{name: "stubborn", script: "ignore-term\nidle\n"},
		agentDef{name: "polite", script: "idle\n"},
	)
	c := tm.start("--grace", "500ms")
	waitFor(t, 10*time.Second, "agents running", func() bool {
		return strings.Count(c.out.String(), " running pid ") == 2
	})
	began := time.Now()
	c.stop()
	if took := time.Since(began); took > 15*time.Second {
		t.Errorf("shutdown took %v", took)
	}
	out := tm.mustCLI("audit", "--kind", "agent")
	if strings.Count(out, "stopped") < 2 {
		t.Errorf("both agents should be recorded stopped:\n%s", out)
	}
}

func TestBadConfigAndSecondConsole(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(bad, []byte("agents:\n  - name: dev\n    command: [x]\n    preset: clod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := &team{t: t, dir: dir, config: bad, state: filepath.Join(dir, "state")}
	out, err := tm.cli("run", "--headless")
	if err == nil || !strings.Contains(out, `team.yaml:4: agents[0].preset: unknown preset "clod"`) {
		t.Errorf("bad config: %v\n%s", err, out)
	}

	good := newTeam(t, agentDef{name: "dev", script: "idle\n"})
	c := good.start()
	out, err = good.cli("run", "--headless")
	if err == nil || !strings.Contains(out, "a console is already running") && !strings.Contains(out, "another console uses") {
		t.Errorf("second console on the same state: %v\n%s", err, out)
	}
	if out, err := good.cli("send", "nobody", "hi"); err == nil || !strings.Contains(out, `unknown agent: "nobody"`) {
		t.Errorf("send to unknown agent: %v\n%s", err, out)
	}
	if out, err := good.cli("audit", "--format", "xml"); err == nil || !strings.Contains(out, `--format: "xml": use table, json or csv`) {
		t.Errorf("bad format: %v\n%s", err, out)
	}
	c.stop()
	if out, err := good.cli("send", "dev", "hi"); err == nil || !strings.Contains(out, "no console is running") {
		t.Errorf("send with no console: %v\n%s", err, out)
	}
}
