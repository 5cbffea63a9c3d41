package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
	urlFile := filepath.Join(tm.state, "secrets", "nats-url")
	var url string
	waitFor(t, 10*time.Second, "the NATS URL file", func() bool {
		b, err := os.ReadFile(urlFile)
		url = strings.Replace(strings.TrimSpace(string(b)), "HOST", "127.0.0.1", 1)
		return err == nil && url != ""
	})
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
