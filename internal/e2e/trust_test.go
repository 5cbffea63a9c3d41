package e2e

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testbin"
	"golang.org/x/sys/unix"
)

// An agent's own processes — run directly, in the background, or detached
// with a double fork and setsid — ask the console for what only the human
// may do: every request is refused, recorded with the process's pid, and
// changes nothing; the human's own CLI then decides. Once with agents in
// their sandboxes (isolation: auto), where the agent also asks a tmux
// server of the human's to run the approval for it, and cannot reach it;
// once in a user namespace alone (userns); once without (the console's
// subreaper alone tells them).
func TestAgentCannotActAsHuman(t *testing.T) {
	for _, isolation := range []string{"auto", "userns", "none"} {
		t.Run(isolation, func(t *testing.T) { agentCannotActAsHuman(t, "isolation: "+isolation+"\n", isolation == "auto") })
	}
}

// agentCannotActAsHuman runs the attempts; sandboxed says the agents run
// in their sandboxes.
func agentCannotActAsHuman(t *testing.T, extra string, sandboxed bool) {
	work := t.TempDir()
	out := filepath.Join(work, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(work, "state")
	tl := bin.teamlead
	// Each attempt writes its output to out/<n>.
	attempts := []string{
		tl + " approve p-1",
		tl + " approve p-1 tool all",
		tl + " answer p-1 approve",
		tl + " deny p-1",
		tl + " send dev hello-from-mallory",
		"env -u TEAMLEAD_SOCKET " + tl + " approve p-1 --state " + state,
		// A console of its own, on another state, would take its approvals for the human's.
		tl + " run --headless --config " + filepath.Join(work, "own.yaml") + " --state " + filepath.Join(work, "own-state"),
		// ... and so would a copy of the binary in a namespace of its own
		// that maps the user elsewhere ("5 0 1" is no identity map).
		"cp " + tl + " " + filepath.Join(work, "tlcopy") + " && unshare -U --map-user=5 --map-group=5 " + filepath.Join(work, "tlcopy") +
			" run --headless --config " + filepath.Join(work, "own.yaml") + " --state " + filepath.Join(work, "own-state2"),
	}
	var script strings.Builder
	fmt.Fprintf(&script, "until %s inbox 2>/dev/null | grep -q p-1; do sleep 0.1; done\n", tl)
	for i, a := range attempts {
		fmt.Fprintf(&script, "%s > %s/%d 2>&1\n", a, out, i)
	}
	// Your tmux server runs what it is asked outside the agent, below
	// your login, not the console: the sandbox hides its socket.
	tmux, _ := exec.LookPath("tmux")
	server := fmt.Sprintf("tl-e2e-%d", os.Getpid())
	if sandboxed && tmux != "" {
		startTmux(t, tmux, server)
		fmt.Fprintf(&script, "tmux -L %s new-window -d '%s approve p-1 --state %s > %s/tmux 2>&1' > %s/tmux-client 2>&1; echo \"tmux exit $?\" >> %s/tmux-client\n",
			server, tl, state, out, out, out)
	}
	// Detached: through a subshell that exits at once (its child is
	// orphaned), with setsid, and with nohup in the background.
	n := len(attempts)
	fmt.Fprintf(&script, "( setsid %s approve p-1 > %s/%d 2>&1 & )\n", tl, out, n)
	fmt.Fprintf(&script, "( setsid sh -c '%s ask general is-it-ok > %s/%d 2>&1' & )\n", tl, out, n+1)
	fmt.Fprintf(&script, "nohup %s approve p-1 > %s/%d 2>&1 &\n", tl, out, n+2)
	fmt.Fprintf(&script, "until [ -s %s/%d ] && [ -s %s/%d ] && [ -s %s/%d ]; do sleep 0.1; done\n", out, n, out, n+1, out, n+2)
	fmt.Fprintf(&script, "echo mallory-done; sleep 600\n")
	total := n + 3

	tm := newTeamWith(t, extra,
		agentDef{name: "dev", role: "developer", dir: work, flags: []string{"--raw"}, script: `
route to=team-lead type=permission task=T-1 body="Bash(rm -rf /var/cache/x)"
expect is waiting for the human
idle
`},
		agentDef{name: "mallory", role: "developer", dir: work, command: []string{"sh", "-c", script.String()}},
	)
	tm.state = state
	if err := os.WriteFile(filepath.Join(work, "own.yaml"), []byte("agents:\n  - name: x\n    command: [sleep, \"600\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := tm.start()
	defer c.stop()
	waitFor(t, 60e9, "every attempt's answer", func() bool { return fileSet(out, total) }, func() string { return c.out.String() })
	asked := 0
	for i := 0; i < total; i++ {
		b, _ := os.ReadFile(filepath.Join(out, fmt.Sprint(i)))
		got := string(b)
		if i == n+1 && sandboxed {
			// Detached with setsid, the asker is still in the agent's
			// sandbox, below its init: the console names its agent, and
			// an agent's own door (ask) is open to it as that agent.
			if !strings.Contains(got, "routed") {
				t.Errorf("the ask of a process detached inside mallory's sandbox: %q", got)
			}
			asked++
			continue
		}
		if !strings.Contains(got, "refused") && !strings.Contains(got, "refusing to run a console here") {
			t.Errorf("attempt %d was not refused: %q", i, got)
		}
	}
	if sandboxed && tmux != "" {
		b, _ := os.ReadFile(filepath.Join(out, "tmux-client"))
		if !strings.Contains(string(b), "tmux exit") || strings.Contains(string(b), "tmux exit 0") {
			t.Errorf("the agent reached your tmux server: %q", b)
		}
		if _, err := os.Stat(filepath.Join(out, "tmux")); err == nil {
			t.Errorf("your tmux server ran the agent's approval")
		}
	}
	if inbox := tm.mustCLI("inbox"); !strings.Contains(inbox, "p-1") {
		t.Fatalf("p-1 was decided by an agent's process:\n%s", inbox)
	}
	if got := tm.received("dev"); strings.Contains(got, "hello-from-mallory") {
		t.Errorf("dev received text sent as the human by mallory: %q", got)
	}
	if policy, err := os.ReadFile(filepath.Join(tm.dir, "permissions.yaml")); err == nil && strings.Contains(string(policy), "Bash") {
		t.Errorf("the policy file gained a rule:\n%s", policy)
	}
	refusals := 0
	for _, r := range auditJSON(t, tm, "--kind", "impersonation") {
		f, _ := r["fields"].(map[string]any)
		if f["pid"] == nil || f["pid"] == "0" || f["ancestry"] == nil || f["cmdline"] == nil {
			t.Errorf("refusal without the process's details: %v", r)
		}
		if strings.Contains(fmt.Sprint(f["cmdline"]), "teamlead-sandbox") {
			// The sandbox's init connects for its agent: the audit names
			// the process that wrote the request.
			t.Errorf("refusal names the sandbox's init, not the process that asked: %v", r)
		}
		refusals++
	}
	if refusals < total-2-asked { // the own consoles never reached the socket
		t.Errorf("%d refusals recorded, want %d", refusals, total-2-asked)
	}
	// The human's own CLI is not an agent's process: it decides.
	tm.mustCLI("deny", "p-1", "not today")
	tm.waitReceived("dev", "not today")
}

// startTmux starts a tmux server of the test's own on a socket named
// server in the default folder (never the default socket), as the human's
// would run, and ends it after the test.
func startTmux(t *testing.T, tmux, server string) {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "TMUX" && k != "TMUX_TMPDIR" && k != "TMUX_PANE" {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(tmux, "-L", server, "-f", "/dev/null", "new-session", "-d", "-s", "human", "sleep 600")
	cmd.Env = env
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("tmux: %v %s", err, b)
	}
	t.Cleanup(func() {
		kill := exec.Command(tmux, "-L", server, "kill-server")
		kill.Env = env
		_ = kill.Run()
	})
}

// fileSet reports whether dir holds non-empty files 0 … n-1.
func fileSet(dir string, n int) bool {
	for i := 0; i < n; i++ {
		if st, err := os.Stat(filepath.Join(dir, fmt.Sprint(i))); err != nil || st.Size() == 0 {
			return false
		}
	}
	return true
}

// With agents outside user namespaces, an agent of one console is still
// refused the human's operations at another console of the same user:
// it descends from a teamlead process.
func TestAgentOfAnotherConsoleRefused(t *testing.T) {
	victim := newTeamWith(t, "isolation: none\n", agentDef{name: "dev", role: "developer", flags: []string{"--raw"}, script: `
route to=team-lead type=permission task=T-1 body="Bash(rm -rf /var/cache/x)"
expect is waiting for the human
idle
`})
	cv := victim.start()
	defer cv.stop()
	waitFor(t, 20e9, "p-1 waiting", func() bool { out, _ := victim.cli("inbox"); return strings.Contains(out, "p-1") })
	out := filepath.Join(t.TempDir(), "out")
	script := fmt.Sprintf("env -u TEAMLEAD_SOCKET %s approve p-1 --state %s > %s 2>&1; echo attempted; sleep 600", bin.teamlead, victim.state, out)
	other := newTeamWith(t, "isolation: none\n", agentDef{name: "mallory", command: []string{"sh", "-c", script}})
	co := other.start()
	defer co.stop()
	waitFor(t, 30e9, "the attempt", func() bool { st, err := os.Stat(out); return err == nil && st.Size() > 0 })
	b, _ := os.ReadFile(out)
	if !strings.Contains(string(b), "refused") || !strings.Contains(string(b), "another teamlead process") {
		t.Errorf("the other console's agent got: %q", b)
	}
	if inbox := victim.mustCLI("inbox"); !strings.Contains(inbox, "p-1") {
		t.Fatalf("p-1 decided by another console's agent:\n%s", inbox)
	}
}

// TestTeamFileChangedWhileAgentsRanWaitsForTheHuman: an agent outside a
// sandbox (isolation: userns) appends to the team file while the console
// runs (it runs as the human's user and can). The console says so at
// once, and the next start refuses to use the file until the human has
// looked at the change (teamlead config diff) and accepted it (teamlead
// config accept). In a sandbox (the default) the write itself fails.
func TestTeamFileChangedWhileAgentsRanWaitsForTheHuman(t *testing.T) {
	t.Run("sandbox", func(t *testing.T) {
		needSandbox(t)
		tm := newTeam(t)
		tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"sh", "-c",
			"echo dev ready; { if echo '# written by the agent' >> team.yaml; then echo WROTE; else echo REFUSED; fi; " +
				"if mv state state.old; then echo MOVED; fi; } > attempt.txt 2>&1; exec sleep 600"}}})
		before, err := os.ReadFile(tm.config)
		if err != nil {
			t.Fatal(err)
		}
		attempt := filepath.Join(tm.dir, "attempt.txt")
		c := tm.start()
		waitFor(t, 20*time.Second, "the agent's attempt", func() bool {
			b, _ := os.ReadFile(attempt)
			return strings.Contains(string(b), "REFUSED") || strings.Contains(string(b), "WROTE")
		}, c.out.String)
		c.stop()
		got, _ := os.ReadFile(attempt)
		if after, _ := os.ReadFile(tm.config); string(after) != string(before) || !strings.Contains(string(got), "Read-only file system") || strings.Contains(string(got), "MOVED") {
			t.Fatalf("the agent changed the team file or moved the state folder:\n%s", got)
		}
		tm.start().stop()
	})
	t.Run("userns", teamFileChangedOutsideASandbox)
}

