package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testbin"
)

// The README's Quick start commands ("While either runs, from another
// terminal") run as written, in the repository's folder, against the demo
// team that `make demo` starts on a fresh state.
func TestReadmeQuickStartCommands(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	makefile, err := os.ReadFile(filepath.Join(root, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	// What `make demo` runs (checked against the Makefile, so the two agree).
	for _, line := range []string{"CONFIG    ?= configs/team.yaml", "STATE     ?= .teamlead-demo", "$(BIN)/teamlead run --headless --config $(CONFIG) --state $(STATE)"} {
		if !strings.Contains(string(makefile), line) {
			t.Fatalf("the Makefile no longer has %q: update this test", line)
		}
	}
	commands := readmeBlock(t, string(readme), "While either runs, from another terminal")

	project, env := demoProject(t, root)
	demo := exec.Command("bin/teamlead", "run", "--headless", "--config", "configs/team.yaml", "--state", ".teamlead-demo")
	out := &testbin.Buffer{}
	demo.Dir, demo.Env, demo.Stdout, demo.Stderr = project, env, out, out
	if err := demo.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- demo.Wait() }()
	defer func() {
		_ = demo.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			_ = demo.Process.Kill()
			<-done
		}
	}()
	run := func(line string) (string, error) {
		cmd := exec.Command("/bin/sh", "-c", line)
		cmd.Dir, cmd.Env = project, env
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	waitFor(t, 30*time.Second, "qa's question and dev's request in the inbox", func() bool {
		got, _ := run("bin/teamlead inbox --state .teamlead-demo")
		return strings.Contains(got, "q-0001") && strings.Contains(got, "p-2")
	}, func() string { return out.String() })

	said := map[string]string{}
	for _, line := range commands {
		got, err := run(line)
		if err != nil {
			t.Errorf("%s: %v\n%s", line, err, got)
		}
		said[strings.Fields(line)[1]] = got
	}
	for cmd, want := range map[string]string{
		"inbox":   "q-0001  qa",
		"answer":  "answered q-0001 (qa, general: May I run the load test against staging tonight?); the answer goes to qa\n",
		"approve": "approved p-2 (dev: Bash(rm -rf /var/cache/dashboard)) once\n",
		"send":    "sent to dev: please also write a test\n",
		"agents":  "qa         qa         running",
	} {
		if _, ok := said[cmd]; ok && !strings.Contains(said[cmd], want) {
			t.Errorf("bin/teamlead %s printed\n%s\nwant it to contain %q", cmd, said[cmd], want)
		}
	}
	waitFor(t, 20*time.Second, "the answer typed into qa", func() bool { return strings.Contains(out.String(), "q-0001 → qa (answer)") },
		func() string { return out.String() })
}

// demoProject is a copy of the repository's folder as `make build` leaves
// it: configs/ copied from root, bin/teamlead and bin/mockagent linked to
// the test's binaries. env is the environment of the commands run in it:
// no TEAMLEAD_* from the test's, and its own record of running consoles.
func demoProject(t *testing.T, root string) (project string, env []string) {
	t.Helper()
	project = t.TempDir()
	if err := os.CopyFS(filepath.Join(project, "configs"), os.DirFS(filepath.Join(root, "configs"))); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(project, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, path := range map[string]string{"teamlead": bin.teamlead, "mockagent": bin.mockagent} {
		if err := os.Symlink(path, filepath.Join(project, "bin", name)); err != nil {
			t.Fatal(err)
		}
	}
	env = append(os.Environ(), "TEAMLEAD_STATE=", "TEAMLEAD_CONFIG=", "TEAMLEAD_SOCKET=", "XDG_STATE_HOME="+filepath.Join(project, "xdg-state"))
	return project, env
}

// readmeBlock is the command lines of the first ```sh block after the
// paragraph starting with intro.
func readmeBlock(t *testing.T, readme, intro string) []string {
	t.Helper()
	_, after, ok := strings.Cut(readme, intro)
	if !ok {
		t.Fatalf("the README has no %q", intro)
	}
	_, block, ok := strings.Cut(after, "```sh\n")
	if !ok {
		t.Fatal("no ```sh block after it")
	}
	block, _, _ = strings.Cut(block, "```")
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		t.Fatal("the block is empty")
	}
	return lines
}
