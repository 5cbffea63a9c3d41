package guard

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/store"
)

type setup struct {
	strict bool // another team's console has run on the machine
	t      *testing.T
	dir    string
	state  string
	files  []string
}

func newSetup(t *testing.T) *setup {
	dir := t.TempDir()
	s := &setup{t: t, dir: dir, state: filepath.Join(dir, "state")}
	for _, name := range []string{"team.yaml", "permissions.yaml", "answerers.yaml"} {
		s.files = append(s.files, filepath.Join(dir, name))
	}
	s.write("team.yaml", "agents: []\n")
	s.write("permissions.yaml", "default: ask\n")
	return s
}

func (s *setup) write(name, body string) {
	s.t.Helper()
	if err := os.WriteFile(filepath.Join(s.dir, name), []byte(body), 0o644); err != nil {
		s.t.Fatal(err)
	}
}

// console opens the store and the guard as a starting console does.
func (s *setup) console() (*store.Store, *Guard, []string) {
	s.t.Helper()
	st, err := store.Open(s.state, store.Options{})
	if err != nil {
		s.t.Fatal(err)
	}
	g, bad, err := Open(st, s.files, s.strict)
	if err != nil {
		s.t.Fatal(err)
	}
	return st, g, bad
}

// TestChangeWhileAgentsRunWaitsForTheHuman: a file changed while a
// console ran stops the next start until the human accepts it; a change
// made while no console ran is the human's and passes.
func TestChangeWhileAgentsRunWaitsForTheHuman(t *testing.T) {
	s := newSetup(t)
	st, g, bad := s.console()
	if len(bad) != 0 || g == nil {
		t.Fatalf("the first start needs nothing: %v", bad)
	}
	s.write("permissions.yaml", "default: ask\nrules:\n  - match: Bash(curl:*)\n    decide: allow\n")
	s.write("answerers.yaml", "routes: []\n") // a file created while agents ran counts too
	if got := g.look(); strings.Join(got, " ") != s.files[2]+" "+s.files[1] && strings.Join(got, " ") != s.files[1]+" "+s.files[2] {
		t.Fatalf("seen changed: %v", got)
	}
	if got := g.look(); len(got) != 0 {
		t.Fatalf("a change is told once: %v", got)
	}
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, g, bad = s.console()
	if g != nil || len(bad) != 2 {
		t.Fatalf("the next start must wait for the human: %v", bad)
	}
	state, _, err := Load(st)
	if err != nil {
		t.Fatal(err)
	}
	now := Take(s.files)
	if d := state.Diff(s.files[1], now[s.files[1]]); !strings.Contains(d, "+  - match: Bash(curl:*)") || !strings.Contains(d, "(accepted)") {
		t.Fatalf("diff:\n%s", d)
	}
	state.Accept(now, s.files[1], s.files[2])
	if err := Save(st, state); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st, g, bad = s.console()
	if g == nil || len(bad) != 0 {
		t.Fatalf("accepted, the start goes on: %v", bad)
	}
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.write("team.yaml", "agents: []\n# edited by the human between runs\n")
	st, g, bad = s.console()
	if g == nil || len(bad) != 0 {
		t.Fatalf("a change made while no console ran is the human's: %v", bad)
	}
	g.Close()
	st.Close()
}

// TestKilledConsoleLeavesEveryDifferenceToLookAt: a console that never
// closed its guard (SIGKILL) may have missed a change: every file that
// differs from what it started with waits for the human; one that was put
// back does not.
func TestKilledConsoleLeavesEveryDifferenceToLookAt(t *testing.T) {
	s := newSetup(t)
	st, _, _ := s.console() // never closed: killed
	st.Close()
	s.write("team.yaml", "agents: [x]\n")
	st, g, bad := s.console()
	if g != nil || len(bad) != 1 || bad[0] != s.files[0] {
		t.Fatalf("want team.yaml to wait, got %v", bad)
	}
	st.Close()
	s.write("team.yaml", "agents: []\n")
	st, g, bad = s.console()
	if g == nil || len(bad) != 0 {
		t.Fatalf("back as it was: %v", bad)
	}
	g.Close()
	st.Close()
}

