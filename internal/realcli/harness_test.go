//go:build realcli

package realcli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/teamlead/teamlead/configs"
	"github.com/teamlead/teamlead/internal/control"
	"github.com/teamlead/teamlead/internal/fakemodel"
	"github.com/teamlead/teamlead/internal/readmodel"
	"github.com/teamlead/teamlead/internal/testbin"
	"github.com/teamlead/teamlead/internal/testwait"
	"github.com/teamlead/teamlead/internal/vt"
)

// bin holds the teamlead and mockagent binaries built for the suite.
var bin struct{ teamlead, mockagent string }

func TestMain(m *testing.M) {
	var b testbin.Bins
	testbin.Main(func() int {
		bin.teamlead, bin.mockagent = b.Teamlead, b.Mockagent
		return m.Run()
	}, &b)
}

// Deadlines: the CLIs take seconds to start and a model turn takes a few
// more on a busy machine; these are generous on purpose.
const (
	startDeadline = 90 * time.Second
	stepDeadline  = 60 * time.Second
)

// cliDir is where the CLIs are installed, each with npm into a folder of
// its own (TEAMLEAD_CLIS, default ~/.cache/teamlead/clis).
func cliDir() string {
	if d := os.Getenv("TEAMLEAD_CLIS"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "teamlead-clis")
	}
	return filepath.Join(home, ".cache", "teamlead", "clis")
}

// cli is an agent CLI under test.
type cli struct {
	// name is its folder under cliDir and its executable.
	name string
	// pkg is the npm package, and version the version pinned.
	pkg, version string
	// preset is its preset in configs/presets.yaml.
	preset string
	// prepare readies a private HOME for it (internal/fakemodel).
	prepare func(home, project, baseURL, key string) ([]string, error)
}

var (
	claudeCode = cli{"claude", "@anthropic-ai/claude-code", "2.1.328", "claude-code", fakemodel.PrepareClaude}
	codex      = cli{"codex", "@openai/codex", "0.169.0", "codex", fakemodel.PrepareCodex}
	gemini     = cli{"gemini", "@google/gemini-cli", "0.61.0", "gemini", fakemodel.PrepareGemini}
	copilot    = cli{"copilot", "@github/copilot", "1.0.102", "copilot", fakemodel.PrepareCopilot}
	opencode   = cli{"opencode", "opencode-ai", "1.18.33", "opencode", fakemodel.PrepareOpenCode}
)

// find returns the CLI's executable, or skips the test when it is not
// installed.
func (c cli) find(t *testing.T) string {
	t.Helper()
	prefix := filepath.Join(cliDir(), c.name)
	exe := filepath.Join(prefix, "node_modules", ".bin", c.name)
	if _, err := os.Stat(exe); err != nil {
		t.Skipf("%s is not installed: no %s (install it with `npm install --prefix %s %s@%s`, or point TEAMLEAD_CLIS at the folder holding %s/; .ci/run installs it)",
			c.name, exe, prefix, c.pkg, c.version, c.name)
	}
	var pkg struct{ Version string }
	if b, err := os.ReadFile(filepath.Join(prefix, "node_modules", filepath.FromSlash(c.pkg), "package.json")); err == nil {
		_ = json.Unmarshal(b, &pkg)
	}
	if pkg.Version != c.version {
		t.Logf("note: %s %s is installed; the suite and the fixtures are for %s", c.pkg, pkg.Version, c.version)
	}
	return exe
}

// token is a few random hex digits, to make a test's words unique.
func token() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// The agents of every test team.
const (
	dev  = "dev"  // the real CLI
	sink = "sink" // a mockagent that records what it receives
)

// rig is one test's world: the scripted model server, the CLI's private
// HOME and project folder, a team of the CLI and a mockagent sink, and the
// real teamlead console running it headless.
type rig struct {
	t   *testing.T
	cli cli
	// dir holds the team file, the console's state and HOME, and what
	// the sink receives (sink.in).
	dir, state, config, consoleHome string
	// home is the CLI's private HOME; project its working folder.
	home, project string
	model         *fakemodel.Server
	start         time.Time

	console *exec.Cmd
	out     *testbin.Buffer
	done    chan struct{}
	err     error
}

