//go:build soak

package soak

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/teamlead/teamlead/internal/testbin"
)

// The soak runs with -tags soak (make soak-short, make soak): it takes
// minutes and is not part of `go test ./...`.
var (
	duration     = flag.Duration("soak.duration", 2*time.Minute, "how long the agents send")
	agents       = flag.Int("soak.agents", 20, "agents (odd ones echo, even ones raw)")
	rate         = flag.Float64("soak.rate", 2, "messages per second each agent starts")
	seed         = flag.Uint64("soak.seed", 0, "seed of every random choice (0: from the clock, printed)")
	consoleEvery = flag.Duration("soak.console-kill", 40*time.Second, "mean pause between SIGKILLs of the console (0: none)")
	agentEvery   = flag.Duration("soak.agent-kill", 8*time.Second, "mean pause between SIGKILLs of an agent (0: none)")
	teamlead     = flag.String("soak.teamlead", "", "the teamlead binary to soak (default: built from this tree)")
	recheck      = flag.String("soak.recheck", "", "judge the logs of a past run in `DIR` again (traffic invariants only) instead of running")
	dir          = flag.String("soak.dir", "", "folder for the run's logs (default: a new one under the system's temporary folder, kept when the soak fails)")
)

var bin testbin.Bins

func TestMain(m *testing.M) {
	flag.Parse()
	testbin.Main(m.Run, &bin)
}

func TestSoak(t *testing.T) {
	if *recheck != "" {
		recheckLogs(t, *recheck)
		return
	}
	s := *seed
	if s == 0 {
		s = uint64(time.Now().UnixNano() % 1_000_000)
	}
	d := *dir
	if d == "" {
		var err error
		if d, err = os.MkdirTemp("", fmt.Sprintf("teamlead-soak-%d-", s)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("soak: seed %d (set with -soak.seed=%d), logs in %s", s, s, d)
	ctx, cancel := context.WithTimeout(context.Background(), *duration+10*time.Minute)
	defer cancel()
	tl := bin.Teamlead
	if *teamlead != "" {
		tl = *teamlead
		t.Logf("soak: teamlead binary %s", tl)
	}
	res, err := Run(ctx, Options{Teamlead: tl, Mockagent: bin.Mockagent, Dir: d, Agents: *agents,
		Duration: *duration, Rate: *rate, Seed: s, ConsoleKillEvery: *consoleEvery, AgentKillEvery: *agentEvery,
		Progress: testWriter{t}})
	if err != nil {
		t.Fatalf("soak could not run (seed %d, logs in %s): %v", s, d, err)
	}
	var b strings.Builder
	res.Format(&b)
	if res.Failed() {
		t.Fatalf("soak found broken invariants (seed %d):\n%s", s, b.String())
	}
	t.Log("\n" + b.String())
	if res.Tally.Sent == 0 || res.Tally.Acked == 0 {
		t.Fatalf("no traffic: %d sent, %d acknowledged; see %s", res.Tally.Sent, res.Tally.Acked, filepath.Join(d, "console-1.log"))
	}
	if *dir == "" {
		_ = os.RemoveAll(d)
	}
}

// testWriter sends progress lines to the test log as they come.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// recheckLogs applies the traffic invariants to a past run's logs (every
// NAME.log in dir), as the final check does; the kill counts are not in
// the logs, so the report gives none.
func recheckLogs(t *testing.T, dir string) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.log"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		if n := strings.TrimSuffix(filepath.Base(p), ".log"); !strings.HasPrefix(n, "console-") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		t.Fatalf("no traffic logs (NAME.log) in %s", dir)
	}
	logs, errs := ReadLogs(dir, names)
	for _, err := range errs {
		t.Error(err)
	}
	tally, vs := Check(logs, Crashes{}, nil)
	c := Count(vs)
	t.Logf("%s: %d agents, %+v", dir, len(names), tally)
	for _, inv := range Invariants {
		t.Logf("  %-17s %d", inv, c[inv])
	}
	for _, v := range vs {
		if v.Invariant != Refusal && v.Invariant != NoticeOfNotice {
			t.Logf("  %s", v)
		}
	}
	if len(vs) > 0 {
		t.Fail()
	}
}
