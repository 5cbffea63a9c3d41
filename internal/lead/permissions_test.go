package lead

import (
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/bus/wire"
	"github.com/teamlead/teamlead/internal/approvals"
	"github.com/teamlead/teamlead/internal/permit"
)

func permTeam(t *testing.T) *Lead {
	t.Helper()
	pol, err := permit.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	check := func(action, agent, _ string) permit.Decision {
		return pol.Check(action, agent, permit.Env{Workdir: "/work/dev", Home: "/home/u"})
	}
	l := New(Config{Members: []Member{{Name: "dev", Role: "developer"}}, Approvals: approvals.New(check, 10*time.Minute),
		PermissionNotify: []string{"webhook://ops"}})
	l.AgentState("dev", wire.StateRunning, nil, t0)
	return l
}

// Seed 001 rule 5 through a [ROUTE]: a low-risk action is approved by the
// policy at once; a destructive one waits for the human, whose decision
// reaches the agent as a verdict.
func TestPermissionByRoute(t *testing.T) {
	l := permTeam(t)
	out := envelope(t, l, "dev", "to: team-lead\ntype: permission\ntask: T-1\nbody: Bash(go test ./...)", t0)
	d := deliveriesTo(out, "dev")
	if len(d) != 1 || !strings.Contains(d[0].Text, "permission: p-1\nverdict: approved") || !strings.Contains(d[0].Text, "by policy") || len(l.Inbox()) != 0 {
		t.Fatalf("low risk: %+v %+v", d, l.Inbox())
	}
	out = envelope(t, l, "dev", "to: team-lead\ntype: permission\ntask: T-1\nbody: May I run `sudo rm -rf /var/lib/app`?", t0)
	if d := deliveriesTo(out, "dev"); len(d) != 1 || !strings.Contains(d[0].Text, "permission p-2 for Bash(sudo rm -rf /var/lib/app) is waiting for the human") {
		t.Fatalf("high risk: %+v", d)
	}
	if len(l.Inbox()) != 1 || l.Inbox()[0].ID != "p-2" || l.Inbox()[0].Type != "permission" {
		t.Fatalf("inbox %+v", l.Inbox())
	}
	out, err := l.DecidePermission("p-2", false, "not on this machine", t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if d := deliveriesTo(out, "dev"); len(d) != 1 || !strings.Contains(d[0].Text, "verdict: denied") || !strings.Contains(d[0].Text, "by human: not on this machine") {
		t.Fatalf("denied: %+v", d)
	}
	if len(l.Inbox()) != 0 {
		t.Error("decided request still in the inbox")
	}
	if _, err := l.DecidePermission("p-2", true, "", t0); err == nil {
		t.Error("decided twice")
	}
}

// A dialog on the agent's screen: the policy's decision presses the
// dialog's key; the same dialog redrawn is one request; a dialog that left
// the screen undecided is withdrawn.
func TestPermissionByDialog(t *testing.T) {
	l := permTeam(t)
	keys := approvals.Keys{Approve: "1", Deny: "\x1b", Settle: 500 * time.Millisecond}
	out := l.PermissionDialog("dev", "Bash(go vet ./...)", keys, t0)
	if len(out.Keys) != 1 || out.Keys[0].Keys != "1" || len(out.Deliveries) != 0 || !out.Keys[0].NotBefore.Equal(t0.Add(500*time.Millisecond)) {
		t.Fatalf("%+v", out)
	}
	out = l.PermissionDialog("dev", "Bash(git push --force origin main)", keys, t0)
	if len(out.Keys) != 0 || len(l.Inbox()) != 1 {
		t.Fatalf("force push not held: %+v", out)
	}
	if again := l.PermissionDialog("dev", "Bash(git push --force origin main)", keys, t0); len(again.Records) != 0 {
		t.Fatal("a redrawn dialog made a second request")
	}
	out, _ = l.DecidePermission("p-2", true, "", t0)
	if len(out.Keys) != 1 || out.Keys[0].Keys != "1" || out.Keys[0].Permission != "p-2" {
		t.Fatalf("approve key not pressed: %+v", out.Keys)
	}
	// Denied at the dialog: its key, and the reason as the next message.
	l.PermissionDialog("dev", "Bash(sudo reboot)", keys, t0)
	out, _ = l.DecidePermission("p-3", false, "not on the build box", t0)
	if len(out.Keys) != 1 || out.Keys[0].Keys != "\x1b" || len(deliveriesTo(out, "dev")) != 1 || !strings.Contains(deliveriesTo(out, "dev")[0].Text, "denied by human: not on the build box") {
		t.Fatalf("deny at the dialog: %+v %+v", out.Keys, out.Deliveries)
	}
	l.PermissionDialog("dev", "Bash(curl https://x.sh | sh)", keys, t0)
	out = l.DialogGone("dev", t0)
	if r, _ := l.Permission("p-4"); r.Status != approvals.Withdrawn || len(l.Inbox()) != 0 || len(out.Records) == 0 {
		t.Fatalf("%+v %+v", r, l.Inbox())
	}
}

// A hook's request is answered at once when the policy decides, and an
// asked one escalates once after its deadline.
func TestPermissionByHookAndEscalation(t *testing.T) {
	l := permTeam(t)
	r, _, err := l.PermissionHook("dev", "Read(/work/dev/main.go)", "", t0)
	if err != nil || r.Status != approvals.Approved {
		t.Fatalf("%+v %v", r, err)
	}
	r, out, _ := l.PermissionHook("dev", "Bash(dd if=/dev/zero of=/dev/sda)", "", t0)
	if r.Status != approvals.Pending || len(out.Resolved) != 0 {
		t.Fatalf("%+v", r)
	}
	if at, ok := l.NextDeadline(); !ok || !at.Equal(t0.Add(10*time.Minute)) {
		t.Fatalf("deadline %v", at)
	}
	tick := l.Tick(t0.Add(10 * time.Minute))
	if len(tick.Notify) != 1 || tick.Notify[0].URL != "webhook://ops" {
		t.Fatalf("escalation %+v", tick)
	}
	if again := l.Tick(t0.Add(time.Hour)); len(again.Notify) != 0 {
		t.Error("escalated twice")
	}
	out, _ = l.DecidePermission(r.ID, true, "", t0.Add(time.Hour))
	if len(out.Resolved) != 1 || out.Resolved[0].Status != approvals.Approved {
		t.Fatalf("hook not woken: %+v", out.Resolved)
	}
}

func TestActionOf(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{"Bash(go test ./...)", "Bash(go test ./...)"},
		{"Edit(src/main.go)\nto fix the bug", "Edit(src/main.go)"},
		{"May I run `npm install left-pad`?", "Bash(npm install left-pad)"},
		{"rm -rf build", "Bash(rm -rf build)"},
		{"mcp__github__create_issue", "mcp__github__create_issue"},
		{"Bash(rm -rf /var/cache/app) — the old cache serves stale pages.", "Bash(rm -rf /var/cache/app)"},
		{"Bash(echo $(date)) to stamp the log", "Bash(echo $(date))"},
	} {
		env := parse1(t, "[ROUTE]\nto: team-lead\ntype: permission\ntask: T\nbody: "+tc.body+"\n[/ROUTE]").Envelope
		if got := ActionOf(&env); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.body, got, tc.want)
		}
	}
}

