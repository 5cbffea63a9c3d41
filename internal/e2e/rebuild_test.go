package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// A console whose store folder is lost (SIGKILL, then the folder
// removed) while its NATS server's files survive rebuilds the store from
// the team's stream at its next start: the audit trail, the pending
// question and the messages its recipient had not read yet come back;
// those are typed once, new messages are numbered after the old ones, and
// the stream goes on with every record once (issue 14).
func TestLostStoreIsRebuiltFromTheStream(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "architect.sh"), []byte("echo architect ready\nexec sleep 600\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tm := newTeamWith(t, "bus:\n  name: e2e\n",
		agentDef{name: "dev", role: "developer", script: `
route to=architect type=question task=T-1 body="Which transport?"
expect relayed m-\d+ to architect
route to=architect type=question task=T-1 body="Which database?"
expect relayed m-\d+ to architect
route to=architect type=question task=T-1 body="Which cache?"
expect relayed m-\d+ to architect
gap topic=requirements.scope question="Is mobile in scope?"
idle
`},
		// It reads nothing in the first run (a program that never reads
		// its terminal): the three messages wait for it.
		agentDef{name: "architect", command: []string{"/bin/sh", filepath.Join(dir, "architect.sh")}},
	)
	c := tm.start("--nats-listen", "127.0.0.1:0")
	url := natsURLOf(t, tm)
	local := func() []map[string]any {
		out, _ := tm.cli("audit", "--format", "json")
		var recs []map[string]any
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var r map[string]any
			if json.Unmarshal([]byte(line), &r) == nil {
				recs = append(recs, r)
			}
		}
		return recs
	}
	waitFor(t, 30*time.Second, "three messages and the question recorded, all on NATS", func() bool {
		n := 0
		for _, r := range local() {
			if r["kind"] == "message" || r["kind"] == "question" {
				n++
			}
		}
		return n == 4 && len(natsRecords(t, tm, url)) == len(local())
	}, func() string { return tm.mustCLI("audit") })
	before := local()
	for _, r := range before {
		if r["kind"] == "delivered" && r["agent"] == "architect" {
			t.Fatalf("the architect read a message in the first run: %v", r)
		}
	}

	c.kill()
	if err := os.RemoveAll(filepath.Join(tm.state, "store")); err != nil {
		t.Fatal(err)
	}
	// The architect reads from now on.
	mock := filepath.Join(dir, "architect.mock")
	if err := os.WriteFile(mock, []byte("say {name} ready\nidle\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := "exec " + strings.Join([]string{bin.mockagent, "--name", "architect", "--record", tm.input("architect"), "--raw", mock}, " ") + "\n"
	if err := os.WriteFile(filepath.Join(dir, "architect.sh"), []byte(run), 0o600); err != nil {
		t.Fatal(err)
	}
	c = tm.start("--nats-listen", strings.Split(url, "@")[1])
	defer c.stop()
	if !regexp.MustCompile(`rebuilt from the team's stream TEAMLEAD_e2e .*: \d+ records`).MatchString(c.out.String()) ||
		!strings.Contains(c.out.String(), "3 pending deliveries") {
		t.Fatalf("the console did not say it rebuilt the store:\n%s", c.out)
	}

	// The audit trail as it was, and more after it.
	after := local()
	if len(after) < len(before) {
		t.Fatalf("%d records after the rebuild, %d before", len(after), len(before))
	}
	for i, r := range before {
		a, _ := json.Marshal(r)
		b, _ := json.Marshal(after[i])
		if string(a) != string(b) {
			t.Fatalf("record %d changed in the rebuild:\n%s\n%s", i+1, a, b)
		}
	}
	// The question still waits.
	out := tm.mustCLI("questions", "all", "--format", "json")
	if !strings.Contains(out, `"topic":"requirements.scope"`) || !strings.Contains(out, `"status":"pending"`) {
		t.Fatalf("the pending question did not come back:\n%s", out)
	}
	// The messages the architect never read are typed into it now, each
	// once; dev's new ones (its script runs again) come after them, with
	// new numbers.
	ids := regexp.MustCompile(`id: (m-\d+)[\r\n]`)
	waitFor(t, 30*time.Second, "six messages at the architect", func() bool {
		return len(ids.FindAllString(tm.received("architect"), -1)) >= 6
	}, func() string { return tm.received("architect") + c.out.String() })
	count := map[string]int{}
	for _, m := range ids.FindAllStringSubmatch(tm.received("architect"), -1) {
		count[m[1]]++
	}
	for _, id := range []string{"m-1", "m-2", "m-3", "m-4", "m-5", "m-6"} {
		if count[id] != 1 {
			t.Errorf("%s typed %d times into the architect: %v", id, count[id], count)
		}
	}
	for _, body := range []string{"Which transport?", "Which database?", "Which cache?"} {
		if n := strings.Count(tm.received("architect"), body); n != 2 {
			t.Errorf("%q reached the architect %d times, want twice (once of the lost run, once of the new one)", body, n)
		}
	}

	// The stream goes on: every local record on it once, in order.
	waitFor(t, 30*time.Second, "every record on NATS", func() bool {
		return len(natsRecords(t, tm, url)) == len(local())
	}, func() string { return c.out.String() })
	last := 0.0
	for _, r := range natsRecords(t, tm, url) {
		if seq := r["seq"].(float64); seq <= last {
			t.Fatalf("record %v after %v on NATS", seq, last)
		} else {
			last = seq
		}
	}
}
