package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/teamlead/teamlead/internal/testbin"
)

// natsRecords reads the team's records from NATS the way another machine
// would: teamlead audit --nats, as JSON, without the team file.
func natsRecords(t *testing.T, tm *team, url string, args ...string) []map[string]any {
	t.Helper()
	out, err := tm.cliIn(tm.dir, append([]string{"audit", "--nats", url, "--team", "e2e", "--format", "json"}, args...)...)
	if err != nil {
		return nil
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil {
			recs = append(recs, r)
		}
	}
	return recs
}

// The console with its own NATS server publishes every record on the
// team's stream: a message relayed while it ran, and after a SIGKILL the
// ones committed since, each once, in the store's order.
func TestConsolePublishesItsRecordsOnNATS(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: `
route to=architect type=question task=T-1 body="Which transport?"
expect relayed m-1 to architect
gap topic=requirements.scope question="Is mobile in scope?"
idle
`},
		agentDef{name: "architect", flags: []string{"--raw"}, script: "idle\n"},
	)
	c := tm.start("--nats-listen", "127.0.0.1:0")
	url := natsURLOf(t, tm)
	tm.waitReceived("architect", "[/ROUTE]")
	var recs []map[string]any
	waitFor(t, 20*time.Second, "the relayed message on NATS", func() bool {
		recs = natsRecords(t, tm, url, "--kind", "message")
		return len(recs) == 1
	}, func() string { out, _ := tm.cliIn(tm.dir, "audit", "--nats", url, "--team", "e2e"); return out })
	if recs[0]["body"] != "Which transport?" || recs[0]["from"] != "dev" {
		t.Fatalf("message on NATS: %v", recs[0])
	}
	for _, r := range natsRecords(t, tm, url) {
		if strings.Contains(fmt.Sprint(r["body"], r["reason"]), strings.TrimPrefix(strings.Split(url, "@")[0], "nats://")) {
			t.Fatalf("a record holds the server's token: %v", r)
		}
	}
	// The question, as another machine reads it from the team's bucket.
	waitFor(t, 20*time.Second, "the question in the bucket on NATS", func() bool {
		out, err := tm.cliIn(tm.dir, "questions", "all", "--nats", url, "--team", "e2e", "--format", "json")
		return err == nil && strings.Contains(out, `"topic":"requirements.scope"`) && strings.Contains(out, `"text":"Is mobile in scope?"`) &&
			strings.Contains(out, `"asker":"dev"`)
	}, func() string {
		out, _ := tm.cliIn(tm.dir, "questions", "all", "--nats", url, "--team", "e2e")
		return out
	})

	// SIGKILL, records made while nothing publishes (teamlead send
	// through the store is not possible without a console: the restart
	// itself commits some), then a restart on the same server files.
	c.kill()
	local := func() int {
		out := tm.mustCLI("audit", "--format", "json")
		return len(strings.Split(strings.TrimSpace(out), "\n"))
	}
	c = tm.start("--nats-listen", strings.Split(url, "@")[1])
	defer c.stop()
	waitFor(t, 20*time.Second, "every stored record on NATS once", func() bool {
		n, l := len(natsRecords(t, tm, url)), local()
		return n == l
	})
	seen := map[float64]bool{}
	last := 0.0
	for _, r := range natsRecords(t, tm, url) {
		seq := r["seq"].(float64)
		if seen[seq] || seq <= last {
			t.Fatalf("record %v twice or out of order", seq)
		}
		seen[seq], last = true, seq
	}
}

// A NATS server nobody runs: the console still starts, says so, and keeps
// its records.
func TestConsoleWithoutItsNATSKeepsRunning(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n  nats: nats://127.0.0.1:1\n", agentDef{name: "dev", script: "idle\n"})
	c := tm.start()
	defer c.stop()
	waitFor(t, 20*time.Second, "the warning about NATS", func() bool {
		return strings.Contains(c.out.String(), "NATS at nats://127.0.0.1:1") && strings.Contains(c.out.String(), "published when it is back")
	}, func() string { return c.out.String() })
}

// natsURLOf waits for the URL of the console's own NATS server.
func natsURLOf(t *testing.T, tm *team) string {
	t.Helper()
	var url string
	waitFor(t, 10*time.Second, "the NATS URL file", func() bool {
		b, err := os.ReadFile(filepath.Join(tm.state, "secrets", "nats-url"))
		url = strings.Replace(strings.TrimSpace(string(b)), "HOST", "127.0.0.1", 1)
		return err == nil && url != ""
	})
	return url
}