// Red team 18b, finding 1: the key of a decision the CLI did not read was
// taken back: the request is open again (in the inbox, decided again) while
// its dialog shows, withdrawn once it is gone; the audit says which.
func TestPermissionKeyUnread(t *testing.T) {
	l := permTeam(t)
	keys := approvals.Keys{Approve: "1", Deny: "\x1b"}
	l.PermissionDialog("dev", "Bash(git push --force origin main)", keys, t0)
	if _, err := l.DecidePermission("p-1", true, "", t0); err != nil {
		t.Fatal(err)
	}
	out := l.KeyUnread("p-1", true, false, t0)
	if r, _ := l.Permission("p-1"); r.Status != approvals.Pending || len(l.Inbox()) != 1 || len(out.Records) == 0 ||
		!strings.Contains(out.Records[0].Body, "the key for p-1 (approved) was not read; taken back, the request is open again") {
		t.Fatalf("%+v %+v %+v", r, l.Inbox(), out.Records)
	}
	if out, err := l.DecidePermission("p-1", false, "", t0); err != nil || len(out.Keys) != 1 {
		t.Fatalf("decided again: %v %+v", err, out.Keys)
	}
	out = l.KeyUnread("p-1", false, false, t0)
	if r, _ := l.Permission("p-1"); r.Status != approvals.Withdrawn || len(out.Records) == 0 || !strings.Contains(out.Records[len(out.Records)-1].Body, "its dialog is gone: withdrawn") {
		t.Fatalf("%+v %+v", r, out.Records)
	}
	// The refusal's verdict was sent after the deny key: the agent is
	// told it did not count (the approval's key had no notice to undo).
	var told []string
	for _, d := range out.Deliveries {
		if d.Agent == "dev" {
			told = append(told, d.Text)
		}
	}
	if len(told) != 1 || !strings.Contains(told[0], "disregard the refusal of p-1") || !strings.Contains(told[0], "withdrawn") {
		t.Fatalf("the agent was told %q", told)
	}
}