func teamFileChangedOutsideASandbox(t *testing.T) {
	tm := newTeamWith(t, "isolation: userns\n")
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"sh", "-c", "echo dev ready; echo '# written by the agent' >> team.yaml; exec sleep 600"}}})
	c := tm.start()
	waitFor(t, 20*time.Second, "the console to see the change", func() bool {
		return strings.Contains(c.out.String(), "team.yaml changed while agents run")
	}, c.out.String)
	c.stop()

	cmd := exec.Command(bin.teamlead, "run", "--headless", "--config", tm.config, "--state", tm.state)
	cmd.Env = tm.env()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "team.yaml changed while agents ran") || !strings.Contains(string(out), "teamlead config diff") {
		t.Fatalf("the next start must wait for the human: %v\n%s", err, out)
	}
	// Accept takes the file only as diff showed it: an agent's change made
	// between the two is not accepted with it (red team 9a, finding 14).
	if got, err := tm.cli("config", "accept"); err == nil || !strings.Contains(got, "not shown yet") {
		t.Fatalf("config accept before any diff: %v %s", err, got)
	}
	diff := tm.mustCLI("config", "diff")
	if !strings.Contains(diff, "+# written by the agent") {
		t.Fatalf("config diff:\n%s", diff)
	}
	f, err := os.OpenFile(tm.config, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.WriteString("# swapped in after the diff\n")
	f.Close()
	if got, err := tm.cli("config", "accept"); err == nil || !strings.Contains(got, "changed since `teamlead config diff` showed it") {
		t.Fatalf("config accept after a change the diff did not show: %v %s", err, got)
	}
	if diff := tm.mustCLI("config", "diff"); !strings.Contains(diff, "+# swapped in after the diff") {
		t.Fatalf("config diff again:\n%s", diff)
	}
	if got := tm.mustCLI("config", "accept"); !strings.Contains(got, "accepted "+tm.config) {
		t.Fatalf("config accept: %s", got)
	}
	if got := tm.mustCLI("config", "diff"); !strings.Contains(got, "nothing waits for you") {
		t.Fatalf("after accept: %s", got)
	}
	tm.start().stop()
}