// TestConsoleWriteIsTheHumans: an approve-always rule the console adds is
// accepted with the file; but on a file someone else changed, the console
// writes nothing and says so.
func TestConsoleWriteIsTheHumans(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	defer st.Close()
	policy := s.files[1]
	want := "default: ask\n# rule added by the console\n"
	out, err := g.Write(policy, func(current []byte) ([]byte, error) { return []byte(want), nil })
	if err != nil || string(out) != want {
		t.Fatalf("write: %q, %v", out, err)
	}
	if b, _ := os.ReadFile(policy); string(b) != want {
		t.Fatalf("the file holds %q", b)
	}
	if got := g.look(); len(got) != 0 {
		t.Fatalf("the console's own write is not a change behind its back: %v", got)
	}
	s.write("permissions.yaml", "default: ask\nrules: [{match: Bash, decide: allow}]\n")
	wrote := false
	_, err = g.Write(policy, func([]byte) ([]byte, error) { wrote = true; return nil, nil })
	if !errors.Is(err, ErrChanged) || wrote {
		t.Fatalf("write over someone else's change: err %v, wrote %v", err, wrote)
	}
	if changed, err := g.Close(); err != nil || len(changed) != 0 {
		t.Fatalf("close: %v %v (the change was already recorded)", changed, err)
	}
	state, _, _ := Load(st)
	if _, ok := state.Changed[policy]; !ok {
		t.Fatal("the change under the refused write is not recorded")
	}
}

// TestRunTellsAChange: the watch loop reports a change on its own.
func TestRunTellsAChange(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	seen := make(chan string, 4)
	go g.Run(ctx, 10*time.Millisecond, func(p string) { seen <- p })
	s.write("team.yaml", "agents: [evil]\n")
	select {
	case p := <-seen:
		if p != s.files[0] {
			t.Fatalf("told %s", p)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no change told in 20 s")
	}
}

// TestFifoIsNotWaitedOn: a FIFO an agent put in a file's place is read as
// not a regular file, at once.
func TestFifoIsNotWaitedOn(t *testing.T) {
	s := newSetup(t)
	if err := syscall.Mkfifo(s.files[2], 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan File, 1)
	go func() { done <- Take(s.files)[s.files[2]] }()
	select {
	case f := <-done:
		if f.Err == "" || f.Missing {
			t.Fatalf("a FIFO read as %+v", f)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("still reading a FIFO after 20 s")
	}
}

// A file of teamlead's that appears while no console runs (an agent of
// another console made it: a sandbox protects only files that exist)
// waits for the human too; a changed one that existed is the human's.
func TestNewFileWaitsForTheHuman(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.write("answerers.yaml", "routes: []\n") // absent when the console started
	s.write("permissions.yaml", "default: deny\n")
	st, g, bad := s.console()
	if g != nil || len(bad) != 1 || bad[0] != s.files[2] {
		t.Fatalf("want answerers.yaml alone to wait, got %v", bad)
	}
	st.Close()
}

// TestChangeWhileStoppedWaitsWhenAnotherConsoleRan: on a machine where
// another team's console has run, a change made while this team's
// console was stopped waits for the human too — that console's agents
// could have made it (red team 9a) — and once accepted it passes.
func TestChangeWhileStoppedWaitsWhenAnotherConsoleRan(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	if _, err := g.Close(); err != nil {
		t.Fatal(err)
	}
	st.Close()
	s.write("permissions.yaml", "default: ask\nrules:\n  - match: Bash(curl:*)\n    decide: allow\n")
	s.strict = true
	st, g, bad := s.console()
	if g != nil || len(bad) != 1 || bad[0] != s.files[1] {
		t.Fatalf("the change made while stopped: %v (guard %v)", bad, g != nil)
	}
	state, _, err := Load(st)
	if err != nil {
		t.Fatal(err)
	}
	state.Accept(Take(s.files))
	if err := Save(st, state); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, g, bad := s.console(); g == nil || len(bad) != 0 {
		t.Fatalf("after accepting: %v", bad)
	}
}

// What a loader parsed is held against what the guard accepted: a file
// that changed between the two looks is named.
func TestDiffersNamesAFileLoadedOtherThanChecked(t *testing.T) {
	s := newSetup(t)
	st, g, _ := s.console()
	defer st.Close()
	now := Take(s.files)
	read := map[string]string{s.files[0]: now[s.files[0]].Hash, s.files[1]: now[s.files[1]].Hash}
	if d := g.Differs(read); len(d) != 0 {
		t.Fatalf("the same content: %v", d)
	}
	read[s.files[1]] = "0123" // loaded something else
	missing := filepath.Join(filepath.Dir(s.files[0]), "presets.yaml")
	read[missing] = "" // not there for both: fine
	if d := g.Differs(read); len(d) != 1 || d[0] != s.files[1] {
		t.Fatalf("differs: %v", d)
	}
}