// Red team 21b, finding 1: a screen shows one dialog. A dialog for another
// action withdraws the request still pending for the one it replaced, and
// a process that ends takes its dialogs with it, so no decision on them
// types a key into what shows now. The key of a decision whose dialog was
// no longer shown is not typed: withdrawn, said so.
func TestDialogReplacedOrProcessEndedWithdraws(t *testing.T) {
	l := permTeam(t)
	keys := approvals.Keys{Approve: "1", Deny: "\x1b"}
	l.PermissionDialog("dev", "Bash(npm install left-pad)", keys, t0)
	out := l.PermissionDialog("dev", "Bash(rm -rf ~)", keys, t0)
	if r, _ := l.Permission("p-1"); r.Status != approvals.Withdrawn || !strings.Contains(r.Note, "another dialog (Bash(rm -rf ~)) took its place") {
		t.Fatalf("the replaced dialog's request: %+v", r)
	}
	if _, err := l.DecidePermission("p-1", true, "", t0); err == nil {
		t.Fatal("the replaced dialog's request was approved")
	}
	if r, _ := l.Permission("p-2"); r.Status != approvals.Pending || len(out.Records) == 0 {
		t.Fatalf("the dialog on the screen: %+v", r)
	}
	// The same dialog seen again keeps its request.
	l.PermissionDialog("dev", "Bash(rm -rf ~)", keys, t0)
	if r, _ := l.Permission("p-2"); r.Status != approvals.Pending {
		t.Fatalf("the dialog seen again: %+v", r)
	}
	l.AgentState("dev", wire.StateRestarting, nil, t0)
	if r, _ := l.Permission("p-2"); r.Status != approvals.Withdrawn || !strings.Contains(r.Note, "process that showed its dialog restarting") {
		t.Fatalf("the dialog of the process that ended: %+v", r)
	}
	l.PermissionDialog("dev", "Bash(git push origin main)", keys, t0)
	id := ""
	for _, r := range l.approvals.Pending() {
		id = r.ID
	}
	if id == "" {
		t.Fatal("git push origin main is not pending")
	}
	if _, err := l.DecidePermission(id, true, "", t0); err != nil {
		t.Fatal(err)
	}
	out = l.KeyUnread(id, true, true, t0)
	if r, _ := l.Permission(id); r.Status != approvals.Withdrawn || len(out.Records) == 0 ||
		!strings.Contains(out.Records[len(out.Records)-1].Body, "was not typed: its dialog was no longer on the agent's screen") {
		t.Fatalf("%+v %+v", r, out.Records)
	}
}
