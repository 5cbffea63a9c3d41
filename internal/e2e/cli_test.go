package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every command that changes something says what it changed, naming the
// item as the human knows it.
func TestCLISaysWhatItChanged(t *testing.T) {
	work := t.TempDir()
	tm := newTeam(t, agentDef{name: "dev", role: "developer", dir: work, flags: []string{"--raw"}, script: `
route to=team-lead type=permission task=T-1 body="Bash(rm -rf /var/lib/postgresql)"
expect is waiting for the human
route to=team-lead type=permission task=T-1 body="Bash(npm install left-pad)"
expect is waiting for the human
route to=team-lead type=permission task=T-1 body="Bash(git push --force origin main)"
expect is waiting for the human
route to=team-lead type=blocker task=T-1 body="May I drop the legacy API?"
expect it is in the human's queue
route to=team-lead type=question task=T-1 body="May I run the load test tonight?"
expect as question q-0001
route to=team-lead type=blocker task=T-1 body="May I drop the legacy API? (again)"
expect it is in the human's queue
idle
`})
	c := tm.start()
	defer c.stop()
	waitFor(t, 20e9, "everything in the inbox", func() bool {
		out, _ := tm.cli("inbox")
		return strings.Contains(out, "p-3") && strings.Contains(out, "q-0001") && strings.Contains(out, "m-3")
	})
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"approve", "p-1"}, "approved p-1 (dev: Bash(rm -rf /var/lib/postgresql)) once\n"},
		{[]string{"approve", "p-2", "prefix", "--dry-run"}, "dry run: approving p-2 (dev: Bash(npm install left-pad)) always would add Bash(npm install left-pad:*) to dev's rules in the policy file. Nothing was changed\n"},
		{[]string{"approve", "p-2", "prefix"}, "approved p-2 (dev: Bash(npm install left-pad)) always: Bash(npm install left-pad:*) added to " + filepath.Join(tm.dir, "permissions.yaml") + "\n"},
		{[]string{"deny", "p-3", "never", "on", "main"}, "denied p-3 (dev: Bash(git push --force origin main)); dev is told: never on main\n"},
		{[]string{"answer", "q-0001", "Yes,", "after", "22:00", "UTC."}, "answered q-0001 (dev, general: May I run the load test tonight?); the answer goes to dev\n"},
		{[]string{"answer", "m-1", "Not yet."}, "answered m-1 (dev's blocker: May I drop the legacy API?); the answer goes to dev\n"},
		{[]string{"drop", "m-3", "asked", "twice"}, "dropped m-3 (dev's blocker: May I drop the legacy API? (again)) (asked twice); nothing was typed into anyone\n"},
		{[]string{"send", "dev", "please also write a test"}, "sent to dev: please also write a test\n"},
	} {
		if out := tm.mustCLI(tc.args...); out != tc.want {
			t.Errorf("teamlead %s printed\n%q\nwant\n%q", strings.Join(tc.args, " "), out, tc.want)
		}
	}
	tm.waitReceived("dev", "please also write a test")
	if out := tm.mustCLI("inbox"); !strings.Contains(out, "nothing waits for you") {
		t.Errorf("the inbox after all that:\n%s", out)
	}
}

// A running console records where it runs: a command run in its folder,
// or in one below it, finds it without --state or --config; once it has
// stopped, the commands read its store and say how to start it again.
func TestCLIFindsItsConsole(t *testing.T) {
	tm := newTeam(t, agentDef{name: "dev", flags: []string{"--raw"}, script: `
route to=team-lead type=blocker task=T-9 body="May I drop the legacy API?"
expect it is in the human's queue
idle
`})
	tm.cwd = tm.dir
	below := filepath.Join(tm.dir, "src", "pkg")
	if err := os.MkdirAll(below, 0o755); err != nil {
		t.Fatal(err)
	}
	c := tm.start()
	tm.waitReceived("dev", "it is in the human's queue")
	for _, dir := range []string{tm.dir, below} {
		out, err := tm.cliIn(dir, "agents")
		if err != nil || !regexp.MustCompile(`dev\s+dev\s+running\s+\S+ \(\w+\)\s+\d+\s+0`).MatchString(out) {
			t.Errorf("teamlead agents in %s: %v\n%s", dir, err, out)
		}
		if out, err := tm.cliIn(dir, "inbox"); err != nil || !strings.Contains(out, "m-1") {
			t.Errorf("teamlead inbox in %s: %v\n%s", dir, err, out)
		}
	}
	// Another folder has no console of its own.
	elsewhere := t.TempDir()
	out, err := tm.cliIn(elsewhere, "send", "dev", "hi")
	if err == nil || !strings.Contains(out, "no console is running for this folder ("+elsewhere+")") ||
		!strings.Contains(out, filepath.Join(tm.dir, "xdg-state", "teamlead", "consoles")) || !strings.Contains(out, "start one with `teamlead run`, or pass --state DIR") {
		t.Errorf("teamlead send elsewhere: %v\n%s", err, out)
	}
	c.stop()
	if out, err := tm.cliIn(below, "inbox"); err != nil || !strings.Contains(out, "m-1") {
		t.Errorf("teamlead inbox after the stop: %v\n%s", err, out)
	}
	if out, err := tm.cliIn(below, "agents"); err != nil || !strings.Contains(out, "not running (last: stopped)") {
		t.Errorf("teamlead agents after the stop: %v\n%s", err, out)
	}
	out, err = tm.cliIn(below, "answer", "m-1", "yes")
	want := "no console is running for this folder: the last one started in " + tm.dir + " (team file " + tm.config + ", state " + tm.state +
		") has stopped; start it again with `teamlead run --config " + tm.config + " --state " + tm.state + "`"
	if err == nil || !strings.Contains(out, want) {
		t.Errorf("teamlead answer after the stop: %v\n%s\nwant %s", err, out, want)
	}
}
