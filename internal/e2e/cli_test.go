package e2e

import (
	"path/filepath"
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
