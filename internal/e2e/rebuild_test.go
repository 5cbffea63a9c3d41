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
// the team's stream at its next start (which then waits for the human to
// accept the team's files again): the audit trail, the pending
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
	// The rebuilt store has no record of what the human accepted of the
	// team's files: the start waits for the human to look at them first.
	refused := tm.startRefused("--nats-listen", strings.Split(url, "@")[1])
	if !regexp.MustCompile(`rebuilt from the team's stream TEAMLEAD_e2e .*: \d+ records`).MatchString(refused) ||
		!strings.Contains(refused, "3 pending deliveries") || !strings.Contains(refused, "teamlead config diff") {
		t.Fatalf("the console did not say it rebuilt the store, and that the files wait for you:\n%s", refused)
	}
	tm.mustCLI("config", "diff")
	tm.mustCLI("config", "accept")
	c = tm.start("--nats-listen", strings.Split(url, "@")[1])
	defer c.stop()

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

// The record of teamlead's files the human accepted stays out of the
// streams (a stream must not vouch for a policy file), so a rebuilt store
// has none: red team 14c (finding 2) had an agent create the missing
// permissions.yaml of a team on the built-in policy, and the console
// rebuilt after a store loss started on it silently and allowed what it
// listed. After a rebuild every file of the team waits for the human's
// word, as one changed while agents ran.
func TestRebuiltStoreWaitsForTheHumanOnTeamFiles(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n", agentDef{name: "dev", role: "developer", script: "say dev ready\nidle\n"})
	policy := filepath.Join(tm.dir, "permissions.yaml")
	if _, err := os.Stat(policy); err == nil {
		t.Fatal("the team has a policy file: this test needs the built-in policy")
	}
	c := tm.start("--nats-listen", "127.0.0.1:0")
	url := natsURLOf(t, tm)
	// What an agent running as the human's user could write.
	planted := "default: ask\nrules:\n  - match: [Bash(curl:*)]\n    decide: allow\n    why: planted by an agent\n"
	if err := os.WriteFile(policy, []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 20*time.Second, "the console to see the new policy file", func() bool {
		return strings.Contains(c.out.String(), "permissions.yaml changed while agents run")
	}, c.out.String)
	waitFor(t, 20*time.Second, "every record on NATS", func() bool {
		out, _ := tm.cli("audit", "--format", "json")
		return len(natsRecords(t, tm, url)) == len(strings.Split(strings.TrimSpace(out), "\n"))
	}, c.out.String)
	c.stop()

	// The store is lost; the next start rebuilds it from the stream, and
	// waits for the human before it uses any file of the team.
	if err := os.RemoveAll(filepath.Join(tm.state, "store")); err != nil {
		t.Fatal(err)
	}
	out := tm.startRefused("--nats-listen", strings.Split(url, "@")[1])
	if !strings.Contains(out, "rebuilt from the team's stream") || !strings.Contains(out, policy) || !strings.Contains(out, "teamlead config diff") {
		t.Fatalf("the rebuilt console must wait for the human:\n%s", out)
	}
	diff := tm.mustCLI("config", "diff")
	if !strings.Contains(diff, "+    why: planted by an agent") || !strings.Contains(diff, tm.config) || !strings.Contains(diff, "rebuilt") {
		t.Fatalf("config diff after the rebuild:\n%s", diff)
	}
	// Not the human's: undone, and the files as they are now accepted.
	if err := os.Remove(policy); err != nil {
		t.Fatal(err)
	}
	if got, err := tm.cli("config", "accept"); err == nil {
		t.Fatalf("config accept took a file not as diff showed it:\n%s", got)
	}
	tm.mustCLI("config", "diff")
	if got := tm.mustCLI("config", "accept"); !strings.Contains(got, "accepted "+policy) || !strings.Contains(got, "accepted "+tm.config) {
		t.Fatalf("config accept: %s", got)
	}
	c = tm.start("--nats-listen", strings.Split(url, "@")[1])
	defer c.stop()
	if strings.Contains(c.out.String(), "rebuilt") {
		t.Fatalf("the store was rebuilt twice:\n%s", c.out)
	}
}
