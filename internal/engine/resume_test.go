package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/config"
	"github.com/teamlead/teamlead/internal/usage"
)

// GitHub Copilot CLI names no conversation to a hook: the console finds it
// in the session events under the agent's home whose first line names the
// agent's folder (preset session_file), keeps its id for the next start
// (--resume=<id>), and reads what it spent from its usage records (the
// fixture Copilot CLI 1.0.102 wrote: 40 tokens in, 32 out).
func TestCopilotSessionFound(t *testing.T) {
	dir := t.TempDir()
	home, project := filepath.Join(dir, "home"), filepath.Join(dir, "project")
	for _, d := range []string{home, project} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	const id = "fd2ff0c0-eabd-4969-8dd2-2bb41a7c7e56"
	// The CLI holds a file of its session's folder open, as Copilot CLI
	// holds inuse.<pid>.hold: that is how the console knows the folder is
	// this agent's.
	hold := filepath.Join(home, ".copilot", "session-state", id, "inuse.1.hold")
	script := filepath.Join(dir, "dev.sh")
	if err := os.WriteFile(script, []byte(fmt.Sprintf("until [ -e %q ]; do sleep 0.02; done\nexec 3< %q\nsleep 600\n", hold, hold)), 0o600); err != nil {
		t.Fatal(err)
	}
	team := fmt.Sprintf("agents:\n  - name: dev\n    role: dev\n    preset: copilot\n    restart: never\n    dir: %q\n    command: [bash, %q]\n    env: {HOME: %q}\n", project, script, home)
	file := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(file, []byte(team), 0o600); err != nil {
		t.Fatal(err)
	}
	tm, err := config.LoadTeam(file)
	if err != nil {
		t.Fatal(err)
	}
	r := startLoaded(t, dir, tm)
	b, err := os.ReadFile("../usage/testdata/copilot-1.0.102-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.ReplaceAll(string(b), `"cwd":"/tmp/x16/cpproj"`, `"cwd":"`+project+`"`))
	// Another folder's conversation, written later, is not the agent's;
	// nor is one naming its folder that its CLI does not hold (another
	// agent wrote it in the home they share: red team 19b, finding 4).
	other := []byte(strings.ReplaceAll(string(b), id, "0ther"))
	other = []byte(strings.ReplaceAll(string(other), `"cwd":"`+project+`"`, `"cwd":"/elsewhere"`))
	forged := []byte(strings.ReplaceAll(string(b), id, "f0rged"))
	for _, f := range []struct {
		name string
		text []byte
	}{{id, b}, {"0ther", other}, {"f0rged", forged}} {
		path := filepath.Join(home, ".copilot", "session-state", f.name, "events.jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, f.text, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(hold, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	s := r.e.sinks["dev"]
	found := func() string {
		r.e.findSession("dev")
		s.session.mu.Lock()
		defer s.session.mu.Unlock()
		return s.session.id
	}
	deadline := time.Now().Add(10 * time.Second)
	for found() == "" && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond) // until the CLI holds its file
	}
	if got := found(); got != id {
		t.Fatalf("the conversation found: %q, want %q", got, id)
	}
	if tk := s.spend.total(); tk != (usage.Tokens{Input: 40, Output: 32}) {
		t.Errorf("what it spent: %+v", tk)
	}
	if args := r.e.startArgs("dev"); strings.Join(args, " ") != "--resume="+id {
		t.Errorf("the next start's arguments: %q", args)
	}
}

// A total a CLI keeps itself (OpenCode's database) replaces the last one
// read for the same conversation; another conversation's adds to it, as
// does a transcript read after.
func TestSpendKeptTotals(t *testing.T) {
	var sp spend
	sp.set("db#a", usage.Tokens{Input: 10, Output: 5})
	sp.set("db#a", usage.Tokens{Input: 20, Output: 9, CacheRead: 3})
	if got := sp.total(); got != (usage.Tokens{Input: 20, Output: 9, CacheRead: 3}) {
		t.Fatalf("one conversation: %+v", got)
	}
	sp.set("db#b", usage.Tokens{Input: 1, Output: 1})
	if got := sp.total(); got != (usage.Tokens{Input: 21, Output: 10, CacheRead: 3}) {
		t.Fatalf("two conversations: %+v", got)
	}
	path := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"assistant","message":{"id":"m1","usage":{"input_tokens":100,"output_tokens":7}}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sp.read(path, transcriptClaude)
	if got := sp.total(); got != (usage.Tokens{Input: 121, Output: 17, CacheRead: 3}) {
		t.Fatalf("and a transcript: %+v", got)
	}
}