// An agent whose host: names a node runs on that node (teamlead node): a
// message relayed to it from an agent of the console's machine reaches it
// through NATS, its answer comes back the same way, and the console
// records both as for its own agents; its screen is the console's to see.
func TestAgentOnANode(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: `
route to=far type=question task=T-1 body="Ping from dev"
expect relayed m-1 to far
expect Pong from far
idle
`},
		agentDef{name: "far", role: "reviewer", host: "box1", script: `
expect Ping from dev
route to=dev type=answer task=T-1 body="Pong from far"
expect relayed m-2 to dev
say far is done
idle
`},
	)
	c := tm.start("--nats-listen", "127.0.0.1:0")
	defer c.stop()
	natsURLOf(t, tm)
	// The node connects as itself, with only its own agents' permissions.
	b, err := os.ReadFile(filepath.Join(tm.state, "secrets", "nodes", "box1.url"))
	if err != nil {
		t.Fatal(err)
	}
	url := strings.Replace(strings.TrimSpace(string(b)), "HOST", "127.0.0.1", 1)
	if !strings.HasPrefix(url, "nats://node-box1:") {
		t.Fatalf("box1's URL: %s", url)
	}
	n := tm.startNode("box1", url)
	defer n.stop()
	tm.waitReceived("far", "Ping from dev")
	tm.waitReceived("dev", "Pong from far")
	tm.waitReceived("far", "relayed m-2 to dev")
	var msgs []map[string]any
	waitFor(t, 20*time.Second, "both messages in the audit", func() bool {
		out := tm.mustCLI("audit", "--kind", "message", "--format", "json")
		msgs = nil
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil {
				msgs = append(msgs, m)
			}
		}
		return len(msgs) == 2
	}, func() string { return tm.mustCLI("audit") })
	if msgs[1]["from"] != "far" || msgs[1]["body"] != "Pong from far" {
		t.Fatalf("far's message: %v", msgs[1])
	}
	// Its screen, as the console shows it, came from the node.
	waitFor(t, 20*time.Second, "far running, as the console sees it", func() bool {
		var agents []map[string]any
		for _, l := range strings.Split(strings.TrimSpace(tm.mustCLI("agents", "--format", "json")), "\n") {
			var a map[string]any
			if json.Unmarshal([]byte(l), &a) == nil {
				agents = append(agents, a)
			}
		}
		for _, a := range agents {
			if a["name"] == "far" {
				return a["state"] == "running" && a["host"] == "box1"
			}
		}
		return false
	}, func() string { return tm.mustCLI("agents", "--format", "json") })

	// The node stops: far is unreachable, and what you send it waits on
	// the server until a node runs it again.
	n.stop()
	waitFor(t, 30*time.Second, "far unreachable", func() bool {
		return agentState(tm, "far") == "unreachable"
	}, func() string { return tm.mustCLI("agents") })
	tm.mustCLI("send", "far", "sent while box1 was away")
	n = tm.startNode("box1", url)
	defer n.stop()
	tm.waitReceived("far", "sent while box1 was away")
	waitFor(t, 30*time.Second, "far reachable again", func() bool { return agentState(tm, "far") == "running" },
		func() string { return tm.mustCLI("agents") })
}

// On a NATS server of yours, configured with what teamlead
// nats-permissions prints, the console runs with its own user and the node
// with its own (in --nats-file, as the README says): a message goes to the
// node's agent and its answer back, and the server refused neither
// anything (issue 14, item 4).
func TestNodeWithItsOwnUserOnYourServer(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: `
route to=far type=question task=T-1 body="Ping from dev"
expect Pong from far
idle
`},
		agentDef{name: "far", role: "reviewer", host: "box1", script: `
expect Ping from dev
route to=dev type=answer task=T-1 body="Pong from far"
idle
`},
	)
	conf := tm.mustCLI("nats-permissions")
	if !strings.Contains(conf, `{user: "node-box1", password: $NODE_BOX1_PASSWORD`) {
		t.Fatalf("nats-permissions:\n%s", conf)
	}
	srv := startNATSServerWith(t, conf, "CONSOLE_PASSWORD=console-secret", "NODE_BOX1_PASSWORD=box1-secret")
	host := strings.TrimPrefix(srv.url(), "nats://")
	c := tm.start("--nats", "nats://console:console-secret@"+host)
	defer c.stop()
	n := tm.startNodeFile("box1", "nats://node-box1:box1-secret@"+host)
	defer n.stop()
	tm.waitReceived("far", "Ping from dev")
	tm.waitReceived("dev", "Pong from far")
	waitFor(t, 30*time.Second, "far running, as the console sees it", func() bool { return agentState(tm, "far") == "running" },
		func() string { return tm.mustCLI("agents") })
	for what, out := range map[string]string{"the server": srv.out.String(), "the console": c.out.String(), "the node": n.out.String()} {
		if strings.Contains(out, "Violation") {
			t.Errorf("%s says a permission was refused:\n%s", what, out)
		}
	}
}