// within reports whether cond comes to hold within d.
func (r *rig) within(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) || r.exited() {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

// delivered lists the console's records of text delivered to the CLI
// agent (read by it off its terminal) that match.
func (r *rig) delivered(match func(record) bool) []record {
	r.t.Helper()
	var out []record
	for _, d := range r.audit("--kind", "delivered", "--agent", dev) {
		if match(d) {
			out = append(out, d)
		}
	}
	return out
}

// submitted waits for a conversation request holding words, which the
// console typed into the CLI (what; delivered reports that the console
// recorded it read by the CLI). When none comes although the CLI read the
// text, the failure says so: the CLI did not take the submit key (Gemini
// CLI on a loaded machine once took an Enter 150 ms after the paste as a
// newline and kept the message in its input box).
func (r *rig) submitted(what, words string, delivered func() bool) {
	r.t.Helper()
	holds := func() bool {
		for _, q := range r.model.Requests() {
			if (q.Script >= 0 || q.Held) && strings.Contains(string(q.Body), words) {
				return true
			}
		}
		return false
	}
	if r.within(stepDeadline, holds) {
		r.logf("%s reached the model", what)
		return
	}
	if delivered() {
		r.t.Fatalf("%s was typed into the CLI, which read it, but it never reached the model: the CLI did not take the submit key (an Enter taken as a newline?)\n%s", what, r.explain())
	}
	r.t.Fatalf("%s was never delivered to the CLI\n%s", what, r.explain())
}

// held counts the conversation requests answered with the aside.
func (r *rig) held() int {
	n := 0
	for _, q := range r.model.Requests() {
		if q.Held {
			n++
		}
	}
	return n
}

// rigOptions say how the CLI agent is set up.
type rigOptions struct {
	// preset is the CLI agent's preset (default the CLI's own). A name
	// not in configs/presets.yaml is a copy of the CLI's own preset,
	// written into the team file under that name.
	preset string
	// sinkScript is the sink's mockagent script, after its first line.
	sinkScript string
	// presetFields are set in the copied preset (only with preset): e.g.
	// {submit_delay: 0s}.
	presetFields map[string]string
}

// newRig starts the model server with replies, prepares the CLI's home and
// project, writes the team file and starts the console; everything is
// stopped, and every process left with the CLI's HOME killed, when the
// test ends.
func newRig(t *testing.T, c cli, replies []fakemodel.Reply, o rigOptions) *rig {
	t.Helper()
	exe := c.find(t)
	dir := t.TempDir()
	r := &rig{t: t, cli: c, dir: dir, start: time.Now(),
		// The state folder holds the Gemini CLI hooks file, which Gemini
		// CLI reads only from a folder no one else can write to.
		state: filepath.Join(testbin.SecureDir(t), "state"), config: filepath.Join(dir, "team.yaml"),
		consoleHome: filepath.Join(dir, "console-home"),
		home:        filepath.Join(dir, "cli-home"), project: filepath.Join(dir, "project")}
	for _, d := range []string{r.consoleHome, r.home, r.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for i := range replies {
		if tc := replies[i].Tool; tc != nil {
			cp := *tc
			cp.Dir = r.project
			replies[i].Tool = &cp
		}
	}
	model, err := fakemodel.Start(fakemodel.Config{Replies: replies, Chunk: 64, Delay: 5 * time.Millisecond,
		LogPath: filepath.Join(dir, "requests.jsonl")})
	if err != nil {
		t.Fatal(err)
	}
	r.model = model
	t.Cleanup(func() { model.Close() })
	env, err := c.prepare(r.home, r.project, model.URL(), "")
	if err != nil {
		t.Fatal(err)
	}
	// Codex runs commands in a login shell (bash -lc), which resets PATH
	// from /etc/profile: the private HOME's profile puts this PATH (with
	// go on it) back, as a person's own profile would.
	profile := "export PATH=" + shellQuote(os.Getenv("PATH")) + "\n"
	if err := os.WriteFile(filepath.Join(r.home, ".bash_profile"), []byte(profile), 0o644); err != nil {
		t.Fatal(err)
	}
	r.writeTeam(exe, env, o)
	r.startConsole()
	return r
}

// teamFile is the YAML of a test's team file.
type teamFile struct {
	Agents  []teamAgent           `yaml:"agents"`
	Presets map[string]*yaml.Node `yaml:"presets,omitempty"`
}

type teamAgent struct {
	Name    string            `yaml:"name"`
	Role    string            `yaml:"role"`
	Preset  string            `yaml:"preset,omitempty"`
	Dir     string            `yaml:"dir"`
	Restart string            `yaml:"restart"`
	Command []string          `yaml:"command"`
	Env     map[string]string `yaml:"env,omitempty"`
}

func (r *rig) writeTeam(exe string, env []string, o rigOptions) {
	t := r.t
	t.Helper()
	preset := o.preset
	if preset == "" {
		preset = r.cli.preset
	}
	envMap := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		envMap[k] = v
	}
	script := filepath.Join(r.dir, "sink.mock")
	// The sink's expect waits as long as the test's own deadlines: its
	// default 30 s ran from the sink's start, and a CLI slow to start
	// (OpenCode took 27 s under load) had it exit before the relay came.
	if err := os.WriteFile(script, []byte("say sink ready\ntimeout 15m\n"+o.sinkScript), 0o644); err != nil {
		t.Fatal(err)
	}
	command := []string{exe}
	if keep := os.Getenv("TEAMLEAD_REALCLI_SCREENS"); keep != "" {
		command = r.recorded(exe, keep)
	}
	tf := teamFile{Agents: []teamAgent{
		{Name: dev, Role: "developer", Preset: preset, Dir: r.project, Restart: "never", Command: command, Env: envMap},
		{Name: sink, Role: "reviewer", Dir: r.dir, Restart: "never",
			Command: []string{bin.mockagent, "--name", sink, "--record", r.sinkRecord(), "--raw", script}},
	}}
	if preset != r.cli.preset {
		p := builtinPreset(t, r.cli.preset)
		for k, v := range o.presetFields {
			if n := value(p, k); n != nil {
				n.Value, n.Tag, n.Style = v, "", 0 // the YAML type from the text, as written by hand
			} else {
				p.Content = append(p.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: k}, &yaml.Node{Kind: yaml.ScalarNode, Value: v})
			}
		}
		tf.Presets = map[string]*yaml.Node{preset: p}
	}
	b, err := yaml.Marshal(tf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(r.config, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// recorded wraps the CLI in script(1), which records everything it writes
// to its terminal; when the test ends, the recording and the screen it
// leaves (replayed through the console's emulator at the agents' default
// 120x40) are written into dir as <test>.typescript and <test>.screen.txt,
// with what the model server received, <test>.requests.jsonl.
// Only for looking into a failure (TEAMLEAD_REALCLI_SCREENS=dir): the CLI
// then runs behind one more terminal.
func (r *rig) recorded(exe, dir string) []string {
	t := r.t
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	typescript := filepath.Join(r.dir, "dev.typescript")
	wrapper := filepath.Join(r.dir, "dev-recorded.sh")
	text := "#!/bin/bash\nexec script -q -f -e -c \"$(printf '%q ' " + shellQuote(exe) + " \"$@\")\" " + shellQuote(typescript) + "\n"
	if err := os.WriteFile(wrapper, []byte(text), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		raw, err := os.ReadFile(typescript)
		if err != nil {
			t.Logf("no recording of the CLI's terminal: %v", err)
			return
		}
		term := vt.New(120, 40, vt.Options{Scrollback: -1})
		term.Write(raw)
		base := filepath.Join(dir, strings.ReplaceAll(t.Name(), "/", "-"))
		os.WriteFile(base+".typescript", raw, 0o644)
		os.WriteFile(base+".screen.txt", []byte(term.ScreenText()), 0o644)
		if reqs, err := os.ReadFile(filepath.Join(r.dir, "requests.jsonl")); err == nil {
			os.WriteFile(base+".requests.jsonl", reqs, 0o644)
		}
		t.Logf("the CLI's last screen: %s.screen.txt", base)
	})
	return []string{wrapper}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// builtinPreset is the YAML of a preset in configs/presets.yaml, to copy
// into a team file under another name.
func builtinPreset(t *testing.T, name string) *yaml.Node {
	t.Helper()
	var doc yaml.Node
	if err := yaml.Unmarshal(configs.Presets, &doc); err != nil {
		t.Fatal(err)
	}
	// document → {presets: {name: …}}
	if n := value(value(&doc, "presets"), name); n != nil {
		return n
	}
	t.Fatalf("no preset %s in configs/presets.yaml", name)
	return nil
}

// value is the value of key in the mapping n (or in the mapping a
// document holds); nil when there is none.
func value(n *yaml.Node, key string) *yaml.Node {
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		n = n.Content[0]
	}
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// sinkRecord is the file where the sink records every byte it reads.
func (r *rig) sinkRecord() string { return filepath.Join(r.dir, "sink.in") }

// received is what the sink has read so far.
func (r *rig) received() string {
	b, _ := os.ReadFile(r.sinkRecord())
	return string(b)
}

// env is the console's (and the teamlead commands') environment: clean,
// so that nothing of the caller's (an API key, a HOME with real
// settings, TEAMLEAD_STATE) reaches the console or the CLI.
func (r *rig) env() []string {
	return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.consoleHome, "LANG=C.UTF-8", "USER=dev", "SHELL=/bin/bash"}
}

func (r *rig) startConsole() {
	t := r.t
	r.console = exec.Command(bin.teamlead, "run", "--headless", "--config", r.config, "--state", r.state, "--grace", "3s")
	r.out = &testbin.Buffer{}
	r.done = make(chan struct{})
	r.console.Stdout, r.console.Stderr = r.out, r.out
	r.console.Env = r.env()
	if err := r.console.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.err = r.console.Wait(); close(r.done) }()
	t.Cleanup(r.cleanup)
	r.waitFor("the console to start", 30*time.Second, func() bool {
		return strings.Contains(r.out.String(), "teamlead: running") || r.exited()
	})
	if r.exited() {
		t.Fatalf("the console exited at start: %v\n%s", r.err, r.out)
	}
}

func (r *rig) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// cleanup stops the console (which stops its agents), then kills whatever
// is left with the CLI's HOME (Codex's app-server daemon leaves the CLI's
// session) or the console's (the sink).
func (r *rig) cleanup() {
	if !r.exited() {
		_ = r.console.Process.Signal(syscall.SIGTERM)
		select {
		case <-r.done:
		case <-time.After(30 * time.Second):
			r.t.Errorf("the console did not stop within 30s of SIGTERM")
			_ = r.console.Process.Kill()
			<-r.done
		}
	}
	for _, home := range []string{r.home, r.consoleHome} {
		var left []string
		for _, pid := range fakemodel.WithHome(home) {
			cmd, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
			left = append(left, fmt.Sprintf("%d %.100s", pid, strings.ReplaceAll(strings.TrimSpace(string(cmd)), "\x00", " ")))
		}
		if killed := fakemodel.KillHome(home); len(killed) > 0 {
			r.t.Logf("killed %d processes the console left behind with HOME=%s: %s", len(killed), home, strings.Join(left, "; "))
		}
	}
	if r.t.Failed() {
		r.t.Logf("console output:\n%s", r.out)
	}
}

// kill SIGKILLs the console, as a crash would, and waits until the CLI it
// ran is gone too (it loses its terminal with the console).
func (r *rig) kill() {
	r.t.Helper()
	_ = r.console.Process.Kill()
	<-r.done
	testwait.Until(r.t, stepDeadline, func() bool { return len(fakemodel.WithHome(r.home)) == 0 },
		func() string { return fmt.Sprintf("the CLI still runs %s after the console was killed", stepDeadline) })
	r.logf("the CLI gone with the console")
}

// stop stops the console and fails the test if it did not exit cleanly.
func (r *rig) stop() {
	r.t.Helper()
	_ = r.console.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		r.t.Fatalf("the console did not stop within 30s of SIGTERM:\n%s", r.out)
	}
	if r.err != nil {
		r.t.Errorf("the console exited with %v:\n%s", r.err, r.out)
	}
}

