package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	script := filepath.Join(dir, "dev.sh")
	if err := os.WriteFile(script, []byte("sleep 600\n"), 0o600); err != nil {
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
	const id = "fd2ff0c0-eabd-4969-8dd2-2bb41a7c7e56"
	b, err := os.ReadFile("../usage/testdata/copilot-1.0.102-events.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	b = []byte(strings.ReplaceAll(string(b), `"cwd":"/tmp/x16/cpproj"`, `"cwd":"`+project+`"`))
	// Another folder's conversation, written later, is not the agent's.
	other := []byte(strings.ReplaceAll(string(b), id, "0ther"))
	other = []byte(strings.ReplaceAll(string(other), `"cwd":"`+project+`"`, `"cwd":"/elsewhere"`))
	for name, text := range map[string][]byte{id: b, "0ther": other} {
		path := filepath.Join(home, ".copilot", "session-state", name, "events.jsonl")
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, text, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	r.e.findSession("dev")
	s := r.e.sinks["dev"]
	s.session.mu.Lock()
	got := s.session.id
	s.session.mu.Unlock()
	if got != id {
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