// agentState is an agent's state as `teamlead agents --format json` gives it.
func agentState(tm *team, name string) string {
	for _, l := range strings.Split(strings.TrimSpace(tm.mustCLI("agents", "--format", "json")), "\n") {
		var a map[string]any
		if json.Unmarshal([]byte(l), &a) == nil && a["name"] == name {
			s, _ := a["state"].(string)
			return s
		}
	}
	return ""
}

// A node killed with SIGKILL in the middle of a burst loses none of the
// messages the console accepted for its agent, and types none more than
// twice (once before the kill, once again after, when the kill fell
// between typing and recording): they wait on the server and arrive when
// the node runs again (issue 14: the same guarantees across machines).
func TestNodeKilledMidBurstLosesNothing(t *testing.T) {
	const n = 20
	tm := burstTeam(t, n)
	c := tm.start("--nats-listen", "127.0.0.1:0")
	defer c.stop()
	natsURLOf(t, tm)
	url := nodeURL(t, tm, "box1")
	node := tm.startNodeFile("box1", url)
	tm.waitReceived("far", "burst 03")
	node.kill() // SIGKILL: no goodbye, no last flush
	node = tm.startNodeFile("box1", url)
	defer node.stop()
	got := tm.waitReceived("far", fmt.Sprintf("burst %02d", n))
	for i := 1; i <= n; i++ {
		body := fmt.Sprintf("burst %02d", i)
		waitFor(t, 30*time.Second, body+" at far", func() bool {
			got = tm.received("far")
			return strings.Contains(got, body)
		}, func() string { return got })
		if k := strings.Count(got, body); k > 2 {
			t.Errorf("%s typed %d times into far", body, k)
		}
	}
}

// The console (and the NATS server inside it) killed with SIGKILL in the
// middle of a burst to an agent on a node: every message the sender was
// told was relayed reaches the node's agent after the console is started
// again, none more than twice.
func TestConsoleKilledMidBurstToANode(t *testing.T) {
	const n = 20
	tm := burstTeam(t, n)
	listen := "127.0.0.1:" + strconv.Itoa(freePort(t)) // the same address after the restart
	c := tm.start("--nats-listen", listen)
	url := nodeURL(t, tm, "box1")
	node := tm.startNode("box1", url)
	defer node.stop()
	tm.waitReceived("far", "burst 04")
	c.kill()
	acked := regexp.MustCompile(`relayed (m-\d+) to far`).FindAllStringSubmatch(tm.received("dev"), -1)
	if len(acked) == 0 {
		t.Fatalf("dev was told of no relay before the kill:\n%q", tm.received("dev"))
	}
	c = tm.start("--nats-listen", listen)
	defer c.stop()
	idOf := regexp.MustCompile(`id: (m-\d+)[\r\n]`)
	for _, a := range acked {
		id := a[1]
		waitFor(t, 30*time.Second, id+" at far", func() bool {
			for _, m := range idOf.FindAllStringSubmatch(tm.received("far"), -1) {
				if m[1] == id {
					return true
				}
			}
			return false
		}, func() string { return tm.received("far") })
	}
	// The node found the restarted console's server again: the burst dev
	// sends once more after its own restart goes through to the end.
	tm.waitReceived("far", fmt.Sprintf("burst %02d", n))
	// One message is its id with its body: a restarted console's ids
	// are not another's to compare with.
	count := map[string]int{}
	got := tm.received("far")
	for _, m := range regexp.MustCompile(`id: (m-\d+)\s+body: (burst \d+)`).FindAllStringSubmatch(got, -1) {
		count[m[1]+" "+m[2]]++
	}
	if len(count) < n {
		t.Fatalf("%d messages read back from far's input, want at least %d:\n%q", len(count), n, got)
	}
	for msg, k := range count {
		if k > 2 {
			t.Errorf("%s typed %d times into far\n%q", msg, k, got)
		}
	}
}

