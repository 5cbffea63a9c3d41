package engine

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/teamlead/teamlead/internal/config"
)

// Each agent's sandbox shows empty the query folders of the agents that
// work in folders of their own, made if missing; not its own, nor the
// one it shares, nor a remote agent's (red team 19b, findings 1 and 2).
func TestOthersQueriesAreTheirFoldersOfTheirOwn(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	team := &config.Team{Agents: []config.Agent{{Name: "a", Dir: a}, {Name: "b", Dir: b}, {Name: "c", Dir: a}, {Name: "far", Dir: root, Host: "n2"}}}
	e := &Engine{opts: Options{Team: team}}
	got := e.othersQueries("a")
	if want := []string{filepath.Join(b, ".spc", "queries")}; !slices.Equal(got, want) {
		t.Fatalf("for a: %q, want %q", got, want)
	}
	if got := e.othersQueries("b"); !slices.Equal(got, []string{filepath.Join(a, ".spc", "queries")}) {
		t.Fatalf("for b: %q", got)
	}
}