// An agent of one team cannot change another team of the same person: in
// its sandbox every registered console's state folder and team files are
// read-only and the folders above them pinned (the sixth red team moved
// another console's state folder away from an agent of a second console,
// and had the restarted console use its own files).
func TestAgentOfAnotherTeamCannotChangeThisOne(t *testing.T) {
	needSandbox(t)
	victim := newTeam(t, agentDef{name: "dev", script: "idle\n"})
	cv := victim.start()
	defer cv.stop()
	attempt := filepath.Join(t.TempDir(), "attempt")
	script := fmt.Sprintf(`{ if echo '# forged' >> %[1]s; then echo WROTE; fi
if mv %[2]s %[2]s.moved; then echo MOVED-STATE; fi
if mv %[3]s %[3]s.moved; then echo MOVED-TEAM; fi
echo done; } > %[4]s 2>&1; exec sleep 600`, victim.config, victim.state, victim.dir, attempt)
	other := newTeam(t, agentDef{name: "mallory", command: []string{"sh", "-c", script}})
	other.stateHome = filepath.Join(victim.dir, "xdg-state")
	co := other.start()
	defer co.stop()
	waitFor(t, 30*time.Second, "the other team's agent's attempt", func() bool {
		b, _ := os.ReadFile(attempt)
		return strings.Contains(string(b), "done")
	})
	b, _ := os.ReadFile(attempt)
	for _, breach := range []string{"WROTE", "MOVED-STATE", "MOVED-TEAM"} {
		if strings.Contains(string(b), breach) {
			t.Errorf("%s:\n%s", breach, b)
		}
	}
}