// logf logs with the time since the rig started, to see where time goes.
func (r *rig) logf(format string, args ...any) {
	r.t.Helper()
	r.t.Logf("%5.1fs "+format, append([]any{time.Since(r.start).Seconds()}, args...)...)
}

// waitFor polls cond until it holds, failing the test at the deadline with
// what the model server, the sink and the console saw.
func (r *rig) waitFor(what string, timeout time.Duration, cond func() bool) {
	r.t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			r.t.Fatalf("timed out after %v waiting for %s\n%s", timeout, what, r.explain())
		}
		if r.exited() {
			r.t.Fatalf("the console exited (%v) while waiting for %s\n%s", r.err, what, r.explain())
		}
		time.Sleep(50 * time.Millisecond)
	}
	r.logf("%s", what)
}

// explain describes what every side saw, for a failure.
func (r *rig) explain() string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- the model server's requests:\n")
	for _, q := range r.model.Requests() {
		fmt.Fprintf(&b, "%s %s %s stream=%v script=%d reply=%.60q", q.Time.Format("15:04:05.000"), q.Method, q.Path, q.Stream, q.Script, q.Reply)
		if q.ToolCall != nil {
			fmt.Fprintf(&b, " call %s %s", q.ToolCall.Name, q.ToolCall.Arguments())
		}
		for _, tr := range q.ToolResults {
			fmt.Fprintf(&b, " [result %s error=%v %.120q]", tr.ID, tr.IsError, tr.Output)
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "--- the sink received:\n%q\n", r.received())
	if out, err := r.teamlead("inbox"); err == nil {
		fmt.Fprintf(&b, "--- inbox:\n%s", out)
	}
	if out, err := r.teamlead("audit", "--limit", "40", "--newest"); err == nil {
		fmt.Fprintf(&b, "--- the audit's latest records:\n%s", out)
	}
	fmt.Fprintf(&b, "--- console output:\n%s", r.out)
	return b.String()
}