// freePort is a TCP port free on the loopback now.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// burstTeam is a team whose dev sends n status messages to far, on node
// box1, paced so that a kill falls in the middle: some typed, some on
// their way, some not yet sent.
func burstTeam(t *testing.T, n int) *team {
	var script strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&script, "route to=far type=status task=T-1 body=\"burst %02d\"\nsleep 100ms\n", i)
	}
	script.WriteString("idle\n")
	return newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: script.String()},
		agentDef{name: "far", role: "reviewer", host: "box1", script: "idle\n"})
}

// nodeURL is the URL the console wrote for node name, on the loopback.
func nodeURL(t *testing.T, tm *team, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tm.state, "secrets", "nodes", name+".url"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Replace(strings.TrimSpace(string(b)), "HOST", "127.0.0.1", 1)
}

// natsServer is a nats-server process with JetStream on a file store, on
// a fixed loopback port so that it comes back at the same address.
type natsServer struct {
	t          *testing.T
	bin, store string
	port       int
	cmd        *exec.Cmd
	// conf is its configuration file, env what it adds to the
	// environment (the passwords conf names); out what it printed.
	conf string
	env  []string
	out  *testbin.Buffer
}

var natsServerBin struct {
	once sync.Once
	path string
	err  error
}

// startNATSServer builds nats-server from the module teamlead links (the
// version go.mod names) once, and starts it.
func startNATSServer(t *testing.T) *natsServer {
	t.Helper()
	return startNATSServerWith(t, "")
}

// startNATSServerWith is startNATSServer with a configuration (its text;
// "": none) and variables added to its environment.
func startNATSServerWith(t *testing.T, conf string, env ...string) *natsServer {
	t.Helper()
	natsServerBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "teamlead-nats-server")
		if err != nil {
			natsServerBin.err = err
			return
		}
		natsServerBin.path = filepath.Join(dir, "nats-server")
		out, err := exec.Command("go", "build", "-o", natsServerBin.path, "github.com/nats-io/nats-server/v2").CombinedOutput()
		if err != nil {
			natsServerBin.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if natsServerBin.err != nil {
		t.Fatalf("building nats-server: %v", natsServerBin.err)
	}
	s := &natsServer{t: t, bin: natsServerBin.path, store: t.TempDir(), port: freePort(t), env: env}
	if conf != "" {
		s.conf = filepath.Join(t.TempDir(), "nats-server.conf")
		if err := os.WriteFile(s.conf, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s.start()
	t.Cleanup(s.kill)
	return s
}

func (s *natsServer) url() string { return "nats://127.0.0.1:" + strconv.Itoa(s.port) }

func (s *natsServer) start() {
	s.t.Helper()
	args := []string{"-a", "127.0.0.1", "-p", strconv.Itoa(s.port), "-js", "-sd", s.store}
	if s.conf != "" {
		args = append(args, "-c", s.conf)
	}
	s.cmd = exec.Command(s.bin, args...)
	s.cmd.Env = append(os.Environ(), s.env...)
	out := &testbin.Buffer{}
	s.out = out
	s.cmd.Stdout, s.cmd.Stderr = out, out
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	waitFor(s.t, 20*time.Second, "nats-server to listen", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(s.port))
		if err == nil {
			c.Close()
		}
		return err == nil
	}, out.String)
}

// kill ends the server with SIGKILL and waits for it.
func (s *natsServer) kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

