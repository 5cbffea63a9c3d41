// Package e2e runs the real teamlead binary with scripted mockagent agents
// over real PTYs and checks, byte for byte where it matters, what every
// agent received.
package e2e

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testbin"
)

var bin struct{ teamlead, mockagent string }

func TestMain(m *testing.M) {
	if req := os.Getenv("E2E_RAW_REQUEST"); req != "" {
		// Run by an agent of a test: one request, as written, to the
		// console's socket, and what it answered.
		c, err := net.Dial("unix", os.Getenv("TEAMLEAD_SOCKET"))
		if err != nil {
			fmt.Println("dial:", err)
			os.Exit(1)
		}
		_, _ = c.Write([]byte(req + "\n"))
		reply, _ := io.ReadAll(io.LimitReader(c, 1<<20))
		fmt.Printf("reply: %s\n", reply)
		os.Exit(0)
	}
	var b testbin.Bins
	testbin.Main(func() int {
		bin.teamlead, bin.mockagent = b.Teamlead, b.Mockagent
		return m.Run()
	}, &b)
}

// agentDef is one mockagent in a test team.
type agentDef struct {
	name, role string
	script     string   // mockagent script text
	flags      []string // extra mockagent flags (--raw, --bracketed-paste)
	command    []string // a command instead of mockagent (script and flags unused)
	restart    string   // restart policy (default never)
	parse      string   // stream (default) or screen
	dir        string   // working directory (default the team's folder)
	preset     string   // preset (default plain)
	host       string   // the node that runs it (default the console's machine)
}

// team is a directory holding a team file, the agents' scripts and what
// each agent received (<name>.in, appended across restarts).
type team struct {
	t      *testing.T
	dir    string
	config string
	state  string
	extra  string // YAML appended to the team file (questions:, ui:, ...)
	// cwd is the folder the console starts in (default: the test's).
	cwd string
	// stateHome, when set, is XDG_STATE_HOME (another team's: one user's
	// consoles, one registry).
	stateHome string
	// launched are the consoles and nodes started, whose output a failed
	// wait shows.
	launched []*console
}

// outputs is the end of what each console and node launched printed, for
// a failure message: a wait that timed out says what the console saw.
func (tm *team) outputs() string {
	var b strings.Builder
	for i, c := range tm.launched {
		out := c.out.String()
		if len(out) > 6000 {
			out = "…" + out[len(out)-6000:]
		}
		fmt.Fprintf(&b, "--- output of launch %d (%s):\n%s\n", i+1, strings.Join(c.cmd.Args[1:3], " "), out)
	}
	return b.String()
}

// env is the environment of the team's console and commands: no TEAMLEAD_*
// from the test's, and the team's own record of running consoles
// (XDG_STATE_HOME), so a test never finds another test's console.
func (tm *team) env() []string {
	stateHome := tm.stateHome
	if stateHome == "" {
		stateHome = filepath.Join(tm.dir, "xdg-state")
	}
	return append(os.Environ(), "TEAMLEAD_STATE=", "TEAMLEAD_CONFIG=", "TEAMLEAD_SOCKET=", "XDG_STATE_HOME="+stateHome)
}

func newTeam(t *testing.T, agents ...agentDef) *team {
	t.Helper()
	return newTeamWith(t, "", agents...)
}

// newTeamWith is newTeam with extra YAML for the team file.
func newTeamWith(t *testing.T, extra string, agents ...agentDef) *team {
	t.Helper()
	tm := &team{t: t, dir: t.TempDir(), extra: extra}
	tm.state = filepath.Join(tm.dir, "state")
	tm.write("team.yaml", agents)
	return tm
}

// write (re)writes a team file named file and makes it the current one.
func (tm *team) write(file string, agents []agentDef) {
	tm.t.Helper()
	var b strings.Builder
	b.WriteString("agents:\n")
	for _, a := range agents {
		script := filepath.Join(tm.dir, file+"."+a.name+".mock")
		// Every agent says something once its terminal is set up; the
		// console waits for that before typing into it.
		text := "say {name} ready\n" + a.script
		if err := os.WriteFile(script, []byte(text), 0o600); err != nil {
			tm.t.Fatal(err)
		}
		args := []string{bin.mockagent, "--name", a.name, "--record", tm.input(a.name)}
		args = append(args, a.flags...)
		args = append(args, script)
		if a.command != nil {
			args = a.command
		}
		role, restart := a.role, a.restart
		if role == "" {
			role = a.name
		}
		if restart == "" {
			restart = "never"
		}
		if a.parse != "" {
			restart += "\n    parse: " + a.parse
		}
		if a.preset != "" {
			restart += "\n    preset: " + a.preset
		}
		if a.host != "" {
			restart += "\n    host: " + a.host
		}
		dir := a.dir
		if dir == "" {
			dir = tm.dir
		}
		fmt.Fprintf(&b, "  - name: %s\n    role: %s\n    restart: %s\n    dir: %s\n    command: [%s]\n", a.name, role, restart, dir, quoteAll(args))
	}
	b.WriteString(tm.extra)
	tm.config = filepath.Join(tm.dir, file)
	if err := os.WriteFile(tm.config, []byte(b.String()), 0o600); err != nil {
		tm.t.Fatal(err)
	}
}

func quoteAll(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		q[i] = fmt.Sprintf("%q", a)
	}
	return strings.Join(q, ", ")
}

// input is the file where agent name records every byte it read.
func (tm *team) input(name string) string { return filepath.Join(tm.dir, name+".in") }

// received returns what agent name has read so far.
func (tm *team) received(name string) string {
	b, _ := os.ReadFile(tm.input(name))
	return string(b)
}