// The git the human's `teamlead permissions check` runs for the policy is
// found on PATH, where an agent can put its own (~/.local/bin): it runs as
// an agent's, and cannot change teamlead's state or the program (the
// seventh red team's git replaced the teamlead program).
func TestPermissionsCheckGitCannotChangeTeamlead(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t, agentDef{name: "dev", script: "idle\n"})
	c := tm.start()
	c.stop()
	project, fakeBin := filepath.Join(tm.dir, "project"), filepath.Join(tm.dir, "fakebin")
	for _, d := range []string{filepath.Join(project, ".git"), fakeBin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(project, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(tm.dir, "fake-git-ran")
	fake := fmt.Sprintf("#!/bin/sh\ntouch %s\necho forged > %s/FORGED 2>/dev/null && echo wrote-state >> %s\nexit 0\n", marker, tm.state, marker)
	if err := os.WriteFile(filepath.Join(fakeBin, "git"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin.teamlead, "permissions", "check", "--state", tm.state, "--config", tm.config, "--workdir", project, "Bash(git add .)")
	cmd.Env = append(tm.env(), "PATH="+fakeBin+":"+os.Getenv("PATH"))
	out, _ := cmd.CombinedOutput()
	b, err := os.ReadFile(marker)
	if err != nil {
		t.Skipf("the policy ran no git here (%v):\n%s", err, out)
	}
	if strings.Contains(string(b), "wrote-state") {
		t.Errorf("the git the policy ran wrote into the state folder:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(tm.state, "FORGED")); err == nil {
		t.Error("FORGED in the state folder")
	}
}

// needSandbox skips a test where this machine gives agents no sandbox (as
// teamlead doctor says), and fails it where the kernel gives the user,
// mount and PID namespaces the sandbox is made of: the sandbox is broken
// then, which a skip would hide.
func needSandbox(t *testing.T) {
	t.Helper()
	out, _ := exec.Command(bin.teamlead, "doctor").CombinedOutput()
	if strings.Contains(string(out), "agents run in a sandbox of their own") {
		return
	}
	if err := namespacesWork(); err != nil {
		t.Skipf("no sandbox here (a user namespace: %v):\n%s", err, out)
	}
	t.Fatalf("the kernel gives user, mount and PID namespaces, yet teamlead doctor says agents run in no sandbox:\n%s", out)
}

// Agents that share a folder cannot write each other's progress files:
// the console takes what one says (a handoff) as said by its owner, and an
// agent wrote another's to hand off in its name (red team 9a, finding 17).
// The owner still writes its own, by rename as progress writers do, and
// the other's sandbox pins the new file again.
func TestAgentCannotWriteAnotherAgentsProgressFile(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	qaFile := ".claude/state/progress-qa.json"
	qa := "echo qa ready; mkdir -p .claude/state; printf '{\"version\":\"2.0\"}' > " + qaFile + ".tmp && mv " + qaFile + ".tmp " + qaFile + " && echo QA-WROTE > qa.txt; exec sleep 600"
	dev := `echo dev ready; exec 2>&1
n=0; until [ -s ` + qaFile + ` ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done
n=0; while [ -w ` + qaFile + ` ] && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done
held() { if "$@" >/dev/null 2>&1; then echo "BREACH: $*"; else echo "held: $*"; fi; }
{
held sh -c 'echo "{\"version\":\"2.0\",\"next_step\":{\"expert\":\"arch\"}}" > ` + qaFile + `'
held sh -c 'echo x > forged.json && mv forged.json ` + qaFile + `'
held rm -f ` + qaFile + `
held mv .claude/state .claude/state.moved
echo checked
} > attempt.txt; exec sleep 600`
	tm.write("team.yaml", []agentDef{{name: "qa", command: []string{"sh", "-c", qa}}, {name: "dev", command: []string{"sh", "-c", dev}}})
	c := tm.start()
	defer c.stop()
	allHeld(t, c, filepath.Join(tm.dir, "attempt.txt"), "dev", 4)
	if b, _ := os.ReadFile(filepath.Join(tm.dir, "qa.txt")); !strings.Contains(string(b), "QA-WROTE") {
		t.Fatalf("qa could not write its own progress file")
	}
	if b, _ := os.ReadFile(filepath.Join(tm.dir, qaFile)); string(b) != `{"version":"2.0"}` {
		t.Fatalf("qa's progress file: %q", b)
	}
}

// A console started after another console's agents asks that console to
// protect its state folder and files, and hide its secrets, in their
// running sandboxes, before it writes them: the older agent can neither
// write the newer team's files nor read its secrets (red team 9a,
// finding 5: it wrote them and read the NATS token).
func TestNewerConsoleIsProtectedFromOlderAgents(t *testing.T) {
	needSandbox(t)
	victim := newTeam(t, agentDef{name: "dev", script: "idle\n"})
	attempt := filepath.Join(t.TempDir(), "attempt")
	goFile := filepath.Join(t.TempDir(), "go")
	script := fmt.Sprintf(`touch %[5]s.running; until [ -e %[5]s ]; do sleep 0.05; done
{ if echo '# forged' >> %[1]s; then echo WROTE-TEAM; fi
if echo forged > %[2]s/FORGED; then echo WROTE-STATE; fi
if cat %[2]s/secrets/token; then echo READ-SECRET; fi
if mv %[3]s %[3]s.moved; then echo MOVED-TEAM; fi
echo done; } > %[4]s 2>&1; exec sleep 600`, victim.config, victim.state, victim.dir, attempt, goFile)
	older := newTeam(t, agentDef{name: "mallory", command: []string{"sh", "-c", script}})
	older.stateHome = filepath.Join(victim.dir, "xdg-state")
	victim.stateHome = older.stateHome
	co := older.start()
	defer co.stop()
	// The older agent runs (its sandbox made) before the newer console starts.
	waitFor(t, 30*time.Second, "the older team's agent to run", func() bool {
		_, err := os.Stat(goFile + ".running")
		return err == nil
	})
	cv := victim.start()
	defer cv.stop()
	if err := os.WriteFile(filepath.Join(victim.state, "secrets", "token"), []byte("SECRET-TOKEN\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(goFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, "the older team's agent's attempt", func() bool {
		b, _ := os.ReadFile(attempt)
		return strings.Contains(string(b), "done")
	}, func() string { return co.out.String() + cv.out.String() })
	b, _ := os.ReadFile(attempt)
	for _, breach := range []string{"WROTE-TEAM", "WROTE-STATE", "READ-SECRET", "SECRET-TOKEN", "MOVED-TEAM"} {
		if strings.Contains(string(b), breach) {
			t.Errorf("%s:\n%s", breach, b)
		}
	}
}

// A state folder whose store no console of the user registered is not
// taken: an agent could have made it before the console first ran, with a
// record of accepted files of its choosing. --adopt-state takes it.
func TestUnregisteredStoreIsRefused(t *testing.T) {
	tm := newTeam(t, agentDef{name: "dev", script: "idle\n"})
	tm.stateHome = filepath.Join(tm.dir, "elsewhere") // the store is made under another registry
	tm.start().stop()
	tm.stateHome = filepath.Join(tm.dir, "mine")
	cmd := exec.Command(bin.teamlead, "run", "--headless", "--config", tm.config, "--state", tm.state)
	cmd.Env = tm.env()
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "no console of yours has run on") || !strings.Contains(string(out), "--adopt-state") {
		t.Fatalf("a store no console registered was taken: %v\n%s", err, out)
	}
	tm.start("--adopt-state").stop()
	tm.start().stop() // registered now
}

// A state folder no console registered that holds more than a console
// makes before it registers (an agent's nats/ folder, which the console's
// NATS server would serve) is refused as a store is, until the human says
// it is theirs (red team 11a, finding 9).
func TestUnregisteredStateWithNATSFilesIsRefused(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n", agentDef{name: "dev", script: "idle\n"})
	if err := os.MkdirAll(filepath.Join(tm.state, "nats", "jetstream", "$G", "streams", "TEAMLEAD_e2e"), 0o700); err != nil {
		t.Fatal(err)
	}
	c := &console{t: t, cmd: exec.Command(bin.teamlead, "run", "--headless", "--config", tm.config, "--state", tm.state, "--nats-listen", "127.0.0.1:0"),
		out: &testbin.Buffer{}, done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr, c.cmd.Env = c.out, c.out, tm.env()
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(c.kill)
	waitFor(t, 20*time.Second, "the console to refuse the state folder, or start", func() bool {
		return c.exited() || strings.Contains(c.out.String(), "teamlead: running")
	})
	if !c.exited() || !strings.Contains(c.out.String(), "holds nats, which no console of yours made") || !strings.Contains(c.out.String(), "--adopt-state") {
		t.Fatalf("a state folder with a nats/ folder no console made was taken:\n%s", c.out)
	}
	tm.start("--adopt-state").stop()
	tm.start().stop() // registered now
}

// A NATS token planted in a state folder before its console first ran is
// not served: the secrets of a state no console registered are made anew
// (red team 10a, finding 14).
func TestPlantedTokenIsNotServed(t *testing.T) {
	tm := newTeamWith(t, "bus:\n  name: e2e\n", agentDef{name: "dev", script: "idle\n"})
	planted := "0123456789abcdef0123456789abcdef0123456789abcdef"
	if err := os.MkdirAll(filepath.Join(tm.state, "secrets"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tm.state, "secrets", "nats-token"), []byte(planted+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := tm.start("--nats-listen", "127.0.0.1:0")
	defer c.stop()
	if url := natsURLOf(t, tm); strings.Contains(url, planted) {
		t.Fatalf("the console serves NATS with the planted token: %s", url)
	}
}

// What of your files runs later as you, outside every sandbox, is
// read-only to agents: your shell's start-up files, ssh's authorized keys
// and the folders of your PATH before the system's (red team 13a,
// finding 7: the home is writable, and its bin folders come first). The
// rest of the home stays theirs to write.
func TestAgentCannotWriteYourStartupFiles(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	for _, d := range []string{".local/bin", ".ssh", ".cache"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(home, ".config/go"), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{".bashrc", ".ssh/authorized_keys", ".config/go/env"} {
		if err := os.WriteFile(filepath.Join(home, f), []byte("# yours\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PATH", filepath.Join(home, ".local/bin")+string(os.PathListSeparator)+filepath.Join(home, "bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
did "echo 'teamlead approve p-1' >> $HOME/.bashrc"
did "echo 'echo pwned' > $HOME/.local/bin/git && chmod +x $HOME/.local/bin/git"
did "echo ssh-ed25519 AAAA agent >> $HOME/.ssh/authorized_keys"
did "mv $HOME/.bashrc $HOME/.bashrc.old"
did "echo x > $HOME/.cache/mine"
did "echo 'echo pwned' > $HOME/bin/git"
sh -c "echo 'teamlead approve p-1' > $HOME/.bash_profile" >/dev/null 2>&1; echo "TRIED: a new .bash_profile"
did "echo GOFLAGS=-toolexec=/tmp/x >> $HOME/.config/go/env"
n=0; while sh -c "echo >> $HOME/.bash_profile" 2>/dev/null && [ $n -lt 400 ]; do sleep 0.05; n=$((n+1)); done
did "echo 'teamlead approve p-1' >> $HOME/.bash_profile"
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	// A start-up file that did not exist cannot be bound before it is
	// made: the first write may land (or its writer be killed when the
	// sandbox pins the new file, as happens under load), but the file is
	// pinned once it appears, so later writes fail, and it is told (red
	// team 14d, finding 3; 19b, finding 8).
	checkAttempts(t, c, out, 9, 4)
	waitFor(t, 20*time.Second, "the new .bash_profile told", func() bool {
		return strings.Contains(c.out.String(), filepath.Join(home, ".bash_profile")+" appeared while agents ran")
	}, c.out.String)
	if b, _ := os.ReadFile(filepath.Join(home, ".bashrc")); string(b) != "# yours\n" {
		t.Errorf("your .bashrc: %q", b)
	}
	if _, err := os.Stat(filepath.Join(home, ".local/bin/git")); err == nil {
		t.Error("an agent's git is first on your PATH")
	}
}

// What else of yours runs later as you is read-only to agents too (red
// team 16a): a PATH folder outside the home (finding 3), what .bashrc
// sources and the folder its loop sources from (4), the venv a PATH link
// leads into (5), Python's user site folder (6) and a tool's start-up file
// (8). An agent CLI's own file is told when it changes instead, and your
// .netrc shows empty.
func TestAgentCannotWriteWhatYourShellRuns(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	tools := filepath.Join(tm.dir, "tools")
	venv := filepath.Join(home, ".local/share/pipx/venvs/mytool")
	for _, d := range []string{".local/bin", ".bashrc.d", ".config/shell", ".local/lib/python3.11/site-packages", filepath.Join(venv, "bin")} {
		if err := os.MkdirAll(filepath.Join(home, strings.TrimPrefix(d, home)), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		".bashrc":                "source ~/.config/shell/extra.sh\nfor f in $HOME/.bashrc.d/*.sh; do . \"$f\"; done\n",
		".config/shell/extra.sh": "# yours\n",
		".bashrc.d/go.sh":        "# yours\n",
		".gdbinit":               "# yours\n",
		".claude.json":           "{}\n",
		".netrc":                 "machine example.com password hunter2\n",
		strings.TrimPrefix(filepath.Join(venv, "pyvenv.cfg"), home+"/"): "home = /usr/bin\n",
		strings.TrimPrefix(filepath.Join(venv, "bin/mytool"), home+"/"): "#!/bin/sh\n",
	}
	for f, text := range files {
		if err := os.WriteFile(filepath.Join(home, f), []byte(text), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../share/pipx/venvs/mytool/bin/mytool", filepath.Join(home, ".local/bin/mytool")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("PATH", tools+string(os.PathListSeparator)+filepath.Join(home, ".local/bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
did "echo 'echo pwned' > $TOOLS/git"
did "echo pwned >> $HOME/.config/shell/extra.sh"
did "echo pwned > $HOME/.bashrc.d/evil.sh"
did "echo pwned >> $HOME/.local/share/pipx/venvs/mytool/bin/mytool"
did "echo 'import os' > $HOME/.local/lib/python3.11/site-packages/zz.pth"
did "echo 'shell echo pwned' >> $HOME/.gdbinit"
did "echo '{\"mcpServers\":{}}' > $HOME/.claude.json"
did "grep -q hunter2 $HOME/.netrc"
did "echo x > $HOME/.cache-mine"
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + ", TOOLS: " + tools + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 9, 6, 8)
	waitFor(t, 20*time.Second, "the changed .claude.json told", func() bool {
		return strings.Contains(c.out.String(), filepath.Join(home, ".claude.json")+" changed while agents ran")
	}, c.out.String)
	if _, err := os.Stat(filepath.Join(tools, "git")); err == nil {
		t.Error("an agent's git is first on your PATH")
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".netrc")); !strings.Contains(string(b), "hunter2") {
		t.Errorf("your .netrc: %q", b)
	}
}

// A team file found by default (configs/team.yaml of the folder) that no
// console started before and that runs agents outside the sandbox is not
// started once another console has run here: an agent of that console
// could have written it where the human later types a plain teamlead run
// (red team 14d, finding 4). Named with --config, it starts.
func TestPlantedTeamFileFoundByDefaultIsRefused(t *testing.T) {
	tm := newTeam(t)
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"/bin/sh", "-c", "exec sleep 600"}}})
	c := tm.start()
	c.stop()
	work := filepath.Join(tm.dir, "work")
	if err := os.MkdirAll(filepath.Join(work, "configs"), 0o755); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(tm.dir, "PWNED")
	planted := "agents:\n  - name: evil\n    isolation: none\n    restart: never\n    command: [/bin/sh, -c, \"touch " + marker + "; exec sleep 600\"]\n"
	if err := os.WriteFile(filepath.Join(work, "configs", "team.yaml"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		cmd := exec.Command(bin.teamlead, append([]string{"run", "--headless", "--state", filepath.Join(work, "state"), "--grace", "1s"}, args...)...)
		cmd.Env, cmd.Dir = tm.env(), work
		var out testbin.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return out.String(), err
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
			<-done
			return out.String(), errors.New("still running")
		}
	}
	out, err := run()
	if err == nil || !strings.Contains(out, "found by default and never started before, runs evil (isolation: none) outside the sandbox") {
		t.Fatalf("a plain teamlead run on the planted file: %v\n%s", err, out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the planted agent ran")
	}
}

// The system's folders, other users' homes, the start-up files of the home
// the system names for you when $HOME is elsewhere, and the toolchains
// your shims and go run are read-only to agents (red team 18b: as root
// an agent left a program in /usr/local/bin that the human ran (finding
// 4), and a python under ~/.pyenv/versions that the pyenv shim ran (3);
// /root/.bashrc was open with HOME elsewhere (5)). Each attempt is an
// access check, which writes nothing if it passes. The agent's own folder
// stays writable.
func TestAgentCannotWriteTheSystemOrYourToolchains(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	goroot := filepath.Join(tm.dir, "sdk", "go")
	for _, d := range []string{".pyenv/versions", ".rustup/toolchains"} {
		if err := os.MkdirAll(filepath.Join(home, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(goroot, "src", "runtime"), 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("GOROOT", goroot)
	t.Setenv("PYENV_ROOT", "")
	t.Setenv("RUSTUP_HOME", "")
	// The home the system names for this user, with a start-up file there.
	sysHome := ""
	if u, err := user.Current(); err == nil && u.HomeDir != "" && u.HomeDir != home {
		for _, f := range []string{".bashrc", ".profile"} {
			if p := filepath.Join(u.HomeDir, f); unix.Access(p, unix.W_OK) == nil {
				sysHome = p
				break
			}
		}
	}
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
did "test -w /usr/local/bin"
did "test -w /usr/bin"
did "test -w /etc"
did "test -w $HOME/.pyenv/versions"
did "test -w $HOME/.rustup/toolchains"
did "test -w $GOROOT/src"
did "test -w ${SYSHOME:-/nonexistent}"
did "echo x > ./mine"
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + ", SYSHOME: '" + sysHome + "'}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	checkAttempts(t, c, out, 8, 7)
}

// The start-up files of pagers, debuggers and interpreters are read-only
// in the sandbox (red team 19b, finding 9: ~/.config/lesskey's LESSOPEN
// ran an agent's program at the human's next less and git log), and a
// toolchain home the human's own tool makes while agents run becomes
// read-only once it appears (finding 8: the human's cargo made ~/.rustup,
// an agent then put a cargo of its own in it).
func TestAgentCannotWriteYourStartupFilesNorToolchainsMadeLater(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	for _, f := range []string{".config/lesskey", ".pdbrc", ".perldb", ".lesskey"} {
		p := filepath.Join(home, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# the human's\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("RUSTUP_HOME", "")
	rustup := filepath.Join(home, ".rustup")
	out := filepath.Join(tm.dir, "dev.out")
	script := `exec > "$OUT" 2>&1
did() { if sh -c "$1" >/dev/null 2>&1; then r=DID; else r=FAILED; fi; echo "$r: $1"; }
did "echo '#env' >> $HOME/.config/lesskey"
did "echo x >> $HOME/.lesskey"
did "echo x >> $HOME/.pdbrc"
did "echo x >> $HOME/.perldb"
until [ -e $HOME/.rustup/settings.toml ]; do sleep 0.05; done
n=0; while [ -w $HOME/.rustup ] && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
did "mkdir -p $HOME/.rustup/toolchains/evil/bin"
did "echo x > ./mine"
echo done; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "dev", command: []string{"/bin/sh", "-c", script}}})
	c := tm.start()
	defer c.stop()
	waitFor(t, 30*time.Second, "the agent's first attempts", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Count(string(b), "\n") >= 4
	}, func() string { return c.out.String() })
	// The human's own cargo makes its home while the agent runs.
	if err := os.MkdirAll(rustup, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(rustup, "settings.toml"), []byte("version = \"12\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	checkAttempts(t, c, out, 6, 5)
}

// Claude Code keeps a folder's conversations in the home every agent
// shares (~/.claude/projects/<folder>): another agent read there what
// the human told this one, and could write "user" turns it would resume
// (red team 21b, finding 3). Each sandbox shows the other agents' folders
// there empty (what is written there stays in the sandbox); the agent's
// own stays its to write. Another agent's folder is read-only: an agent
// wrote hooks into another's .claude/settings.local.json (finding 4).
func TestAgentCannotReachAnotherAgentsConversationOrFolder(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	home := filepath.Join(tm.dir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	victimDir, evilDir := filepath.Join(tm.dir, "victim"), filepath.Join(tm.dir, "evil")
	for _, d := range []string{victimDir, evilDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	realVictim, _ := filepath.EvalSymlinks(victimDir)
	conv := filepath.Join(home, ".claude", "projects", regexp.MustCompile(`[^a-zA-Z0-9]`).ReplaceAllString(realVictim, "-"))
	victim := `mkdir -p ` + conv + ` && echo '{"type":"user","message":"HUMAN-SECRET hunter2"}' > ` + conv + `/s.jsonl && echo VICTIM-WROTE > ` + victimDir + `/wrote.txt; exec sleep 600`
	out := filepath.Join(tm.dir, "evil.out")
	evil := `exec > "$OUT" 2>&1
n=0; until [ -s ` + victimDir + `/wrote.txt ] || [ $n -ge 400 ]; do sleep 0.05; n=$((n+1)); done
if cat ` + conv + `/s.jsonl 2>/dev/null | grep -q hunter2; then echo "BREACH: read"; else echo "held: read"; fi
if ls -A ` + conv + ` | grep -q .; then echo "BREACH: listed"; else echo "held: listed"; fi
sh -c 'echo forged >> ` + conv + `/s.jsonl' 2>/dev/null
mkdir -p ` + victimDir + `/.claude 2>/dev/null
if sh -c 'echo "{\"hooks\":{}}" > ` + victimDir + `/.claude/settings.local.json' 2>/dev/null; then echo "BREACH: settings"; else echo "held: settings"; fi
if sh -c 'echo x > ` + victimDir + `/planted.txt' 2>/dev/null; then echo "BREACH: folder"; else echo "held: folder"; fi
if sh -c 'echo mine > ` + evilDir + `/mine.txt' 2>/dev/null; then echo "own: folder"; fi
echo checked; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "victim", dir: victimDir, preset: "claude-code", command: []string{"sh", "-c", victim}},
		{name: "evil", dir: evilDir, command: []string{"sh", "-c", evil}}})
	c := tm.start()
	defer c.stop()
	allHeld(t, c, out, "evil", 4, "own: folder")
	// What evil wrote there went to the empty folder it was shown.
	if b, _ := os.ReadFile(filepath.Join(conv, "s.jsonl")); !strings.Contains(string(b), "hunter2") || strings.Contains(string(b), "forged") {
		t.Fatalf("victim's conversation: %q", b)
	}
}

// The files the team's commands name are read-only in every sandbox: an
// agent replaced another's launcher script in the team's folder, and on
// its next start its code ran as that agent (red team 22b, finding 1).
func TestAgentCannotReplaceAnotherAgentsProgram(t *testing.T) {
	needSandbox(t)
	tm := newTeam(t)
	bin := filepath.Join(tm.dir, "bin")
	otherDir, evilDir := filepath.Join(tm.dir, "other"), filepath.Join(tm.dir, "evil")
	for _, d := range []string{bin, otherDir, evilDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	launcher := filepath.Join(bin, "other.sh")
	if err := os.WriteFile(launcher, []byte("#!/bin/sh\nexec sleep 600\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(tm.dir, "evil.out")
	evil := `exec > "$OUT" 2>&1
if sh -c 'echo "touch PLANTED" >> ` + launcher + `' 2>/dev/null; then echo "BREACH: write"; else echo "held: write"; fi
if sh -c 'printf "#!/bin/sh\ntouch PLANTED\n" > ` + bin + `/x.tmp && mv ` + bin + `/x.tmp ` + launcher + `' 2>/dev/null; then echo "BREACH: rename"; else echo "held: rename"; fi
echo checked; exec sleep 600`
	tm.extra = "    env: {OUT: " + out + "}\n"
	tm.write("team.yaml", []agentDef{{name: "other", dir: otherDir, command: []string{"sh", launcher}},
		{name: "evil", dir: evilDir, command: []string{"sh", "-c", evil}}})
	c := tm.start()
	defer c.stop()
	allHeld(t, c, out, "evil", 2)
	if b, _ := os.ReadFile(launcher); string(b) != "#!/bin/sh\nexec sleep 600\n" {
		t.Fatalf("other's launcher: %q", b)
	}
}

// allHeld waits for the attempts an agent writes to out ("held: …" or
// "BREACH: …" lines, then "checked"), and fails unless none breached, held
// lines number held, and each of want is there too; it returns them.
func allHeld(t *testing.T, c *console, out, who string, held int, want ...string) string {
	t.Helper()
	waitFor(t, 60*time.Second, who+"'s attempts", func() bool {
		b, _ := os.ReadFile(out)
		return strings.Contains(string(b), "checked")
	}, c.out.String)
	b, _ := os.ReadFile(out)
	got := string(b)
	ok := !strings.Contains(got, "BREACH") && strings.Count(got, "held: ") == held
	for _, w := range want {
		ok = ok && strings.Contains(got, w)
	}
	if !ok {
		t.Fatalf("%s's attempts:\n%s", who, got)
	}
	return got
}
