package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// spyScript is an agent that waits for the file go in its folder, then
// reads each of paths (cat, and what its folder lists) into seen.txt and
// says so in done.txt.
func spyScript(paths ...string) []string {
	script := "echo ready; until [ -e go ]; do sleep 0.05; done; : > seen.txt; "
	for _, p := range paths {
		script += "cat '" + p + "' >> seen.txt 2>&1; ls -A '" + filepath.Dir(p) + "' >> seen.txt 2>&1; "
	}
	return []string{"/bin/sh", "-c", script + "echo done > done.txt; exec sleep 600"}
}

// seen lets the spy of tm look, and returns what it read.
func seen(t *testing.T, tm *team, c *console) string {
	t.Helper()
	for _, f := range []string{"go", "seen.txt", "done.txt"} {
		_ = os.Remove(filepath.Join(tm.dir, f))
	}
	if err := os.WriteFile(filepath.Join(tm.dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the spy to look", func() bool {
		_, err := os.Stat(filepath.Join(tm.dir, "done.txt"))
		return err == nil
	}, c.out.String)
	b, _ := os.ReadFile(filepath.Join(tm.dir, "seen.txt"))
	return string(b)
}

// The console's NATS credentials are hidden by their folder: what a
// rotation writes beside them first (sed -i's temp file, cp and mv) is no
// agent's to read (red team 11a, finding 5: hidden by name, the temp file
// and the renamed file showed).
func TestRotatedCredsAreHiddenByTheirFolder(t *testing.T) {
	needSandbox(t)
	tm := newTeamWith(t, "bus:\n  name: e2e\n  nats: nats://127.0.0.1:1\n  creds: nats/console.creds\n",
		agentDef{name: "spy", command: spyScript("nats/console.creds", "nats/console.creds.new")})
	creds := filepath.Join(tm.dir, "nats", "console.creds")
	if err := os.MkdirAll(filepath.Dir(creds), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(creds, []byte("OLD-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := tm.start()
	defer c.stop()
	// The rotation's new file, under its temp name, before the rename.
	if err := os.WriteFile(creds+".new", []byte("NEW-SECRET\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := seen(t, tm, c); strings.Contains(got, "SECRET") || strings.Contains("\n"+got, "\nconsole.creds.new\n") {
		t.Fatalf("an agent read the credentials' folder:\n%s", got)
	}
}

// A node's --nats-file beside the team file is refused: its folder, which
// every sandbox hides, holds what agents need (red team 11a, finding 5).
func TestNodeFileBesideTheTeamFileIsRefused(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n", agentDef{name: "far", host: "box1", script: "idle\n"})
	file := filepath.Join(tm.dir, "box1.url")
	if err := os.WriteFile(file, []byte("nats://node-box1:pw@127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a node that took it would run on
	defer cancel()
	cmd := exec.CommandContext(ctx, bin.teamlead, "node", "--name", "box1", "--nats-file", file, "--config", tm.config, "--state", filepath.Join(tm.dir, "node-box1"))
	cmd.Env = tm.env()
	b, err := cmd.CombinedOutput()
	out := string(b)
	if err == nil || !strings.Contains(out, "--nats-file") || !strings.Contains(out, "a folder of its own") {
		t.Fatalf("the node took a --nats-file beside its team file: %v\n%s", err, out)
	}
}

// A node's --nats-file (its NATS password) is hidden from the agents of
// every console of the user on the node's machine, not only the node's
// own: one running before the node started (asked over its socket before
// the node connects) and one started after (from the registry). Red team
// 11a, finding 7: another console's agent read it and published as the
// node.
func TestNodeFileIsHiddenFromOtherConsoles(t *testing.T) {
	needSandbox(t)
	tmB := newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", script: "idle\n"},
		agentDef{name: "far", host: "box1", script: "idle\n"})
	tmA := newTeam(t, agentDef{name: "spy", command: spyScript(tmB.nodeFile("box1"))})
	tmA.stateHome = filepath.Join(tmB.dir, "xdg-state") // one user's consoles
	cA := tmA.start()
	cB := tmB.start("--nats-listen", "127.0.0.1:0")
	defer cB.stop()
	natsURLOf(t, tmB)
	node := tmB.startNodeFile("box1", nodeURL(t, tmB, "box1"))
	defer node.stop()
	if got := seen(t, tmA, cA); strings.Contains(got, "node-box1:") || strings.Contains("\n"+got, "\nbox1.url\n") {
		t.Fatalf("an agent of a console started before the node read its --nats-file:\n%s", got)
	}
	cA.stop()
	cA = tmA.start()
	defer cA.stop()
	if got := seen(t, tmA, cA); strings.Contains(got, "node-box1:") || strings.Contains("\n"+got, "\nbox1.url\n") {
		t.Fatalf("an agent of a console started after the node read its --nats-file:\n%s", got)
	}
}

// The file store of the console's own NATS server holds every record in
// clear, what the human types into each agent among them: it is hidden in
// every sandbox, as the console's store is (red team 13a, finding 5 read
// a text the human had sent to another agent from its stream's blocks).
func TestNATSFileStoreIsHidden(t *testing.T) {
	needSandbox(t)
	tm, _ := teamWithRepo(t)
	work := filepath.Join(tm.dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "qa.out")
	flag := filepath.Join(work, "go")
	script := `until [ -e "$FLAG" ]; do sleep 0.05; done
{ find "$NATS" -type f | wc -l; cat "$NATS"/jetstream/*/streams/*/msgs/*.blk 2>/dev/null | grep -c SECRET-HUMAN-TEXT; echo done; } > "$OUT" 2>&1
exec sleep 600`
	tm.extra = "    env: {OUT: " + out + ", FLAG: " + flag + ", NATS: " + filepath.Join(tm.state, "nats") + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", dir: work, command: []string{"/bin/sh", "-c", "exec sleep 600"}},
		{name: "qa", dir: work, command: []string{"/bin/sh", "-c", script}}}) // extra: qa's env
	c := tm.start("--nats-listen", "127.0.0.1:0")
	defer c.stop()
	tm.mustCLI("send", "dev", "SECRET-HUMAN-TEXT-4711")
	waitFor(t, 20*time.Second, "the text in the NATS file store", func() bool {
		blocks, _ := filepath.Glob(filepath.Join(tm.state, "nats", "jetstream", "*", "streams", "*", "msgs", "*.blk"))
		for _, b := range blocks {
			if data, _ := os.ReadFile(b); strings.Contains(string(data), "SECRET-HUMAN-TEXT") {
				return true
			}
		}
		return false
	}, func() string { return c.out.String() })
	if err := os.WriteFile(flag, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "qa's look", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "done")
	}, func() string { b, _ := os.ReadFile(out); return string(b) + c.out.String() })
	if b, _ := os.ReadFile(out); strings.Fields(string(b))[0] != "0" || strings.Fields(string(b))[1] != "0" {
		t.Errorf("qa sees the NATS file store (files, lines with the text):\n%s", b)
	}
}

// A console started after a node on the same machine asks the node too to
// keep its state and files read-only and its secrets hidden from the
// node's agents, as it asks the running consoles: the node serves protect
// on its socket to the human's processes.
func TestNodeProtectsAConsoleStartedLater(t *testing.T) {
	needSandbox(t)
	tmB := newTeamWith(t, "bus:\n  name: e2e\n", agentDef{name: "dev", script: "idle\n"})
	tmA := newTeam(t, agentDef{name: "solo", script: "idle\n"})
	tmA.stateHome = filepath.Join(tmB.dir, "xdg-state") // one user's consoles and nodes
	script := "echo ready; until [ -e go ]; do sleep 0.05; done; : > seen.txt; " +
		"if echo x > '" + filepath.Join(tmA.state, "planted") + "' 2>/dev/null; then echo WROTE-STATE >> seen.txt; fi; " +
		"if echo x >> '" + tmA.config + "' 2>/dev/null; then echo WROTE-TEAM >> seen.txt; fi; " +
		"ls -A '" + filepath.Join(tmA.state, "secrets") + "' >> seen.txt 2>&1; echo done > done.txt; exec sleep 600"
	tmB.write("team.yaml", []agentDef{{name: "dev", script: "idle\n"}, {name: "far", host: "box1", dir: tmB.dir, command: []string{"/bin/sh", "-c", script}}})
	cB := tmB.start("--nats-listen", "127.0.0.1:0")
	defer cB.stop()
	node := tmB.startNode("box1", nodeURL(t, tmB, "box1"))
	defer node.stop()
	cA := tmA.start()
	defer cA.stop()
	got := seen(t, tmB, node)
	if strings.Contains(got, "WROTE") || strings.Contains(got, "nats-token") {
		t.Fatalf("the node's agent reached a console started after the node:\n%s", got)
	}
}

// seenIn is seen for a spy whose folder is dir.
func seenIn(t *testing.T, dir string, explain func() string) string {
	t.Helper()
	for _, f := range []string{"go", "seen.txt", "done.txt"} {
		_ = os.Remove(filepath.Join(dir, f))
	}
	if err := os.WriteFile(filepath.Join(dir, "go"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the spy to look", func() bool {
		_, err := os.Stat(filepath.Join(dir, "done.txt"))
		return err == nil
	}, explain)
	b, _ := os.ReadFile(filepath.Join(dir, "seen.txt"))
	return string(b)
}

// nodeFileIn writes node name's URL into a folder of its own, dir, as the
// README says, and returns the file.
func nodeFileIn(t *testing.T, dir, name, url string) string {
	t.Helper()
	file := filepath.Join(dir, name+".url")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(url+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return file
}

// waitingNode starts node name with its --nats-file and waits until it
// waits for the team's console: it has read what to hide and recorded
// itself, and starts its agents once the console is there.
func (tm *team) waitingNode(name, file string) *console {
	tm.t.Helper()
	return tm.launch("the node", "waiting for the team's console",
		"node", "--name", name, "--nats-file", file, "--config", tm.config, "--state", filepath.Join(tm.dir, "node-"+name))
}

// Two nodes starting together each hide the other's --nats-file: the
// second starts while the first has recorded itself and not yet started
// its agents (it waits for the console), the order in which the first's
// agents read the second's password (red team 14c, finding 1: the first
// read the registry before the second was in it, and the second found
// the first's socket not serving yet).
func TestNodesStartedTogetherHideEachOthersFile(t *testing.T) {
	needSandbox(t)
	tm := newTeamWith(t, "bus:\n  name: e2e\n")
	d1, d2 := filepath.Join(tm.dir, "spy1"), filepath.Join(tm.dir, "spy2")
	f1, f2 := filepath.Join(tm.dir, "nats-box1", "box1.url"), filepath.Join(tm.dir, "nats-box2", "box2.url")
	for _, d := range []string{d1, d2} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	tm.write("team.yaml", []agentDef{{name: "dev", script: "idle\n"},
		{name: "spy1", host: "box1", dir: d1, command: spyScript(f2)},
		{name: "spy2", host: "box2", dir: d2, command: spyScript(f1)}})
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	c := tm.start("--nats-listen", listen) // writes the nodes' URLs
	u1, u2 := nodeURL(t, tm, "box1"), nodeURL(t, tm, "box2")
	c.stop()
	n1 := tm.waitingNode("box1", nodeFileIn(t, filepath.Dir(f1), "box1", u1))
	defer n1.stop()
	n2 := tm.waitingNode("box2", nodeFileIn(t, filepath.Dir(f2), "box2", u2))
	defer n2.stop()
	c = tm.start("--nats-listen", listen)
	defer c.stop()
	explain := func() string { return n1.out.String() + n2.out.String() + c.out.String() }
	if got := seenIn(t, d1, explain); strings.Contains(got, "node-box2:") || strings.Contains("\n"+got, "\nbox2.url\n") {
		t.Errorf("the first node's agent read the second node's --nats-file:\n%s", got)
	}
	if got := seenIn(t, d2, explain); strings.Contains(got, "node-box1:") || strings.Contains("\n"+got, "\nbox1.url\n") {
		t.Errorf("the second node's agent read the first node's --nats-file:\n%s", got)
	}
}

// A console started while a node is starting (recorded, its agents not
// yet started) has its state and secrets kept from the node's agents: it
// asks the node, whose socket serves protect before the node records
// itself (red team 14c, finding 1, a console and a node started
// together).
func TestConsoleStartedWhileANodeStartsIsProtected(t *testing.T) {
	needSandbox(t)
	tmB := newTeamWith(t, "bus:\n  name: e2e\n", agentDef{name: "dev", script: "idle\n"})
	tmA := newTeam(t, agentDef{name: "solo", script: "idle\n"})
	tmA.stateHome = filepath.Join(tmB.dir, "xdg-state") // one user's consoles and nodes
	spy := filepath.Join(tmB.dir, "spy")
	if err := os.Mkdir(spy, 0o700); err != nil {
		t.Fatal(err)
	}
	script := "echo ready; until [ -e go ]; do sleep 0.05; done; : > seen.txt; " +
		"if echo x > '" + filepath.Join(tmA.state, "planted") + "' 2>/dev/null; then echo WROTE-STATE >> seen.txt; fi; " +
		"if echo x >> '" + tmA.config + "' 2>/dev/null; then echo WROTE-TEAM >> seen.txt; fi; " +
		"ls -A '" + filepath.Join(tmA.state, "secrets") + "' >> seen.txt 2>&1; echo done > done.txt; exec sleep 600"
	tmB.write("team.yaml", []agentDef{{name: "dev", script: "idle\n"}, {name: "far", host: "box1", dir: spy, command: []string{"/bin/sh", "-c", script}}})
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cB := tmB.start("--nats-listen", listen)
	url := nodeURL(t, tmB, "box1")
	cB.stop()
	node := tmB.waitingNode("box1", nodeFileIn(t, filepath.Join(tmB.dir, "nats-box1"), "box1", url))
	defer node.stop()
	cA := tmA.start("--nats-listen", "127.0.0.1:0") // its secrets hold a NATS token
	defer cA.stop()
	cB = tmB.start("--nats-listen", listen)
	defer cB.stop()
	got := seenIn(t, spy, func() string { return node.out.String() + cA.out.String() + cB.out.String() })
	if strings.Contains(got, "WROTE") || strings.Contains(got, "nats-token") {
		t.Fatalf("the node's agent reached a console started while the node was starting:\n%s", got)
	}
}

// An agent cannot hold the registry's lock, which every console and node
// takes for a moment as it starts: every sandbox hides it (the registry
// is shown read-only, and a read-only descriptor takes a flock), so a
// console started while the agent "holds" it starts at once.
func TestAgentCannotHoldTheRegistryLock(t *testing.T) {
	needSandbox(t)
	if _, err := exec.LookPath("flock"); err != nil {
		t.Skip("no flock(1) here")
	}
	tmA := newTeam(t)
	lock := filepath.Join(tmA.dir, "xdg-state", "teamlead", "consoles", "start.lock")
	tmA.write("team.yaml", []agentDef{{name: "holder", command: []string{"/bin/sh", "-c",
		"flock -n '" + lock + "' sh -c 'echo took > took.txt; exec sleep 600'; echo refused > took.txt; exec sleep 600"}}})
	cA := tmA.start()
	defer cA.stop()
	waitFor(t, 20*time.Second, "the agent to take the lock", func() bool {
		b, _ := os.ReadFile(filepath.Join(tmA.dir, "took.txt"))
		return len(b) > 0
	}, cA.out.String)
	tmB := newTeam(t, agentDef{name: "solo", script: "idle\n"})
	tmB.stateHome = filepath.Join(tmA.dir, "xdg-state") // one user's consoles
	started := time.Now()
	cB := tmB.start()
	defer cB.stop()
	if d := time.Since(started); d > 10*time.Second {
		t.Errorf("the second console took %v to start", d)
	}
}