// waitReceived waits until agent name has read something containing want.
func (tm *team) waitReceived(name, want string) string {
	tm.t.Helper()
	var got string
	waitFor(tm.t, 20*time.Second, fmt.Sprintf("%s to receive %q", name, want), func() bool {
		got = tm.received(name)
		return strings.Contains(got, want)
	}, func() string { return fmt.Sprintf("%s received %q\n%s", name, got, tm.outputs()) })
	return got
}

// console is a running `teamlead run --headless`.
type console struct {
	t    *testing.T
	cmd  *exec.Cmd
	out  *testbin.Buffer
	done chan struct{}
	err  error
}

func (tm *team) start(extra ...string) *console {
	tm.t.Helper()
	args := append([]string{"run", "--headless", "--config", tm.config, "--state", tm.state, "--grace", "3s"}, extra...)
	return tm.launch("the console", "teamlead: running", args...)
}

// startRefused runs the console as start does, expecting it to refuse to
// start: it returns what the console printed before it exited, and fails
// the test when it starts running instead.
func (tm *team) startRefused(extra ...string) string {
	tm.t.Helper()
	args := append([]string{"run", "--headless", "--config", tm.config, "--state", tm.state, "--grace", "3s"}, extra...)
	c := &console{t: tm.t, cmd: exec.Command(bin.teamlead, args...), out: &testbin.Buffer{}, done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	c.cmd.Env, c.cmd.Dir = tm.env(), tm.cwd
	if err := c.cmd.Start(); err != nil {
		tm.t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	defer c.kill()
	waitFor(tm.t, 60*time.Second, "the console to exit or run", func() bool {
		return strings.Contains(c.out.String(), "teamlead: running") || c.exited()
	})
	if !c.exited() || c.err == nil {
		tm.t.Fatalf("the console started:\n%s", c.out)
	}
	return c.out.String()
}

// startNode starts `teamlead node --name name` for the team on the NATS
// server at url, with a state folder of its own.
func (tm *team) startNode(name, url string) *console {
	tm.t.Helper()
	return tm.launch("the node", "teamlead node "+name+": running",
		"node", "--name", name, "--nats", url, "--config", tm.config, "--state", filepath.Join(tm.dir, "node-"+name))
}

// startNodeFile is startNode with the URL read from a file (--nats-file),
// as the README tells people to run a node: in a folder of its own, which
// every sandbox hides.
func (tm *team) startNodeFile(name, url string) *console {
	tm.t.Helper()
	file := tm.nodeFile(name)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		tm.t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(url+"\n"), 0o600); err != nil {
		tm.t.Fatal(err)
	}
	return tm.launch("the node", "teamlead node "+name+": running",
		"node", "--name", name, "--nats-file", file, "--config", tm.config, "--state", filepath.Join(tm.dir, "node-"+name))
}

// nodeFile is where startNodeFile keeps node name's URL.
func (tm *team) nodeFile(name string) string { return filepath.Join(tm.dir, "nodes", name+".url") }

// launch starts teamlead with args and waits until it prints ready.
func (tm *team) launch(what, ready string, args ...string) *console {
	tm.t.Helper()
	c := &console{t: tm.t, cmd: exec.Command(bin.teamlead, args...), out: &testbin.Buffer{}, done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = c.out, c.out
	c.cmd.Env, c.cmd.Dir = tm.env(), tm.cwd
	if err := c.cmd.Start(); err != nil {
		tm.t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	tm.t.Cleanup(func() { c.kill() })
	tm.launched = append(tm.launched, c)
	waitFor(tm.t, 20*time.Second, what+" to start", func() bool {
		return strings.Contains(c.out.String(), ready) || c.exited()
	})
	if c.exited() {
		tm.t.Fatalf("%s exited at start: %v\n%s", what, c.err, c.out)
	}
	return c
}

func (c *console) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM and waits for a clean exit.
func (c *console) stop() {
	c.t.Helper()
	_ = c.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(30 * time.Second):
		c.kill()
		c.t.Fatalf("console did not stop within 30s after SIGTERM:\n%s", c.out)
	}
	if c.err != nil {
		c.t.Fatalf("console exited with %v:\n%s", c.err, c.out)
	}
}

// kill sends SIGKILL (the console gets no chance to clean up) and waits.
func (c *console) kill() {
	if c.exited() {
		return
	}
	_ = c.cmd.Process.Kill()
	<-c.done
}

// cli runs a teamlead subcommand against the team's state and config.
func (tm *team) cli(args ...string) (string, error) {
	full := append(append([]string{}, args...), "--state", tm.state, "--config", tm.config)
	cmd := exec.Command(bin.teamlead, full...)
	cmd.Env = tm.env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// cliIn runs a teamlead subcommand in folder dir as a person would type it:
// without --state or --config.
func (tm *team) cliIn(dir string, args ...string) (string, error) {
	cmd := exec.Command(bin.teamlead, args...)
	cmd.Env, cmd.Dir = tm.env(), dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (tm *team) mustCLI(args ...string) string {
	tm.t.Helper()
	out, err := tm.cli(args...)
	if err != nil {
		tm.t.Fatalf("teamlead %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// waitFor polls cond until it holds or the deadline passes; explain, if
// given, adds what the test saw to the failure.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool, explain ...func() string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			msg := fmt.Sprintf("timed out after %v waiting for %s", timeout, what)
			for _, e := range explain {
				msg += "\n" + e()
			}
			t.Fatal(msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// typed is how the plain preset types an envelope into an agent that has
// not enabled bracketed paste: lines separated by CR, then the submit CR.
func typed(lines ...string) string { return strings.Join(lines, "\r") + "\r" }

// cooked is what an agent in cooked mode reads for the same text: the line
// discipline turns each CR into LF.
func cooked(lines ...string) string { return strings.Join(lines, "\n") + "\n" }
