package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/teamlead/teamlead/bus/natsbus"
	"github.com/teamlead/teamlead/internal/config"
)

const nodesTeam = "bus:\n  name: myteam\nagents:\n  - name: dev\n    command: [sh]\n" +
	"  - name: trainer\n    command: [sh]\n    host: gpu1\n  - name: eval\n    command: [sh]\n    host: gpu1\n" +
	"  - name: docs\n    command: [sh]\n    host: laptop\n"

// teamlead nats-permissions prints, from the team file, a block the NATS
// server's own loader takes, with the console and one user per node
// holding what natsbus computes for them; --node prints one node's; json
// one user a line.
func TestNATSPermissionsCommand(t *testing.T) {
	dir := t.TempDir()
	team := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(team, []byte(nodesTeam), 0o600); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, "state")
	out, err := runCLI(t, "nats-permissions", "--config", team, "--state", state)
	if err != nil {
		t.Fatal(err)
	}
	conf := filepath.Join(dir, "nats-server.conf")
	// One password above the block, in the same file; the others in the
	// server's environment.
	if err := os.WriteFile(conf, []byte("NODE_GPU1_PASSWORD: \"node_gpu1_password\"\n"+out), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"CONSOLE_PASSWORD", "NODE_LAPTOP_PASSWORD"} {
		t.Setenv(v, strings.ToLower(v))
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatalf("the server refuses the block: %v\n%s", err, out)
	}
	users := map[string]*server.User{}
	for _, u := range opts.Users {
		users[u.Username] = u
	}
	if len(users) != 3 || users["console"] == nil || users["node-gpu1"] == nil || users["node-laptop"] == nil {
		t.Fatalf("users %v\n%s", users, out)
	}
	gpu1 := users["node-gpu1"]
	want := natsbus.NodePermissions("myteam", "gpu1", []string{"eval", "trainer"})
	if gpu1.Password != "node_gpu1_password" || strings.Join(gpu1.Permissions.Publish.Allow, " ") != strings.Join(want.Publish, " ") ||
		strings.Join(gpu1.Permissions.Subscribe.Allow, " ") != strings.Join(want.Subscribe, " ") || gpu1.Permissions.Response.MaxMsgs != 1 {
		t.Fatalf("node-gpu1: %+v %+v %+v", gpu1.Permissions.Publish, gpu1.Permissions.Subscribe, gpu1.Permissions.Response)
	}
	if con := users["console"]; strings.Join(con.Permissions.Publish.Allow, " ") != strings.Join(natsbus.ConsolePermissions("myteam").Publish, " ") {
		t.Fatalf("console: %+v", con.Permissions.Publish)
	}

	out, err = runCLI(t, "nats-permissions", "--config", team, "--state", state, "--node", "laptop", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var u struct {
		User   string   `json:"user"`
		Agents []string `json:"agents"`
	}
	if err := json.Unmarshal([]byte(out), &u); err != nil || u.User != "node-laptop" || strings.Join(u.Agents, ",") != "docs" || strings.Count(out, "\n") != 1 {
		t.Fatalf("--node laptop --format json: %v\n%s", err, out)
	}
	if _, err := runCLI(t, "nats-permissions", "--config", team, "--state", state, "--node", "box9"); err == nil ||
		!strings.Contains(err.Error(), "its nodes are gpu1, laptop") {
		t.Fatalf("an unknown node: %v", err)
	}
	if _, err := runCLI(t, "nats-permissions", "--config", team, "--state", state, "--format", "yaml"); err == nil ||
		!strings.Contains(err.Error(), "use conf, json or nsc") {
		t.Fatalf("an unknown format: %v", err)
	}
}

// A node connects with its own credentials file (--creds), else with the
// user its URL names (--nats-file), and only else with the team file's
// bus.creds, which are the console's.
func TestNodeCreds(t *testing.T) {
	dir := t.TempDir()
	own := filepath.Join(dir, "nats", "box1.creds")
	if err := os.MkdirAll(filepath.Dir(own), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(own, []byte("creds"), 0o600); err != nil {
		t.Fatal(err)
	}
	team := &config.Team{File: filepath.Join(dir, "team.yaml")}
	team.Bus.Creds = filepath.Join(dir, "console", "console.creds")
	for _, tc := range []struct{ url, own, want string }{
		{"nats://h:4222", own, own},
		{"nats://node-box1:pw@h:4222", own, own},
		{"nats://node-box1:pw@h:4222", "", ""},
		{"nats://h1:4222,nats://node-box1:pw@h2:4222", "", ""},
		{"nats://h:4222", "", team.Bus.Creds},
	} {
		if got, err := nodeCreds(team, tc.url, tc.own); err != nil || got != tc.want {
			t.Errorf("nodeCreds(%s, %q) = %q, %v; want %q", tc.url, tc.own, got, err, tc.want)
		}
	}
	if _, err := nodeCreds(team, "nats://h:4222", filepath.Join(dir, "none.creds")); err == nil || !strings.Contains(err.Error(), "--creds") {
		t.Errorf("a missing --creds file: %v", err)
	}
}
