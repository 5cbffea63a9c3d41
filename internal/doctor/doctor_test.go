package doctor

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/agents"
	"github.com/teamlead/teamlead/internal/control"
)

// fakeBin makes a folder of shell scripts (name → body) the whole PATH.
func fakeBin(t *testing.T, scripts map[string]string) string {
	t.Helper()
	bin := t.TempDir()
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	return bin
}

// env is a LookupEnv over a map.
func env(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// quiet are Options whose terminal and machine checks see a fixed machine.
func quiet(o Options) Options {
	o.LookupEnv = env(map[string]string{"TERM": "xterm-256color"})
	o.Terminal = func() Terminal { return Terminal{Stdout: true, Cols: 120, Rows: 40} }
	o.MachineWarnings = func() []string { return nil }
	o.SandboxProblem = func() string { return "" }
	return o
}

func find(t *testing.T, checks []Check, check, subject string) Check {
	t.Helper()
	for _, c := range checks {
		if c.Check == check && c.Subject == subject {
			return c
		}
	}
	t.Fatalf("no %s %s check in %+v", check, subject, checks)
	return Check{}
}

// The versions the presets were captured from are read from the comments
// of configs/presets.yaml, which names each CLI and its version there.
func TestCapturedVersions(t *testing.T) {
	got := CapturedVersions()
	for _, preset := range []string{"claude-code", "codex", "gemini", "copilot", "opencode"} {
		if !versionRE.MatchString(got[preset]) {
			t.Errorf("%s: captured version %q", preset, got[preset])
		}
	}
	if v, ok := got["aider"]; ok {
		t.Errorf("aider: %q, but presets.yaml names no aider version", v)
	}
	text := []byte(`presets:
  # Codex takes an Enter within 120 ms as a newline (not a version: 1.2)
  codex:
    command: [codex]
    # Codex 0.169.0 with approval_policy = "on-request"
    permission: {}
  claude-code:
    # Claude Code 2.1.x, both renderers
    state: {}
  gemini:
    command: [gemini] # Gemini CLI v0.61.0
  aider:
    # Aider reads a prompt line; from aider/io.py 3.1.4 (another program's version)
    command: [aider]
`)
	want := map[string]string{"codex": "0.169.0", "claude-code": "2.1.x", "gemini": "0.61.0"}
	got = capturedVersions(text)
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
}

func TestCompareVersions(t *testing.T) {
	for _, tc := range []struct {
		installed, captured string
		want                int
	}{
		{"0.169.0", "0.169.0", 0}, {"0.170.1", "0.169.0", 1}, {"0.61.0", "0.61.1", -1},
		{"2.1.328", "2.1.x", 0}, {"2.2.0", "2.1.x", 1}, {"1.9", "2.1.x", -1}, {"0.169", "0.169.0", 0},
	} {
		if got := compareVersions(tc.installed, tc.captured); got != tc.want {
			t.Errorf("compareVersions(%s, %s) = %d, want %d", tc.installed, tc.captured, got, tc.want)
		}
	}
}

func TestInstallHint(t *testing.T) {
	for _, tc := range [][3]string{
		{"claude", "", "npm install -g @anthropic-ai/claude-code"},
		{"claude", "2.1.x", "npm install -g @anthropic-ai/claude-code@2.1"},
		{"codex", "0.169.0", "npm install -g @openai/codex@0.169.0"},
		{"gemini", "", "npm install -g @google/gemini-cli"},
		{"aider", "", "pip install aider-chat"},
		{"aider", "0.86.1", "pip install aider-chat==0.86.1"},
		{"mockagent", "", ""},
	} {
		if got := InstallHint(tc[0], tc[1]); got != tc[2] {
			t.Errorf("InstallHint(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}

// With no team file, the agent CLIs teamlead knows are looked for: one
// missing is a warning with its install command, one found shows its
// version, compared with the one its preset was captured from.
func TestNoTeamChecksKnownCLIs(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	dir := t.TempDir()
	t.Chdir(dir)
	captured := CapturedVersions()["gemini"]
	fakeBin(t, map[string]string{
		"gemini": `[ "$1" = --version ] || exit 2; echo ` + captured,
		"codex":  `echo "codex-cli 9.0.0"`,
		"aider":  `echo "aider 0.86.1"`,
	})
	checks := Run(quiet(Options{Config: "configs/team.yaml", State: filepath.Join(dir, "state")}))
	team := find(t, checks, "team file", "configs/team.yaml")
	if team.Status != Warning || !strings.Contains(team.Fix, "teamlead init") {
		t.Errorf("team file: %+v", team)
	}
	claude := find(t, checks, "agent CLI", "claude")
	if claude.Status != Warning || claude.Fix != "to lead it, install it: npm install -g @anthropic-ai/claude-code" {
		t.Errorf("claude: %+v", claude)
	}
	gemini := find(t, checks, "agent CLI", "gemini")
	if gemini.Status != OK || gemini.Version != captured || gemini.CapturedVersion != captured || !strings.Contains(gemini.Finding, "gemini "+captured+" at ") {
		t.Errorf("gemini: %+v", gemini)
	}
	codex := find(t, checks, "agent CLI", "codex")
	if codex.Status != Warning || codex.Version != "9.0.0" || !strings.Contains(codex.Finding, "newer than "+CapturedVersions()["codex"]) ||
		!strings.Contains(codex.Fix, "npm install -g @openai/codex@"+CapturedVersions()["codex"]) {
		t.Errorf("codex: %+v", codex)
	}
	aider := find(t, checks, "agent CLI", "aider")
	if aider.Status != OK || aider.Version != "0.86.1" || aider.CapturedVersion != "" || !strings.Contains(aider.Finding, "records no version") {
		t.Errorf("aider: %+v", aider)
	}
	if n := Count(checks, Problem); n != 0 {
		t.Errorf("%d problems: %+v", n, checks)
	}
}

// A CLI that does not answer --version in time is a warning, not a hang.
func TestVersionTimeout(t *testing.T) {
	dir := t.TempDir()
	fakeBin(t, map[string]string{"claude": "while :; do :; done"})
	team := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(team, []byte("agents:\n  - name: dev\n    preset: claude-code\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	o := quiet(Options{Config: team, ConfigNamed: true, State: filepath.Join(dir, "state"), VersionTimeout: 200 * time.Millisecond})
	c := find(t, Run(o), "agent", "dev")
	if c.Status != Warning || !strings.Contains(c.Finding, "did not answer within 200ms") || !strings.Contains(c.Fix, "claude --version") {
		t.Errorf("dev: %+v", c)
	}
}

// The terminal lines: size, colours, tmux's escape-time.
func TestTerminalChecks(t *testing.T) {
	o := Options{
		LookupEnv:      env(map[string]string{"TERM": "screen", "TMUX": "/tmp/tmux-0/default,1,0"}),
		Terminal:       func() Terminal { return Terminal{Stdout: false, Cols: 70, Rows: 20} },
		TmuxEscapeTime: func() (int, error) { return 500, nil },
	}
	o.defaults()
	checks := terminalChecks(o)
	want := map[string]struct {
		status       Status
		finding, fix string
	}{
		"terminal":      {Warning, "stdout is not a terminal", "--headless"},
		"terminal size": {Warning, "70x20: the console needs at least 80x24", "at least 80x24"},
		"colours":       {Warning, "TERM=screen: 16 colours at most", "default-terminal tmux-256color"},
		"tmux/screen":   {Warning, "escape-time is 500 ms", "set -sg escape-time 10"},
	}
	for _, c := range checks {
		w := want[c.Check]
		if c.Status != w.status || !strings.Contains(c.Finding, w.finding) || !strings.Contains(c.Fix, w.fix) {
			t.Errorf("%s: %+v, want %v", c.Check, c, w)
		}
	}
	o.LookupEnv = env(map[string]string{"TERM": "xterm", "COLORTERM": "truecolor", "STY": "1.pts-0"})
	o.Terminal = func() Terminal { return Terminal{Stdout: true, Cols: 80, Rows: 24} }
	for _, c := range terminalChecks(o) {
		if c.Status != OK {
			t.Errorf("%s: %+v", c.Check, c)
		}
		if c.Check == "tmux/screen" && !strings.Contains(c.Finding, "GNU screen") {
			t.Errorf("%+v", c)
		}
	}
	o.LookupEnv = env(map[string]string{"TERM": "xterm-256color", "NO_COLOR": ""})
	if c := terminalChecks(o)[2]; c.Status != OK || !strings.Contains(c.Finding, "NO_COLOR is set") {
		t.Errorf("NO_COLOR: %+v", c)
	}
}

// Each trust warning of the kernel is a warning line saying what it means
// and what closes it.
func TestTrustChecks(t *testing.T) {
	o := Options{MachineWarnings: func() []string {
		return []string{"the kernel lets any process of your user trace any other (no Yama ptrace_scope, or 0): an agent's process could drive your own shell; set kernel.yama.ptrace_scope=1, or run agents as another user",
			"something new; do this"}
	}}
	checks := trustChecks(o)
	if len(checks) != 2 {
		t.Fatalf("%+v", checks)
	}
	if c := checks[0]; c.Status != Warning || c.Subject != "ptrace" || !strings.Contains(c.Finding, "that means") || !strings.Contains(c.Fix, "sysctl -w kernel.yama.ptrace_scope=1") {
		t.Errorf("%+v", c)
	}
	if c := checks[1]; c.Finding != "something new" || c.Fix != "do this" {
		t.Errorf("%+v", c)
	}
	o.MachineWarnings = func() []string { return nil }
	if c := trustChecks(o); len(c) != 1 || c[0].Status != OK {
		t.Errorf("%+v", c)
	}
	o.SandboxProblem = func() string { return "mount /proc for its PID namespace: operation not permitted" }
	if c := sandboxCheck(o); c.Status != Warning || c.Subject != "sandbox" || !strings.Contains(c.Finding, "mount /proc") || !strings.Contains(c.Fix, "user namespaces") {
		t.Errorf("%+v", c)
	}
	o.SandboxProblem = func() string { return "" }
	if c := sandboxCheck(o); c.Status != OK {
		t.Errorf("%+v", c)
	}
}

// The console line: one serving the socket is found with its pid and
// where it started; a lock left by a killed console is no trouble; a live
// process holding the lock with no socket is a warning.
func TestConsoleCheck(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	state := t.TempDir()
	if c := consoleCheck(state); c.Status != OK || c.Finding != "no console runs on it" {
		t.Errorf("none: %+v", c)
	}
	if err := os.MkdirAll(filepath.Join(state, "store"), 0o700); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(state, "store", "LOCK")
	// A pid no process has: above the kernel's largest.
	if err := os.WriteFile(lock, []byte("4194305\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := consoleCheck(state); c.Status != OK || !strings.Contains(c.Finding, "did not stop cleanly") {
		t.Errorf("stale lock: %+v", c)
	}
	if err := os.WriteFile(lock, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := consoleCheck(state); c.Status != Warning || c.PID != os.Getpid() || !strings.Contains(c.Fix, "kill "+strconv.Itoa(os.Getpid())) {
		t.Errorf("held lock: %+v", c)
	}
	ln, err := net.Listen("unix", filepath.Join(state, control.SocketName))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	stopped, err := control.Register(control.Registration{Dir: "/src/app", Config: "/src/app/team.yaml", State: state,
		Socket: filepath.Join(state, control.SocketName), PID: 4242, Started: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	defer stopped()
	c := consoleCheck(state)
	if c.Status != OK || c.PID != 4242 || !strings.Contains(c.Finding, "a console runs on this state folder (pid 4242), started in /src/app with the team file /src/app/team.yaml") {
		t.Errorf("running: %+v", c)
	}
}

// Agents' folders: one that can be made is fine; one under a file cannot
// be made; a Claude Code settings file that is not JSON gets no hooks.
func TestFolderChecks(t *testing.T) {
	dir := t.TempDir()
	fakeBin(t, map[string]string{"claude": "echo 2.1.0"})
	file := filepath.Join(dir, "afile")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(filepath.Join(bad, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, ".claude", "settings.local.json"), []byte("{oops"), 0o600); err != nil {
		t.Fatal(err)
	}
	team := filepath.Join(dir, "team.yaml")
	text := "agents:\n" +
		"  - {name: dev, preset: claude-code, dir: ./new/work}\n" +
		"  - {name: qa, preset: claude-code, dir: ./afile/work}\n" +
		"  - {name: rev, preset: claude-code, dir: ./bad}\n"
	if err := os.WriteFile(team, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	checks := Run(quiet(Options{Config: team, ConfigNamed: true, State: filepath.Join(dir, "state")}))
	n := 0
	for _, c := range checks {
		if c.Check != "agent folder" {
			continue
		}
		n++
		switch c.Folder {
		case filepath.Join(dir, "new", "work"):
			if c.Status != OK || !strings.Contains(c.Finding, "does not exist yet") || !strings.Contains(c.Finding, "(dev)") {
				t.Errorf("new: %+v", c)
			}
		case filepath.Join(dir, "afile", "work"):
			if c.Status != Problem || !strings.Contains(c.Finding, file+" is a file, not a folder") || !strings.Contains(c.Fix, "point dir: at a folder you own") {
				t.Errorf("under a file: %+v", c)
			}
		case bad:
			if c.Status != Warning || !strings.Contains(c.Finding, "is not JSON") {
				t.Errorf("bad settings: %+v", c)
			}
		default:
			t.Errorf("unexpected %+v", c)
		}
	}
	if n != 3 {
		t.Errorf("%d agent folder lines: %+v", n, checks)
	}
}

// TestVersionProbeRunsMarkedAsAnAgent: doctor runs the program a team file
// names, and a team file is a file an agent can write: the probe runs in a
// user namespace of its own, as an agent does, so what it starts cannot act
// as the human (red team round 4: a planted ./claude detached from
// doctor's probe and approved a request once doctor had exited).
func TestVersionProbeRunsMarkedAsAnAgent(t *testing.T) {
	probe := exec.Command("/bin/sh", "-c", "exit 0")
	if !agents.Isolate(probe) {
		t.Skip("this kernel gives this user no user namespace: doctor's probes run as before")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	runtime := filepath.Join(dir, "runtime")
	team := filepath.Join(dir, "team", "team.yaml")
	for _, d := range []string{out, runtime, filepath.Dir(team)} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(runtime, "bus"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(team, []byte("agents: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// The session's servers' folder, which the probe must not see into.
	t.Setenv("XDG_RUNTIME_DIR", runtime)
	prog := filepath.Join(dir, "claude")
	script := "#!/bin/sh\nreadlink /proc/self/ns/user > " + out + "/user\nreadlink /proc/self/ns/pid > " + out + "/pid\n" +
		"ls -A " + runtime + " > " + out + "/runtime\n" +
		"if echo forged >> " + team + "; then echo wrote > " + out + "/team; fi\n" +
		"if mv " + filepath.Dir(team) + " " + filepath.Dir(team) + ".moved; then echo moved > " + out + "/moved; fi\n" +
		"echo 2.1.0\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if r := runVersion(prog, 10*time.Second, []string{team}); r.err != nil || r.version != "2.1.0" {
		t.Fatalf("probe: %+v", r)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(out, name))
		return strings.TrimSpace(string(b))
	}
	ours, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		t.Fatal(err)
	}
	if theirs := read("user"); theirs == "" || theirs == ours {
		t.Fatalf("the probe ran in doctor's own user namespace %s (%q)", ours, theirs)
	}
	if agents.SandboxProblem() != "" {
		return // a user namespace alone: the rest needs the sandbox
	}
	// In a sandbox (the fifth red team's probe reached the human's tmux
	// from doctor's): its own PID namespace, the session's servers
	// hidden, teamlead's files read-only and not to be moved away.
	if ownPID, _ := os.Readlink("/proc/self/ns/pid"); read("pid") == ownPID {
		t.Errorf("the probe ran in doctor's PID namespace")
	}
	if got := read("runtime"); got != "" {
		t.Errorf("the probe saw into $XDG_RUNTIME_DIR: %q", got)
	}
	if read("team") != "" || read("moved") != "" {
		t.Errorf("the probe changed the team file (%q) or moved its folder (%q)", read("team"), read("moved"))
	}
	if b, _ := os.ReadFile(team); string(b) != "agents: []\n" {
		t.Errorf("team file now %q", b)
	}
}

// teamlead doctor reads the Claude Code settings an agent writes: a FIFO
// there holds it no longer.
func TestFolderCheckReadsNoFIFO(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, ".claude", "settings.local.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan Check, 1)
	go func() { done <- folderCheck(&folder{dir: dir, agents: []string{"dev"}, claude: true}) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("teamlead doctor waits on a FIFO an agent put for its settings")
	}
}