// teamlead runs a teamlead command against the running console.
func (r *rig) teamlead(args ...string) (string, error) {
	full := append(append([]string{}, args...), "--state", r.state, "--config", r.config)
	cmd := exec.Command(bin.teamlead, full...)
	cmd.Env = r.env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (r *rig) mustTeamlead(args ...string) string {
	r.t.Helper()
	out, err := r.teamlead(args...)
	if err != nil {
		r.t.Fatalf("teamlead %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// record is one audit record, as `teamlead audit --format json` prints it.
type record struct {
	Kind   string            `json:"kind"`
	From   string            `json:"from"`
	To     []string          `json:"to"`
	Agent  string            `json:"agent"`
	Type   string            `json:"type"`
	Task   string            `json:"task"`
	MsgID  string            `json:"msg_id"`
	Body   string            `json:"body"`
	Fields map[string]string `json:"fields"`
}

func (r *rig) audit(args ...string) []record {
	r.t.Helper()
	out := r.mustTeamlead(append([]string{"audit", "--format", "json"}, args...)...)
	var recs []record
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" {
			continue
		}
		var rec record
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			r.t.Fatalf("audit line %q: %v", line, err)
		}
		recs = append(recs, rec)
	}
	return recs
}

// screenState is what the console reads off the CLI agent's screen (or
// its hook says): idle, busy, waiting, or "" before it knows.
func (r *rig) screenState() string { return r.agent().Hook }

// agent is the CLI agent as the console lists it (zero when the console
// cannot be asked).
func (r *rig) agent() readmodel.AgentInfo {
	c, err := control.NewClient(r.state)
	if err != nil {
		return readmodel.AgentInfo{}
	}
	list, err := c.Agents()
	if err != nil {
		return readmodel.AgentInfo{}
	}
	for _, a := range list {
		if a.Name == dev {
			return a
		}
	}
	return readmodel.AgentInfo{}
}

// inboxItem waits until `teamlead inbox` lists a permission request whose
// text holds action and returns its id (p-N).
func (r *rig) inboxItem(action string) string {
	r.t.Helper()
	var id string
	r.waitFor("the request for "+action+" in the inbox", stepDeadline, func() bool {
		out, _ := r.teamlead("inbox")
		for _, line := range strings.Split(out, "\n") {
			if f := strings.Fields(line); len(f) > 2 && strings.HasPrefix(f[0], "p-") && f[2] == "permission" && strings.Contains(line, action) {
				id = f[0]
				return true
			}
		}
		return false
	})
	return id
}

// permission returns the latest audit record of the permission request
// for an action holding action, once its status is status.
func (r *rig) permission(action, status string) record {
	r.t.Helper()
	var found record
	r.waitFor(fmt.Sprintf("the request for %s recorded %s", action, status), stepDeadline, func() bool {
		for _, rec := range r.audit("--kind", "permission") {
			if strings.Contains(rec.Fields["action"], action) && rec.Fields["status"] == status {
				found = rec
				return true
			}
		}
		return false
	})
	return found
}

// call waits for the model server's n-th tool call (from 0) and returns it.
func (r *rig) call(n int, what string) fakemodel.SentCall {
	r.t.Helper()
	var c fakemodel.SentCall
	r.waitFor("the model's call to "+what, stepDeadline, func() bool {
		calls := r.model.Calls()
		if len(calls) > n {
			c = calls[n]
			return true
		}
		return false
	})
	return c
}

// result waits for the result of call to reach the model server.
func (r *rig) result(c fakemodel.SentCall, what string) fakemodel.ToolResult {
	r.t.Helper()
	var tr fakemodel.ToolResult
	r.waitFor("the result of "+what+" at the model server", stepDeadline, func() bool {
		var ok bool
		tr, ok = r.model.Result(c.ID)
		return ok
	})
	return tr
}

// conversation returns the model server's request that used script entry
// n, waiting for it.
func (r *rig) conversation(n int, what string) fakemodel.Request {
	r.t.Helper()
	var req fakemodel.Request
	r.waitFor(what, stepDeadline, func() bool {
		for _, q := range r.model.Requests() {
			if q.Script == n {
				req = q
				return true
			}
		}
		return false
	})
	return req
}

// scratch makes a folder outside every working folder, holding a file,
// for the model to ask to delete; it is removed when the test ends.
func scratch(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "teamlead-realcli-scratch-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	if err := os.WriteFile(filepath.Join(d, "keep.txt"), []byte("scratch\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return d
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