// The NATS server alone killed with SIGKILL in the middle of a burst to an
// agent on a node, and started again on its store: the console and the
// node find it again, every message the sender was told was relayed
// reaches the node's agent, none more than twice (issue 14).
func TestNATSServerKilledMidBurst(t *testing.T) {
	const n = 20
	srv := startNATSServer(t)
	tm := burstTeam(t, n)
	b, _ := os.ReadFile(tm.config)
	if err := os.WriteFile(tm.config, []byte(strings.Replace(string(b), "bus:\n  name: e2e\n", "bus:\n  name: e2e\n  nats: "+srv.url()+"\n", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := tm.start()
	defer c.stop()
	node := tm.startNode("box1", srv.url())
	defer node.stop()
	tm.waitReceived("far", "burst 04")
	srv.kill()
	// The console goes on accepting dev's messages while the server is
	// away, and tells the human; then the server comes back.
	relayed := regexp.MustCompile(`relayed (m-\d+) to far`)
	before := len(relayed.FindAllString(tm.received("dev"), -1))
	waitFor(t, 30*time.Second, "three relays told to dev with the server away", func() bool {
		return len(relayed.FindAllString(tm.received("dev"), -1)) >= before+3
	}, func() string { return tm.received("dev") + c.out.String() })
	waitFor(t, 30*time.Second, "the console to say NATS is away", func() bool {
		return strings.Contains(c.out.String(), "published when it is back")
	}, c.out.String)
	srv.start()
	waitFor(t, 30*time.Second, "the console to say NATS is back", func() bool {
		return strings.Contains(c.out.String(), "works again")
	}, c.out.String)
	got := tm.waitReceived("far", fmt.Sprintf("burst %02d", n))
	acked := relayed.FindAllStringSubmatch(tm.received("dev"), -1)
	if len(acked) < n {
		t.Fatalf("dev was told of %d relays, want %d:\n%q", len(acked), n, tm.received("dev"))
	}
	count := map[string]int{}
	for _, m := range regexp.MustCompile(`id: (m-\d+)[\r\n]`).FindAllStringSubmatch(got, -1) {
		count[m[1]]++
	}
	for _, a := range acked {
		id := a[1]
		waitFor(t, 30*time.Second, id+" at far", func() bool {
			count = map[string]int{}
			for _, m := range regexp.MustCompile(`id: (m-\d+)[\r\n]`).FindAllStringSubmatch(tm.received("far"), -1) {
				count[m[1]]++
			}
			return count[id] > 0
		}, func() string { return tm.received("far") })
	}
	for id, k := range count {
		if k > 2 {
			t.Errorf("%s typed %d times into far", id, k)
		}
	}
}

// An agent on a node reaches the console through the node's socket: its
// teamlead ask is the console's question from that agent, its CLI's hook
// gets the human's decision on a permission request, a message sent with
// teamlead's MCP tool is relayed from it, and a human's operation from its
// shell is refused (issue 14: permission requests from a remote agent
// reach the human and the decision goes back).
func TestNodeAgentsDoorsReachTheConsole(t *testing.T) {
	work := t.TempDir()
	b, _ := json.Marshal(map[string]any{"session_id": "s1", "cwd": work, "hook_event_name": "PreToolUse", "tool_name": "Bash",
		"tool_input": map[string]any{"command": "git push --force origin main", "description": "x"}, "tool_use_id": "toolu_1", "permission_mode": "default"})
	payload := filepath.Join(work, "push.json")
	if err := os.WriteFile(payload, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(work, "far.out")
	script := `echo ready; "$TL" ask --task T-7 api.paging 'Does the API paginate?' > "$OUT" 2>&1; ` +
		`"$TL" approve p-1 >> "$OUT" 2>&1; echo approve-exit-$? >> "$OUT"; ` +
		`"$TL" hook < "$PAYLOAD" >> "$OUT" 2>&1; echo hook-done >> "$OUT"; ` +
		`(printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}' ` +
		`'{"jsonrpc":"2.0","method":"notifications/initialized"}' ` +
		`'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"send_message","arguments":{"to":"dev","type":"status","task":"T-7","body":"sent with the tool on box1"}}}'; sleep 3) | "$TL" mcp >> "$OUT" 2>&1; ` +
		`exec sleep 600`
	// far, the last agent, takes the env line; then the bus.
	tm := newTeamWith(t, "    env: {TL: "+bin.teamlead+", OUT: "+out+", PAYLOAD: "+payload+"}\nbus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: "idle\n"},
		agentDef{name: "far", role: "reviewer", host: "box1", dir: work, command: []string{"/bin/sh", "-c", script}})
	c := tm.start("--nats-listen", "127.0.0.1:0")
	defer c.stop()
	node := tm.startNodeFile("box1", nodeURL(t, tm, "box1"))
	defer node.stop()
	var qs []map[string]any
	waitFor(t, 30*time.Second, "far's question at the console", func() bool {
		qs = questionsJSON(t, tm)
		return len(qs) == 1
	}, func() string { o, _ := os.ReadFile(out); return string(o) + c.out.String() + node.out.String() })
	if qs[0]["asker"] != "far" || qs[0]["task"] != "T-7" || qs[0]["text"] != "Does the API paginate?" {
		t.Errorf("the question: %v", qs[0])
	}
	waitFor(t, 30*time.Second, "far's permission request in the inbox", func() bool {
		o, _ := tm.cli("inbox")
		return strings.Contains(o, "git push --force origin main")
	}, func() string { o, _ := os.ReadFile(out); return string(o) + c.out.String() + node.out.String() })
	inbox := tm.mustCLI("inbox", "--format", "json")
	id := regexp.MustCompile(`"id":"(p-\d+)"`).FindStringSubmatch(inbox)
	if id == nil || !strings.Contains(inbox, `"from":"far"`) {
		t.Fatalf("the inbox:\n%s", inbox)
	}
	tm.mustCLI("deny", id[1], "not from a node")
	var got string
	waitFor(t, 30*time.Second, "the hook's answer on the node", func() bool {
		b, _ := os.ReadFile(out)
		got = string(b)
		return strings.Contains(got, "hook-done")
	}, func() string { return got })
	if !strings.Contains(got, `"permissionDecision":"deny"`) || !strings.Contains(got, "not from a node") {
		t.Errorf("the hook on the node got:\n%s", got)
	}
	if !strings.Contains(got, "refused") || strings.Contains(got, "approve-exit-0") {
		t.Errorf("the human's approve from far's shell was not refused:\n%s", got)
	}
	recv := tm.waitReceived("dev", "sent with the tool on box1")
	if !strings.Contains(recv, "from: far") {
		t.Errorf("dev received:\n%s", recv)
	}
}

// A node's request names where the console's answer goes, and the
// console publishes with its own user, which may write the team's
// records: red team 14c (finding 3) had a node's password make it publish
// into the records (as the human's), the journal, the bucket of questions
// and other agents' subjects. The console answers only under the node's
// inbox; any other reply subject gets nothing and is told as a refusal.
func TestNodeDoorReplyOutsideItsInboxIsRefused(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: "idle\n"},
		agentDef{name: "far", role: "reviewer", host: "box1", script: "idle\n"})
	c := tm.start("--nats-listen", "127.0.0.1:0")
	defer c.stop()
	watch, err := nats.Connect(natsURLOf(t, tm))
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	var mu sync.Mutex
	var landed []string
	refusal := make(chan struct{}, 1)
	for _, s := range []string{"teamlead.e2e.>", "$KV.>"} {
		if _, err := watch.Subscribe(s, func(m *nats.Msg) {
			switch {
			case strings.HasPrefix(m.Subject, "teamlead.e2e.rec.lead.refusal."):
				select {
				case refusal <- struct{}{}:
				default:
				}
			case strings.HasPrefix(m.Subject, "teamlead.e2e.door."):
			case len(m.Header) == 0:
				// The console's records, journal entries and deliveries
				// carry headers; a door's answer has none.
				mu.Lock()
				landed = append(landed, m.Subject+" "+string(m.Data))
				mu.Unlock()
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := watch.Flush(); err != nil {
		t.Fatal(err)
	}

	node, err := nats.Connect(nodeURL(t, tm, "box1"), nats.CustomInboxPrefix("_INBOX.teamlead.e2e.box1"))
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	replies := []string{"teamlead.e2e.rec.human.send.far", "teamlead.e2e.state", "$KV.TEAMLEAD_Q_e2e.q-0001", "teamlead.e2e.deliver.dev", "teamlead.e2e.ctl.dev"}
	for _, reply := range replies {
		if err := node.PublishRequest("teamlead.e2e.door.box1.far", reply, []byte("{\"cmd\":\"agents\"}\n")); err != nil {
			t.Fatal(err)
		}
	}
	if err := node.Flush(); err != nil {
		t.Fatal(err)
	}
	var refused []map[string]any
	waitFor(t, 30*time.Second, "a refusal for each reply subject", func() bool {
		refused = nil
		for _, r := range auditJSON(t, tm, "--kind", "impersonation") {
			if f, _ := r["fields"].(map[string]any); f["node"] == "box1" {
				refused = append(refused, r)
			}
		}
		return len(refused) == len(replies)
	}, func() string { return tm.mustCLI("audit") })
	for i, r := range refused {
		if f, _ := r["fields"].(map[string]any); f["reply"] != replies[i] || r["agent"] != "far" {
			t.Errorf("refusal %d: %v", i, r)
		}
	}
	// The refusals' own records reached NATS after any answer would have.
	select {
	case <-refusal:
	case <-time.After(30 * time.Second):
		t.Fatal("the refusal's record never reached NATS")
	}
	_ = watch.Flush()
	mu.Lock()
	defer mu.Unlock()
	if len(landed) > 0 {
		t.Errorf("the console answered outside the node's inbox: %q", landed)
	}
}
